"""The checks of every URL an MCP or authorization server hands mrtr (the challenge's
`resource_metadata`, protected resource metadata `resource` and `authorization_servers`,
authorization server metadata `issuer` and endpoints) before mrtr uses it, and the rule
on where authorization requests may go at all.

Spec: RFC 9728 sections 2-3 and RFC 8414 section 2 (these members are URLs); 2026-07-28
basic/authorization/security-considerations "Communication Security" (HTTPS; metadata is
untrusted input) and its "Server-Side Request Forgery (SSRF)" guidance (no requests to
link-local or cloud-metadata addresses on a server's word).
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from mrtr_cli.errors import AuthError
from mrtr_cli.render.sanitize import sanitize

#: Names of this machine: plain HTTP is allowed to these only.
LOOPBACK_NAMES = ("localhost",)

#: Host names of cloud instance-metadata services (their addresses are link-local or
#: listed in `METADATA_ADDRESSES`): never contacted on a server's word.
METADATA_NAMES = ("metadata.google.internal", "metadata.goog", "metadata", "instance-data",
                  "instance-data.ec2.internal", "metadata.azure.com")

#: Instance-metadata addresses outside the link-local ranges (AWS IPv6, Alibaba Cloud).
METADATA_ADDRESSES = (ipaddress.ip_address("fd00:ec2::254"), ipaddress.ip_address("100.100.100.200"))


def shown(value: Any) -> str:
    """`value` as a message may quote it: one line, escaped, at most 200 characters."""
    return sanitize(str(value), single_line=True)[:200]


def checked_url(value: Any, member: str) -> str:
    """`value` if it is an absolute http(s) URL that parses (host, port, no control
    characters or spaces); `member` names where it came from (e.g. "the protected
    resource metadata's authorization_servers").

    Raises:
        AuthError: (exit 8) one line naming `member` and the (sanitized) value.
    """
    if isinstance(value, str) and _parses(value):
        return value
    raise AuthError(f"{member} is not a valid http(s) URL: {shown(value)!r}; nothing was sent there")


def is_loopback(host: str) -> bool:
    """`host` (a URL's hostname) names this machine: localhost, 127.0.0.0/8 or ::1."""
    host = host.lower().rstrip(".")
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    address = _address(host)
    return address is not None and address.is_loopback


def forbidden_address(host: str) -> bool:
    """`host` is a link-local address (169.254.0.0/16, fe80::/10: where cloud instance
    metadata lives), a known instance-metadata address or name, or the unspecified address."""
    host = host.lower().rstrip(".")
    if host in METADATA_NAMES:
        return True
    address = _address(host)
    if address is None:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    address = mapped or address
    return address.is_link_local or address.is_unspecified or address in METADATA_ADDRESSES


def allowed_url(value: Any, member: str, *, same_origin_as: str | None = None) -> str:
    """`value` (a URL a server handed mrtr) if an authorization request may go there:
    a valid URL (`checked_url`) over HTTPS, or over plain HTTP to this machine (or to the
    origin of `same_origin_as`, the URL the user gave, which the user chose to reach over
    plain HTTP), and never to a link-local or cloud-metadata address. Checked before
    the first byte is sent.

    Raises:
        AuthError: (exit 8) one line naming `member`, the URL and the rule it breaks.
    """
    url = checked_url(value, member)
    p = urlsplit(url)
    host = p.hostname or ""
    if forbidden_address(host):
        raise AuthError(f"{member} {shown(url)} is a link-local or cloud-metadata address; mrtr never "
                        "sends requests there on a server's word")
    if p.scheme == "https" or is_loopback(host):
        return url
    if same_origin_as is not None and _origin(url) == _origin(same_origin_as):
        return url
    raise AuthError(f"{member} {shown(url)} is plain HTTP to another machine; mrtr sends authorization "
                    "requests only over HTTPS (or plain HTTP to this machine: 127.0.0.1, localhost, ::1)")


def check_resolved(url: str, member: str) -> None:
    """Refuse `url` when its host name resolves to a link-local or cloud-metadata address
    (a name pointed at 169.254.169.254). Names that do not resolve pass: the request then
    fails as unreachable. Called right before a request to a server-given URL.

    Raises:
        AuthError: (exit 8) naming `member`, the URL and the address.
    """
    host = urlsplit(url).hostname or ""
    if not host or _address(host) is not None or is_loopback(host):
        return
    import socket  # noqa: PLC0415 - lazy for start-up time

    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return
    for info in infos:
        address = str(info[4][0]).split("%")[0]
        if forbidden_address(address):
            raise AuthError(f"{member} {shown(url)} resolves to {address}, a link-local or cloud-metadata "
                            "address; mrtr never sends requests there on a server's word")


def _origin(url: str) -> tuple[str, str, int | None]:
    p = urlsplit(url)
    default = {"http": 80, "https": 443}.get(p.scheme)
    return p.scheme, (p.hostname or "").lower(), p.port or default


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return None


def _parses(value: str) -> bool:
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in value) or not value.isprintable():
        return False
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    try:
        p = urlsplit(value)
        p.port  # noqa: B018 - raises ValueError on a bad port
        httpx2.URL(value)
    except (ValueError, TypeError, httpx2.InvalidURL):
        return False
    return p.scheme in ("http", "https") and bool(p.hostname)
