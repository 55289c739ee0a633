"""Opening a URL in the person's web browser, the one way mrtr does it (a sign-in, a
URL-mode elicitation the person agreed to open).

Python's `webbrowser` picks the browser: `BROWSER` first, then the system's own
(`open` on macOS, `os.startfile` on Windows, `xdg-open` and the graphical browsers on
Linux). Where no graphical browser can run (no `DISPLAY` or `WAYLAND_DISPLAY`), it falls
back to a browser that runs in the terminal (lynx, w3m, links, `www-browser`) and waits
for it: that browser would take over the terminal mrtr is asking in, and most sign-in
pages cannot be used in it. So a terminal browser is started only when `BROWSER` names
it; otherwise there is "no browser" and the caller shows the URL to open elsewhere.

While the browser starts, file descriptor 1 points at stderr: whatever it prints never
reaches stdout, which carries results only.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator


def open_url(url: str) -> bool:
    """Open `url` in a new browser window or tab.

    Args:
        url: an http(s) URL the caller has checked and the person agreed to open.

    Returns:
        True when a browser was started with it (which may still show nothing); False when
        no browser could be started, or only a terminal browser `BROWSER` does not name.
    """
    import webbrowser  # noqa: PLC0415 - lazy for start-up time: only when a browser opens

    with _stdout_to_stderr():
        try:
            browser = webbrowser.get()
        except webbrowser.Error:
            return False
        if _in_the_terminal(browser) and not os.environ.get("BROWSER"):
            return False
        try:
            return bool(browser.open(url, new=1))
        except Exception:  # noqa: BLE001 - a browser that fails to start, in whatever way, opened nothing
            return False


def _in_the_terminal(browser: object) -> bool:
    """Whether `browser` runs in the foreground of this terminal: webbrowser registers the
    console browsers as a plain `GenericBrowser` (lynx, w3m, links, `www-browser`) or as
    `Elinks`; its graphical ones are `BackgroundBrowser` (a subclass) or a class of their
    own, started in the background."""
    import webbrowser  # noqa: PLC0415 - loaded by the caller

    return type(browser) is webbrowser.GenericBrowser or isinstance(browser, webbrowser.Elinks)


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Point file descriptor 1 at stderr for the block."""
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
