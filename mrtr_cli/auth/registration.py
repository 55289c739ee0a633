"""Client identity, in the spec's order (2026-07-28 basic/authorization/client-registration):
a pre-registered client (options, environment, config), a Client ID Metadata Document
when the authorization server supports them, a client registered earlier with this
issuer, then Dynamic Client Registration (RFC 7591, `application_type: "native"`).
Registered clients are bound to the issuer that issued them ("Authorization Server
Binding"); the caller keeps them per issuer (auth/store.py).
"""

from __future__ import annotations

from typing import Any

from mrtr_cli import __version__
from mrtr_cli.auth.discovery import AuthServer
from mrtr_cli.auth.replies import fetch
from mrtr_cli.auth.urls import checked_url
from mrtr_cli.config.oauth import AuthSettings
from mrtr_cli.errors import AuthError
from mrtr_cli.render.sanitize import sanitize

CLIENT_NAME = "mrtr"


def preregistered(settings: AuthSettings, server: AuthServer | None = None) -> dict[str, Any] | None:
    """The pre-registered client of `settings`, or None. Without `--auth-method`, a client
    with a secret uses `client_secret_basic` whenever the server's
    `token_endpoint_auth_methods_supported` lists it or lists neither (RFC 6749 section
    2.3.1 prefers it; RFC 8414's default), `client_secret_post` only when that alone is listed."""
    if not settings.client_id:
        return None
    method = settings.auth_method
    if method is None:
        if settings.private_key:
            method = "private_key_jwt"
        elif settings.client_secret:
            supported = (server.metadata.get("token_endpoint_auth_methods_supported") if server else None) or []
            method = ("client_secret_post" if isinstance(supported, list) and "client_secret_post" in supported
                      and "client_secret_basic" not in supported else "client_secret_basic")
        else:
            method = "none"
    client = {"client_id": settings.client_id, "token_endpoint_auth_method": method, "source": "pre-registered"}
    if settings.client_secret:
        client["client_secret"] = settings.client_secret
    return client


def cimd_client(settings: AuthSettings, server: AuthServer) -> dict[str, Any] | None:
    """A Client ID Metadata Document client when one is configured and the server says
    `client_id_metadata_document_supported`, else None."""
    if settings.client_metadata_url and server.metadata.get("client_id_metadata_document_supported") is True:
        return {"client_id": settings.client_metadata_url, "token_endpoint_auth_method": "none", "source": "cimd"}
    return None


def choose_auth_method(server: AuthServer) -> str:
    """The token endpoint auth method to register: `none` (a public native client) where
    the server allows it, else what it lists first among those mrtr applies."""
    supported = server.metadata.get("token_endpoint_auth_methods_supported")
    if not isinstance(supported, list) or not supported:
        return "client_secret_basic" if server.metadata else "none"
    for method in ("none", "client_secret_basic", "client_secret_post"):
        if method in supported:
            return method
    return "none"


def register(http: Any, server: AuthServer, redirect_uri: str) -> dict[str, Any]:
    """Register mrtr with the authorization server (RFC 7591).

    Raises:
        AuthError: the server offers no registration endpoint (with what to configure
            instead), or refused the registration, or answered with a client mrtr cannot use,
            or with a reply over the limits on what a server sends (auth/replies.py).
    """
    import httpx  # noqa: PLC0415

    endpoint = server.endpoint("registration_endpoint")
    if not endpoint:
        raise AuthError(f"the authorization server {server.issuer} offers no way for mrtr to register "
                        "(no Client ID Metadata Document support, no registration_endpoint)",
                        hint="register a client there yourself and give --client-id ID (with --client-secret-env VAR "
                             "if it has a secret), or host a Client ID Metadata Document: --client-metadata-url URL")
    method = choose_auth_method(server)
    body: dict[str, Any] = {
        "client_name": CLIENT_NAME, "software_id": "mrtr",
        "software_version": __version__, "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
        "token_endpoint_auth_method": method, "application_type": "native",
    }
    # No `scope` (RFC 7591 section 2: optional): a client registered for the first
    # sign-in's scopes only could not be stepped up later; each authorization request
    # says what it asks for.
    try:
        reply = fetch(http, "POST", endpoint, "the registration endpoint", json=body,
                      headers={"Accept": "application/json"})
    except httpx.HTTPError as exc:
        raise AuthError(f"cannot reach the registration endpoint {endpoint}: {type(exc).__name__}") from None
    doc = reply.document
    if reply.status not in (200, 201) or doc is None or not isinstance(doc.get("client_id"), str):
        raise AuthError(f"the authorization server refused to register mrtr (HTTP {reply.status}"
                        f"{reply.error_detail()})", hint="register a client there yourself and give --client-id ID")
    got = doc.get("token_endpoint_auth_method") or method
    if got not in ("none", "client_secret_basic", "client_secret_post"):
        shown = sanitize(str(got), single_line=True)[:80]
        raise AuthError(f"the authorization server registered mrtr for {shown!r}, which a signed-in person's "
                        "flow cannot apply")
    if got != "none" and not isinstance(doc.get("client_secret"), str):
        raise AuthError(f"the authorization server registered mrtr for {got} but issued no client_secret")
    client = {"client_id": doc["client_id"], "token_endpoint_auth_method": got, "source": "registered",
              "redirect_uris": [checked_url(u, "the registration response's redirect_uris")
                                for u in (doc.get("redirect_uris") or [redirect_uri])],
              "grant_types": doc.get("grant_types") or body["grant_types"]}
    if isinstance(doc.get("client_secret"), str):
        client["client_secret"] = doc["client_secret"]
    if isinstance(doc.get("client_secret_expires_at"), int | float) and doc["client_secret_expires_at"]:
        client["client_secret_expires_at"] = doc["client_secret_expires_at"]
    return client
