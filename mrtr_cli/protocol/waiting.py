"""Waiting for the response to a request: with the deadline, answering the server's own
requests on the waiting thread meanwhile (the message pump), and telling a person at a
terminal when a stdio server stays silent.

A server-initiated request (an older server's `elicitation/create`, `sampling/createMessage`,
`roots/list`) is answered on the thread that waits in `Session.request`, never on a reader
thread, so the answer may prompt a person; those requests are answered one at a time
across threads. A run stopped while answering one (Ctrl-C at a prompt) still sends the
server an error reply first. A stdio server silent on a request for
`MRTR_WAIT_NOTICE_SECONDS` (default 5) gets one "still waiting" line on stderr at a
terminal, naming the request and how to stop (docs/configuration.md), unless no person
waits for it (the shell's completion: `Deadline.unattended`). Time spent
answering the server's own requests (a person at a form) is not the server's silence:
no notice while one is being answered, and the silence counts from the answer sent.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mrtr_cli.errors import TimeoutExpired, TransportError
from mrtr_cli.limits import describe_seconds
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line, quote_value
from mrtr_cli.settings import DEFAULT_WAIT_NOTICE, current
from mrtr_cli.transport.base import Message, OutgoingMessage, Transport
from mrtr_cli.transport.future import CancelledError, Future

if TYPE_CHECKING:  # pragma: no cover
    import collections

    from mrtr_cli.env import Environment
    from mrtr_cli.render.trace import Tracer

_POLL = 0.2  # seconds between deadline checks while waiting on a response
#: Requests whose response is not due while the server is silent: a subscription
#: (basic/patterns/subscriptions) sends notifications when there is something to say.
SILENT_BY_NATURE = ("subscriptions/listen",)


def wait_notice_seconds() -> float | None:
    """The silence (seconds) after which "still waiting" is printed, or None for never:
    `MRTR_WAIT_NOTICE_SECONDS` (a positive number; 0 or a bad value: never), else 5."""
    return current().wait_notice()


class ResponseWaiting:
    """The waiting of `protocol.session.Session` (a base class of it): it uses the session's
    transport, environment, tracer, lock, `on_server_request` handler and the queues the
    message routing (protocol/routing.py) fills: `_server_requests`, `_waiters`,
    `_heard_at`, `_shown`; `_answered_at` is kept here.
    """

    # Declared here, set by `Session.__init__`.
    transport: Transport
    env: Environment
    tracer: Tracer
    protocol_version: str
    on_server_request: Callable[[Message], OutgoingMessage | None] | None
    refused_at_stop: list[Message]
    _lock: threading.Lock
    _heard_at: float | None
    _answered_at: float | None
    _shown: set[Any]
    _server_requests: collections.deque[Message]
    _waiters: set[threading.Event]
    _serving: threading.Lock

    def _wait(self, fut: Future[Message], deadline: Deadline, method: str, *,
              label: Callable[[], str] | None = None, token: Any = None) -> Message:
        """Wait for `fut`, answering server-initiated requests on this thread meanwhile.

        A stdio server that sends nothing for `wait_notice_seconds()` gets one line on
        stderr at a terminal, naming the request (`label()`, made only for that line; `method`
        without it) and how to stop; never on a `subscriptions/listen`, which stays open with
        nothing to say until something changes, nor on a request no person waits for
        (`Deadline.unattended`), nor while a server request is being answered (`_wait_notice`)."""
        wake = threading.Event()
        fut.add_done_callback(lambda _f: wake.set())
        with self._lock:
            self._waiters.add(wake)
        notice_at = None
        if (self.transport.process() is not None and self.env.stderr_isatty and not self.env.quiet
                and method not in SILENT_BY_NATURE and not deadline.unattended):
            after = wait_notice_seconds()
            notice_at = None if after is None else time.monotonic() + after
        try:
            while True:
                if notice_at is not None and time.monotonic() >= notice_at:
                    notice_at = self._wait_notice(label() if label is not None else method, token, notice_at)
                self._serve_server_requests()
                if fut.done():
                    try:
                        return fut.result()
                    except CancelledError:
                        raise TransportError(f"the request {method} was abandoned") from None
                left = deadline.remaining()
                if left is not None and left <= 0:
                    raise timeout_error(self.transport, deadline, method)
                step = _POLL if left is None else min(_POLL, left)
                if notice_at is not None:
                    step = max(0.0, min(step, notice_at - time.monotonic()))
                wake.wait(step)
                wake.clear()
        finally:
            with self._lock:
                self._waiters.discard(wake)

    def _wait_notice(self, label: str, token: object, due: float) -> float | None:
        """Print "still waiting" for `label` unless the server spoke since the wait began
        (progress for `token`, or any message less than a wait-notice ago: then the notice
        is due that long after it) or waits for mrtr: while a server request is being
        answered (a person at a form, a sampling command) the check comes again shortly,
        and after one is answered the silence counts from the answer. Returns when the
        next check is due (None: done). `due` is when this check was due."""
        after = wait_notice_seconds() or DEFAULT_WAIT_NOTICE
        with self._lock:
            heard = token is not None and token in self._shown
            last = max((t for t in (self._heard_at, self._answered_at) if t is not None), default=None)
        if heard:
            return None  # progress is on show: the server is not silent
        if self._serving.locked():
            return time.monotonic() + _POLL  # the server waits for mrtr's answer, not mrtr for the server
        if last is not None and last + after > time.monotonic():
            return last + after  # it spoke (a log, a notification), or was answered, since: count from then
        self.env.err(f"mrtr: the server has not answered {one_line(label, SERVER_TEXT_CHARS)} for "
                     f"{describe_seconds(after)}; still waiting (Ctrl-C to stop)")
        return None

    def _serve_server_requests(self) -> None:
        """Answer queued server requests, one at a time across threads (the message pump)."""
        if not self._serving.acquire(blocking=False):
            return
        try:
            while True:
                with self._lock:
                    if not self._server_requests:
                        return
                    msg = self._server_requests.popleft()
                handler = self.on_server_request
                try:
                    reply = handler(msg) if handler is not None else {
                        "jsonrpc": "2.0", "id": msg.get("id"),
                        "error": {"code": -32601,
                                  "message": f"this client does not answer {quote_value(msg.get('method'))}"}}
                except BaseException:
                    # The run is stopping (Ctrl-C, a bad answer file, a refusal): the
                    # server still gets an answer before the request is cancelled.
                    self._reply({"jsonrpc": "2.0", "id": msg.get("id"),
                                 "error": {"code": -32603, "message": "the client stopped before answering"}})
                    self.refused_at_stop.append(msg)
                    raise
                if reply is not None:
                    self._reply(reply)
                with self._lock:
                    self._answered_at = time.monotonic()  # the server's silence counts from here
        finally:
            self._serving.release()

    def _reply(self, reply: OutgoingMessage) -> None:
        """Send a response to a server-initiated request."""
        self.tracer.message("send", reply)
        try:
            self.transport.send(reply, {"MCP-Protocol-Version": self.protocol_version})
        except TransportError as exc:
            self.tracer.note(f"could not send the response to server request {quote_value(reply.get('id'))}: "
                             f"{exc.message}")


def timeout_error(transport: Transport, deadline: Deadline, method: str, *, text: str | None = None) -> TimeoutExpired:
    """The `--timeout` error for a request of `method`: which request waited and how long
    (or `text`, which says it), and, when the server has not written anything yet,
    that it was still starting (or silent)."""
    text = text or f"timed out{deadline.describe()} waiting for {method}"
    process = transport.process()
    if process is not None and not process.heard_from():
        text += (": the server has not written anything yet (it was still starting, "
                 "or it does not speak MCP on this connection)")
    return TimeoutExpired(text)
