"""`filelock` on Windows: `msvcrt.locking` on one byte at `LOCK_OFFSET`."""

from __future__ import annotations

import contextlib
import os
import sys

#: Where the locked byte is (past the data of any file locked this way).
LOCK_OFFSET = 1 << 30


def _at_lock_byte(fd: int, mode: int) -> None:
    import msvcrt  # noqa: PLC0415 - Windows only
    if sys.platform != "win32":  # msvcrt and its names exist on Windows only (the import fails elsewhere)
        raise AssertionError("Windows only")

    here = os.lseek(fd, 0, os.SEEK_CUR)
    os.lseek(fd, LOCK_OFFSET, os.SEEK_SET)
    try:
        msvcrt.locking(fd, mode, 1)
    finally:
        os.lseek(fd, here, os.SEEK_SET)


def try_lock(fd: int) -> bool:
    """Take the lock on `fd`'s file without waiting; False when another holds it.

    Raises:
        OSError: the file cannot be locked for another reason.
    """
    import msvcrt  # noqa: PLC0415 - Windows only
    if sys.platform != "win32":  # msvcrt and its names exist on Windows only (the import fails elsewhere)
        raise AssertionError("Windows only")

    try:
        _at_lock_byte(fd, msvcrt.LK_NBLCK)
    except PermissionError:  # EACCES: the byte is locked by another descriptor
        return False
    except OSError as exc:
        if exc.errno in (13, 36):  # EACCES, EDEADLOCK (msvcrt's "locked")
            return False
        raise
    return True


def unlock(fd: int) -> None:
    """Release the lock on `fd` (never raises)."""
    import msvcrt  # noqa: PLC0415 - Windows only
    if sys.platform != "win32":  # msvcrt and its names exist on Windows only (the import fails elsewhere)
        raise AssertionError("Windows only")

    with contextlib.suppress(OSError):
        _at_lock_byte(fd, msvcrt.LK_UNLCK)
