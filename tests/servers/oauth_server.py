"""A protected MCP server and its OAuth 2.1 authorization server, for the sign-in tests.

Both run in this one process, each on its own 127.0.0.1 port (two origins), sharing one
in-memory store:

- The authorization server (AS) is the official SDK's (`mcp.server.auth`): its routes for
  RFC 8414 metadata, `/authorize`, `/token`, `/register` (RFC 7591) and `/revoke` (RFC 7009),
  over `InMemoryProvider` below, an `OAuthAuthorizationServerProvider` that approves every
  authorization request at once (no login page) and redirects to the client's loopback
  redirect URI with `code`, `state` and `iss` (RFC 9207). On top of the SDK's token endpoint,
  the `client_credentials` grant of the OAuth client credentials extension
  (`client_secret_basic`, `client_secret_post`, `private_key_jwt` checked with PyJWT).
- The MCP server is a lowlevel SDK `Server` over Streamable HTTP at `/mcp`, behind the SDK's
  bearer-token middleware, with its RFC 9728 protected resource metadata at
  `/.well-known/oauth-protected-resource/mcp`. A 401 carries
  `WWW-Authenticate: Bearer error=..., resource_metadata="...", scope="..."`; a tool with a
  higher scope (`admin_tool` by default) answers 403 `insufficient_scope` naming that scope.

Tools: `echo {text}`, `whoami` (the client id and scopes of the token used), `admin_tool`
(needs the `--tool-scope` scope), `ask` (an MRTR round asking a question, then the answer),
`hop` (with `--hop-to URL`: the HTTP request is redirected there with 307, to test that a token
never follows to another origin).

Test hooks on the AS origin (the tests read and steer the server through them):
- `GET /_test/stats`: JSON with the count of token requests (total and per grant type), the
  log of token requests (grant, client id, resource, scope, client auth method), the numbers of
  registrations and authorization requests, the authorization requests' query parameters,
  every access token, refresh token and client secret issued, and the revoked tokens.
- `POST /_test/expire`: every access token issued so far is from now on refused (as if expired).
- `POST /_test/drop-refresh`: every refresh token issued so far stops working.
- `POST /_test/forget`: forget every registered client, code and token, as a restart of an
  in-memory server does (pre-registered clients stay).
- `POST /_test/resource-dpop?mode=M` (with --dpop): the MCP server takes DPoP from now on as
  mode M says: bearer, capable or required (`DpopPolicy`).

Command line (all optional):
  --ready-file PATH     write {"mcp": URL, "issuer": URL, "stats": URL} there once serving
  --port N              the MCP server's port (default: any free one)
  --auth-port N         the authorization server's port (default: any free one)
  --keep-running        do not end when the parent process ends (examples/servers/protected.py
                        runs this in the background; a test's server ends with its test run)
  --record FILE         append every HTTP request (both origins) to FILE (tests/servers/common.py)
  --token-lifetime S    access-token lifetime in seconds (default 3600)
  --no-refresh          issue no refresh tokens (and do not advertise the grant)
  --scopes "A B"        scopes_supported (default "mcp:read mcp:admin")
  --required-scope A    scope every MCP request needs (default mcp:read; "" for none)
  --tool-scope T=S      tool T needs scope S as well (default admin_tool=mcp:admin); repeatable
  --no-challenge-scope  leave `scope` out of the 401 challenge
  --offline-access      list offline_access in scopes_supported
  --default-scopes "A"  what a registration without `scope` is registered for (default: every
                        scope of --scopes, the SDK's routes then refuse any other)
  --client-id ID        a pre-registered client (with --client-secret S, --client-auth-method M
                        none|client_secret_basic|client_secret_post|private_key_jwt,
                        --client-public-key PEM for private_key_jwt, --client-credentials to allow
                        the client_credentials grant for it)
  --public-client ID    another pre-registered public client (no secret); repeatable
  --no-dcr              no dynamic client registration
  --no-revocation       no revocation endpoint
  --no-iss              no `iss` on the authorization response (nor advertised)
  --deny                answer every authorization request with error=access_denied
  --echo-request        answer every client_credentials request with invalid_client, its
                        error_description echoing the request (form and Authorization header)
  --hop-to URL          where the `hop` tool's request is redirected (307)
  --withhold-scope S    never grant scope S, whatever is asked (a step-up that cannot succeed)
  --cimd                accept Client ID Metadata Documents: an https:// client_id is fetched (the
                        test's self-signed certificate accepted) and used as the client's metadata
  --dpop, --dpop-nonce, --trust-key PEM
                        DPoP-bound tokens (with nonces), the JWT bearer grant and an ID-JAG
                        identity provider at /idp/token: tests/servers/oauth_identity.py
                        With --dpop the MCP server takes DPoP-bound and bearer tokens, and says so in
                        its metadata and challenges (tests/servers/oauth_identity.py `DpopPolicy`):
  --bearer-only-resource  with --dpop: the MCP server knows nothing of DPoP (bearer tokens only)
  --dpop-required       with --dpop: the MCP server takes DPoP-bound tokens only
  --resource-dpop-signal S  where the MCP server says it takes DPoP: both (default), metadata,
                        challenge or none
  --resource-dpop-algs "A B"  the proof algorithms it names (default ES256)
  --dpop-unlisted       with --dpop: the authorization server takes DPoP proofs but does not list
                        dpop_signing_alg_values_supported in its metadata
  --as-ignores-dpop     with --dpop: the authorization server knows nothing of DPoP (it ignores a
                        proof and issues bearer tokens); only the MCP server takes DPoP
  --second-as           also run a second authorization server (own clients and tokens, on a third
                        origin); `POST /_test/switch-as` makes the resource name it instead and
                        take only its tokens ("issuer2" in the ready file; its own /_test/stats)
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import secrets
import socket
import sys
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode

import uvicorn
from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.routes import (
    REVOCATION_PATH,
    TOKEN_PATH,
    build_metadata,
    build_resource_metadata_url,
    cors_middleware,
    create_auth_routes,
)
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.shared.auth import (
    InvalidRedirectUriError,
    OAuthClientInformationFull,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from mcp_types import CallToolResult, ElicitRequest, ElicitRequestFormParams, InputRequiredResult, TextContent, Tool
from pydantic import AnyHttpUrl, AnyUrl
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import RecordingApp, read_body, rewrite_json_response
from oauth_identity import AS_NONCE, JWT_BEARER, RS_NONCE, DpopGate, DpopPolicy, Identity

CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="protected MCP server with its OAuth authorization server")
    p.add_argument("--ready-file")
    p.add_argument("--record")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--auth-port", type=int, default=0)
    p.add_argument("--keep-running", action="store_true")
    p.add_argument("--token-lifetime", type=int, default=3600)
    p.add_argument("--no-refresh", action="store_true")
    p.add_argument("--scopes", default="mcp:read mcp:admin")
    p.add_argument("--required-scope", default="mcp:read")
    p.add_argument("--tool-scope", action="append", default=None, metavar="TOOL=SCOPE")
    p.add_argument("--no-challenge-scope", action="store_true")
    p.add_argument("--offline-access", action="store_true")
    p.add_argument("--default-scopes", default=None)
    p.add_argument("--client-id")
    p.add_argument("--public-client", action="append", default=[])
    p.add_argument("--client-secret")
    p.add_argument("--client-auth-method", default=None)
    p.add_argument("--client-public-key")
    p.add_argument("--client-credentials", action="store_true")
    p.add_argument("--no-dcr", action="store_true")
    p.add_argument("--no-revocation", action="store_true")
    p.add_argument("--no-iss", action="store_true")
    p.add_argument("--deny", action="store_true")
    p.add_argument("--echo-request", action="store_true")
    p.add_argument("--hop-to")
    p.add_argument("--withhold-scope", action="append", default=[])
    p.add_argument("--second-as", action="store_true")
    p.add_argument("--cimd", action="store_true")
    p.add_argument("--dpop", action="store_true")
    p.add_argument("--dpop-nonce", action="store_true")
    p.add_argument("--trust-key")
    p.add_argument("--bearer-only-resource", action="store_true")
    p.add_argument("--dpop-required", action="store_true")
    p.add_argument("--resource-dpop-signal", choices=DpopPolicy.SIGNALS, default="both")
    p.add_argument("--resource-dpop-algs", default="ES256")
    p.add_argument("--dpop-unlisted", action="store_true")
    p.add_argument("--as-ignores-dpop", action="store_true")
    args = p.parse_args(argv)
    if args.tool_scope is None:
        args.tool_scope = ["admin_tool=mcp:admin"]
    return args


class LoopbackClient(OAuthClientInformationFull):
    """A client whose loopback redirect URIs match on any port (RFC 8252 §7.3: the port of a
    native app's loopback redirect is chosen at run time)."""

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        if redirect_uri is not None and redirect_uri.host in ("127.0.0.1", "localhost", "::1", "[::1]") \
                and redirect_uri.scheme == "http":
            for registered in self.redirect_uris or []:
                if registered.host == redirect_uri.host and (registered.path or "/") == (redirect_uri.path or "/"):
                    return redirect_uri
            if not self.redirect_uris:
                return redirect_uri
            raise InvalidRedirectUriError(f"Redirect URI '{redirect_uri}' not registered for client")
        return super().validate_redirect_uri(redirect_uri)


@dataclass
class Stats:
    """What the test hooks report (see the module docstring)."""

    token_requests: int = 0
    grants: dict[str, int] = field(default_factory=dict)
    token_log: list[dict[str, Any]] = field(default_factory=list)
    registrations: int = 0
    registered: list[dict[str, Any]] = field(default_factory=list)
    authorizations: int = 0
    authorize_log: list[dict[str, Any]] = field(default_factory=list)
    access_tokens: list[str] = field(default_factory=list)
    refresh_tokens: list[str] = field(default_factory=list)
    client_secrets: list[str] = field(default_factory=list)
    revoked: list[str] = field(default_factory=list)
    revoke_log: list[dict[str, Any]] = field(default_factory=list)
    cimd_fetches: list[str] = field(default_factory=list)
    mcp_requests: list[dict[str, Any]] = field(default_factory=list)
    dpop: list[dict[str, Any]] = field(default_factory=list)
    assertions: list[dict[str, Any]] = field(default_factory=list)
    exchanges: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


class InMemoryProvider:
    """An `OAuthAuthorizationServerProvider` keeping clients, codes and tokens in memory;
    authorization is approved at once."""

    def __init__(self, args: argparse.Namespace, stats: Stats):
        self.args = args
        self.stats = stats
        self.issuer = ""  # set once the port is known
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.pairs: dict[str, str] = {}  # access token <-> refresh token, both ways
        self.expired_before = 0.0
        self.identity = Identity(args, stats)

    # -- clients
    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if client_id not in self.clients and self.args.cimd and client_id.startswith("https://"):
            await self.fetch_client_metadata(client_id)
        return self.clients.get(client_id)

    async def fetch_client_metadata(self, url: str) -> None:
        """A Client ID Metadata Document: the client's metadata at its client_id URL."""
        import httpx2

        self.stats.cimd_fetches.append(url)
        try:
            async with httpx2.AsyncClient(verify=False, timeout=30) as client:
                doc = (await client.get(url)).json()
        except (httpx2.HTTPError, ValueError):
            return
        if doc.get("client_id") != url:
            return
        self.clients[url] = LoopbackClient(
            client_id=url, token_endpoint_auth_method="none", redirect_uris=doc.get("redirect_uris") or [],
            grant_types=doc.get("grant_types") or ["authorization_code", "refresh_token"],
            response_types=["code"], scope=" ".join(self.args.scopes.split()), client_name=doc.get("client_name"))

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        client = LoopbackClient.model_validate(client_info.model_dump())
        self.clients[client.client_id] = client
        self.stats.registrations += 1
        self.stats.registered.append(client.model_dump(mode="json", exclude={"client_secret"}))
        if client.client_secret:
            self.stats.client_secrets.append(client.client_secret)

    # -- authorization code
    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        self.stats.authorizations += 1
        iss = None if self.args.no_iss else self.issuer
        if self.args.deny:
            return construct_redirect_uri(str(params.redirect_uri), error="access_denied",
                                          error_description="denied by the test server", state=params.state, iss=iss)
        code = "mrtr-code-" + secrets.token_hex(20)
        granted = [s for s in params.scopes or [] if s not in self.args.withhold_scope]
        self.codes[code] = AuthorizationCode(
            code=code, scopes=granted, expires_at=time.time() + 300, client_id=client.client_id,
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource,
            subject="test-user")
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state, iss=iss)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    def issue(self, client_id: str, scopes: list[str], resource: str | None, *, refresh: bool) -> OAuthToken:
        """A new access token (and refresh token when `refresh` and refresh tokens are on)."""
        token = "mrtr-at-" + secrets.token_hex(20)
        lifetime = self.args.token_lifetime
        self.access[token] = AccessToken(token=token, client_id=client_id, scopes=scopes,
                                         expires_at=int(time.time()) + lifetime, resource=resource,
                                         subject="test-user")
        self.stats.access_tokens.append(token)
        refresh_token = None
        if refresh and not self.args.no_refresh:
            refresh_token = "mrtr-rt-" + secrets.token_hex(20)
            self.refresh[refresh_token] = RefreshToken(token=refresh_token, client_id=client_id, scopes=scopes,
                                                       resource=resource, subject="test-user")
            self.stats.refresh_tokens.append(refresh_token)
            self.pairs[token], self.pairs[refresh_token] = refresh_token, token
        return OAuthToken(access_token=token, token_type="Bearer", expires_in=lifetime,
                          scope=" ".join(scopes) or None, refresh_token=refresh_token)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self.issue(client.client_id, authorization_code.scopes, authorization_code.resource, refresh=True)

    # -- refresh
    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        # rotate: the old refresh token and its access token stop working
        self.refresh.pop(refresh_token.token, None)
        self.access.pop(self.pairs.pop(refresh_token.token, ""), None)
        return self.issue(client.client_id, scopes, refresh_token.resource, refresh=True)

    # -- access tokens and revocation
    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or self.stats.access_tokens.index(token) < self.expired_before:
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.stats.revoked.append(token.token)
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)
        other = self.pairs.pop(token.token, None)
        if other:
            self.pairs.pop(other, None)
            self.access.pop(other, None)
            self.refresh.pop(other, None)

    async def exchange_identity_assertion(self, client: Any, params: Any) -> OAuthToken:
        from mcp.server.auth.provider import TokenError

        raise TokenError(error="unsupported_grant_type", error_description="not supported here")


