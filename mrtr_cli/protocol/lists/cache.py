"""A cache of list results per server, in the state directory (2026-07-28 server/utilities/caching).

`tools/list` (and the other list methods) carry `ttlMs` and `cacheScope`. Every page
is stored as sent with the time it arrived; a cached list is *fresh* while every
page is (`now < receivedAt + ttlMs`; an absent or negative `ttlMs` counts as 0).
Stale entries are still readable for offline uses (shell completion), never for
typing a call.

Keys: one directory per server (a hash of its URL, or of its stdio command and
working directory). `public` results are shared by every authorization context;
`private` ones are stored per authorization context, named by an HMAC of the
headers and environment values the target sends, under a random local key: the
secret itself is never written, and the file name cannot be checked against a
guessed token without that key. Every entry is also keyed by the client capabilities
its requests declared (a server may list more to a client declaring more:
protocol/capabilities/declared.py), so a list fetched under one declaration is never served to
a run declaring another. Results of MRTR retries are never cached (list
methods are not retried with `inputResponses`).

Files are written atomically with mode 0600 in a 0700 directory. Any error
reading or writing the cache is ignored: the cache only saves round trips.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mrtr_cli.jsonfile import write_json_atomic
from mrtr_cli.platform.fileopen import BINARY

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.config.target import Target
    from mrtr_cli.transport.base import SignIn

FORMAT = "mrtr-list-cache/1"


@dataclass(eq=False, repr=False)
class CachedList:
    """One cached list.

    Attributes:
        method: the list method, e.g. "tools/list".
        pages: each page's result as the server sent it, in order.
        received: when each page arrived (seconds since the epoch).
        scope: "public" or "private".
        declared: the client capabilities its requests declared (None in an entry an
            older mrtr wrote, which did not keep them).
    """

    method: str
    pages: list[dict[str, Any]]
    received: list[float]
    scope: str
    declared: dict[str, Any] | None = None

    def expires_at(self) -> float:
        """The time (epoch seconds) at which the first page goes stale."""
        ends = []
        for page, at in zip(self.pages, self.received, strict=True):
            ttl = page.get("ttlMs")
            ttl = ttl if isinstance(ttl, int | float) and not isinstance(ttl, bool) and ttl > 0 else 0
            ends.append(at + ttl / 1000.0)
        return min(ends) if ends else 0.0

    def fresh(self, now: float | None = None) -> bool:
        """True while every page is fresh (`now < receivedAt + ttlMs`)."""
        return (time.time() if now is None else now) < self.expires_at()


def scope_of(pages: list[dict[str, Any]]) -> str:
    """`public` only when every page says so; anything else (absent, odd) is `private`."""
    return "public" if pages and all(p.get("cacheScope") == "public" for p in pages) else "private"


def _digest(*parts: object) -> str:
    from mrtr_cli.digest import sha256_hex  # noqa: PLC0415 - lazy for start-up time

    return sha256_hex(json.dumps(parts, sort_keys=True).encode("utf-8"))[:32]


def _safe_method(method: str) -> str:
    return method.replace("/", "_")


class ListCache:
    """The list cache of one server, seen from one authorization context.

    Args:
        root: the cache directory (e.g. `$XDG_STATE_HOME/mrtr/cache`).
        server_identity: what identifies the server (URL, or stdio argv and cwd); any JSON value.
        auth_context: what identifies the authorization context (header and environment
            values, the OAuth sign-in), or None when there is none; hashed with a local key,
            never stored. A callable is asked each time a key is needed (a sign-in may
            happen during the run).
        declared: gives the `clientCapabilities` a list method's requests declare (by
            method), or None for none; an entry is found only under the same declaration.
    """

    def __init__(self, root: str, server_identity: object, auth_context: Any = None,
                 declared: Callable[[str], Any] | None = None):
        self.root = root
        self.server_dir = os.path.join(root, _digest(server_identity))
        self._auth_context = auth_context
        self._declared = declared
        self._auth_name: str | None = None
        self._auth_material: bytes | None = None

    # ------------------------------------------------------------------ keys
    def _key(self) -> bytes:
        from mrtr_cli.userfiles import read_state_bytes  # noqa: PLC0415 - lazy for start-up time

        path = os.path.join(self.root, "key")
        key = read_state_bytes(path, limit=4096)  # a FIFO or a device there is no key, never a hang
        if key is not None and len(key) >= 32:
            return key
        os.makedirs(self.root, mode=0o700, exist_ok=True)
        key = os.urandom(32)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | BINARY, 0o600)
        except FileExistsError:  # another run made it first (or it is no usable key: this run's own)
            time.sleep(0.05)
            theirs = read_state_bytes(path, limit=4096)
            return theirs if theirs is not None and len(theirs) >= 32 else key
        with os.fdopen(fd, "wb") as fh:
            fh.write(key)
        return key

    def _auth(self) -> str:
        context = self._auth_context() if callable(self._auth_context) else self._auth_context
        if context is None:
            return "none"
        material = json.dumps(context, sort_keys=True).encode("utf-8")
        if self._auth_name is None or material != self._auth_material:
            import hashlib  # noqa: PLC0415 - lazy for start-up time
            import hmac  # noqa: PLC0415 - lazy for start-up time

            self._auth_name = hmac.new(self._key(), material, hashlib.sha256).hexdigest()[:32]
            self._auth_material = material
        return self._auth_name

    def _path(self, method: str, scope: str) -> str:
        name = _safe_method(method) + (".public" if scope == "public" else f".private-{self._auth()}")
        if self._declared is not None:
            name += ".caps-" + _digest(self._declared(method))[:16]
        name += ".json"
        return os.path.join(self.server_dir, name)

    # ------------------------------------------------------------------ read / write
    def get(self, method: str) -> CachedList | None:
        """The cached list for `method` visible to this authorization context (fresh or not):
        this context's private entry, else the public one, whichever arrived last."""
        found = [entry for scope in ("private", "public")
                 if (entry := self._read(self._path(method, scope), method, scope)) is not None]
        if not found:
            return None
        return max(found, key=lambda c: min(c.received) if c.received else 0.0)

    def get_every_declaration(self, method: str) -> list[CachedList]:
        """Every cached list for `method` visible to this authorization context, whatever
        client capabilities its requests declared, newest first (shell completion offers a
        name however it was listed; a run itself uses `get`, its own declaration's entry)."""
        prefixes = {"public": _safe_method(method) + ".public",
                    "private": _safe_method(method) + f".private-{self._auth()}"}
        try:
            names = os.listdir(self.server_dir)
        except OSError:
            return []
        found = []
        for name in names:
            for scope, prefix in prefixes.items():
                if name.endswith(".json") and (name == prefix + ".json" or name.startswith(prefix + ".caps-")):
                    entry = self._read(os.path.join(self.server_dir, name), method, scope)
                    if entry is not None:
                        found.append(entry)
        return sorted(found, key=lambda c: min(c.received) if c.received else 0.0, reverse=True)

    @staticmethod
    def _read(path: str, method: str, scope: str) -> CachedList | None:
        """The cached list in `path`, or None when it is missing or not a valid entry for `method`
        (a FIFO or a device there is none, never a hang: `userfiles.read_state_json`)."""
        from mrtr_cli.userfiles import read_state_json  # noqa: PLC0415 - lazy for start-up time

        doc = read_state_json(path)
        if (isinstance(doc, dict) and doc.get("format") == FORMAT and doc.get("method") == method
                and isinstance(doc.get("pages"), list) and isinstance(doc.get("received"), list)
                and len(doc["pages"]) == len(doc["received"])
                and all(isinstance(p, dict) for p in doc["pages"])):
            declared = doc.get("declared") if isinstance(doc.get("declared"), dict) else None
            try:
                return CachedList(method, doc["pages"], [float(t) for t in doc["received"]], scope, declared)
            except (TypeError, ValueError):
                return None
        return None

    def put(self, method: str, pages: list[dict[str, Any]], received: list[float]) -> CachedList:
        """Store a freshly fetched list (all its pages). Returns what was stored."""
        declared = self._declared(method) if self._declared is not None else None
        entry = CachedList(method, pages, received, scope_of(pages), declared)
        doc = {"format": FORMAT, "method": method, "scope": entry.scope, "received": received, "pages": pages,
               **({"declared": declared} if declared is not None else {})}
        try:
            os.makedirs(self.server_dir, mode=0o700, exist_ok=True)
            write_json_atomic(self._path(method, entry.scope), doc, indent=None)
            if entry.scope == "public":
                # A list that became public supersedes this context's private copy.
                self._remove(self._path(method, "private"))
        except (OSError, TypeError, ValueError):
            pass
        return entry

    def invalidate(self, method: str) -> None:
        """Forget `method`'s cached list for this authorization context (and the public one)."""
        for scope in ("private", "public"):
            self._remove(self._path(method, scope))

    @staticmethod
    def _remove(path: str) -> None:
        with contextlib.suppress(OSError):
            os.unlink(path)


def cache_for(target: Target, authorizer: SignIn | None,
              declared: Callable[[str], dict[str, Any]]) -> ListCache | None:
    """The list cache of a run's server under `<state dir>/cache`, or None when
    `MRTR_NO_CACHE` is set. Keyed by the server (`target.cache_identity()`), the
    authorization context (`target.auth_context()`, plus the OAuth sign-in in use when
    `authorizer`, the OAuth hook (`transport.base.SignIn`), has one: asked only when a key
    is needed) and the capabilities the run declares on each list (`declared(method)`)."""
    from mrtr_cli.settings import current  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.state import state_dir  # noqa: PLC0415 - lazy for start-up time

    if current().no_cache:
        return None
    folder = os.path.join(state_dir(), "cache")
    if authorizer is None:
        return ListCache(folder, target.cache_identity(), target.auth_context(), declared=declared)

    def context() -> dict[str, Any] | None:
        base, signed_in = target.auth_context(), authorizer.identity()
        return base if signed_in is None else {**(base or {}), "oauth": signed_in}

    return ListCache(folder, target.cache_identity(), context, declared=declared)
