"""URL-mode elicitation URLs: how to show them, what to warn about, and opening them safely.

Spec: client/elicitation (2026-07-28), "Safe URL Handling": never pre-fetch the URL,
never open it without explicit consent, show the full URL before consent, highlight
its domain, warn on punycode or suspicious URLs, open it where the client cannot
inspect the page (the system browser).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line, quote_value
from mrtr_cli.render.weburl import browser_view

OPENABLE_SCHEMES = ("http", "https")
#: The most characters of a URL-mode request's `url` (docs/limits.md "URL-mode
#: elicitation"): such a URL is shown whole, never cut, so a longer one is refused. A
#: consent page's link a person must read is far shorter; browsers cap near 2 MB.
MAX_URL_CHARS = 8 * 1024


@dataclass
class UrlParts:
    """A URL cut into the pieces shown to a person, in order; joined they are the URL.

    Attributes:
        before_host: scheme and `://` (e.g. `https://`).
        userinfo: `user:password@` when present (a classic spoofing trick), else "".
        host: the host as a browser parses it (WHATWG URL standard).
        after_host: `:port`, path, query and fragment.
    """

    before_host: str
    userinfo: str
    host: str
    after_host: str


def refusal(url: str) -> str | None:
    """Why `mrtr` will not open `url` (None when it will): it is not an http(s) URL with a
    host, it carries a user name or password, or a browser reads it differently than it
    reads (spaces, tabs or line breaks dropped, backslashes, percent-encoded or non-ASCII host
    names, `..` segments: what a browser visits is then not what a person was shown)."""
    view = browser_view(url)
    if view.href is None:
        return "a browser cannot parse this URL; mrtr will not open it"
    if view.scheme not in OPENABLE_SCHEMES:
        return f"not a web address (scheme {quote_value(view.scheme)}); mrtr will not open it"
    if not view.host:
        return "the URL has no host; mrtr will not open it"
    if view.credentials:
        return ("the URL has a user name or password before the host: the real host is after the '@'; "
                "mrtr will not open it")
    if not view.same:
        return (f"a browser reads this URL differently than it reads here (it goes to "
                f"{one_line(view.href, SERVER_TEXT_CHARS)}); "
                "mrtr will not open it")
    return None


def browser_host(url: str) -> str:
    """The host a browser visits for `url` ("" when none): the one to show a person."""
    return browser_view(url).host


def host_line(url: str) -> str:
    """The host a browser visits for `url` as a person is shown it: "(none)", or the host,
    followed by " (punycode)" when it is one (the name as sent may be non-ASCII, or a
    look-alike; a browser may show its Unicode form: `url_warnings` says which)."""
    host = browser_host(url)
    if not host:
        return "(none)"
    punycode = any(label.startswith("xn--") for label in host.split("."))
    return one_line(host, SERVER_TEXT_CHARS) + (" (punycode)" if punycode else "")


def length_refusal(url: str) -> str | None:
    """Why a URL-mode request's `url` is refused for its length (None when it is not): more
    than `MAX_URL_CHARS` characters. A URL is shown whole before consent (never with a part
    hidden), and a message is bounded: a longer one cannot be both."""
    if len(url) <= MAX_URL_CHARS:
        return None
    return (f"the URL is {len(url):,} characters long, more than the {MAX_URL_CHARS:,} a link to open may "
            "have (it is shown whole before you consent); mrtr refuses it")


def credentials_refusal(url: str) -> str | None:
    """Why a URL-mode request's `url` is refused outright (None when it is not): it has a
    user name or password before its host, which is there to be read as the host (a
    browser visits what follows the `@`), and which a message would show masked."""
    view = browser_view(url)
    if not view.credentials:
        return None
    return (f"the URL has a user name or password before its host (a way to disguise where a link goes): "
            f"a browser goes to host {view.host}; mrtr refuses such a URL")


def split_for_display(url: str) -> UrlParts | None:
    """Cut `url` into display pieces by the browser's parse, or None when the browser reads
    it differently than it is written (then it is shown whole, with `browser_host`)."""
    view = browser_view(url)
    if view.href is None or not view.same or not view.host or view.credentials:
        return None
    start = len(view.scheme) + 3  # "https://"
    end = start + len(view.host)
    return UrlParts(url[:start], "", url[start:end], url[end:])


def _unicode_host(host: str) -> str | None:
    """The Unicode form of a punycode host, or None when it has none (or does not decode)."""
    if not any(label.lower().startswith("xn--") for label in host.split(".")):
        return None
    try:
        return host.encode("ascii").decode("idna")
    except (UnicodeError, ValueError):
        return None


def url_warnings(url: str) -> list[str]:
    """Reasons to be careful with `url`, one line each (empty when none): the `refusal`
    reason, not https, a host that is an IP address, a punycode or non-ASCII (look-alike)
    host name, control characters or spaces."""
    view = browser_view(url)
    warnings = []
    reason = refusal(url)
    if reason is not None:
        warnings.append(reason)
    if view.scheme == "http":
        warnings.append("not https: the connection is not encrypted")
    host = view.host
    try:
        ipaddress.ip_address(host.strip("[]"))
        warnings.append("the host is an IP address, not a name")
    except ValueError:
        pass
    shown = _unicode_host(host)
    if shown is not None:
        warnings.append(f"the host is punycode; browsers may show it as '{shown}': look-alike domains use this")
    written_host = split_host_as_written(url)
    if any(ord(c) > 127 for c in written_host):
        warnings.append("the host has non-ASCII characters: look-alike domains use this")
    if any(ord(c) < 32 or 127 <= ord(c) < 160 or c.isspace() for c in url):
        warnings.append("the URL contains spaces or control characters")
    return warnings


def split_host_as_written(url: str) -> str:
    """The text between `://` (and any `user@`) and the next `/`, `?`, `#` or `\\`, as written."""
    start = url.find("://")
    if start < 0:
        return ""
    rest = url[start + 3:]
    for sep in "/?#\\":
        rest = rest.split(sep, 1)[0]
    return rest.rpartition("@")[2]


def openable(url: str) -> bool:
    """True when `mrtr` will open `url` (no `refusal`)."""
    return refusal(url) is None




def open_in_browser(url: str) -> bool:
    """Open `url` in the browser (`platform.browser.open_url`: `$BROWSER` honoured, a
    terminal browser only when it names one, nothing it prints on stdout).

    Call only after the person consented. Returns False when no browser could be started
    or the URL is not an http(s) URL.
    """
    if not openable(url):
        return False
    from mrtr_cli.platform.browser import open_url  # noqa: PLC0415 - lazy for start-up time

    return open_url(url)
