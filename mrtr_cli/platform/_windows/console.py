"""`console` on Windows: `CONIN$`, `msvcrt.kbhit`."""

from __future__ import annotations

import sys
import time
from typing import IO


def open_terminal() -> IO[str] | None:
    """The console's input (`CONIN$`) for reading text, or None without a console."""
    try:
        return open("CONIN$", encoding="utf-8")
    except OSError:
        return None


def key_waiting(stream: IO[str], timeout: float) -> bool | None:
    """Whether a key was pressed in this process's console within `timeout` seconds
    (`msvcrt.kbhit`); None when `stream` is not a console."""
    import msvcrt  # noqa: PLC0415 - Windows only
    if sys.platform != "win32":  # msvcrt and its names exist on Windows only (the import fails elsewhere)
        raise AssertionError("Windows only")

    try:
        if not stream.isatty():
            return None
    except (AttributeError, OSError, ValueError):
        return None
    end = time.monotonic() + timeout
    while not msvcrt.kbhit():
        if time.monotonic() >= end:
            return False
        time.sleep(0.02)
    return True
