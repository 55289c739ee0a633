"""Routing what a server sends on its own to a session: its requests to the waiting
thread (protocol/waiting.py; `ping` is answered at once), `notifications/progress` to the
request it belongs to (its callback, the progress display, and its deadline, which
progress extends), `notifications/message` to the log, and every other notification to
the session's `on_notification` (protocol/features/listen.py).

A server request is answered by the thread of a request of mrtr's that is in flight: it
belongs to that request. One that arrives while none is (the shell at its prompt, a run
between its requests, the 2025-11-25 HTTP GET stream) is refused at once, never kept for
the next request (whose user would see it as that request's question): 2025-11-25 server
requests belong to a client request (`-32600` here; but a `roots/list` the session can
answer without a person waits for the next request: `_may_wait`), and 2026-07-28 has no standalone
server requests at all (`-32601`: its servers ask in results, basic/patterns/mrtr, so
every server request of that era is refused at once). The first refusal of a session is
said on stderr, once (a flood of them is not a flood of lines); the rest go to `-v`.

Spec: basic/patterns/progress (progress for a token of no request in flight is ignored),
server/utilities/logging, basic/patterns/mrtr.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from mrtr_cli.render.sanitize import quote_value
from mrtr_cli.transport.base import Message, OutgoingMessage

if TYPE_CHECKING:  # pragma: no cover
    import collections
    import threading

    from mrtr_cli.env import Environment
    from mrtr_cli.protocol.deadline import Deadline
    from mrtr_cli.render.trace import Tracer

ProgressCallback = Callable[[dict[str, Any]], None]
#: JSON-RPC codes of a server request refused because no request of mrtr's is in flight:
#: a 2025-11-25 request outside any client request's context is an invalid request; a
#: 2026-07-28 server has no such method to send.
REFUSED_OUTSIDE_REQUEST = -32600
REFUSED_IN_ERA = -32601


class ProgressSink(Protocol):
    """Where the progress of every request is shown (render/progress.ProgressDisplay).

    `update(token, params, label)` gets each `notifications/progress` params of an
    in-flight request (from a reader thread) with a label such as "tools/call slow";
    `end(token)` is called once that request is over, however it ended.
    """

    def update(self, token: object, params: dict[str, Any], label: str) -> None: ...

    def end(self, token: object) -> None: ...


class LogSink(Protocol):
    """Where the server's `notifications/message` go (render/live/logs.LogPrinter):
    called with each one's params (from a reader thread); `summarise()` once a request of
    mrtr's is over, or the session closes (what a flood of them left unshown)."""

    def __call__(self, params: dict[str, Any]) -> None: ...

    def summarise(self) -> None: ...


class MessageRouting:
    """The routing of `protocol.session.Session` (a base class of it): it uses the
    session's lock, tracer, `observer`, `progress`, `on_log`, `on_notification`, and
    fills `_server_requests` and wakes `_waiters` (protocol/waiting.py) while
    `_in_flight` (requests of mrtr's waiting for their response) is above 0.
    """

    # Declared here, set by `Session.__init__`.
    env: Environment
    tracer: Tracer
    protocol_version: str
    asks_in_results: bool
    observer: Any
    progress: ProgressSink | None
    on_log: LogSink | None
    on_notification: Callable[[Message], None] | None
    _lock: threading.Lock
    _heard_at: float | None
    _progress: dict[Any, tuple[ProgressCallback | None, Deadline, str]]
    _shown: set[Any]
    _server_requests: collections.deque[Message]
    _waiters: set[threading.Event]
    _in_flight: int
    _refusals_said: bool

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

    def _refuse_outside_request(self, msg: Message) -> None:
        """Answer server request `msg` at once with an error: no request of mrtr's is in
        flight for it to belong to (or the era has no server requests). Said on stderr
        the first time in the session, with `-v` every time."""
        method = quote_value(msg.get("method"))
        if self.asks_in_results:
            code, why = REFUSED_IN_ERA, f"{self.protocol_version} servers ask in results, not in requests of their own"
        else:
            code, why = REFUSED_OUTSIDE_REQUEST, "no request of this client is in flight for it to belong to"
        self._reply({"jsonrpc": "2.0", "id": msg.get("id"),
                     "error": {"code": code, "message": f"{method} refused: {why}"}})
        text = f"refused the server's request {method} ({why})"
        with self._lock:
            said, self._refusals_said = self._refusals_said, True
        self.tracer.note(text)
        if not said and not self.env.quiet:
            self.env.err(f"mrtr: {text}; any more such requests are refused without a word (-v shows them)")

    def _may_wait(self, msg: Message) -> bool:
        """A 2025-11-25 `roots/list` when the session declared roots: its answer needs no
        person (it comes from `--root`, a config or an answer file), so it waits for the next
        request of mrtr's and is answered there, as a server that lists roots right after
        `notifications/initialized` expects (client/roots). Anything else that arrives
        between requests is refused."""
        return msg.get("method") == "roots/list" and "roots" in (self._declared_once() or {})

    def drain_server_requests(self) -> None:
        """Refuse the server requests still queued once no request of mrtr's is in flight
        (they arrived as the last one ended): none is kept for a later request."""
        with self._lock:
            if self._in_flight > 0:
                return
            left = [msg for msg in self._server_requests if not self._may_wait(msg)]
            waiting = [msg for msg in self._server_requests if self._may_wait(msg)]
            self._server_requests.clear()
            self._server_requests.extend(waiting)
        for msg in left:
            self._refuse_outside_request(msg)

    def summarise_floods(self) -> None:
        """Say what a flood left unshown since the last summary: the server's logs beyond
        the bound per request (`LogSink.summarise`), the responses to no request in flight
        `-v` only counted (`Tracer.summarise`). Called as each request of mrtr's ends and
        when the session closes."""
        self.tracer.summarise()
        if self.on_log is not None:
            self.on_log.summarise()

    def _on_message(self, msg: Message) -> None:
        if "method" not in msg:  # a response to no request in flight (one cancelled): ignored, -v notes it
            self.tracer.stray(msg)
            return
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
                kept = not self.asks_in_results and (self._in_flight > 0 or self._may_wait(msg))
                if kept:
                    self._server_requests.append(msg)
                waiters = list(self._waiters)
            if not kept:
                self._refuse_outside_request(msg)
                return
            for wake in waiters:
                wake.set()
            return
        raw_params = msg.get("params")
        params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
        if method == "notifications/progress":
            self._on_progress(params)
        elif method == "notifications/message":
            if self.on_log is not None:
                self.on_log(params)
        elif method and self.on_notification is not None:
            self.on_notification(msg)

    def _on_progress(self, params: dict[str, Any]) -> None:
        """A `notifications/progress` (its `params`): to its request's callback, deadline and
        the progress display; ignored when its token names no request in flight."""
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
