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
from mrtr_cli.auth.challenge import TOKEN_OPTIONS_HINT
from mrtr_cli.auth.discovery import AuthServer
from mrtr_cli.auth.replies import fetch
from mrtr_cli.auth.urls import checked_url, shown
from mrtr_cli.auth.values import checked_client_id, epoch
from mrtr_cli.config.oauth import AuthSettings
from mrtr_cli.errors import AuthError, TimeoutExpired
from mrtr_cli.render.invocation import for_new_shell
from mrtr_cli.render.sanitize import one_line

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


def registration_scopes(server: AuthServer, wanted: list[str]) -> list[list[str]]:
    """The `scope` values to register with, in the order tried (RFC 7591 section 2).

    Servers differ: some register a client without `scope` for their default scopes only
    and then refuse it any other (the MCP Python SDK's routes), others refuse a scope they
    do not list (an OpenID provider). So mrtr first asks for every scope it may ask for
    (`wanted` now, and the resource's `scopes_supported` for later step-ups); when the
    server refuses that, the ones the authorization server lists in its own
    `scopes_supported`; and last no `scope` at all. Empty lists are left out; the last
    entry is always [] (no `scope` member)."""
    full = list(dict.fromkeys([*wanted, *(server.scopes_supported or [])]))
    listed = server.as_scopes_supported
    tries = [full]
    if listed:
        tries.append([x for x in full if x in listed])
    tries.append([])
    out: list[list[str]] = []
    for scopes in tries:
        if scopes not in out:
            out.append(scopes)
    return out


def covers(client: dict[str, Any], scopes: list[str], server: AuthServer | None = None) -> bool:
    """A stored registered client may ask for `scopes`: its registration recorded no
    `scope` (unknown: the server decides), or every scope is in it, or every one missing
    is one the authorization server does not list in its `scopes_supported` (a new
    registration could not get it either: registering again would only leave clients
    behind)."""
    registered = client.get("scope")
    if not isinstance(registered, str):
        return True
    missing = set(scopes) - set(registered.split())
    listed = server.as_scopes_supported if server is not None else []
    return not missing or bool(listed) and not missing & set(listed)


def expired(client: dict[str, Any], now: float | None = None) -> bool:
    """The client's secret has expired (`client_secret_expires_at`, RFC 7591 section
    3.2.1; 0 or missing: never)."""
    import time  # noqa: PLC0415 - lazy for start-up time

    at = epoch(client.get("client_secret_expires_at"))
    return at is not None and at <= (time.time() if now is None else now)


def register(http: Any, server: AuthServer, redirect_uri: str, scopes: list[str] | None = None) -> dict[str, Any]:
    """Register mrtr with the authorization server (RFC 7591).

    Args:
        scopes: the scopes this sign-in asks for; the registration asks for them (and
            the resource's `scopes_supported`) where the server takes them
            (`registration_scopes`).

    Returns:
        The stored client: {"client_id", "token_endpoint_auth_method", "source":
        "registered", "redirect_uris", "grant_types", "scope"? (what it was registered
        for, when known), "client_secret"?, "client_secret_expires_at"?}.

    Raises:
        AuthError: the server offers no registration endpoint (with what to configure
            instead), or refused the registration, or answered with a client mrtr cannot use
            (the member named), or with a reply over the limits on what a server sends
            (auth/replies.py).
        TimeoutExpired: the registration endpoint did not answer in time (exit 7).
    """
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    endpoint = server.endpoint("registration_endpoint")
    if not endpoint:
        raise AuthError(f"the authorization server {server.issuer} offers no way for mrtr to register "
                        "(no Client ID Metadata Document support, no registration_endpoint)",
                        hint=for_new_shell("register a client there yourself and give --client-id ID (with "
                                           "--client-secret-env VAR if it has a secret), or host a Client ID "
                                           "Metadata Document: --client-metadata-url URL"))
    method = choose_auth_method(server)
    body: dict[str, Any] = {
        "client_name": CLIENT_NAME, "software_id": "mrtr",
        "software_version": __version__, "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
        "token_endpoint_auth_method": method, "application_type": "native",
    }
    for attempt in registration_scopes(server, list(scopes or [])):
        body.pop("scope", None)
        if attempt:
            body["scope"] = " ".join(attempt)
        try:
            reply = fetch(http, "POST", endpoint, "the registration endpoint", json=body,
                          headers={"Accept": "application/json"}, server_given="the registration_endpoint")
        except httpx2.TimeoutException:
            raise TimeoutExpired(f"the registration endpoint {shown(endpoint)} did not answer in time") from None
        except httpx2.HTTPError as exc:
            from mrtr_cli.transport.http.env import through_proxy  # noqa: PLC0415 - lazy for start-up time

            raise AuthError(f"cannot reach the registration endpoint {shown(endpoint)}{through_proxy(endpoint)}: "
                            f"{type(exc).__name__}") from None
        if not (reply.status == 400 and "scope" in body):
            break  # only a refusal of what was asked (400) is worth asking again with less
    if server.guessed and reply.status not in (200, 201, 400):
        # No metadata anywhere: the 2025-03-26 default endpoints were a guess, and nothing
        # answers at them; "register a client yourself" would send the person nowhere.
        raise AuthError(f"{server.issuer} publishes no authorization metadata, and its 2025-03-26 default "
                        f"registration endpoint {shown(endpoint)} answered HTTP {reply.status}: there is no "
                        "sign-in mrtr can run there", hint=for_new_shell(TOKEN_OPTIONS_HINT))
    if reply.status not in (200, 201):
        raise AuthError(f"the authorization server refused to register mrtr (HTTP {reply.status}"
                        f"{reply.error_detail()})",
                        hint=for_new_shell("register a client there yourself and give --client-id ID"))
    doc = reply.document
    if doc is None:
        raise AuthError(f"the registration endpoint {shown(endpoint)} answered HTTP {reply.status} without a "
                        "JSON object; refused")
    client_id = checked_client_id(doc.get("client_id"), "the registration response's client_id")
    got = doc.get("token_endpoint_auth_method") or method
    if got not in ("none", "client_secret_basic", "client_secret_post"):
        raise AuthError(f"the authorization server registered mrtr for {one_line(got, 80)!r}, which a signed-in "
                        "person's flow cannot apply")
    secret = doc.get("client_secret")
    if got != "none" and secret is None:
        raise AuthError(f"the authorization server registered mrtr for {got} but issued no client_secret")
    client: dict[str, Any] = {
        "client_id": client_id, "token_endpoint_auth_method": got, "source": "registered",
        "redirect_uris": [checked_url(u, "the registration response's redirect_uris")
                          for u in _list(doc.get("redirect_uris"), [redirect_uri])],
        "grant_types": [g for g in _list(doc.get("grant_types"), body["grant_types"]) if isinstance(g, str)]}
    if secret is not None:
        client["client_secret"] = checked_client_id(secret, "the registration response's client_secret")
    registered = doc.get("scope") if isinstance(doc.get("scope"), str) else body.get("scope")
    if isinstance(registered, str):
        client["scope"] = registered
    expires = epoch(doc.get("client_secret_expires_at"))
    if expires is not None:
        client["client_secret_expires_at"] = expires
    return client


def _list(value: object, default: list[Any]) -> list[Any]:
    """`value` when it is a non-empty JSON array, else `default`."""
    return value if isinstance(value, list) and value else default
