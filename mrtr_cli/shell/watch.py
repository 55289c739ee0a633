"""Watching the shell's server for list changes, so that its lists stay valid in between.

2026-07-28 (basic/patterns/subscriptions): change notifications come only on a
`subscriptions/listen` stream, so the shell keeps one open on a thread of its own for the
lists the server declares `listChanged` for (`server/discover` capabilities), from the
session's start to its end (after a stdio server is started again, a new one: the server
keeps no subscription state). What its acknowledgement honours is *covered*: those lists
stay valid until a `list_changed` arrives. 2025-11-25: the server sends the notifications
on its own (stdio, or the HTTP GET stream) when its `initialize` result declares
`listChanged`; over stdio those lists are covered while the session lasts (over HTTP
such notifications come only on an optional GET stream, which a server may not offer:
they are heard, but not counted on).

Each change forgets the lists of its kind (shell/listings.py) and is said on stderr
(above the prompt at a terminal).

The shell waits for the subscription's acknowledgement before its first line, at most
`ACK_WAIT` seconds: what the shell fetches from then on is covered from the moment it is
received, however slowly the acknowledgement travels. A server that never acknowledges
costs the wait once; its lists are then fetched again as their `ttlMs` says.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from mrtr_cli.protocol.features.listen import LISTS, Want, listen
from mrtr_cli.protocol.session import Session
from mrtr_cli.shell.objects import member
from mrtr_cli.transport.base import Message

#: notification method -> kind ("tools", "prompts", "resources")
KIND_OF_NOTIFICATION = {method: kind for kind, (_, method) in LISTS.items()}

#: Seconds `ListWatcher.start` waits for a 2026-07-28 subscription's acknowledgement.
ACK_WAIT = 10.0
#: Seconds the shell waits, once its session is closed, for the subscription's thread to end
#: (its stream broken by the close ends it at once; a bound, never a wait on the server).
END_WAIT = 5.0


def declared_kinds(capabilities: object) -> list[str]:
    """The kinds whose `listChanged` the server declares in `capabilities`."""
    caps = capabilities if isinstance(capabilities, dict) else {}
    return [k for k in LISTS if isinstance(caps.get(k), dict) and caps[k].get("listChanged") is True]


class ListWatcher:
    """The change watching of one session.

    Args:
        session: the open session.
        on_change: called with the kind of each list that changed (on a reader thread).
        on_end: called with the exception that ended a 2026-07-28 subscription (the server
            went away, or the session closed), on the watcher's thread.
    """

    def __init__(self, session: Session, on_change: Callable[[str], None],
                 on_end: Callable[[BaseException], None] | None = None):
        self.session = session
        self.on_change = on_change
        self.on_end = on_end
        self._covered: set[str] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._settled = threading.Event()  # acknowledged, refused or ended: `start` waits no more
        self.stopping = False
        #: The 2026-07-28 subscription broke (the server went away, a stream dropped): the
        #: shell may subscribe again (a new `ListWatcher`) once the server answers.
        self.broken = False

    def covers(self, kind: str) -> bool:
        """Whether a change of `kind` would reach the shell now."""
        with self._lock:
            return kind in self._covered

    def start(self, wait: float = ACK_WAIT) -> None:
        """Begin watching what the server declares: a 2026-07-28 subscription on a thread,
        whose acknowledgement (or end) this waits for, at most `wait` seconds."""
        session = self.session
        if session.listens_by_request:
            kinds = declared_kinds((session.discover_result or {}).get("capabilities"))
            if kinds:
                self._thread = threading.Thread(target=self._listen, args=(kinds,), name="mrtr-shell-watch",
                                                daemon=True)
                self._thread.start()
                self._settled.wait(wait)
            return
        kinds = declared_kinds(getattr(session, "server_capabilities", None))
        session.route_notifications(self._notified)
        if session.transport.process() is not None:  # over HTTP they come only on an optional stream: not counted on
            with self._lock:
                self._covered = set(kinds)

    def stop(self) -> None:
        """Stop counting on change notifications (the session is closing)."""
        self.stopping = True
        with self._lock:
            self._covered.clear()

    def join(self, timeout: float) -> None:
        """Wait at most `timeout` seconds for the subscription's thread to end (after the
        session closed: its broken stream ends it quietly, `stop`)."""
        if self._thread is not None:
            self._thread.join(timeout)

    # ------------------------------------------------------------------ internals
    def _notified(self, msg: Message) -> None:
        kind = KIND_OF_NOTIFICATION.get(str(msg.get("method")))
        if kind is not None:
            self.on_change(kind)

    def _acknowledged(self, msg: Message) -> None:
        honoured = member(member(msg, "params"), "notifications")
        with self._lock:
            self._covered = {k for k, (field, _) in LISTS.items() if honoured.get(field) is True}
        self._settled.set()

    def _listen(self, kinds: list[str]) -> None:
        try:
            listen(self.session, Want(kinds=kinds), on_event=self._notified, on_ack=self._acknowledged)
        except BaseException as exc:  # noqa: BLE001 - the thread ends; the shell goes on without the subscription
            with self._lock:
                self._covered.clear()
            self._settled.set()
            if not self.stopping:
                self.broken = True
                if self.on_end is not None:
                    self.on_end(exc)
            return
        with self._lock:  # the server ended the subscription: nothing is covered any more
            self._covered.clear()
        self._settled.set()
