"""HTTP 429 (Too Many Requests): waiting as the server asks before a request is sent again.

A request or notification refused with 429 is sent again after the server's
`Retry-After` (seconds or an HTTP date; without one 1, 2, 4 s), `MAX_429_RETRIES` times
at most, within the time left and at most `MAX_RETRY_AFTER` seconds a wait; then it
fails (exit 4). See docs/limits.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from mrtr_cli.limits import describe_seconds
from mrtr_cli.render.sanitize import one_line
from mrtr_cli.transport.base import Remaining
from mrtr_cli.transport.errors import BrokenStream, StatusError
from mrtr_cli.transport.http.reply import body_hint, read_capped

if TYPE_CHECKING:  # pragma: no cover
    import httpx2

#: Retries of a request the server answers with HTTP 429 (Too Many Requests).
MAX_429_RETRIES = 3
#: The longest wait for one retry after a 429, in seconds (a longer Retry-After fails at once).
MAX_RETRY_AFTER = 60.0


def wait_to_retry(resp: httpx2.Response, url: str, attempt: int, remaining: Remaining | None,
                  aborted: Callable[[], bool], *, body: bytes | None = None) -> None:
    """HTTP 429: wait as the server asks (`Retry-After`), then return to send again.

    Raises:
        StatusError: retried `MAX_429_RETRIES` times already, or the server asks for
            a wait longer than `MAX_RETRY_AFTER` or than the time left (exit 4).
        RequestTimeout: no time is left.
        BrokenStream: the request was aborted while waiting.
    """
    if body is None:  # `body`: the reply already read (a notification's acknowledgement)
        body = read_capped(resp, 2048)
        resp.close()
    text = body[:2048].decode("utf-8", "replace")
    asked = retry_after_seconds(resp.headers.get("retry-after"))
    delay = asked if asked is not None else float(2 ** attempt)
    said = f" (Retry-After: {one_line(resp.headers.get('retry-after', ''), 60)})" \
        if asked is not None else ""
    left = remaining() if remaining is not None else None
    why = None
    if attempt >= MAX_429_RETRIES:
        why = f"still refused after {MAX_429_RETRIES} retries"
    elif delay > MAX_RETRY_AFTER:
        why = f"it asks to wait {describe_seconds(delay)}, more than the {describe_seconds(MAX_RETRY_AFTER)} mrtr waits"
    elif left is not None and delay >= left:
        why = f"it asks to wait {describe_seconds(delay)}, more than the {describe_seconds(left)} left of --timeout"
    if why is not None:
        raise StatusError(f"HTTP 429 (Too Many Requests) from {url}{said}: {why}", 429, text,
                              hint=body_hint(text) or "try again later")
    pause(delay, aborted)


def pause(seconds: float, aborted: Callable[[], bool]) -> None:
    """Wait `seconds` (a bounded number: the caller checks it against its limit and the
    time left), in short steps, so that a request aborted meanwhile (Ctrl-C, the
    transport closing) ends the wait at once.

    Raises:
        BrokenStream: `aborted()` turned true while waiting.
    """
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        if aborted():
            raise BrokenStream("request aborted")
        time.sleep(min(left, 0.1))


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """The wait a `Retry-After` header asks for, in seconds (RFC 9110 section 10.2.3:
    a number of seconds, or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():  # more than 12 digits is over 30,000 years: read as endless
        return float(int(value)) if len(value) <= 12 else float("inf")
    from email.utils import parsedate_to_datetime  # noqa: PLC0415 - only after a 429

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))

