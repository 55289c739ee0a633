"""`fileopen` on Windows: binary descriptors; nothing to wait for (no FIFOs)."""

from __future__ import annotations

import os

BINARY: int = getattr(os, "O_BINARY", 0x8000)
NO_WAIT = 0


def open_output(path: str, flags: int, mode: int) -> int:
    """`path` opened for writing with `flags` (binary).

    Raises:
        OSError: it cannot be opened.
    """
    return os.open(path, flags | BINARY, mode)
