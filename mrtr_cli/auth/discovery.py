"""Where to sign in: protected resource metadata (RFC 9728) and authorization server
metadata (RFC 8414, OpenID Connect Discovery 1.0).

Spec: 2026-07-28 basic/authorization/authorization-server-discovery (the URL orders and
the `issuer` check), basic/authorization "Canonical Server URI" (the `resource` check),
security-considerations "Authorization Code Protection" (PKCE must be advertised), and
for 2025-03-26 servers (no protected resource metadata) that revision's "Server Metadata
Discovery" and "Fallbacks for Servers without Metadata Discovery".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from mrtr_cli.auth.replies import fetch
from mrtr_cli.auth.urls import checked_url
from mrtr_cli.errors import AuthError
from mrtr_cli.render.sanitize import sanitize
from mrtr_cli.transport.authhook import canonical_resource

PRM_SUFFIX = "/.well-known/oauth-protected-resource"


@dataclass
class AuthServer:
    """The authorization server chosen for a resource, with validated metadata.

    Attributes:
        issuer: the recorded issuer identifier (exactly as validated; RFC 9207 compares
            the authorization response's `iss` with it).
        metadata: the authorization server metadata document ({} for a 2025-03-26
            server without one: `endpoint()` then falls back to /authorize, /token, /register).
        resource: the `resource` parameter to send (RFC 8707): the protected resource
            metadata's `resource`, else the MCP server's canonical URI.
        resource_metadata: the protected resource metadata document, or None (2025-03-26).
        legacy: no protected resource metadata was found (2025-03-26 rules).
    """

    issuer: str
    metadata: dict[str, Any]
    resource: str
    resource_metadata: dict[str, Any] | None = None
    legacy: bool = False
    origin: str = field(default="")

    def endpoint(self, name: str) -> str | None:
        """`authorization_endpoint`, `token_endpoint`, `registration_endpoint`,
        `revocation_endpoint`: from the metadata, or the 2025-03-26 fallback paths."""
        value = self.metadata.get(name)
        if isinstance(value, str) and value:
            return value
        if not self.metadata and self.legacy:
            path = {"authorization_endpoint": "/authorize", "token_endpoint": "/token",
                    "registration_endpoint": "/register"}.get(name)
            return self.origin + path if path else None
        return None

    @property
    def scopes_supported(self) -> list[str] | None:
        """The resource's `scopes_supported` (protected resource metadata), or None."""
        value = (self.resource_metadata or {}).get("scopes_supported")
        return [s for s in value if isinstance(s, str)] if isinstance(value, list) else None

    @property
    def as_scopes_supported(self) -> list[str]:
        value = self.metadata.get("scopes_supported")
        return [s for s in value if isinstance(s, str)] if isinstance(value, list) else []

    def check_pkce(self) -> None:
        """PKCE with S256 must be advertised (`code_challenge_methods_supported`), except by a
        2025-03-26 server without metadata.

        Raises:
            AuthError: S256 is not advertised.
        """
        if not self.metadata and self.legacy:
            return
        methods = self.metadata.get("code_challenge_methods_supported")
        if not isinstance(methods, list) or "S256" not in methods:
            raise AuthError(f"the authorization server {self.issuer} does not advertise PKCE with S256 "
                            "(code_challenge_methods_supported); mrtr does not sign in without it")


LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def check_https(server: AuthServer) -> None:
    """Authorization server endpoints are HTTPS (security-considerations "Communication
    Security"; OAuth 2.1 section 1.5), except on this machine (127.0.0.1, localhost, ::1).

    Raises:
        AuthError: an endpoint (or the issuer) that is no valid URL (`urls.checked_url`),
            or over plain HTTP elsewhere.
    """
    names = ("authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint")
    for what, url in [("issuer", server.issuer), *((n, server.endpoint(n)) for n in names)]:
        if not url:
            continue
        p = urlsplit(checked_url(url, f"the authorization server metadata's {what}"))
        if p.scheme != "https" and not (p.scheme == "http" and (p.hostname or "") in LOOPBACK_HOSTS):
            raise AuthError(f"the authorization server's {what} {sanitize(url, single_line=True)[:200]} is not "
                            "HTTPS; mrtr sends no credentials there")


def origin_of(url: str) -> str:
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc}"


def prm_urls(server_url: str, from_header: str | None) -> list[str]:
    """Protected resource metadata URLs in the spec's order: the challenge's
    `resource_metadata`, then the path-based well-known URI, then the root one."""
    urls = [checked_url(from_header, "the WWW-Authenticate challenge's resource_metadata")] if from_header else []
    p = urlsplit(server_url)
    origin = origin_of(server_url)
    if p.path and p.path != "/":
        urls.append(origin + PRM_SUFFIX + p.path.rstrip("/"))
    urls.append(origin + PRM_SUFFIX)
    return list(dict.fromkeys(urls))


def as_metadata_urls(issuer: str) -> list[str]:
    """Authorization server metadata URLs for `issuer` in the spec's order (RFC 8414
    path insertion, OpenID Connect path insertion, OpenID Connect path appending)."""
    p = urlsplit(issuer)
    origin = f"{p.scheme}://{p.netloc}"
    path = p.path.rstrip("/")
    if path:
        return [f"{origin}/.well-known/oauth-authorization-server{path}",
                f"{origin}/.well-known/openid-configuration{path}",
                f"{origin}{path}/.well-known/openid-configuration"]
    return [f"{origin}/.well-known/oauth-authorization-server", f"{origin}/.well-known/openid-configuration"]


