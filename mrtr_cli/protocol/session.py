"""A 2026-07-28 (modern) session: stateless requests with the per-request envelope.

Spec: basic/index ("Message envelope", per-request `_meta`), basic/versioning
(`-32022` UnsupportedProtocolVersion), server/tools (`-32021`
MissingRequiredClientCapability), basic/patterns/progress, cancellation.

Every request carries `_meta` with `io.modelcontextprotocol/protocolVersion`,
`io.modelcontextprotocol/clientCapabilities` (what this run can answer) and
`io.modelcontextprotocol/clientInfo`, plus a fresh `progressToken`. On HTTP the
`MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers mirror the body.
"""

from __future__ import annotations

import collections
import os
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from mrtr_cli import __version__
from mrtr_cli.env import Environment
from mrtr_cli.errors import JsonRpcError, ProtocolError, TimeoutExpired, TransportError, explained
from mrtr_cli.protocol.capabilities import capability_hints
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.headers import request_headers
from mrtr_cli.protocol.jsonrpc import make_notification, make_request, unwrap_response
from mrtr_cli.render.sanitize import quote_value, sanitize
from mrtr_cli.protocol.validate import check_input_request, check_result
from mrtr_cli.render.trace import Tracer
from mrtr_cli.transport.base import Message, Transport
from mrtr_cli.transport.future import CancelledError, Future

MODERN_VERSIONS: tuple[str, ...] = ("2026-07-28",)
LATEST_MODERN = MODERN_VERSIONS[-1]
META = "io.modelcontextprotocol/"

UNSUPPORTED_PROTOCOL_VERSION = -32022
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
HEADER_MISMATCH = -32020

ProgressCallback = Callable[[dict[str, Any]], None]


class ProgressSink(Protocol):
    """Where the progress of every request is shown (render/progress.ProgressDisplay).

    `update(token, params, label)` gets each `notifications/progress` params of an
    in-flight request (from a reader thread) with a label such as "tools/call slow";
    `end(token)` is called once that request is over, however it ended.
    """

    def update(self, token: Any, params: dict[str, Any], label: str) -> None: ...

    def end(self, token: Any) -> None: ...

#: Seconds a `notifications/cancelled` may take to be delivered: the request is being
#: given up (timeout, Ctrl-C), so a server that does not take it must not hold the exit.
CANCEL_SEND_TIMEOUT = 1.0
_POLL = 0.2  # seconds between deadline checks while waiting on a response
#: Seconds a stdio server may stay silent on a request before a person at a terminal is told
#: so; `MRTR_WAIT_NOTICE_SECONDS` sets it (0 turns the line off).
WAIT_NOTICE_SECONDS = 5.0


def wait_notice_seconds() -> float | None:
    """The silence (seconds) after which "still waiting" is printed, or None for never:
    `MRTR_WAIT_NOTICE_SECONDS` (a positive number; 0 or a bad value: never), else 5."""
    text = os.environ.get("MRTR_WAIT_NOTICE_SECONDS")
    if text is None or text == "":
        return WAIT_NOTICE_SECONDS
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0 < value < float("inf") else None


def client_info() -> dict[str, str]:
    """`Implementation` for `io.modelcontextprotocol/clientInfo`: name `mrtr`, the package version."""
    return {"name": "mrtr", "version": __version__}


class MissingCapability(JsonRpcError):
    """`-32021`: the server needs a client capability this run did not declare (the
    server's message kept; mrtr's explanation and the options that declare it: `hint`)."""


def describe_capabilities(required: Any) -> list[str]:
    """Flatten a `ClientCapabilities` object into dotted names, e.g. `elicitation.url`."""
    names: list[str] = []
    if not isinstance(required, dict):
        return names
    for key, value in required.items():
        if key == "extensions" and isinstance(value, dict):
            names.extend(f"extensions.{ext}" for ext in value)
        elif isinstance(value, dict) and value:
            names.extend(f"{key}.{sub}" for sub in value)
        else:
            names.append(key)
    return names


