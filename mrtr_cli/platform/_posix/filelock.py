"""`filelock` on Linux and macOS: `flock`."""

from __future__ import annotations

import contextlib
import fcntl
import sys

# POSIX only (the platform facade picks the Windows module); the type checker skips the rest on Windows.
assert sys.platform != "win32", "POSIX only"


def try_lock(fd: int) -> bool:
    """Take the exclusive lock on `fd`'s file without waiting; False when another holds it.

    Raises:
        OSError: the file system cannot lock (not "held by another").
    """
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def unlock(fd: int) -> None:
    """Release the lock on `fd` (never raises)."""
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_UN)
