"""The era cache: the protocol era found per server, in `eras.json` in the state directory.

Keyed by a hash of the stdio command (and working directory) or of the URL: no secrets
are stored. A server known to be legacy is sent `initialize` at once (so a silent legacy
server costs the probe timeout only once); a modern verdict is recorded but the probe
still runs. A verdict from silence is a guess, kept `SILENT_TTL` seconds. When a cached
guess fails, the entry is dropped and the server is probed again (protocol/era/opener.py).
`MRTR_NO_CACHE` turns the cache off.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from mrtr_cli.digest import sha256_hex

CACHE_FILE = "eras.json"
#: Seconds a legacy guess from a silent probe stays cached (a verdict the server gave stays).
SILENT_TTL = 3600


def server_key(*, url: str | None = None, command: list[str] | None = None, cwd: str | None = None) -> str:
    """The era-cache key of a server: a hash of its URL, or of its stdio command line and
    working directory (never stored in the clear: a URL or argv may hold a token)."""
    text = f"url\0{url}" if url else "stdio\0" + "\0".join(command or []) + f"\0{cwd or ''}"
    return sha256_hex(text.encode("utf-8"))[:32]


class EraCache:
    """`eras.json` in the state directory: `{"servers": {key: {era, protocolVersion, checkedAt[, source]}}}`
    (`checkedAt`: when the entry last changed, in Unix seconds; `source: "timeout"`: a
    legacy guess made because the probe got no answer, which expires after
    `SILENT_TTL` seconds, since a slow modern server looks the same).

    Reads and writes are best effort: a missing or broken file is an empty cache, and
    a failed write is ignored (the next run probes again).
    """

    def __init__(self, path: str | None = None):
        if path is None:
            from mrtr_cli.state import state_dir  # noqa: PLC0415 - lazy for start-up time

            path = os.path.join(state_dir(), CACHE_FILE)
        self.path = path

    def _load(self) -> dict[str, Any]:
        from mrtr_cli.userfiles import read_state_json  # noqa: PLC0415 - lazy for start-up time

        doc = read_state_json(self.path)  # a FIFO or a device there is no cache, never a hang
        servers = doc.get("servers") if isinstance(doc, dict) else None
        return servers if isinstance(servers, dict) else {}

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached entry for `key`, or None (also for a guess from silence older than
        `SILENT_TTL`)."""
        entry = self._load().get(key)
        if not isinstance(entry, dict):
            return None
        if entry.get("source") == "timeout":
            checked = entry.get("checkedAt")
            if not isinstance(checked, (int, float)) or not 0 <= time.time() - checked < SILENT_TTL:
                return None
        return entry

    def put(self, key: str, era: str, version: str | None, *, silent: bool = False) -> None:
        """Record the era (and version) found for `key` (nothing is written when the cache
        already says so: most runs find what the last one found). `silent`: a guess from a
        probe that got no answer (kept `SILENT_TTL` seconds)."""
        known = self.get(key)
        if known is not None and known.get("era") == era and known.get("protocolVersion") == version \
                and (known.get("source") == "timeout") == silent:
            return
        entry: dict[str, Any] = {"era": era, "protocolVersion": version, "checkedAt": int(time.time())}
        if silent:
            entry["source"] = "timeout"
        self._store(key, entry)

    def forget(self, key: str) -> None:
        """Drop `key` (its cached guess failed)."""
        self._store(key, None)

    def _store(self, key: str, entry: dict[str, Any] | None) -> None:
        servers = self._load()
        if entry is None:
            if servers.pop(key, None) is None:
                return
        else:
            servers[key] = entry
        try:
            directory = os.path.dirname(self.path)
            os.makedirs(directory, exist_ok=True)
            import tempfile  # noqa: PLC0415 - only when the cache changes (startup time)

            fd, tmp = tempfile.mkstemp(prefix=".eras-", dir=directory)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"servers": servers}, fh, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError:
            pass
