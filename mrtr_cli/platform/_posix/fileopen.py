"""`fileopen` on Linux and macOS."""

from __future__ import annotations

import os
import sys

# POSIX only (the platform facade picks the Windows module); the type checker skips the rest on Windows.
assert sys.platform != "win32", "POSIX only"

BINARY = 0
NO_WAIT = os.O_NONBLOCK | os.O_NOCTTY


def open_output(path: str, flags: int, mode: int) -> int:
    """`path` opened for writing with `flags` without waiting for a FIFO's reader; writes
    then block as usual.

    Raises:
        OSError: it cannot be opened (ENXIO: a FIFO no process reads).
    """
    fd = os.open(path, flags | NO_WAIT, mode)
    try:
        os.set_blocking(fd, True)
    except OSError:
        os.close(fd)
        raise
    return fd
