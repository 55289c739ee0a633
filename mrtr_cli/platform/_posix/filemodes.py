"""`filemodes` on Linux and macOS: chmod."""

from __future__ import annotations

import contextlib
import os
import sys

# POSIX only (the platform facade picks the Windows module); the type checker skips the rest on Windows.
assert sys.platform != "win32", "POSIX only"


def owner_only_file(fd: int) -> None:
    """Mode 0600 for the open file `fd`.

    Raises:
        OSError: it cannot be changed.
    """
    os.fchmod(fd, 0o600)


def owner_only_folder(path: str) -> None:
    """Mode 0700 for the folder `path` (a folder made earlier with a wider mode); never raises."""
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
