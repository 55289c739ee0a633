"""Where `mrtr` keeps its state (task records, pending calls, caches, the token store):
`state_dir()`, chosen by `choose_state_dir`, a pure function of the platform and the
environment (tested for every platform on any one).

1. `MRTR_STATE_DIR`, when set, everywhere (mrtr's own setting: `mrtr_cli/state.py` applies it
   before asking this module).
2. `$XDG_STATE_HOME/mrtr`, when `XDG_STATE_HOME` is set, everywhere.
3. Linux (and every POSIX system but macOS): `~/.local/state/mrtr`, as before.
4. macOS and Windows: `~/.local/state/mrtr` when that folder already exists (made by an
   earlier `mrtr`: its sign-ins, task records and pending calls stay where they are, used
   in place, never moved); else the platform's own folder, from `platformdirs`:
   `~/Library/Application Support/mrtr` on macOS, `%LOCALAPPDATA%\\mrtr` on Windows (in the
   user's profile, not roaming: tokens stay on the machine).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping

APP = "mrtr"


def choose_state_dir(platform: str, environ: Mapping[str, str], home: str,
                     exists: Callable[[str], bool], native: Callable[[], str]) -> str:
    """The state directory (module docstring).

    Args:
        platform: `sys.platform` ("linux", "darwin", "win32", ...).
        environ: the environment (`XDG_STATE_HOME`; `MRTR_STATE_DIR` is mrtr's own setting,
            applied before this choice: `mrtr_cli/state.py`).
        home: the user's home folder.
        exists: whether a folder exists (`os.path.isdir`).
        native: the platform's own state folder for mrtr (`platformdirs`), asked only when
            it is the answer.
    """
    xdg = environ.get("XDG_STATE_HOME")
    if xdg:
        return os.path.join(xdg, APP)
    legacy = os.path.join(home, ".local", "state", APP)
    if platform not in ("darwin", "win32") or exists(legacy):
        return legacy
    return native()


def _native() -> str:
    import platformdirs  # noqa: PLC0415 - lazy: only macOS and Windows ever need it

    return str(platformdirs.user_state_dir(APP, appauthor=False))


def state_dir() -> str:
    """The state directory of this machine and run (created by whoever writes into it)."""
    return choose_state_dir(sys.platform, os.environ, os.path.expanduser("~"), os.path.isdir, _native)
