"""Asking before a browser opens, and opening it (2026-07-28 basic/authorization):
at a terminal the person consents before a browser opens (docs/oauth.md, "When `mrtr` signs in").

The browser is opened with the standard library's `webbrowser` (so `BROWSER` is
honoured), never through a shell. Server-supplied text is sanitized before it is shown.
"""

from __future__ import annotations

from typing import IO

from mrtr_cli.env import Environment, LinkLine
from mrtr_cli.errors import Declined
from mrtr_cli.render.sanitize import sanitize


def describe(env: Environment, server: str, issuer: str, scopes: list[str], url: str | None = None) -> None:
    """Say on stderr which server asks, which issuer signs in, the host a browser visits for
    the authorization URL `url` (as a browser reads it, render/weburl.py: the rule every
    server-given URL passes made it the host the URL reads as), and for which scopes."""
    env.err(f"mrtr: {sanitize(server, single_line=True)} asks you to sign in")
    env.err(f"  authorization server: {sanitize(issuer, single_line=True)}")
    if url is not None:
        from mrtr_cli.render.weburl import browser_view  # noqa: PLC0415 - lazy for start-up time

        host = browser_view(url).host
        env.err(f"  sign-in page on host: {sanitize(host, single_line=True) if host else '(none)'}")
    env.err(f"  scopes: {sanitize(' '.join(scopes), single_line=True) if scopes else '(none asked)'}")


def _read_line(env: Environment) -> str:
    stream: IO[str] | None = env.prompt_input()
    if stream is None:
        return ""
    line = stream.readline()
    if not line:
        raise Declined("sign-in cancelled (end of input)")
    return line.strip()


def ask_open(env: Environment) -> bool:
    """Ask whether to open the browser: True to open, False to show the URL only.

    Raises:
        Declined: the person cancelled (exit 6 is not used for sign-in: the caller
            turns it into exit 8).
    """
    while True:
        env.stderr.write("Open the browser to sign in? [Y]es / [s]how the URL / [n]o, cancel: ")
        env.stderr.flush()
        answer = _read_line(env).lower()
        if answer in ("", "y", "yes", "o", "open"):
            return True
        if answer in ("s", "show", "u", "url"):
            return False
        if answer in ("n", "no", "c", "cancel", "q"):
            raise Declined("sign-in cancelled")


def show_url(env: Environment, url: str, *, opened: bool = False) -> None:
    """Print the authorization URL on stderr (it is the authorization server's own URL,
    the one a browser would visit; it carries the PKCE challenge and `state`, no secret).

    Args:
        opened: a browser was started with it (which may have shown nothing).
    """
    env.err("If the browser shows nothing, open this URL in a browser to sign in:" if opened
            else "Open this URL in a browser to sign in:")
    shown = sanitize(url, single_line=True)
    env.err(LinkLine("  " + shown, shown))  # the link to open: whole, whatever its parameters are named


def open_browser(env: Environment, url: str) -> bool:
    """Open `url` in the browser (`platform.browser.open_url`: BROWSER honoured, no shell,
    a terminal browser only when BROWSER names it); False when no browser could be started
    (the URL is then shown)."""
    from mrtr_cli.platform.browser import open_url  # noqa: PLC0415 - lazy for start-up time

    ok = open_url(url)
    if not ok:
        env.err("mrtr: note: the browser could not be started (or it failed)")
        show_url(env, url)
    return ok


def paste_prompt(env: Environment) -> None:
    """Ask for the URL the browser was redirected to (the caller reads it)."""
    env.stderr.write("Paste the address your browser was sent to after signing in (or wait for it to come back): ")
    env.stderr.flush()
