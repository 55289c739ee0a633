"""Routing what a server sends on its own to a session: its requests to the waiting
thread (protocol/waiting.py; `ping` is answered at once), `notifications/progress` to the
request it belongs to (its callback, the progress display, and its deadline, which
progress extends), `notifications/message` to the log, and every other notification to
the session's `on_notification` (protocol/features/listen.py).

Spec: basic/patterns/progress (progress for a token of no request in flight is ignored),
server/utilities/logging.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from mrtr_cli.transport.base import Message, OutgoingMessage

if TYPE_CHECKING:  # pragma: no cover
    import collections
    import threading

    from mrtr_cli.protocol.deadline import Deadline
    from mrtr_cli.render.trace import Tracer

ProgressCallback = Callable[[dict[str, Any]], None]


class ProgressSink(Protocol):
    """Where the progress of every request is shown (render/progress.ProgressDisplay).

    `update(token, params, label)` gets each `notifications/progress` params of an
    in-flight request (from a reader thread) with a label such as "tools/call slow";
    `end(token)` is called once that request is over, however it ended.
    """

    def update(self, token: object, params: dict[str, Any], label: str) -> None: ...

    def end(self, token: object) -> None: ...


class MessageRouting:
    """The routing of `protocol.session.Session` (a base class of it): it uses the
    session's lock, tracer, `observer`, `progress`, `on_log`, `on_notification`, and
    fills `_server_requests` and wakes `_waiters` (protocol/waiting.py).
    """

    # Declared here, set by `Session.__init__`.
    tracer: Tracer
    protocol_version: str
    observer: Any
    progress: ProgressSink | None
    on_log: Callable[[dict[str, Any]], None] | None
    on_notification: Callable[[Message], None] | None
    _lock: threading.Lock
    _heard_at: float | None
    _progress: dict[Any, tuple[ProgressCallback | None, Deadline, str]]
    _shown: set[Any]
    _server_requests: collections.deque[Message]
    _waiters: set[threading.Event]

    if TYPE_CHECKING:  # pragma: no cover - `Session`'s methods, declared for the type checker only
        def _declared_once(self) -> dict[str, Any] | None: ...
        def _reply(self, reply: OutgoingMessage) -> None: ...

    def _end_progress(self, token: object) -> None:
        with self._lock:
            known = self._progress.pop(token, None) is not None
            shown = token in self._shown
            self._shown.discard(token)
        if known and shown and self.progress is not None:  # the display only hears of requests it shows
            try:  # noqa: SIM105 - a catch of Exception stays marked for BLE001; suppress() would hide it
                self.progress.end(token)
            except Exception:  # noqa: BLE001 - a display problem must not change the outcome
                pass

    def _on_message(self, msg: Message) -> None:
        self.tracer.message("recv", msg)
        with self._lock:
            self._heard_at = time.monotonic()
        if self.observer is not None:
            self.observer.version = self.protocol_version
            self.observer.incoming(msg, declared=self._declared_once())
        method = msg.get("method")
        if "id" in msg and method:
            if method == "ping":
                self._reply({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
                return
            with self._lock:
                self._server_requests.append(msg)
                waiters = list(self._waiters)
            for wake in waiters:
                wake.set()
            return
        raw_params = msg.get("params")
        params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
        if method == "notifications/progress":
            token = params.get("progressToken")
            with self._lock:
                entry = self._progress.get(token)
                if entry is not None:
                    self._shown.add(token)
            if entry is None:
                return  # not an in-flight request of ours (spec: ignore)
            callback, deadline, label = entry
            deadline.on_progress()
            if callback is not None:
                callback(params)
            if self.progress is not None:
                self.progress.update(token, params, label)
        elif method == "notifications/message":
            if self.on_log is not None:
                self.on_log(params)
        elif method and self.on_notification is not None:
            self.on_notification(msg)


