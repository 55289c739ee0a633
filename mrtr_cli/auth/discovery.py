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
from mrtr_cli.auth.urls import allowed_url, checked_url, shown
from mrtr_cli.errors import AuthError, TimeoutExpired
from mrtr_cli.transport.http.authhook import canonical_resource

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
    def guessed(self) -> bool:
        """The endpoints are the 2025-03-26 defaults at the server's origin (no metadata at
        all): mrtr sends no client secret or key there."""
        return self.legacy and not self.metadata

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


def check_https(server: AuthServer) -> None:
    """Authorization server endpoints (and the issuer) pass the rule on where authorization
    requests may go (`urls.allowed_url`): HTTPS, or plain HTTP to this machine; never a
    link-local or cloud-metadata address (security-considerations "Communication
    Security"; OAuth 2.1 section 1.5).

    Raises:
        AuthError: an endpoint (or the issuer) that is no valid URL or breaks the rule.
    """
    names = ("authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint")
    for what, url in [("issuer", server.issuer), *((n, server.endpoint(n)) for n in names)]:
        if url:
            allowed_url(url, f"the authorization server's {what}")


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


@dataclass
class _Got:
    """One metadata GET: its status (0: not reached, `reason` says why), JSON body (None:
    not JSON or not read) and the `Location` of a redirect (never followed)."""

    url: str
    status: int
    body: Any = None
    location: str | None = None
    reason: str = ""

    @property
    def absent(self) -> bool:
        """The URL does not serve the document (HTTP 4xx other than 429): try the next one."""
        return 400 <= self.status < 500 and self.status != 429

    def problem(self) -> str | None:
        """Why this reply is no usable JSON object ("answered HTTP 503", "is not JSON"...),
        or None when it is one."""
        if self.status == 0:
            return f"cannot be reached ({self.reason})"
        if 300 <= self.status < 400:
            to = f" to {shown(self.location)}" if self.location else ""
            return f"redirects (HTTP {self.status}{to}); mrtr follows no redirect for metadata"
        if self.status != 200:
            return f"answered HTTP {self.status}"
        if self.body is None:
            return "is not JSON (an HTML page?)"
        if not isinstance(self.body, dict):
            return "holds JSON that is not an object"
        return None


def _get(http: Any, url: str, what: str, *, server_given: str | None) -> _Got:
    """GET a metadata document (no redirects followed).

    Args:
        what: the document for messages ("the protected resource metadata").
        server_given: the member the URL came from when a server named it (checked by
            `urls.check_resolved` before the request), None for a URL mrtr built from the
            user's.

    Raises:
        TimeoutExpired: no answer within the request's bound (exit 7), naming the URL.
        AuthError: a reply over the limits on what a server sends (auth/replies.py), or a
            host that resolves where no request may go.
    """
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    try:
        reply = fetch(http, "GET", url, f"{what} at", read=(200,), server_given=server_given,
                      user_url=server_given is None,
                      headers={"Accept": "application/json"})
    except httpx2.TimeoutException:
        raise TimeoutExpired(f"{what} at {shown(url)} did not answer in time") from None
    except httpx2.HTTPError as exc:
        from mrtr_cli.transport.http.env import through_proxy  # noqa: PLC0415 - lazy for start-up time

        return _Got(url, 0, reason=type(exc).__name__ + through_proxy(url))
    return _Got(url, reply.status, reply.body, reply.location)


def _prm_problem(got: _Got) -> str | None:
    """Why a protected resource metadata reply is unusable, or None."""
    problem = got.problem()
    if problem is None:
        servers = got.body.get("authorization_servers")
        if not isinstance(servers, list) or not any(isinstance(s, str) for s in servers):
            problem = "names no authorization_servers"
    return problem


def current_resource_metadata(http: Any, server_url: str, resource_metadata_url: str | None) -> dict[str, Any] | None:
    """The resource's protected resource metadata as it is now (the first URL of
    `prm_urls`, after the challenge's `resource_metadata`, that serves a usable document),
    or None when none does (or it cannot be read now). Used when a stored token is
    refused: a token is not refreshed at an authorization server the resource no longer
    names, nor kept bound to DPoP at a resource that no longer takes it."""
    try:
        urls = prm_urls(server_url, None)
        if resource_metadata_url:
            urls.insert(0, allowed_url(resource_metadata_url, "the WWW-Authenticate challenge's resource_metadata",
                                       same_origin_as=server_url))
        for url in urls:
            got = _get(http, url, "the protected resource metadata", server_given=None)
            if _prm_problem(got) is None:
                return dict(got.body)
    except (AuthError, TimeoutExpired):
        return None
    return None


