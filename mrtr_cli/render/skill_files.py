"""Writing a verified skill into a directory the user names (`mrtr skill NAME --files DIR`).

Nothing unverified is ever kept: every file is written into a fresh temporary directory
beside DIR, and that directory becomes DIR (one rename) only once every file was read and
verified. A failure on the way removes the temporary directory and leaves DIR untouched.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from mrtr_cli.errors import UsageError


def check_destination(directory: str) -> Path:
    """The destination `directory` for a skill: it must not exist, or be an empty directory,
    and its parent must exist. Checked before anything is fetched.

    Raises:
        UsageError: DIR is empty, a symbolic link, a file, a non-empty directory, or has
            no parent directory.
    """
    if not directory:
        raise UsageError("--files: the path is empty", hint="name the directory to write the skill into")
    path = Path(directory)
    if path.is_symlink():  # DIR is replaced whole by one rename, which would replace the link itself
        raise UsageError(f"--files {directory}: is a symbolic link; mrtr writes a skill only into a directory "
                         "it can create or replace (an empty one)",
                         hint="name the directory the link points to, or a new path")
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise UsageError(f"--files {directory}: exists and is not an empty directory",
                         hint="name a new directory (mrtr never overwrites files there)")
    parent = path.absolute().parent
    if not parent.is_dir():
        raise UsageError(f"--files {directory}: the directory {parent} does not exist")
    return path


class StagedSkill:
    """A temporary directory beside the destination that collects verified files.

    Use as a context manager: `add(relative_path, data)` for each verified file, then
    `commit()` moves it into place; leaving the block without `commit` deletes it.
    """

    def __init__(self, destination: Path):
        self.destination = destination
        try:
            self.stage = Path(tempfile.mkdtemp(prefix=".mrtr-skill-", dir=destination.absolute().parent))
        except OSError as exc:
            raise UsageError(f"--files {destination}: {exc.strerror or exc}") from None

    def __enter__(self) -> StagedSkill:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.stage.exists():
            shutil.rmtree(self.stage, ignore_errors=True)

    def add(self, relative: str, data: bytes) -> None:
        """Write one verified file at `relative` (a path the loader checked: no `..`)."""
        target = self.stage.joinpath(*relative.split("/"))
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        except OSError as exc:
            raise UsageError(f"--files {self.destination}: {relative}: {exc.strerror or exc}") from None

    def commit(self) -> list[str]:
        """Move the staged directory to the destination; returns the files' paths there.

        Raises:
            UsageError: the destination appeared meanwhile and is not empty.
        """
        if self.destination.is_dir():
            try:
                self.destination.rmdir()  # empty (checked before fetching): replaced whole
            except OSError:
                raise UsageError(f"--files {self.destination}: is no longer empty; nothing was written") from None
        umask = os.umask(0)
        os.umask(umask)
        try:
            os.chmod(self.stage, 0o777 & ~umask)  # mkdtemp made it private; DIR gets the usual mode
            os.replace(self.stage, self.destination)
        except OSError as exc:
            raise UsageError(f"--files {self.destination}: {exc.strerror or exc}; nothing was written") from None
        return sorted(str(self.destination / p.relative_to(self.destination))
                      for p in _files(self.destination))


def _files(root: Path) -> Iterable[Path]:
    return (p for p in root.rglob("*") if p.is_file())
