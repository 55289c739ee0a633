"""Where `mrtr` keeps local state: `$XDG_STATE_HOME/mrtr` (default `~/.local/state/mrtr`).

Holds task records, interrupted pending documents and caches. Nothing secret is
ever written here (no headers, no tokens).
"""

from __future__ import annotations

import os


def state_dir() -> str:
    """The state directory (created on first use by whoever writes into it).

    `MRTR_STATE_DIR` overrides the XDG location.
    """
    override = os.environ.get("MRTR_STATE_DIR")
    if override:
        return override
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "mrtr")
