"""A protected SDK MCP server taking JWT access tokens of another authorization server, for
the third-party sign-in tests (tests/auth/test_third_party.py; in front of oidc-provider).

The MCP server is the one of tests/servers/sdk_auth_server.py (an SDK `MCPServer` with
`AuthSettings`: bearer-token middleware, RFC 9728 protected resource metadata naming
`--issuer`, tokens checked against its own URL); its token verifier checks a JWT access
token (RFC 9068) with PyJWT: signed by a key of the issuer's JWKS (`jwks_uri` of its
metadata, read at each request, so that a restarted issuer's old tokens are refused),
`iss` the issuer, `aud` this server, not expired; its
`scope` and `client_id` claims are the token's scopes and client.

With `--dpop MODE` it takes DPoP (RFC 9449) as tests/servers/oauth_identity.py
`DpopPolicy` says: "bearer" (the default: it knows nothing of DPoP, as the SDK's resource
servers), "capable" or "required" (DPoP-bound tokens only), saying so in its metadata and
challenges; a DPoP-bound token (its JWT's `cnf.jkt`) is taken only as `Authorization: DPoP`
with a valid proof by that key (`htm`, `htu` this URL, `ath`, a fresh `iat` and `jti`).

Tools: `whoami` (as in sdk_auth_server.py).

Test hooks (on this server's origin): `POST /_test/expire`: every access token seen so far
is refused from now on; `POST /_test/resource-dpop?mode=M`: DPoP taken as mode M says from
now on.

Command line: --issuer URL (required), --port N (0: any free one) or --fd N (serve on the
listening socket inherited as file descriptor N: its URL can be known, and given to the
issuer, before this server starts), --ready-file PATH ({"mcp": URL, "pid": N}), --record
FILE, --required-scope S (default mcp:read), --dpop MODE.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import anyio
import httpx2
import jwt
from mcp.server.auth.provider import AccessToken
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import listen, rewrite_json_response, serve_apps
from oauth_identity import DpopGate, DpopPolicy, verify_proof
from sdk_auth_server import protected_mcp


class JwtVerifier:
    """An SDK `TokenVerifier` for the JWT access tokens of `issuer` meant for `resource`."""

    def __init__(self, issuer: str, resource: str):
        self.issuer = issuer
        self.resource = resource
        self.jwks: jwt.PyJWKClient | None = None
        self.seen: set[str] = set()
        self.expired: set[str] = set()

    def _decode(self, token: str) -> dict[str, Any]:
        if self.jwks is None:
            metadata = httpx2.get(self.issuer + "/.well-known/oauth-authorization-server", timeout=30).json()
            # no cache: the keys are read at each request, so a restarted issuer's old
            # tokens are refused at once (a cache would take them until it expires)
            self.jwks = jwt.PyJWKClient(metadata["jwks_uri"], cache_keys=False, cache_jwk_set=False)
        key = self.jwks.get_signing_key_from_jwt(token)
        return jwt.decode(token, key.key, algorithms=["RS256", "PS256", "ES256", "EdDSA"], audience=self.resource,
                          issuer=self.issuer, options={"require": ["exp", "iss", "aud"]})

    async def verify_token(self, token: str) -> AccessToken | None:
        if token in self.expired:
            return None
        try:
            claims = await anyio.to_thread.run_sync(self._decode, token)
        except (jwt.PyJWTError, httpx2.HTTPError, KeyError, ValueError):
            return None
        self.seen.add(token)
        return AccessToken(token=token, client_id=str(claims.get("client_id")),
                           scopes=str(claims.get("scope") or "").split(), expires_at=int(claims["exp"]),
                           resource=self.resource)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--issuer", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--fd", type=int)
    p.add_argument("--ready-file")
    p.add_argument("--record")
    p.add_argument("--required-scope", default="mcp:read")
    p.add_argument("--dpop", choices=DpopPolicy.MODES, default="bearer")
    args = p.parse_args()
    if args.fd is not None:
        import socket

        sock = socket.socket(fileno=args.fd)
        port = sock.getsockname()[1]
    else:
        sock, port = listen(args.port)
    resource = f"http://127.0.0.1:{port}/mcp"
    metadata_url = f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
    verifier = JwtVerifier(args.issuer, resource)
    app = protected_mcp(args.issuer, resource, verifier, args.required_scope)
    policy = DpopPolicy(args.dpop)

    async def expire(request: Request) -> JSONResponse:
        verifier.expired |= verifier.seen
        return JSONResponse({"expired": len(verifier.expired)})

    app.router.routes.append(Route("/_test/expire", expire, methods=["POST"]))
    app.router.routes.append(policy.route())
    jtis: set[str] = set()

    def check(proof: str | None, method: str, token: str) -> tuple[str | None, str | None]:
        jkt, error, _ = verify_proof(proof, method, resource, jtis, token=token)
        return jkt, error

    gated = DpopGate(WithDpopMetadata(app, policy, metadata_url), resource, "/mcp", metadata_url, policy, check,
                     bound_key)
    serve_apps([(gated, sock)], ready_file=args.ready_file, record=args.record, ready={"mcp": resource})


def bound_key(token: str) -> str | None:
    """The `cnf.jkt` of a JWT access token (RFC 9449 section 6.1), or None (a bearer token,
    or no JWT: the verifier refuses it)."""
    try:
        cnf = jwt.decode(token, options={"verify_signature": False}).get("cnf")
    except jwt.PyJWTError:
        return None
    return cnf.get("jkt") if isinstance(cnf, dict) and isinstance(cnf.get("jkt"), str) else None


class WithDpopMetadata:
    """The SDK's protected resource metadata (at `metadata_url`'s path) with the members
    `policy` adds about DPoP (RFC 9728 section 2)."""

    def __init__(self, app: Any, policy: DpopPolicy, metadata_url: str):
        from urllib.parse import urlsplit

        self.app, self.policy, self.path = app, policy, urlsplit(metadata_url).path

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != self.path or not self.policy.metadata():
            await self.app(scope, receive, send)
            return
        await rewrite_json_response(self.app, scope, receive, send, lambda doc: {**doc, **self.policy.metadata()})


if __name__ == "__main__":
    main()