def header_dict(scope: Any) -> dict[str, str]:
    """An ASGI request's headers, names lower-cased."""
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


async def read_form(receive: Any) -> tuple[dict[str, str], bytes, Any]:
    """A form-encoded request body: (fields, raw body, a `receive` that replays it)."""
    _, body, replay = await read_body(receive)
    return {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}, body, replay


def token_error(error: str, description: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": error, "error_description": description}, status_code=status,
                        headers={"Cache-Control": "no-store", "Pragma": "no-cache"})


class RevocationEndpoint:
    """The SDK's revocation endpoint, logging each request. The SDK's request model requires a
    `client_secret` field even from a public client, which RFC 7009 §2.1 does not: an absent one
    is passed on as empty."""

    def __init__(self, sdk_app: Any, stats: Stats):
        self.sdk_app = sdk_app
        self.stats = stats

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.sdk_app(scope, receive, send)
            return
        form, body, _ = await read_form(receive)
        self.stats.revoke_log.append({"token_type_hint": form.get("token_type_hint"),
                                      "client_id": form.get("client_id"), "token": form.get("token")})
        if "client_secret" not in form:
            body += b"&client_secret=" if body else b"client_secret="
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await self.sdk_app({**scope, "headers": headers}, replay, send)


class TokenEndpoint:
    """The SDK's token endpoint, counting every request, plus the `client_credentials` grant."""

    def __init__(self, sdk_app: Any, provider: InMemoryProvider):
        self.sdk_app = sdk_app
        self.provider = provider

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.sdk_app(scope, receive, send)
            return
        form, _, replay = await read_form(receive)
        headers = header_dict(scope)
        stats = self.provider.stats
        grant = form.get("grant_type", "")
        stats.token_requests += 1
        stats.grants[grant] = stats.grants.get(grant, 0) + 1
        method = ("client_secret_basic" if headers.get("authorization", "").startswith("Basic ")
                  else "private_key_jwt" if "client_assertion" in form
                  else "client_secret_post" if "client_secret" in form else "none")
        stats.token_log.append({"grant_type": grant, "client_id": form.get("client_id"),
                                "resource": form.get("resource"), "scope": form.get("scope"),
                                "auth_method": method})
        if grant == "client_credentials" and self.provider.args.echo_request:
            echoed = f"got {urlencode(form)} with Authorization: {headers.get('authorization')}"
            response = token_error("invalid_client", echoed, 401)
            await response(scope, replay, send)
            return
        jkt = None
        if self.provider.args.dpop and not self.provider.args.as_ignores_dpop and "dpop" in headers:
            jkt, error = self.provider.identity.check_proof(
                headers.get("dpop"), "token", "POST", self.provider.issuer + TOKEN_PATH,
                nonce=AS_NONCE if self.provider.args.dpop_nonce else None)
            if error is not None:
                response = token_error("use_dpop_nonce" if error == "use_dpop_nonce" else "invalid_dpop_proof", error)
                if error == "use_dpop_nonce":
                    response.headers["DPoP-Nonce"] = AS_NONCE
                await response(scope, replay, send)
                return
        bound = self.provider.identity.bound
        if grant == "refresh_token" and bound.get(form.get("refresh_token", ""), jkt) != jkt:
            await token_error("invalid_grant", "the refresh token is bound to another DPoP key")(scope, replay, send)
            return
        if grant == "client_credentials":
            app: Any = await self.client_credentials(form, headers, method)
        elif grant == JWT_BEARER:
            app = await self.jwt_bearer(form, headers)
        else:
            app = self.sdk_app
        await bind_tokens(app, jkt, bound)(scope, replay, send)

    async def jwt_bearer(self, form: dict[str, str], headers: dict[str, str]) -> Response:
        """RFC 7523 section 2.1: a workload JWT signed by the trusted key, or an ID-JAG from
        /idp/token (then the client authenticates with its secret, and is the ID-JAG's)."""
        provider = self.provider
        claims = provider.identity.verify_assertion(form.get("assertion", ""), provider.issuer,
                                                    provider.issuer + TOKEN_PATH)
        if claims is None:
            return token_error("invalid_grant", "assertion refused")
        client_id = claims["sub"]
        if claims.get("id_jag"):
            try:
                cid, _, secret = base64.b64decode(headers.get("authorization", "")[6:]).decode().partition(":")
            except ValueError:
                cid, secret = "", ""
            client = provider.clients.get(unquote(cid))
            if client is None or client.client_secret != unquote(secret) or claims.get("client_id") != client.client_id:
                return token_error("invalid_client", "client authentication failed", 401)
            client_id = client.client_id
        token = provider.issue(client_id, (form.get("scope") or "").split(), form.get("resource"), refresh=False)
        return JSONResponse(token.model_dump(mode="json", exclude_none=True),
                            headers={"Cache-Control": "no-store", "Pragma": "no-cache"})

    async def client_credentials(self, form: dict[str, str], headers: dict[str, str], method: str) -> Response:
        provider = self.provider
        client_id = form.get("client_id")
        secret = form.get("client_secret")
        if method == "client_secret_basic":
            try:
                cid, _, secret = base64.b64decode(headers["authorization"][6:]).decode().partition(":")
            except ValueError:
                return token_error("invalid_client", "bad Basic authorization", 401)
            cid, secret = unquote(cid), unquote(secret)
            if client_id and client_id != cid:
                return token_error("invalid_client", "client_id mismatch", 401)
            client_id = cid
        if method == "private_key_jwt":
            client_id = self.check_assertion(form.get("client_assertion", ""), form.get("client_assertion_type"))
            if client_id is None:
                return token_error("invalid_client", "client assertion refused", 401)
        client = provider.clients.get(client_id or "")
        if client is None:
            return token_error("invalid_client", "unknown client", 401)
        if client.token_endpoint_auth_method != method:
            return token_error("invalid_client", f"client authenticates with {client.token_endpoint_auth_method}", 401)
        if method in ("client_secret_basic", "client_secret_post") and \
                not secrets.compare_digest((secret or "").encode(), (client.client_secret or "").encode()):
            return token_error("invalid_client", "wrong client secret", 401)
        if "client_credentials" not in client.grant_types:
            return token_error("unauthorized_client", "client_credentials not allowed for this client")
        scopes = (form.get("scope") or "").split() or (client.scope or "").split()
        token = provider.issue(client.client_id, scopes, form.get("resource"), refresh=False)
        return JSONResponse(token.model_dump(mode="json", exclude_none=True),
                            headers={"Cache-Control": "no-store", "Pragma": "no-cache"})

    def check_assertion(self, assertion: str, assertion_type: str | None) -> str | None:
        """The client id a valid RFC 7523 client assertion names, else None."""
        import jwt  # PyJWT, only on this path

        args = self.provider.args
        if assertion_type != CLIENT_ASSERTION_TYPE or not args.client_public_key or not assertion:
            return None
        with open(args.client_public_key, "rb") as f:
            key = f.read()
        issuer = self.provider.issuer
        try:
            claims = jwt.decode(assertion, key, algorithms=["RS256", "ES256", "PS256", "EdDSA"],
                                audience=[issuer, issuer + TOKEN_PATH], options={"require": ["iss", "sub", "exp"]})
        except jwt.PyJWTError:
            return None
        if claims["iss"] != claims["sub"]:
            return None
        return str(claims["sub"])


