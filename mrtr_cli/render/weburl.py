"""How a browser reads a URL, and where that is not how the URL reads: the one reading of
every URL a server hands mrtr (a URL-mode elicitation's link, the sign-in's metadata URLs and
authorization endpoint, the MCP endpoint's redirects).

A browser parses by the WHATWG URL standard (here through `ada-url`, the parser Node.js
uses); Python's `urllib.parse` and mrtr's HTTP client read RFC 3986. They differ, and a
host shown or judged by one reading while a browser (or the request) goes by the other is
how a link disguises where it goes:
- a backslash is a `/` to a browser in http(s): `https://evil.example\\@good.com/x` visits
  evil.example (path `/@good.com/x`), where urllib sees user `evil.example\\` at good.com;
- tabs and line breaks are dropped, leading and trailing spaces and C0 controls stripped;
- `user:password@host` visits `host` (the part before `@` is there to be read as one);
- a percent-encoded host is decoded (`%65vil.example` is evil.example), a non-ASCII one
  is visited as its punycode (UTS 46: `faß.de` is `xn--fa-hia.de`, where Python's IDNA 2003
  codec says `fass.de`);
- IPv4 in other forms is an address: `http://0x7f.1/`, `http://2130706433/` and
  `http://127.1/` are all 127.0.0.1, which matters to any loopback or private-address rule;
- `//host/path` (scheme-relative) is no URL on its own;
- a label `xn--...` that is no valid punycode of a valid label (`xn--a`, `xn--`, `xn--zz`)
  fails the browser's IDNA step: no URL at all (`_bad_punycode`).

`misread` names the first of these a URL has, as one line: the rule on where a request
may go refuses such a URL naming the host a browser visits (transport/http/urlrule.py).
A URL-mode link is shown as sent, with the host from `browser_view`, and never opened
when a browser reads it otherwise (responders/urls.py).

Spec: 2026-07-28 client/elicitation "Safe URL Handling" (show the host, warn on suspicious
URLs), basic/authorization/security-considerations.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

#: `misread`'s words for a URL a browser cannot parse at all.
UNPARSED = "which a browser cannot parse as an absolute URL"


@dataclass(frozen=True)
class BrowserView:
    """How a browser reads a URL (WHATWG URL standard), beside how it reads to a person.

    Attributes:
        written: the URL as the server sent it.
        href: the browser's serialisation of it, or None when a browser cannot parse it.
        scheme: the scheme without `:`, lower case ("" when it does not parse).
        host: the host a browser visits (ASCII: IDNA labels as punycode, IPv4 in dotted
            decimal, IPv6 in brackets; "" for none).
        credentials: the URL carries a user name or password.
        same: `href` is `written`, up to the case of scheme and host and a `/` after a bare origin.
    """

    written: str
    href: str | None = None
    scheme: str = ""
    host: str = ""
    credentials: bool = False
    same: bool = False


def browser_view(url: str, base: str | None = None) -> BrowserView:
    """Parse `url` as a browser does (WHATWG URL standard), against `base` when given (a
    redirect's `Location`). `ada_url` is imported here only: a run that meets no
    server-given URL never loads it (about 8 ms)."""
    import ada_url  # noqa: PLC0415 - lazy for start-up time

    try:
        parsed = ada_url.URL(url, base) if base is not None else ada_url.URL(url)
    except (ValueError, TypeError):
        return BrowserView(url)
    if "xn--" in parsed.hostname and _bad_punycode(parsed.hostname):  # ada-url passes it, a browser does not
        return BrowserView(url)
    href = parsed.href
    origin = len(parsed.protocol) + (2 + len(parsed.host) if parsed.host else 0)  # `scheme:` and `//host`
    same = any(written[:origin].lower() == href[:origin] and written[origin:] == href[origin:]
               for written in (url, url + "/") if len(written) == len(href))
    return BrowserView(url, href, parsed.protocol.rstrip(":").lower(), parsed.hostname or "",
                       bool(parsed.username or parsed.password), same)


#: Unicode categories no valid IDNA label holds (UTS 46 "disallowed"): controls, format
#: characters (but the joiners), surrogates, private use, unassigned, spaces and separators.
_NOT_IN_A_LABEL = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"))


def _bad_punycode(host: str) -> bool:
    """Whether a label of `host` (lower case, as the parser gives it) starts `xn--` but is not
    the punycode of a valid label (UTS 46 section 4.1, which the WHATWG host parser applies:
    a browser refuses the URL). Its payload must decode (`encodings.punycode`), to text that
    is not empty, not all ASCII, in NFC and lower case (UTS 46's mapped form), with no
    disallowed character, and that encodes back to the same payload."""
    import unicodedata  # noqa: PLC0415 - only for a host with a punycode label

    for label in host.split("."):
        if not label.startswith("xn--"):
            continue
        payload = label[4:]
        try:
            decoded = payload.encode("ascii").decode("punycode")
            again = decoded.encode("punycode").decode("ascii")
        except (UnicodeError, ValueError):
            return True
        if (not decoded or decoded.isascii() or again != payload or decoded != decoded.lower()
                or unicodedata.normalize("NFC", decoded) != decoded
                or any(unicodedata.category(c) in _NOT_IN_A_LABEL and c not in "\u200c\u200d" for c in decoded)):
            return True
    return False


def written_host(url: str) -> str | None:
    """The host of `url` as Python's `urllib.parse` (and so a person reading `user@host`)
    reads it, lower case ("" for none), or None when it does not parse."""
    from urllib.parse import urlsplit  # noqa: PLC0415 - lazy for start-up time

    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return None


def misread(url: str, base: str | None = None) -> str | None:
    """Why a browser does not read `url` (against `base`, a redirect's `Location`, when
    given) as it is written (one line, to follow "the URL ..." after a comma), or None
    when it does: it does not parse; it holds spaces, tabs, line breaks or control
    characters; a backslash before its query; a user name or password; a host a browser
    reads otherwise than urllib (percent-encoded, non-ASCII, IPv4 in another form than
    dotted decimal). The words end with the host a browser goes to."""
    view = browser_view(url, base)
    if view.href is None:
        return UNPARSED
    if any(ord(c) <= 0x20 or 0x7F <= ord(c) < 0xA0 for c in url):
        return "which holds spaces, tabs, line breaks or control characters (a browser drops or encodes them)"
    goes = f"a browser goes to host {view.host or '(none)'}"
    if "\\" in url.split("?", 1)[0].split("#", 1)[0]:
        return f"which holds a backslash, a '/' to a browser: {goes}"
    if view.credentials:
        return f"which has a user name or password before its host (a way to disguise where it goes): {goes}"
    if base is not None:
        from urllib.parse import urljoin  # noqa: PLC0415 - lazy for start-up time

        url = urljoin(base, url)
    written = written_host(url)
    if written is None or not _same_host(written, view.host):
        return f"whose host reads otherwise than written ({_how(written or '')}): {goes}"
    return None


def _same_host(written: str, host: str) -> bool:
    """`written` (urllib's hostname: IPv6 without brackets) names the host a browser reads as `host`."""
    if written == host:
        return True
    if host.startswith("["):
        try:
            return ipaddress.ip_address(written.split("%")[0]) == ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            return False
    return False


def _how(written: str) -> str:
    """What is odd about a host `written` that a browser reads otherwise."""
    if not written.isascii():
        return "not ASCII; a browser visits its punycode"
    if "%" in written:
        return "percent-encoded"
    if written and all(c in "0123456789abcdefx." for c in written):
        return "an IPv4 address in another form than dotted decimal"
    return "written " + repr(written)
