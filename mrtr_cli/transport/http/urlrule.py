"""The one rule on where a URL a server hands mrtr may take a request: the MCP endpoint's
redirects (transport/http/redirects.py) and every URL of the sign-in (auth/urls.py: the
challenge's `resource_metadata`, the resource's and the authorization server's metadata)
pass it before a byte is sent there.

The rule (docs/limits.md "Redirects", docs/oauth.md "The rules mrtr applies"):
- an absolute `http(s)` URL that parses, with a host, and no control characters or spaces;
- read by a browser (the WHATWG URL standard, mrtr_cli/render/weburl.py) as it is written, so that
  the host judged, shown and connected to is the one a browser visits: no backslash
  before its query, no user name or password, a host that is neither percent-encoded nor
  non-ASCII (its punycode is), IPv4 only in dotted decimal (`http://0x7f.1/`,
  `http://2130706433/` and `http://127.1/` are 127.0.0.1 to a browser);
- never a link-local address (169.254.0.0/16, fe80::/10: where cloud instance metadata
  lives), a known instance-metadata address or name, or the unspecified address, also by a
  name that resolves to one (`resolved_refusal` before the request; transport/http/guard.py
  checks the very address a connection is opened to);
- HTTPS, or plain HTTP to this machine (127.0.0.0/8, `localhost`, `::1`), or plain HTTP
  on the origin the user gave (the caller says which origin that is, when it applies).

Spec: 2026-07-28 basic/authorization/security-considerations "Communication Security"
(HTTPS; metadata is untrusted input) and "Server-Side Request Forgery (SSRF)" (no requests
to link-local or cloud-metadata addresses on a server's word); RFC 9110 section 15.4
(redirects).
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from mrtr_cli.render.weburl import browser_view, misread, written_host

#: Names of this machine: plain HTTP is allowed to these.
LOOPBACK_NAMES = ("localhost",)

#: Host names of cloud instance-metadata services (their addresses are link-local or
#: listed in `METADATA_ADDRESSES`): never contacted on a server's word.
METADATA_NAMES = ("metadata.google.internal", "metadata.goog", "metadata", "instance-data",
                  "instance-data.ec2.internal", "metadata.azure.com")

#: Instance-metadata addresses outside the link-local ranges (AWS IPv6, Alibaba Cloud).
METADATA_ADDRESSES = (ipaddress.ip_address("fd00:ec2::254"), ipaddress.ip_address("100.100.100.200"))

#: What the rule says of a forbidden host (the URL or address is named before it).
FORBIDDEN = "a link-local or cloud-metadata address"
#: What the rule says of plain HTTP elsewhere.
PLAIN_HTTP = "plain HTTP to another machine"


#: What the rule says of a value that is no absolute http(s) URL (`url_problem`).
INVALID = "is not a valid http(s) URL"


def url_problem(value: object) -> str | None:
    """What keeps `value` from being a URL a request may be judged for, or None: `INVALID`
    (not an absolute http(s) URL with a host that parses, by a browser too, or control
    characters or spaces in it), or, for a URL a browser reads otherwise than it is written, the words of
    `weburl.misread` ("which holds a backslash, ...: a browser goes to host H")."""
    if not isinstance(value, str) or any(ord(c) < 0x21 or ord(c) == 0x7F for c in value) or not value.isprintable():
        return INVALID
    view = browser_view(value)
    if view.href is None:  # a browser cannot go there at all (`https://as.example.0`: a bad IPv4 address)
        return INVALID
    if view.scheme in ("http", "https") and view.host and written_host(value):  # a URL to both readings
        why = misread(value)
        if why is not None:
            return why
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    try:
        p = urlsplit(value)
        p.port  # noqa: B018 - raises ValueError on a bad port
        httpx2.URL(value)
    except (ValueError, TypeError, httpx2.InvalidURL):
        return INVALID
    return None if p.scheme.lower() in ("http", "https") and p.hostname else INVALID


def is_valid_url(value: object) -> bool:
    """`value` is an absolute http(s) URL that parses (host, port), without control
    characters or spaces, that a browser reads as it is written (`url_problem`)."""
    return url_problem(value) is None


def is_loopback(host: str) -> bool:
    """`host` (a URL's hostname) names this machine: localhost, 127.0.0.0/8 or ::1."""
    host = host.lower().rstrip(".")
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    address = _address(host)
    return address is not None and address.is_loopback


def forbidden_address(host: str) -> bool:
    """`host` (a URL's hostname, or an address) is a link-local address (169.254.0.0/16,
    fe80::/10, also IPv4-mapped), a known instance-metadata address or name, or the
    unspecified address (0.0.0.0, ::)."""
    host = host.lower().rstrip(".")
    if host in METADATA_NAMES:
        return True
    address = _address(host)
    if address is None:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    address = mapped or address
    return address.is_link_local or address.is_unspecified or address in METADATA_ADDRESSES


def refusal(url: str, *, same_origin_as: str | None = None) -> str | None:
    """Why no request may go to `url` (a valid URL: `is_valid_url`), as the words that
    follow it in a message (`FORBIDDEN` or `PLAIN_HTTP`, after "is"), or None when one may:
    HTTPS, or plain HTTP to this machine or to the origin of `same_origin_as` (the URL the
    user gave, reached over plain HTTP by the user's choice); never a link-local or
    cloud-metadata host. Names are not resolved here (`resolved_refusal`)."""
    view = browser_view(url)  # the host a browser visits: the URL passed `is_valid_url`, so urllib's too
    host = view.host
    if forbidden_address(host):
        return FORBIDDEN
    if view.scheme == "https" or is_loopback(host):
        return None
    if same_origin_as is not None and origin(url) == origin(same_origin_as):
        return None
    return PLAIN_HTTP


def resolved_refusal(url: str) -> str | None:
    """The address `url`'s host name resolves to that is link-local or cloud metadata (a
    name pointed at 169.254.169.254), or None. Addresses and loopback names are not looked
    up (`refusal` judged them); a name that does not resolve passes (the request then
    fails as unreachable). Called right before a request to a server-given URL; the
    connection itself is checked again (transport/http/guard.py), so a name that resolves
    elsewhere the second time gains nothing."""
    host = urlsplit(url).hostname or ""
    if not host or _address(host) is not None or is_loopback(host):
        return None
    import socket  # noqa: PLC0415 - lazy for start-up time

    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return None
    for info in infos:
        address = str(info[4][0]).split("%")[0]
        if forbidden_address(address):
            return address
    return None


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of `url`, lower case, the default port filled in: two URLs of
    one origin (RFC 6454) give the same tuple."""
    p = urlsplit(url)
    default = {"http": 80, "https": 443}.get(p.scheme.lower())
    return p.scheme.lower(), (p.hostname or "").lower(), p.port or default


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return None