def bind_tokens(app: Any, jkt: str | None, bound: dict[str, str]) -> Any:
    """`app` (a token endpoint), its successful token response made DPoP-bound to `jkt`
    (token_type DPoP; the tokens recorded as bound) when a proof came with the request."""
    if jkt is None:
        return app

    def bind(doc: dict[str, Any]) -> dict[str, Any]:
        doc["token_type"] = "DPoP"
        for name in ("access_token", "refresh_token"):
            if doc.get(name):
                bound[doc[name]] = jkt
        return doc

    async def bound_app(scope: Any, receive: Any, send: Any) -> None:
        await rewrite_json_response(app, scope, receive, send, bind)

    return bound_app


def preregister(provider: InMemoryProvider, args: argparse.Namespace) -> None:
    grants = ["authorization_code"] + ([] if args.no_refresh else ["refresh_token"])
    for client_id in args.public_client:
        provider.clients[client_id] = LoopbackClient(
            client_id=client_id, token_endpoint_auth_method="none", redirect_uris=[AnyUrl("http://127.0.0.1/callback")],
            grant_types=grants, response_types=["code"], scope=args.scopes)
    if not args.client_id:
        return
    method = args.client_auth_method or ("client_secret_basic" if args.client_secret else "none")
    if args.client_credentials:
        grants.append("client_credentials")
    provider.clients[args.client_id] = LoopbackClient(
        client_id=args.client_id, client_secret=args.client_secret, token_endpoint_auth_method=method,
        redirect_uris=[AnyUrl("http://127.0.0.1/callback")], grant_types=grants, response_types=["code"],
        scope=args.scopes)
    if args.client_secret:
        provider.stats.client_secrets.append(args.client_secret)


