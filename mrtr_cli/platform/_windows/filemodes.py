"""`filemodes` on Windows: nothing to do (the user's profile admits only that user)."""

from __future__ import annotations


def owner_only_file(fd: int) -> None:
    """Nothing: Windows has no owner-only mode bits (`os.fchmod` exists only from Python
    3.13, and sets the read-only flag alone)."""


def owner_only_folder(path: str) -> None:
    """Nothing (see `owner_only_file`)."""
