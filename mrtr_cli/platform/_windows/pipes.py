"""`pipes` on Windows: pipes and consoles cannot be waited on with `select` (sockets only)."""

from __future__ import annotations

import subprocess


def wait_readable(fd: int, timeout: float) -> bool:
    """True at once: the read that follows blocks (`--timeout` does not bound it)."""
    return True


def unread_bytes(fd: int) -> int | None:
    """None: the write end of an anonymous pipe cannot tell."""
    return None


def takes_at_once(fd: int, size: int) -> bool:
    """False: an anonymous pipe's free room cannot be told (writes go through the writer thread)."""
    return False


def watch_exit(proc: subprocess.Popen[bytes]) -> None:
    """None: the reader of a child's stdout sees its end only."""
    return None