def auth_server_app(provider: InMemoryProvider, args: argparse.Namespace, issuer: str,
                    hooks: list[Route] | None = None) -> Starlette:
    """The SDK's authorization-server routes with this server's metadata and token endpoint."""
    scopes = args.scopes.split() + (["offline_access"] if args.offline_access else [])
    default = args.default_scopes.split() if args.default_scopes is not None else scopes
    registration = ClientRegistrationOptions(enabled=not args.no_dcr, valid_scopes=scopes, default_scopes=default)
    revocation = RevocationOptions(enabled=not args.no_revocation)
    routes = create_auth_routes(provider, AnyHttpUrl(issuer), client_registration_options=registration,
                                revocation_options=revocation)
    metadata = build_metadata(AnyHttpUrl(issuer), None, registration, revocation)
    metadata.scopes_supported = scopes
    if args.no_refresh:
        metadata.grant_types_supported = ["authorization_code"]
    if args.client_credentials:
        metadata.grant_types_supported = [*(metadata.grant_types_supported or []), "client_credentials"]
    if args.client_public_key:
        metadata.token_endpoint_auth_methods_supported = [*(metadata.token_endpoint_auth_methods_supported or []),
                                                          "private_key_jwt"]
        metadata.token_endpoint_auth_signing_alg_values_supported = ["RS256", "ES256"]
    if not args.no_iss:
        metadata.authorization_response_iss_parameter_supported = True
    if args.cimd:
        metadata.client_id_metadata_document_supported = True
    # the issuer exactly as spelled (no trailing slash added), as RFC 8414 §3.3 compares it
    metadata = OAuthMetadata.model_validate({**metadata.model_dump(mode="json", exclude_none=True), "issuer": issuer})
    extra: dict[str, Any] = {}  # members the SDK's model does not know
    if args.dpop and not args.dpop_unlisted and not args.as_ignores_dpop:
        extra["dpop_signing_alg_values_supported"] = ["ES256"]
    if args.trust_key:
        extra["grant_types_supported"] = [*(metadata.grant_types_supported or []), JWT_BEARER]

    async def metadata_document(request: Request) -> JSONResponse:
        return JSONResponse({**metadata.model_dump(mode="json", exclude_none=True), **extra})

    out: list[Route] = []
    for route in routes:
        if route.path == "/.well-known/oauth-authorization-server":
            handler = MetadataHandler(metadata).handle if not extra else metadata_document
            route = Route(route.path, endpoint=cors_middleware(handler, ["GET", "OPTIONS"]),
                          methods=["GET", "OPTIONS"])
        elif route.path == TOKEN_PATH:
            route = Route(TOKEN_PATH, endpoint=TokenEndpoint(route.app, provider), methods=["POST", "OPTIONS"])
        elif route.path == REVOCATION_PATH:
            route = Route(REVOCATION_PATH, endpoint=RevocationEndpoint(route.app, provider.stats),
                          methods=["POST", "OPTIONS"])
        out.append(route)

    async def stats(request: Request) -> JSONResponse:
        return JSONResponse(provider.stats.as_json())

    async def expire(request: Request) -> JSONResponse:
        provider.expired_before = len(provider.stats.access_tokens)
        return JSONResponse({"expired": provider.expired_before})

    async def drop_refresh(request: Request) -> JSONResponse:
        dropped = len(provider.refresh)
        provider.refresh.clear()
        return JSONResponse({"dropped": dropped})

    async def forget(request: Request) -> JSONResponse:
        registered = {c["client_id"] for c in provider.stats.registered}
        for client_id in registered:
            provider.clients.pop(client_id, None)
        for table in (provider.codes, provider.access, provider.refresh, provider.pairs):
            table.clear()
        return JSONResponse({"forgotten": len(registered)})

    async def idp_token(request: Request) -> JSONResponse:
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        status, doc = provider.identity.exchange(form, issuer + "/idp")
        return JSONResponse(doc, status_code=status)

    out += [Route("/idp/token", idp_token, methods=["POST"])] if args.trust_key else []
    out += [Route("/_test/stats", stats, methods=["GET"]), Route("/_test/expire", expire, methods=["POST"]),
            Route("/_test/drop-refresh", drop_refresh, methods=["POST"]), Route("/_test/forget", forget,
                                                                                methods=["POST"]),
            *(hooks or [])]
    return Starlette(routes=out)