def discover(http: Any, server_url: str, resource_metadata_url: str | None, *,
             prefer_issuer: str | None = None) -> AuthServer:
    """Find and validate the authorization server of the MCP server at `server_url`.

    The challenge's `resource_metadata` URL, when there is one, must serve the protected
    resource metadata; else the well-known URLs are tried in order, and only a server that
    serves none of them (each answers 4xx) is a 2025-03-26 server (`_legacy`). A document
    that is offered but unusable (not JSON, not an object, a redirect, 5xx) is an error
    naming its URL, never taken as absent.

    Args:
        http: an `httpx2.Client` (redirects not followed).
        resource_metadata_url: the challenge's `resource_metadata`, or None.
        prefer_issuer: an issuer the credentials belong to; chosen when the metadata
            lists it, else the first listed server.

    Raises:
        AuthError: a server-given URL that breaks the rule on where requests go
            (`urls.allowed_url`), a metadata document that is unusable (named), the
            metadata's `resource` is another server's, no authorization server metadata
            was found, or its `issuer` differs from the one its URL was built from (exit 8).
        TimeoutExpired: a metadata URL did not answer in time (exit 7).
    """
    prm = _resource_metadata(http, server_url, resource_metadata_url)
    if prm is None:
        return _legacy(http, server_url)
    listed = [s for s in prm["authorization_servers"] if isinstance(s, str)]
    issuer = next((s for s in listed if prefer_issuer and issuers_match(s, prefer_issuer)), listed[0])
    issuer = allowed_url(issuer, "the protected resource metadata's authorization_servers")
    metadata = _as_metadata(http, issuer, server_given="the authorization server metadata URL")
    if metadata is None:
        raise AuthError(f"no authorization server metadata found for {shown(issuer)}",
                        hint="tried: " + ", ".join(as_metadata_urls(issuer)))
    resource = given if isinstance(given := prm.get("resource"), str) else canonical_resource(server_url)
    server = AuthServer(issuer=str(metadata["issuer"]), metadata=metadata, resource=resource,
                        resource_metadata=prm, origin=origin_of(issuer))
    check_https(server)
    return server


def _resource_metadata(http: Any, server_url: str, named: str | None) -> dict[str, Any] | None:
    """The protected resource metadata document (checked: `authorization_servers`, and a
    `resource` that is this server's), or None when the server offers none at all.

    The challenge's `resource_metadata` URL comes first; when it answers 4xx the well-known
    URLs are tried as the spec's fallback, but a server that named a URL offers metadata:
    when none serves it, that is an error naming the URL, not a 2025-03-26 server.
    """
    unusable: list[tuple[str, str]] = []
    urls = prm_urls(server_url, None)
    if named:
        member = "the WWW-Authenticate challenge's resource_metadata"
        url = allowed_url(named, member, same_origin_as=server_url)
        got = _get(http, url, "the protected resource metadata", server_given=member)
        problem = _prm_problem(got)
        if problem is None:
            return _check_resource(got, server_url)
        if not got.absent:
            raise AuthError(f"the protected resource metadata at {shown(url)} (named by the server's challenge) "
                            f"{problem}; nothing was sent to an authorization server")
        unusable.append((url, problem))
        urls = [u for u in urls if u != url]
    for url in urls:
        got = _get(http, url, "the protected resource metadata", server_given=None)
        if got.absent:
            continue
        problem = _prm_problem(got)
        if problem is None:
            return _check_resource(got, server_url)
        unusable.append((url, problem))
    if unusable:
        url, problem = unusable[0]
        raise AuthError(f"the protected resource metadata at {shown(url)} {problem}; nothing was sent to an "
                        "authorization server")
    return None


def _check_resource(got: _Got, server_url: str) -> dict[str, Any]:
    doc: dict[str, Any] = got.body
    resource = doc.get("resource")
    if resource is not None:
        resource = checked_url(resource, "the protected resource metadata's resource")
        if not resource_allowed(server_url, resource):
            raise AuthError(
                f"the protected resource metadata at {shown(got.url)} names another resource "
                f"({shown(resource)}), not {canonical_resource(server_url)}; nothing was sent to an "
                "authorization server")
    return doc


def _as_metadata(http: Any, issuer: str, *, server_given: str | None) -> dict[str, Any] | None:
    """The validated metadata of `issuer`, or None when no URL serves one (each answers 4xx).

    Raises:
        AuthError: a document whose `issuer` is not `issuer`, or every URL that answered
            served something unusable (the first is named).
        TimeoutExpired: a metadata URL did not answer in time.
    """
    unusable: tuple[str, str] | None = None
    for url in as_metadata_urls(issuer):
        got = _get(http, url, "the authorization server metadata", server_given=server_given)
        if got.absent:
            continue
        problem = got.problem()
        if problem is not None:
            unusable = unusable or (url, problem)
            continue
        found = got.body.get("issuer")
        if not isinstance(found, str) or not issuers_match(found, issuer):
            raise AuthError(
                f"the authorization server metadata at {url} names the issuer "
                f"'{shown(found)}', not '{shown(issuer)}': refused (RFC 8414 section 3.3)")
        metadata: dict[str, Any] = got.body
        return metadata
    if unusable is not None:
        raise AuthError(f"the authorization server metadata at {shown(unusable[0])} {unusable[1]}")
    return None


def _legacy(http: Any, server_url: str) -> AuthServer:
    """A 2025-03-26 server (no protected resource metadata): authorization server metadata
    at its origin, else the default endpoints there (`AuthServer.guessed`)."""
    origin = origin_of(server_url)
    metadata = _as_metadata(http, origin, server_given=None) or {}
    issuer = str(metadata.get("issuer") or origin)
    server = AuthServer(issuer=issuer, metadata=metadata, resource=canonical_resource(server_url),
                        legacy=True, origin=origin)
    check_https(server)
    return server
