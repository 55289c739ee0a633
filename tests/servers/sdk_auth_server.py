"""The MCP Python SDK's authorization server as it ships, in front of an SDK MCP server, for
the third-party sign-in tests (tests/auth/test_third_party.py).

Unlike tests/servers/oauth_server.py (the SDK's routes with this project's own token and
revocation endpoints, metadata and challenges), nothing of the SDK is changed here:

- The authorization server is `mcp.server.auth.routes.create_auth_routes` with
  `ClientRegistrationOptions(enabled=True, valid_scopes=..., default_scopes=...)` and
  `RevocationOptions(enabled=True)`, over `MemoryProvider` below: a plain in-memory
  `OAuthAuthorizationServerProvider` that approves every authorization request at once.
- The MCP server is an SDK `MCPServer` with `AuthSettings` (its bearer-token middleware and
  RFC 9728 protected resource metadata naming the authorization server; tokens checked
  against its resource URL) and `ProviderTokenVerifier`.

Both run in this process, each on its own 127.0.0.1 port, and keep everything in memory:
ending the process and starting it again on the same ports (`--port`, `--auth-port`) gives
an authorization server that has forgotten every client, code and token.

Tools: `whoami` answers `client=<client id> scopes=<granted scopes>`.

Test hooks on the authorization server's origin:
- `GET /_test/issued`: JSON `{"access_tokens", "refresh_tokens", "codes", "client_secrets":
  [...], "registered": [client metadata]}`, everything issued by this process.
- `POST /_test/expire`: every access token issued so far is refused from now on.

Command line:
  --ready-file PATH       write {"mcp": URL, "issuer": URL, "pid": N} there once serving
  --port N, --auth-port N the MCP server's and the authorization server's ports (0: any)
  --record FILE           append every HTTP request (both origins) to FILE
  --valid-scopes "A B"    scopes a client may register for (default "mcp:read mcp:write")
  --default-scopes "A"    a client registered without `scope` gets these (default "mcp:read")
  --required-scope S      scope every MCP request needs (default mcp:read)
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    ProviderTokenVerifier,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import listen, serve_apps

TOKEN_LIFETIME = 3600


class MemoryProvider:
    """An `OAuthAuthorizationServerProvider` keeping clients, codes and tokens in memory;
    every authorization request is approved at once; refresh tokens rotate."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.issued: dict[str, list[Any]] = {"access_tokens": [], "refresh_tokens": [], "codes": [],
                                             "client_secrets": [], "registered": []}
        self.expired: set[str] = set()

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = client_info
        self.issued["registered"].append(client_info.model_dump(mode="json", exclude={"client_secret"}))
        if client_info.client_secret:
            self.issued["client_secrets"].append(client_info.client_secret)

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300, client_id=client.client_id,
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource)
        self.issued["codes"].append(code)
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        found = self.codes.get(code)
        return found if found and found.client_id == client.client_id else None

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        found = self.refresh.get(refresh_token)
        return found if found and found.client_id == client.client_id else None

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return None if token in self.expired else self.access.get(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                          expires_at=int(time.time()) + TOKEN_LIFETIME, resource=resource)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        self.issued["access_tokens"].append(access)
        self.issued["refresh_tokens"].append(refresh)
        return OAuthToken(access_token=access, token_type="Bearer", expires_in=TOKEN_LIFETIME,
                          scope=" ".join(scopes) or None, refresh_token=refresh)


def authorization_server(provider: MemoryProvider, issuer: str, args: argparse.Namespace) -> Starlette:
    """The SDK's authorization server routes, plus the test hooks."""
    routes = create_auth_routes(
        provider, AnyHttpUrl(issuer),
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=args.valid_scopes.split(), default_scopes=args.default_scopes.split()),
        revocation_options=RevocationOptions(enabled=True))

    async def issued(request: Request) -> JSONResponse:
        return JSONResponse(provider.issued)

    async def expire(request: Request) -> JSONResponse:
        provider.expired.update(provider.access)
        return JSONResponse({"expired": len(provider.expired)})

    return Starlette(routes=[*routes, Route("/_test/issued", issued, methods=["GET"]),
                             Route("/_test/expire", expire, methods=["POST"])])


def protected_mcp(issuer: str, resource: str, verifier: Any, required_scope: str) -> Starlette:
    """An SDK `MCPServer` at `resource` taking the tokens `verifier` accepts, its protected
    resource metadata naming `issuer` (also used by tests/servers/jwt_resource_server.py)."""
    mcp = MCPServer("third-party-auth-test", token_verifier=verifier, auth=AuthSettings(
        issuer_url=issuer, resource_server_url=resource, required_scopes=[required_scope] if required_scope else None,
        validate_token_resource=True))

    @mcp.tool()
    def whoami() -> str:
        """The client id and the scopes of the access token this request carried."""
        token = get_access_token()
        return f"client={token.client_id if token else None} scopes={' '.join(token.scopes) if token else ''}"

    return mcp.streamable_http_app()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ready-file")
    p.add_argument("--record")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--auth-port", type=int, default=0)
    p.add_argument("--valid-scopes", default="mcp:read mcp:write")
    p.add_argument("--default-scopes", default="mcp:read")
    p.add_argument("--required-scope", default="mcp:read")
    args = p.parse_args()
    as_sock, as_port = listen(args.auth_port)
    rs_sock, rs_port = listen(args.port)
    issuer, resource = f"http://127.0.0.1:{as_port}", f"http://127.0.0.1:{rs_port}/mcp"
    provider = MemoryProvider()
    apps = [authorization_server(provider, issuer, args),
            protected_mcp(issuer, resource, ProviderTokenVerifier(provider), args.required_scope)]
    serve_apps(list(zip(apps, [as_sock, rs_sock], strict=True)), ready_file=args.ready_file, record=args.record,
               ready={"mcp": resource, "issuer": issuer})


if __name__ == "__main__":
    main()