class ScopedRequireAuth(RequireAuthMiddleware):
    """The SDK's bearer-token gate, with `scope` in its challenges and per-tool scopes (403
    `insufficient_scope` naming the scope the tool needs)."""

    def __init__(self, app: Any, args: argparse.Namespace, resource_metadata_url: AnyHttpUrl, stats: Stats):
        required = [args.required_scope] if args.required_scope else []
        super().__init__(app, required, resource_metadata_url)
        self.args = args
        self.stats = stats
        self.tool_scopes = dict(item.split("=", 1) for item in args.tool_scope)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        headers = header_dict(scope)
        _, body, replay = await read_body(receive)
        try:
            message = json.loads(body) if body else {}
        except ValueError:
            message = {}
        method = message.get("method") if isinstance(message, dict) else None
        tool = (message.get("params") or {}).get("name") if method == "tools/call" else None
        self.stats.mcp_requests.append({"method": method, "tool": tool,
                                        "authorization": headers.get("authorization", "")})
        user = scope.get("user")
        if tool == "hop" and self.args.hop_to and isinstance(user, AuthenticatedUser):
            await Response(status_code=307, headers={"location": self.args.hop_to})(scope, replay, send)
            return
        needed = self.tool_scopes.get(tool or "")
        if needed and isinstance(user, AuthenticatedUser) and needed not in user.scopes:
            await self.challenge(send, 403, "insufficient_scope", f"Required scope: {needed}", needed)
            return
        await super().__call__(scope, replay, send)

    async def _send_auth_error(self, send: Any, status_code: int, error: str, description: str) -> None:
        """The SDK's challenge (401, or 403 for the scope every request needs), with `scope`."""
        scope_value = None if self.args.no_challenge_scope else (self.args.required_scope or None)
        await self.challenge(send, status_code, error, description, scope_value)

    async def challenge(self, send: Any, status_code: int, error: str, description: str,
                        scope_value: str | None) -> None:
        if scope_value is None:
            await super()._send_auth_error(send, status_code, error, description)
            return
        parts = [f'error="{error}"', f'error_description="{description}"',
                 f'resource_metadata="{self.resource_metadata_url}"', f'scope="{scope_value}"']
        body = json.dumps({"error": error, "error_description": description}).encode()
        await send({"type": "http.response.start", "status": status_code,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"www-authenticate", ("Bearer " + ", ".join(parts)).encode())]})
        await send({"type": "http.response.body", "body": body})


