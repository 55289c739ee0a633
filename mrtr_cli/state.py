"""Where `mrtr` keeps local state: `MRTR_STATE_DIR`, else `$XDG_STATE_HOME/mrtr`, else
`~/.local/state/mrtr` on Linux and the platform's own folder on macOS and Windows (unless
an earlier `mrtr` made `~/.local/state/mrtr` there: `platform.userdirs`, docs/platforms.md).

Holds task records, interrupted pending documents, caches and the token store. Nothing
secret is written here outside the token store (no headers).
"""

from __future__ import annotations


def state_dir() -> str:
    """The state directory (created on first use by whoever writes into it)."""
    from mrtr_cli.settings import current  # noqa: PLC0415 - lazy for start-up time

    override = current().state_dir
    if override:
        return override
    from mrtr_cli.platform.userdirs import state_dir as chosen  # noqa: PLC0415 - lazy for start-up time

    return chosen()