def resource_allowed(server_url: str, resource: str) -> bool:
    """The metadata's `resource` identifies this server: same origin and the server's path
    within the resource's path (RFC 9728 section 3.3; a resource may name a parent path)."""
    want, have = urlsplit(canonical_resource(server_url)), urlsplit(canonical_resource(resource))
    if (want.scheme, want.netloc) != (have.scheme, have.netloc):
        return False
    wp, hp = want.path.rstrip("/") + "/", have.path.rstrip("/") + "/"
    return wp.startswith(hp)


def issuers_match(found: str, expected: str) -> bool:
    """The `issuer` of a metadata document is the one its URL was built from: identical,
    except that a root issuer with and without its trailing slash name the same server."""
    if found == expected:
        return True
    short, long = sorted((found, expected), key=len)
    return long == short + "/" and urlsplit(short).path == ""


def _get_json(http: Any, url: str) -> tuple[int, Any]:
    """GET `url` (no redirects followed); (status, JSON body or None). Status 0: unreachable.

    Raises:
        AuthError: a 200 body over the limits on what a server sends (auth/replies.py).
    """
    import httpx  # noqa: PLC0415

    try:
        reply = fetch(http, "GET", url, "the metadata server at", read=(200,),
                      headers={"Accept": "application/json"})
    except httpx.HTTPError:
        return 0, None
    return reply.status, reply.body


def advertised_issuers(http: Any, server_url: str, resource_metadata_url: str | None) -> list[str] | None:
    """The `authorization_servers` the resource's metadata lists now (the first URL of
    `prm_urls` that serves it), or None when none does. Used before a refresh: a token
    is not refreshed at an authorization server the resource no longer names."""
    for url in prm_urls(server_url, resource_metadata_url):
        status, doc = _get_json(http, url)
        if status == 200 and isinstance(doc, dict) and isinstance(doc.get("authorization_servers"), list):
            return [checked_url(s, "the protected resource metadata's authorization_servers")
                    for s in doc["authorization_servers"] if isinstance(s, str)]
    return None


def discover(http: Any, server_url: str, resource_metadata_url: str | None, *,
             prefer_issuer: str | None = None) -> AuthServer:
    """Find and validate the authorization server of the MCP server at `server_url`.

    Args:
        http: an `httpx.Client` (redirects not followed: a redirected metadata URL is
            "not served here").
        resource_metadata_url: the challenge's `resource_metadata`, or None.
        prefer_issuer: an issuer the credentials belong to; chosen when the metadata
            lists it, else the first listed server.

    Raises:
        AuthError: the metadata's `resource` is another server's, a metadata server
            failed (5xx, 429), no authorization server metadata was found, or its
            `issuer` differs from the one its URL was built from (exit 8).
    """
    failed: int | None = None
    prm: dict[str, Any] | None = None
    for url in prm_urls(server_url, resource_metadata_url):
        status, doc = _get_json(http, url)
        if status >= 500 or status == 429:
            failed = status
        if status != 200 or not isinstance(doc, dict):
            continue
        servers = doc.get("authorization_servers")
        if not isinstance(servers, list) or not any(isinstance(s, str) for s in servers):
            continue
        resource = doc.get("resource")
        if resource is not None:
            resource = checked_url(resource, "the protected resource metadata's resource")
        if isinstance(resource, str) and not resource_allowed(server_url, resource):
            raise AuthError(
                f"the protected resource metadata at {url} names another resource "
                f"({sanitize(resource, single_line=True)[:200]}), not {canonical_resource(server_url)}; "
                "nothing was sent to an authorization server")
        prm = doc
        break
    if prm is None:
        if failed is not None:
            raise AuthError(f"the protected resource metadata of {server_url} could not be read (HTTP {failed})")
        return _legacy(http, server_url)
    servers = [checked_url(s, "the protected resource metadata's authorization_servers")
               for s in prm["authorization_servers"] if isinstance(s, str)]
    issuer = next((s for s in servers if prefer_issuer and issuers_match(s, prefer_issuer)), servers[0])
    metadata = _as_metadata(http, issuer)
    if metadata is None:
        raise AuthError(f"no authorization server metadata found for {issuer}",
                        hint="tried: " + ", ".join(as_metadata_urls(issuer)))
    resource = prm.get("resource") if isinstance(prm.get("resource"), str) else canonical_resource(server_url)
    server = AuthServer(issuer=str(metadata["issuer"]), metadata=metadata, resource=resource,
                        resource_metadata=prm, origin=origin_of(issuer))
    check_https(server)
    return server


def _as_metadata(http: Any, issuer: str) -> dict[str, Any] | None:
    """The validated metadata of `issuer`, or None when no URL serves one.

    Raises:
        AuthError: a document whose `issuer` is not `issuer`, or a server error.
    """
    for url in as_metadata_urls(issuer):
        status, doc = _get_json(http, url)
        if status == 200 and isinstance(doc, dict):
            found = doc.get("issuer")
            if not isinstance(found, str) or not issuers_match(found, issuer):
                raise AuthError(
                    f"the authorization server metadata at {url} names the issuer "
                    f"{sanitize(str(found), single_line=True)[:200]!r}, not {issuer!r}: refused (RFC 8414 section 3.3)")
            return doc
        if status >= 500:
            raise AuthError(f"the authorization server metadata at {url} could not be read (HTTP {status})")
    return None


def _legacy(http: Any, server_url: str) -> AuthServer:
    """A 2025-03-26 server: metadata at its origin, else the default endpoints there."""
    origin = origin_of(server_url)
    metadata = _as_metadata(http, origin) or {}
    issuer = str(metadata.get("issuer") or origin)
    server = AuthServer(issuer=issuer, metadata=metadata, resource=canonical_resource(server_url),
                        legacy=True, origin=origin)
    check_https(server)
    return server
