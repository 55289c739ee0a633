"""URL-mode elicitation URLs: how to show them, what to warn about, and opening them safely.

Spec: client/elicitation (2026-07-28), "Safe URL Handling": never pre-fetch the URL,
never open it without explicit consent, show the full URL before consent, highlight
its domain, warn on punycode or suspicious URLs, open it where the client cannot
inspect the page (the system browser).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

OPENABLE_SCHEMES = ("http", "https")


@dataclass
class UrlParts:
    """A URL cut into the pieces shown to a person, in order; joined they are the URL.

    Attributes:
        before_host: scheme and `://` (e.g. `https://`).
        userinfo: `user:password@` when present (a classic spoofing trick), else "".
        host: the host exactly as written (case kept, IPv6 brackets kept).
        after_host: `:port`, path, query and fragment.
    """

    before_host: str
    userinfo: str
    host: str
    after_host: str


def split_for_display(url: str) -> UrlParts | None:
    """Cut `url` into display pieces, or None when it has no `//host` part."""
    scheme_end = url.find("://")
    if scheme_end < 0:
        return None
    start = scheme_end + 3
    end = len(url)
    for sep in "/?#":
        pos = url.find(sep, start)
        if pos >= 0:
            end = min(end, pos)
    netloc = url[start:end]
    userinfo, at, hostport = netloc.rpartition("@")
    if hostport.startswith("["):
        close = hostport.find("]")
        host = hostport[: close + 1] if close >= 0 else hostport
    else:
        host = hostport.rsplit(":", 1)[0] if ":" in hostport else hostport
    port = hostport[len(host):]
    return UrlParts(url[:start], userinfo + at, host, port + url[end:])


def _unicode_host(host: str) -> str | None:
    """The Unicode form of a punycode host, or None when it has none (or does not decode)."""
    if not any(label.lower().startswith("xn--") for label in host.split(".")):
        return None
    try:
        return host.encode("ascii").decode("idna")
    except (UnicodeError, ValueError):
        return None


def url_warnings(url: str) -> list[str]:
    """Reasons to be careful with `url`, one line each (empty when none): not https, a host
    that is an IP address, punycode or non-ASCII (look-alike) host names, a user name or
    password before the host, control characters, or a URL that does not parse."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return ["the URL does not parse"]
    warnings = []
    scheme = parts.scheme.lower()
    if scheme not in OPENABLE_SCHEMES:
        warnings.append(f"not a web address (scheme {parts.scheme or 'missing'!r}); mrtr will not open it")
    elif scheme != "https":
        warnings.append("not https: the connection is not encrypted")
    try:
        ipaddress.ip_address(host.strip("[]"))
        warnings.append("the host is an IP address, not a name")
    except ValueError:
        pass
    shown = _unicode_host(host)
    if shown is not None:
        warnings.append(f"the host is punycode; browsers may show it as '{shown}': look-alike domains use this")
    elif any(ord(c) > 127 for c in host):
        warnings.append("the host has non-ASCII characters: look-alike domains use this")
    if parts.username is not None or parts.password is not None:
        warnings.append("the URL has a user name or password before the host: the real host is after the '@'")
    if not host and scheme in OPENABLE_SCHEMES:
        warnings.append("the URL has no host")
    if any(ord(c) < 32 or 127 <= ord(c) < 160 or c.isspace() for c in url):
        warnings.append("the URL contains spaces or control characters")
    return warnings


def openable(url: str) -> bool:
    """True when `url` is an http(s) URL with a host (the only kind `mrtr` will open)."""
    try:
        parts = urlsplit(url)
        return parts.scheme.lower() in OPENABLE_SCHEMES and bool(parts.hostname)
    except ValueError:
        return False


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Point file descriptor 1 at stderr while a browser starts, so nothing it prints
    reaches stdout (which carries results only)."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):
        yield
        return
    try:
        os.dup2(2, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def open_in_browser(url: str) -> bool:
    """Open `url` in the system browser (Python's `webbrowser`, which honours `$BROWSER`).

    Call only after the person consented. Returns False when no browser could be started
    or the URL is not an http(s) URL.
    """
    if not openable(url):
        return False
    import webbrowser  # noqa: PLC0415 - lazy

    with _stdout_to_stderr():
        try:
            return bool(webbrowser.open(url))
        except Exception:  # noqa: BLE001 - any browser failure means "not opened"
            return False
