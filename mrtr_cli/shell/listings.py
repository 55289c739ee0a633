"""The shell's list cache: lists kept in memory for the session's life, and valid while
the server can say they changed.

2026-07-28 server/utilities/caching: a list is fresh while `now < receivedAt + ttlMs`,
and a matching `notifications/*/list_changed` invalidates it at once. A shell holds a
subscription to those notifications (shell/watch.py), so a list stays valid after its
`ttlMs` (often 0) for as long as the subscription (or, on a 2025-11-25 server, the
`listChanged` capability) covers it: a `call` in the shell costs one round trip, not a
`tools/list` too. A list nothing covers is fresh for its `ttlMs` only, as for one command.

Underneath is the state directory's list cache (protocol/lists/cache.py), so a list the
shell fetched also serves the shell completion of the login shell afterwards.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.protocol.lists.cache import CachedList, ListCache, scope_of

#: The notification kind (protocol/features/listen.py `LISTS`) whose `list_changed` covers each list method.
KIND_OF = {
    "tools/list": "tools",
    "prompts/list": "prompts",
    "resources/list": "resources",
    "resources/templates/list": "resources",
}


@dataclass
class HeldList(CachedList):
    """A list in the shell's memory: fresh by its `ttlMs`, or while `held()` says a change
    notification would still reach the shell."""

    held: Callable[[], bool] = field(default=lambda: False)

    def fresh(self, now: float | None = None) -> bool:
        """True while held, else as `CachedList.fresh`."""
        return self.held() or super().fresh(now)


class ShellLists(ListCache):
    """The list cache of a shell: a `ListCache` whose entries are kept in memory, over the
    state directory's (`disk`, which stores them; every method `protocol.lists.catalog` and
    `protocol.features.completions` use is its own: `get`, `put`, `invalidate`,
    `get_every_declaration`).

    Args:
        disk: the server's cache in the state directory, or None (`MRTR_NO_CACHE`).
        covered: whether change notifications for a kind ("tools", ...) reach the shell now.
        declared: the `clientCapabilities` a list method's requests declare now (a line's own
            `--sampling-command` or `--root` among them): a list is kept per declaration, as
            a server may list differently to each (protocol/capabilities/declared.py).
    """

    def _kept_key(self, method: str) -> tuple[str, str]:
        """Where `method`'s list under the declaration made now is kept in memory."""
        declared = self._declared(method) if self._declared is not None else None
        return method, json.dumps(declared, sort_keys=True)

    def __init__(self, disk: ListCache | None, covered: Callable[[str], bool],
                 declared: Callable[[str], Any] | None = None):  # no files of its own: `disk` stores
        self.disk = disk
        self._covered = covered
        self._declared = declared
        self._memory: dict[tuple[str, str], HeldList] = {}
        self._lock = threading.Lock()
        self._changed: set[str] = set()  # kinds said to have changed, not fetched since
        self._changed_at: dict[str, float] = {}  # kind -> when its last change was heard (epoch seconds)

    def get(self, method: str) -> CachedList | None:
        """The list kept in memory, else the state directory's entry (fresh or not), kept in
        memory from then on while it is fresh (it is not read again for every line)."""
        key = self._kept_key(method)
        entry = self._memory.get(key)
        if entry is not None:
            return entry
        stored = self.disk.get(method) if self.disk is not None else None
        if stored is not None and stored.fresh():
            with self._lock:
                self._memory.setdefault(key, HeldList(method, stored.pages, stored.received, stored.scope))
        return stored

    def kept(self, method: str) -> HeldList | None:
        """The list kept in memory (fresh or not) under the declaration made now, or None."""
        return self._memory.get(self._kept_key(method))

    def put(self, method: str, pages: list[dict[str, Any]], received: list[float]) -> CachedList:
        """Keep a list just fetched, and store it in the state directory unless it is the list
        kept already (a list fetched again for each line of a server whose `ttlMs` is 0 is
        not written again each time). A list whose fetch began before a change of its kind
        was heard (`received`: when its pages count as received) may predate the change: it
        serves the line that fetched it, and is neither kept nor stored."""
        kind = KIND_OF.get(method)
        entry = HeldList(method, pages, received, scope_of(pages))
        with self._lock:
            changed_at = self._changed_at.get(kind) if kind is not None else None
        if changed_at is not None and (not received or min(received) <= changed_at):
            return entry  # fetched before a change was heard: used once, never kept
        key = self._kept_key(method)
        before = self._memory.get(key)
        if self.disk is not None and (before is None or before.pages != pages):
            self.disk.put(method, pages, received)
        if kind is not None:
            entry.held = lambda: self._covered(kind) and self._memory.get(key) is entry
        with self._lock:
            self._memory[key] = entry
            if kind is not None:
                self._changed.discard(kind)
        return entry

    def invalidate(self, method: str) -> None:
        """Forget `method`'s lists (under every declaration), in memory and in the state directory."""
        with self._lock:
            for key in [key for key in self._memory if key[0] == method]:
                del self._memory[key]
        if self.disk is not None:
            self.disk.invalidate(method)

    def changed(self, kind: str) -> bool:
        """The server said its `kind` list changed: forget every list of that kind. True
        when this is news (the first change since a list of that kind was last fetched):
        the change is worth saying; a server repeating it before anything is fetched again
        says nothing new."""
        for method, of in KIND_OF.items():
            if of == kind:
                self.invalidate(method)
        with self._lock:
            news = kind not in self._changed
            self._changed.add(kind)
            self._changed_at[kind] = time.time()
        return news

    def get_every_declaration(self, method: str) -> list[CachedList]:
        """As `ListCache.get_every_declaration` (the state directory's entries)."""
        return self.disk.get_every_declaration(method) if self.disk is not None else []
