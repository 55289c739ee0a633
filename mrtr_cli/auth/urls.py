"""The URLs an MCP or authorization server hands mrtr during a sign-in (the challenge's
`resource_metadata`, protected resource metadata `resource` and `authorization_servers`,
authorization server metadata `issuer` and endpoints), checked before mrtr uses them by
the one rule on where a server-given URL may go (transport/http/urlrule.py, which the MCP
endpoint's redirects follow too); a URL that breaks it is an `AuthError` (exit 8) naming
the member it came from.

Spec: RFC 9728 sections 2-3 and RFC 8414 section 2 (these members are URLs); 2026-07-28
basic/authorization/security-considerations "Communication Security" and "Server-Side
Request Forgery (SSRF)".
"""

from __future__ import annotations

from mrtr_cli.errors import AuthError
from mrtr_cli.render.sanitize import one_line
from mrtr_cli.transport.http.urlrule import FORBIDDEN, INVALID, refusal, resolved_refusal, url_problem


def shown(value: object) -> str:
    """`value` as a message may quote it: one line, escaped once (`one_line`: a backslash
    stays one, ESC is `\\x1b`; never `repr`, which would double the escapes), at most 200
    characters; in quotes where the value may be empty or not a URL."""
    return one_line(value, 200)


def checked_url(value: object, member: str) -> str:
    """`value` if it is an absolute http(s) URL that parses (host, port, no control
    characters or spaces) and that a browser reads as it is written (`urlrule.url_problem`:
    the host judged is the one a browser visits); `member` names where it came from (e.g.
    "the protected resource metadata's authorization_servers").

    Raises:
        AuthError: (exit 8) one line naming `member` and the (sanitized) value.
    """
    problem = url_problem(value)
    if problem is None:
        return str(value)
    if problem == INVALID:
        raise AuthError(f"{member} {INVALID}: '{shown(value)}'; nothing was sent there")
    raise AuthError(f"{member} '{shown(value)}', {problem}; nothing was sent there")


def allowed_url(value: object, member: str, *, same_origin_as: str | None = None) -> str:
    """`value` (a URL a server handed mrtr) if an authorization request may go there by the
    rule (`urlrule.refusal`): a valid URL over HTTPS, or over plain HTTP to this machine
    (or to the origin of `same_origin_as`, the URL the user gave), and never to a
    link-local or cloud-metadata address. Checked before the first byte is sent.

    Raises:
        AuthError: (exit 8) one line naming `member`, the URL and the rule it breaks.
    """
    url = checked_url(value, member)
    why = refusal(url, same_origin_as=same_origin_as)
    if why == FORBIDDEN:
        raise AuthError(f"{member} {shown(url)} is {why}; mrtr never sends requests there on a server's word")
    if why is not None:
        raise AuthError(f"{member} {shown(url)} is {why}; mrtr sends authorization requests only over HTTPS "
                        "(or plain HTTP to this machine: 127.0.0.1, localhost, ::1)")
    return url


def check_resolved(url: str, member: str) -> None:
    """Refuse `url` when its host name resolves to a link-local or cloud-metadata address
    (`urlrule.resolved_refusal`). Called right before a request to a server-given URL.

    Raises:
        AuthError: (exit 8) naming `member`, the URL and the address.
    """
    address = resolved_refusal(url)
    if address is not None:
        raise AuthError(resolved_to(member, url, address))


def resolved_to(member: str, url: str, address: str) -> str:
    """The message of a server-given `url` whose host is (or resolves to) `address`, where
    no request may go."""
    return (f"{member} {shown(url)} resolves to {address}, {FORBIDDEN}; "
            "mrtr never sends requests there on a server's word")
