"""`console` on Linux and macOS: `/dev/tty`, `select`."""

from __future__ import annotations

import select
from typing import IO


def open_terminal() -> IO[str] | None:
    """The controlling terminal (`/dev/tty`) for reading text, or None without one."""
    try:
        return open("/dev/tty", encoding="utf-8")
    except OSError:
        return None


def key_waiting(stream: IO[str], timeout: float) -> bool | None:
    """Whether `stream` has input within `timeout` seconds; None when it cannot be waited on."""
    try:
        return bool(select.select([stream.fileno()], [], [], timeout)[0])
    except (AttributeError, OSError, ValueError):
        return None