class Session:
    """Sends requests to one server and routes what comes back.

    Args:
        transport: a started-or-startable transport.
        env: the run's environment (for log notifications and diagnostics).
        tracer: message tracer (`-v`, `--trace`).
        protocol_version: the modern version to speak (default 2026-07-28).
        log_level: `io.modelcontextprotocol/logLevel` to set on every request, or None.

    Attributes:
        server_info: the last `io.modelcontextprotocol/serverInfo` seen in a result `_meta`.
        on_log: called with the params of each `notifications/message`.
        on_notification: called (on a reader thread) with every other notification the
            server sends, as sent (list changes, resource updates, subscription
            acknowledgements: protocol/listen.py); None drops them.
        progress: shows the progress of every request (a ProgressSink), or None.
        on_server_request: for older servers; called with a server-initiated request and
            returns the response message to send (None: not handled). It runs on the
            thread waiting in `request` (the message pump), never on a reader thread,
            so it may prompt a person; `ping` is answered at once without it.
        param_headers: optional `Mcp-Param-*` source (`protocol.catalog.ToolCatalog`):
            `headers_for(method, params)` adds headers to each request, and
            `refresh_after_mismatch(method, params)` decides whether a `-32020` is retried.
        discover_result: the `server/discover` result when one was fetched (era probe).
        capabilities: what this run can answer (`ResponderChain.capabilities()`); discovery
            and list requests declare from it what the matching call declares (`capabilities_for`).
    """

    era = "modern"

    def __init__(
        self,
        transport: Transport,
        env: Environment,
        tracer: Tracer,
        *,
        protocol_version: str = LATEST_MODERN,
        log_level: str | None = None,
    ):
        self.transport = transport
        self.env = env
        self.tracer = tracer
        self.protocol_version = protocol_version
        self.log_level = log_level
        self._heard_at: float | None = None  # when the server last sent anything (monotonic)
        self.server_info: dict[str, Any] | None = None
        self.on_log: Callable[[dict[str, Any]], None] | None = None
        self.on_notification: Callable[[Message], None] | None = None
        self.on_server_request: Callable[[Message], Message | None] | None = None
        self.discover_result: dict[str, Any] | None = None
        self.capabilities: dict[str, Any] = {}
        #: `--strict`: sees every response and every message the server sends on its own
        #: (`protocol.strict.StrictChecker`), or None.
        self.observer: Any = None
        self.progress: ProgressSink | None = None
        self.param_headers: Any = None
        #: Server requests answered with an error because the run stopped while they were
        #: being answered (Ctrl-C at a prompt): the server did not get what it asked.
        self.refused_at_stop: list[Message] = []
        self._progress: dict[Any, tuple[ProgressCallback | None, Deadline, str]] = {}
        self._shown: set[Any] = set()  # tokens whose progress reached the display (it is told when they end)
        self._lock = threading.Lock()
        self._started = False
        # Server-initiated requests wait here for a thread blocked in `request` to answer them.
        self._server_requests: collections.deque[Message] = collections.deque()
        self._waiters: set[threading.Event] = set()
        self._serving = threading.Lock()

    # ------------------------------------------------------------------ lifecycle
    def open(self, deadline: Deadline | None = None) -> None:
        """Start the transport (spawn the process / open the HTTP client). A legacy
        session also runs its handshake within `deadline`."""
        if not self._started:
            self.transport.start(self._on_message)
            self._started = True

    def adopt_transport(self) -> None:
        """Take over a transport that is already started (after an era probe): its
        incoming messages are routed to this session from now on."""
        self.transport.rebind(self._on_message)
        self._started = True

    def close(self) -> None:
        """Close the transport; safe to call more than once."""
        self.transport.close()

    @property
    def server_name(self) -> str:
        """A display name for the server: its self-reported title/name, else the target."""
        info = self.server_info or {}
        return str(info.get("title") or info.get("name") or self.transport.label)

    def describe(self, deadline: Deadline | None = None) -> dict[str, Any]:
        """What `mrtr discover` shows: `{era, protocolVersion, result}`, where `result` is
        the `server/discover` result as sent (fetched now unless the era probe has it).

        Raises: as `request`.
        """
        if self.discover_result is None:
            self.discover_result = self.request("server/discover", {}, capabilities=self.capabilities_for("server/discover"),
                                                deadline=deadline)
        return {"era": self.era, "protocolVersion": self.protocol_version, "result": self.discover_result}

    def capabilities_for(self, method: str) -> dict[str, Any]:
        """The `clientCapabilities` a discovery or list request `method` declares: what the
        call it lists for declares (protocol/capabilities.py), so a listing sees what a call sees."""
        from mrtr_cli.protocol.capabilities import declared_for  # noqa: PLC0415

        return declared_for(self.capabilities, method)

    # ------------------------------------------------------------------ requests
    def envelope(self, capabilities: dict[str, Any], request_id: Any) -> dict[str, Any]:
        """The `_meta` object for one request."""
        meta: dict[str, Any] = {
            META + "protocolVersion": self.protocol_version,
            META + "clientCapabilities": capabilities,
            META + "clientInfo": client_info(),
            "progressToken": f"mrtr-{request_id}",
        }
        if self.log_level:
            meta[META + "logLevel"] = self.log_level
        return meta

    def new_request(self, method: str, params: dict[str, Any] | None, capabilities: dict[str, Any]) -> Message:
        """A request message with a fresh id and this session's `_meta` (`envelope`) set
        on top of any `_meta` the caller put in `params`."""
        msg = make_request(method, None)
        body = dict(params or {})
        body["_meta"] = {**(body.get("_meta") or {}), **self.envelope(capabilities, msg["id"])}
        msg["params"] = body
        return msg

    def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        capabilities: dict[str, Any] | None = None,
        deadline: Deadline | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> dict[str, Any]:
        """Send one request and return its `result` object.

        `params` must not contain `_meta` keys of its own except ones the caller wants
        merged (they are kept; the protocol keys are set on top).

        Raises:
            JsonRpcError: the server answered with an error (MissingCapability for -32021).
            ProtocolError: unsupported version with no common version, or a malformed response.
            TransportError / AuthError: the connection failed.
            TimeoutExpired: the deadline passed (the request was cancelled).
            KeyboardInterrupt: Ctrl-C (the request was cancelled first).
        """
        deadline = deadline or Deadline.unbounded()
        capabilities = capabilities if capabilities is not None else {}
        version_retried = False
        stream_retried = False
        header_retried = False
        while True:
            msg = self.new_request(method, params, capabilities)
            try:
                response = self._exchange(msg, deadline, on_progress)
            except TransportError as exc:
                from mrtr_cli.transport.http import BrokenStream  # noqa: PLC0415

                # 2026-07-28: a broken response stream loses the request; re-issue it
                # once as a new request with a new id.
                if isinstance(exc, BrokenStream) and not stream_retried and not deadline.expired():
                    stream_retried = True
                    self.tracer.note(f"{exc.message}; re-issuing the request with a new id")
                    continue
                raise
            try:
                result = unwrap_response(response)
            except JsonRpcError as err:
                if err.code == UNSUPPORTED_PROTOCOL_VERSION and not version_retried:
                    version_retried = True
                    self.protocol_version = self._pick_version(err)
                    self.tracer.note(f"retrying with protocol version {self.protocol_version}")
                    continue
                if err.code == UNSUPPORTED_PROTOCOL_VERSION:
                    raise ProtocolError(
                        f"the server rejected protocol version {self.protocol_version} twice",
                        code=err.code,
                        data=err.data,
                    ) from None
                if err.code == MISSING_REQUIRED_CLIENT_CAPABILITY:
                    raise self._missing_capability(err) from None
                if (err.code == HEADER_MISMATCH and not header_retried and self.param_headers is not None
                        and self.param_headers.refresh_after_mismatch(method, msg["params"])):
                    # streamable-http "x-mcp-header": re-read tools/list, retry once.
                    header_retried = True
                    self.tracer.note("header mismatch (-32020): tool list refreshed; retrying with new Mcp-Param headers")
                    continue
                raise
            self.check_result(method, result, "modern")
            self._note_server_info(result)
            return result

    def check_result(self, method: str, result: dict[str, Any], era: str) -> None:
        """`protocol.validate.check_result` for this session. With `--strict` (an
        `observer`), a shape the schema forbids has already been reported as a violation
        (exit 4) and the result is still printed, as a lint does; without it, it is an
        invalid response.

        Raises:
            InvalidShape: the schema forbids something in `result` (not with `--strict`).
        """
        self._check_shape(check_result, method, result, era)

    def check_input_request(self, request: Any, path: str, era: str) -> None:
        """`protocol.validate.check_input_request` for this session (a task's input request,
        `path` naming it), with `--strict` as `check_result` has it.

        Raises:
            InvalidShape: the schema forbids something in `request` (not with `--strict`).
        """
        self._check_shape(check_input_request, request, path, era)

    def _check_shape(self, check: Callable[..., None], *args: Any) -> None:
        from mrtr_cli.protocol.validate import InvalidShape  # noqa: PLC0415

        try:
            check(*args)
        except InvalidShape:
            if self.observer is None:
                raise

    def notify(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None) -> None:
        """Send a notification (stdio only in 2026-07-28; HTTP defines none); `timeout`
        bounds its delivery in seconds (Transport.send)."""
        msg = make_notification(method, params)
        self.tracer.message("send", msg)
        self.transport.send(msg, self.headers_for(method, params), timeout=timeout)

    def headers_for(self, method: str, params: dict[str, Any] | None) -> dict[str, str]:
        """The HTTP headers of one POSTed message (2026-07-28: version, method, name)."""
        return request_headers(method, params, self.protocol_version)

    def cancel(self, request_id: Any, reason: str) -> None:
        """Cancel an in-flight request (basic/patterns/cancellation): send
        `notifications/cancelled` `{requestId, reason}` on stdio, close the response
        stream on HTTP (no notification there). Never raises: the server may be gone."""
        if not self.transport.cancel_by_close:
            try:
                self.notify("notifications/cancelled", {"requestId": request_id, "reason": reason},
                            timeout=CANCEL_SEND_TIMEOUT)
            except Exception:  # noqa: BLE001 - the server may already be gone
                pass
        try:
            self.transport.abort(request_id)
        except Exception:  # noqa: BLE001
            pass

    # ------------------------------------------------------------------ internals
    def _exchange(self, msg: Message, deadline: Deadline, on_progress: ProgressCallback | None) -> Message:
        """Send `msg` and wait for its response, honouring `deadline` and Ctrl-C.

        The request's `progressToken` routes its progress notifications to `on_progress`
        and the session's progress sink, and extends `deadline` (up to its cap).
        On timeout or Ctrl-C the request is cancelled first; after a Ctrl-C a second one
        exits at once (protocol/interrupts). Server-initiated requests that arrive
        meanwhile are answered on this thread (`_wait`, the message pump).
        """
        rid = msg["id"]
        meta = (msg.get("params") or {}).get("_meta") or {}
        token = meta.get("progressToken")
        headers = self.headers_for(msg["method"], msg.get("params"))
        if self.param_headers is not None:  # may fetch tools/list first
            headers.update(self.param_headers.headers_for(msg["method"], msg.get("params")))
        if token is not None:
            with self._lock:
                self._progress[token] = (on_progress, deadline, _label(msg))
        self.tracer.message("send", msg)
        try:
            if self._inline():
                response = self._exchange_inline(msg, headers, deadline)
            else:
                fut = self.transport.request(msg, headers, budget=deadline.remaining)
                response = self._wait(fut, deadline, msg["method"], label=_label(msg), token=token)
        except TransportError:
            raise
        except KeyboardInterrupt:
            from mrtr_cli.protocol.interrupts import arm_hard_exit  # noqa: PLC0415

            arm_hard_exit(self.transport.kill)
            self._end_progress(token)
            if not self.env.quiet:
                self.env.err(f"mrtr: cancelling {_label(msg)} (press Ctrl-C again to stop at once)")
            self.cancel(rid, "user interrupted (Ctrl-C)")
            raise
        except BaseException as exc:
            # The deadline, or a failure while answering a server request (a bad
            # answer file, a refusal): the request is abandoned, so tell the server.
            self._end_progress(token)
            reason = getattr(deadline, "stop_reason", None) or (
                "timeout" if isinstance(exc, TimeoutExpired) else "the client stopped")
            self.cancel(rid, reason)
            raise
        finally:
            self._end_progress(token)
        self.tracer.message("recv", response)
        if self.observer is not None:  # --strict (protocol/strict.py)
            self.observer.version = self.protocol_version
            self.observer.response(msg, response, declared=self._declared_once())
        return response

    def _declared_once(self) -> dict[str, Any] | None:
        """What an older session declared in `initialize` (None: modern requests carry it)."""
        return None if self.era == "modern" else getattr(self, "declared", None)

    def _inline(self) -> bool:
        """Run this request in the calling thread: the transport can, the thread is not the
        main one (which must stay free for Ctrl-C), and no server request can arrive for this
        thread to answer meanwhile (a 2026-07-28 server asks its questions in results)."""
        return (self.transport.inline_exchange and self.era == "modern"
                and threading.current_thread() is not threading.main_thread())

    def _exchange_inline(self, msg: Message, headers: dict[str, str], deadline: Deadline) -> Message:
        from mrtr_cli.transport.base import RequestTimeout  # noqa: PLC0415

        try:
            return self.transport.exchange(msg, headers, deadline.remaining)
        except RequestTimeout:
            raise timeout_error(self.transport, deadline, msg["method"]) from None

    def _wait(self, fut: Future[Message], deadline: Deadline, method: str, *,
              label: str | None = None, token: Any = None) -> Message:
        """Wait for `fut`, answering server-initiated requests on this thread meanwhile.

        A stdio server that sends nothing for `wait_notice_seconds()` gets one line on
        stderr at a terminal, naming the request (`label`) and how to stop."""
        wake = threading.Event()
        fut.add_done_callback(lambda _f: wake.set())
        with self._lock:
            self._waiters.add(wake)
        notice_at = None
        if self.transport.local_process and self.env.stderr_isatty and not self.env.quiet:
            after = wait_notice_seconds()
            notice_at = None if after is None else time.monotonic() + after
        try:
            while True:
                if notice_at is not None and time.monotonic() >= notice_at:
                    notice_at = self._wait_notice(label or method, token, notice_at)
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

    def _wait_notice(self, label: str, token: Any, due: float) -> float | None:
        """Print "still waiting" for `label` unless the server spoke since the wait began
        (progress for `token`, or any message less than a wait-notice ago: then the notice
        is due that long after it); returns when the next check is due (None: done).
        `due` is when this check was due."""
        after = wait_notice_seconds() or WAIT_NOTICE_SECONDS
        with self._lock:
            heard = token is not None and token in self._shown
            last = self._heard_at
        if heard:
            return None  # progress is on show: the server is not silent
        if last is not None and last + after > time.monotonic():
            return last + after  # it spoke (a log, a notification) since: count from then
        self.env.err(f"mrtr: the server has not answered {sanitize(label, single_line=True)} for "
                     f"{after:g}s; still waiting (Ctrl-C to stop)")
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
                        "error": {"code": -32601, "message": f"this client does not answer {quote_value(msg.get('method'))}"}}
                except BaseException:
                    # The run is stopping (Ctrl-C, a bad answer file, a refusal): the
                    # server still gets an answer before the request is cancelled.
                    self._reply({"jsonrpc": "2.0", "id": msg.get("id"),
                                 "error": {"code": -32603, "message": "the client stopped before answering"}})
                    self.refused_at_stop.append(msg)
                    raise
                if reply is not None:
                    self._reply(reply)
        finally:
            self._serving.release()

    def _reply(self, reply: Message) -> None:
        """Send a response to a server-initiated request."""
        self.tracer.message("send", reply)
        try:
            self.transport.send(reply, {"MCP-Protocol-Version": self.protocol_version})
        except TransportError as exc:
            self.tracer.note(f"could not send the response to server request {quote_value(reply.get('id'))}: {exc.message}")

    def _end_progress(self, token: Any) -> None:
        with self._lock:
            known = self._progress.pop(token, None) is not None
            shown = token in self._shown
            self._shown.discard(token)
        if known and shown and self.progress is not None:  # the display only hears of requests it shows
            try:
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
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
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

    def _note_server_info(self, result: dict[str, Any]) -> None:
        meta = result.get("_meta")
        if isinstance(meta, dict):
            info = meta.get(META + "serverInfo")
            if isinstance(info, dict):
                self.server_info = info

    def _pick_version(self, err: JsonRpcError) -> str:
        data = err.data if isinstance(err.data, dict) else {}
        supported = data.get("supported")
        if not isinstance(supported, list):
            raise explained(err, ProtocolError,
                            f"the server does not support protocol version {self.protocol_version} and did not "
                            "say which versions it supports")
        common = [v for v in MODERN_VERSIONS if v in supported]
        if not common:
            shown = ", ".join(str(v) for v in supported) or "(none)"
            raise explained(err, ProtocolError,
                            f"the server does not support protocol version {self.protocol_version}; it supports: {shown}",
                            hint="this server speaks an older protocol era (initialize handshake)")
        return common[-1]

    def _missing_capability(self, err: JsonRpcError) -> MissingCapability:
        data = err.data if isinstance(err.data, dict) else {}
        names = describe_capabilities(data.get("requiredCapabilities"))
        hints = capability_hints(names)
        what = ", ".join(names) if names else "a client capability"
        explanation = f"the server requires the client capability {what}, which this run does not declare"
        return MissingCapability(err.code or MISSING_REQUIRED_CLIENT_CAPABILITY, err.message, err.data,
                                 hint="\n".join([explanation, *(["; ".join(hints)] if hints else [])]))


def _label(msg: Message) -> str:
    """A short description of a request for progress lines: "tools/call slow"."""
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    subject = params.get("uri") if msg.get("method") == "resources/read" else params.get("name")
    return f"{msg.get('method')} {subject}" if isinstance(subject, str) else str(msg.get("method"))


def timeout_error(transport: Transport, deadline: Deadline, method: str, *, text: str | None = None) -> TimeoutExpired:
    """The `--timeout` error for a request of `method`: which request waited and how long
    (or `text`, which says it), and, when the server has not written anything yet,
    that it was still starting (or silent)."""
    text = text or f"timed out{deadline.describe()} waiting for {method}"
    if not transport.heard_from():
        text += (": the server has not written anything yet (it was still starting, "
                 "or it does not speak MCP on this connection)")
    return TimeoutExpired(text)