def mcp_server() -> Server:
    tools = [Tool(name="echo", input_schema={"type": "object", "properties": {"text": {"type": "string"}}}),
             Tool(name="whoami", input_schema={"type": "object", "properties": {}}),
             Tool(name="admin_tool", input_schema={"type": "object", "properties": {}}),
             Tool(name="ask", input_schema={"type": "object", "properties": {}}),
             Tool(name="hop", input_schema={"type": "object", "properties": {}})]

    async def list_tools(ctx: Any, params: Any) -> Any:
        from mcp_types import ListToolsResult

        return ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        args = params.arguments or {}
        if params.name == "echo":
            return CallToolResult(content=[TextContent(text=f"echo: {args.get('text', '')}")])
        if params.name == "admin_tool":
            return CallToolResult(content=[TextContent(text="admin ok")])
        if params.name == "whoami":
            return CallToolResult(content=[TextContent(text="signed in")])
        if params.name == "ask":
            answers = params.input_responses or {}
            if "color" not in answers:
                return InputRequiredResult(input_requests={"color": ElicitRequest(params=ElicitRequestFormParams(
                    message="Favourite colour?", requested_schema={
                        "type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}))},
                    request_state="asked")
            return CallToolResult(content=[TextContent(text=f"colour: {answers['color'].content.get('color')}")])
        return CallToolResult(content=[TextContent(text=f"unknown tool {params.name}")], is_error=True)

    return Server("oauth-test", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)


def resource_server_app(active: dict[str, Any], providers: dict[str, InMemoryProvider], args: argparse.Namespace,
                        resource: str, policy: DpopPolicy) -> Any:
    """The protected MCP server: SDK bearer auth in front of its Streamable HTTP app, and the
    RFC 9728 metadata route. `active["issuer"]` is the authorization server it names and takes
    tokens from (one of `providers`, by issuer). With --dpop it takes DPoP as `policy` says
    (`DpopGate`)."""
    server = mcp_server()
    manager = StreamableHTTPSessionManager(app=server)
    scopes = args.scopes.split() + (["offline_access"] if args.offline_access else [])
    metadata_url = build_resource_metadata_url(AnyHttpUrl(resource))

    class Verifier:
        async def verify_token(self, token: str) -> AccessToken | None:
            return await providers[active["issuer"]].load_access_token(token)

    gate = ScopedRequireAuth(StreamableHTTPASGIApp(manager), args, metadata_url, active["stats"])

    class Metadata:  # an ASGI app (a plain function would be taken for a request handler)
        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            document = ProtectedResourceMetadata.model_validate({
                "resource": resource, "authorization_servers": [active["issuer"]], "scopes_supported": scopes,
                "resource_name": "oauth-test", **(policy.metadata() if args.dpop else {})})
            handler = cors_middleware(ProtectedResourceMetadataHandler(document).handle, ["GET", "OPTIONS"])
            await handler(scope, receive, send)

    routes = [Route("/mcp", endpoint=gate),
              Route("/.well-known/oauth-protected-resource/mcp", endpoint=Metadata(), methods=["GET", "OPTIONS"])]
    middleware = [Middleware(AuthenticationMiddleware,
                             backend=BearerAuthBackend(Verifier(), resource_server_url=AnyHttpUrl(resource)))]
    app = Starlette(routes=routes, middleware=middleware, lifespan=lambda app: manager.run())
    if not args.dpop:
        return app

    def check(proof: str | None, method: str, token: str) -> tuple[str | None, str | None]:
        return providers[active["issuer"]].identity.check_proof(
            proof, "mcp", method, resource, token=token, nonce=RS_NONCE if args.dpop_nonce else None)

    return DpopGate(app, resource, "/mcp", str(metadata_url), policy, check,
                    lambda token: providers[active["issuer"]].identity.bound.get(token), RS_NONCE)


def listen(port: int = 0) -> tuple[socket.socket, int]:
    """A socket listening on 127.0.0.1:`port` (0: any free port) and its port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    return sock, sock.getsockname()[1]


def authorization_server(args: argparse.Namespace, hooks: list[Route] | None = None, port: int = 0
                         ) -> tuple[socket.socket, str, InMemoryProvider, Starlette]:
    """A listening socket (on `port`, 0: any free one), the issuer, the provider and the app of
    one authorization server."""
    sock, port = listen(port)
    issuer = f"http://127.0.0.1:{port}"
    provider = InMemoryProvider(args, Stats())
    provider.issuer = issuer
    preregister(provider, args)
    return sock, issuer, provider, auth_server_app(provider, args, issuer, hooks)


async def main(args: argparse.Namespace) -> None:
    active: dict[str, Any] = {}
    second: list[Any] = []
    policy = DpopPolicy("bearer" if args.bearer_only_resource else "required" if args.dpop_required else "capable",
                        args.resource_dpop_signal, args.resource_dpop_algs)
    hooks: list[Route] = [policy.route()]
    if args.second_as:
        second = list(authorization_server(args))

        async def switch(request: Request) -> JSONResponse:
            active["issuer"] = second[1]
            return JSONResponse({"issuer": second[1]})

        hooks.append(Route("/_test/switch-as", switch, methods=["POST"]))
    as_sock, issuer, provider, as_app = authorization_server(args, hooks, args.auth_port)
    active.update(issuer=issuer, stats=provider.stats)
    providers = {issuer: provider, **({second[1]: second[2]} if second else {})}
    rs_sock, rs_port = listen(args.port)
    resource = f"http://127.0.0.1:{rs_port}/mcp"
    apps: list[Any] = [as_app, resource_server_app(active, providers, args, resource, policy)]
    socks = [as_sock, rs_sock]
    if second:
        apps.append(second[3])
        socks.append(second[0])
    if args.record:
        apps = [RecordingApp(app, args.record) for app in apps]
    servers = [uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="auto")) for app in apps]
    tasks = [asyncio.create_task(s.serve(sockets=[sock])) for s, sock in zip(servers, socks, strict=True)]
    while not all(s.started for s in servers):
        if any(t.done() for t in tasks):
            break
        await asyncio.sleep(0.02)
    parent = os.getppid()

    async def orphaned() -> None:  # a test run that was killed leaves no server behind
        while os.getppid() == parent:
            await asyncio.sleep(1)
        for server in servers:
            server.should_exit = True

    watchdog = asyncio.create_task(orphaned() if not args.keep_running else asyncio.Event().wait())
    if args.ready_file:
        tmp = args.ready_file + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"mcp": resource, "issuer": issuer, "stats": issuer + "/_test/stats",
                       "issuer2": second[1] if second else None, "pid": os.getpid()}, f)
        os.replace(tmp, args.ready_file)
    await asyncio.gather(*tasks)
    watchdog.cancel()


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
