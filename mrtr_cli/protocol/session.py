"""A 2026-07-28 (modern) session: opening it, and sending stateless requests with the
per-request envelope.

Spec: basic/index ("Message envelope", per-request `_meta`), basic/versioning
(`-32022` UnsupportedProtocolVersion), server/tools (`-32021`
MissingRequiredClientCapability), basic/patterns/cancellation.

Every request carries `_meta` with `io.modelcontextprotocol/protocolVersion`,
`io.modelcontextprotocol/clientCapabilities` (what this run can answer) and
`io.modelcontextprotocol/clientInfo`, plus a fresh `progressToken`. On HTTP the
`MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers mirror the body. A
request is retried once with another version after `-32022`, once with a new id after
a broken response stream, once with fresh `Mcp-Param-*` headers after `-32020`.

Elsewhere: the protocol's names and what its errors mean (protocol/modern.py), routing
what the server sends on its own (protocol/routing.py), waiting for a response while
answering the server's requests (protocol/waiting.py).
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from mrtr_cli.env import Environment
from mrtr_cli.errors import JsonRpcError, ProtocolError, TimeoutExpired, TransportError
from mrtr_cli.protocol.checks.validate import check_input_request, check_result
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.headers import request_headers
from mrtr_cli.protocol.jsonrpc import make_notification, make_request, unwrap_response
from mrtr_cli.protocol.modern import (
    HEADER_MISMATCH,
    LATEST_MODERN,
    META,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
    client_info,
    missing_capability,
    pick_version,
)
from mrtr_cli.protocol.routing import LogSink, MessageRouting, ProgressCallback, ProgressSink
from mrtr_cli.protocol.waiting import ResponseWaiting, timeout_error
from mrtr_cli.render.trace import Tracer
from mrtr_cli.transport.base import Message, OutgoingMessage, Transport, kill_server

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import JSONRPCRequest, RequestId, RequestMeta

#: Seconds a `notifications/cancelled` may take to be delivered: the request is being
#: given up (timeout, Ctrl-C), so a server that does not take it must not hold the exit.
CANCEL_SEND_TIMEOUT = 1.0


class Session(MessageRouting, ResponseWaiting):
    """Sends requests to one server and routes what comes back.

    Args:
        transport: a started-or-startable transport.
        env: the run's environment (for log notifications and diagnostics).
        tracer: message tracer (`-v`, `--trace`).
        protocol_version: the modern version to speak (default 2026-07-28).
        log_level: `io.modelcontextprotocol/logLevel` to set on every request, or None.
        capabilities: what this run can answer (`ResponderChain.capabilities()`); discovery
            and list requests declare from it what the matching call declares (`capabilities_for`).
        on_log: called with the params of each `notifications/message`, or None.
        observer: `--strict`'s checker (`protocol.checks.strict.StrictChecker`): it sees every
            response and every message the server sends on its own; None without `--strict`.
        discover_result: the `server/discover` result the era probe got, or None (it is
            fetched when `describe` needs it); its `serverInfo` names the server.

    Attributes:
        server_info: the last `io.modelcontextprotocol/serverInfo` seen in a result `_meta`.
        on_notification: called (on a reader thread) with every other notification the
            server sends, as sent (list changes, resource updates, subscription
            acknowledgements: protocol/features/listen.py); None drops them. Set with
            `route_notifications`.
        progress: shows the progress of every request (a ProgressSink), or None. Set with
            `show_progress`.
        on_server_request: for older servers; called with a server-initiated request and
            returns the response message to send (None: not handled). It runs on the
            thread waiting in `request` (the message pump), never on a reader thread,
            so it may prompt a person; `ping` is answered at once without it.
        param_headers: optional `Mcp-Param-*` source (`protocol.lists.catalog.ToolCatalog`):
            `headers_for(method, params)` adds headers to each request, and
            `refresh_after_mismatch(method, params)` decides whether a `-32020` is retried.
            Set with `use_param_headers`.

    What the era does differently (each session class answers for its own era; callers
    ask these rather than compare `era`):
        ping_method, asks_in_results, augments_tasks, lists_tasks, version_per_request,
        listens_by_request, mirrors_param_headers, server_description, task_capability,
        keep_for_task, release_for_task.
    """

    era = "modern"
    #: The request that checks the server is there: 2026-07-28 removed `ping`, and
    #: `server/discover` is the one request every such server answers without arguments.
    ping_method = "server/discover"
    #: The server asks its questions in results (`input_required`), never in requests of
    #: its own during a call: no server request needs the calling thread to answer it.
    asks_in_results = True
    #: A `tools/call` becomes a task only when the client asks (`params.task`, 2025-11-25
    #: task augmentation); False: the server decides (the tasks extension).
    augments_tasks = False
    #: The server's tasks can be listed (`tasks/list`, 2025-11-25); the tasks extension has none.
    lists_tasks = False
    #: Every request names its protocol version (2026-07-28 `_meta`), so the session can
    #: speak the version a task or a resumed call began in; False: the handshake fixed it.
    version_per_request = True
    #: List changes and resource updates come on a `subscriptions/listen` request, each
    #: tagged with its subscription; False: as plain notifications of the session.
    listens_by_request = True
    #: Over Streamable HTTP a `tools/call` mirrors `x-mcp-header` arguments into
    #: `Mcp-Param-*` headers (`use_param_headers`).
    mirrors_param_headers = True

    def __init__(
        self,
        transport: Transport,
        env: Environment,
        tracer: Tracer,
        *,
        protocol_version: str = LATEST_MODERN,
        log_level: str | None = None,
        capabilities: Mapping[str, Any] | None = None,
        on_log: LogSink | None = None,
        observer: Any = None,
        discover_result: dict[str, Any] | None = None,
    ):
        self.transport = transport
        self.env = env
        self.tracer = tracer
        self.protocol_version = protocol_version
        self.log_level = log_level
        self._heard_at: float | None = None  # when the server last sent anything (monotonic)
        self._answered_at: float | None = None  # when mrtr last answered a server request (monotonic)
        self.server_info: dict[str, Any] | None = None
        self.on_log = on_log
        self.on_notification: Callable[[Message], None] | None = None
        self.on_server_request: Callable[[Message], OutgoingMessage | None] | None = None
        self.discover_result = discover_result
        self.capabilities: dict[str, Any] = dict(capabilities or {})
        #: What the client could answer when `discover_result` was asked for (`describe`).
        self._discovered_under: dict[str, Any] = self.capabilities
        self.observer = observer
        self.progress: ProgressSink | None = None
        self.param_headers: Any = None
        #: Server requests answered with an error because the run stopped while they were
        #: being answered (Ctrl-C at a prompt): the server did not get what it asked.
        self.refused_at_stop: list[Message] = []
        self._progress: dict[Any, tuple[ProgressCallback | None, Deadline, str]] = {}
        self._shown: set[Any] = set()  # tokens whose progress reached the display (it is told when they end)
        self._lock = threading.Lock()
        self._started = False
        #: The session is closing (`close`, or its owner about to close it: the shell's host):
        #: a request whose response stream breaks now ends with the break, never sent again.
        self.closing = False
        # Server-initiated requests wait here for a thread blocked in `request` to answer them.
        self._server_requests: collections.deque[Message] = collections.deque()
        self._waiters: set[threading.Event] = set()
        self._serving = threading.Lock()
        self._in_flight = 0  # requests waiting for their response: server requests belong to them
        self._refusals_said = False  # a server request refused outside any request was said on stderr
        if discover_result is not None:
            self._note_server_info(discover_result)

    # ------------------------------------------------------------------ lifecycle
    def open(self, deadline: Deadline | None = None) -> None:
        """Start the transport (spawn the process / open the HTTP client). A legacy
        session also runs its handshake within `deadline`."""
        if not self._started:
            self.transport.start(self._on_message)
            self._started = True

    def adopt_transport(self, early: list[Message] | None = None) -> None:
        """Take over a transport that is already started (after an era probe): its
        incoming messages are routed to this session from now on. `early`: the requests
        the server sent before (during the probe), taken out of the list and routed now."""
        self.transport.rebind(self._on_message)
        self._started = True
        while early:
            self._on_message(early.pop(0))

    def close(self) -> None:
        """Close the transport, then say what a flood left unshown (`summarise_floods`);
        safe to call more than once. A request still waiting (a `subscriptions/listen` on
        another thread) ends with its broken stream, never sent again (`closing`)."""
        self.closing = True
        self.transport.close()
        self.summarise_floods()

    @property
    def server_name(self) -> str:
        """A display name for the server: its self-reported title/name, else the target, on
        one line and cut to `SERVER_TEXT_CHARS` (`render.sanitize.one_line`): every message
        that names the server names it so."""
        from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line  # noqa: PLC0415 - lazy for start-up time

        info = self.server_info or {}
        return one_line(info.get("title") or info.get("name") or self.transport.label, SERVER_TEXT_CHARS)

    def describe(self, deadline: Deadline | None = None) -> dict[str, Any]:
        """What `mrtr discover` shows: `{era, protocolVersion, result}`, where `result` is
        the `server/discover` result as sent (fetched now unless the era probe, or an earlier
        `describe`, has it for what the session declares now: a shell line may declare more).

        Raises: as `request`.
        """
        if self.discover_result is None or self._discovered_under != self.capabilities:  # a shell line's own
            self.discover_result = self.request("server/discover", {},
                                                capabilities=self.capabilities_for("server/discover"),
                                                deadline=deadline)
            self._discovered_under = self.capabilities
        return {"era": self.era, "protocolVersion": self.protocol_version, "result": self.discover_result}

    def capabilities_for(self, method: str) -> dict[str, Any]:
        """The `clientCapabilities` a discovery or list request `method` declares: what the
        call it lists for declares (protocol/capabilities/declared.py), so a listing sees what a call sees."""
        from mrtr_cli.protocol.capabilities.declared import declared_for  # noqa: PLC0415 - lazy for start-up time

        return declared_for(self.capabilities, method)

    @property
    def server_description(self) -> dict[str, Any] | None:
        """What the server said of itself, as sent: the `server/discover` result (the era
        probe's, or `describe`'s); None when the session has not fetched it."""
        return self.discover_result

    def task_capability(self, *path: str) -> bool:
        """Whether the server's 2025-11-25 `capabilities.tasks` has `path` (e.g. "requests",
        "tools", "call", or "list"); always False here: the tasks extension needs no
        server capability for the client to ask."""
        return False

    def keep_for_task(self) -> str | None:
        """Leave the HTTP session open at exit for a task the user may follow, and return
        its `Mcp-Session-Id`; None (nothing kept) here: a 2026-07-28 server has no sessions."""
        return None

    def release_for_task(self) -> None:
        """A task `keep_for_task` kept this session for has ended; nothing to do here."""

    # ------------------------------------------------------------------ settings that change
    def speak_version(self, version: str) -> None:
        """Speak `version` from now on: the one a resumed call or a task began in (its
        `requestState` or task belongs to that version)."""
        self.protocol_version = version

    def route_notifications(self, handler: Callable[[Message], None] | None) -> Callable[[Message], None] | None:
        """Hand every notification that is not progress or a log to `handler` (on a reader
        thread; None drops them) and return the handler it replaces."""
        before, self.on_notification = self.on_notification, handler
        return before

    def show_progress(self, sink: ProgressSink | None) -> None:
        """Show the progress of every request from now on on `sink` (None: not shown)."""
        self.progress = sink

    def use_param_headers(self, source: Any) -> None:
        """Add `Mcp-Param-*` headers to each request from `source` (`param_headers`; a
        `protocol.lists.catalog.ToolCatalog`), which needs this session to list the tools."""
        self.param_headers = source

    # ------------------------------------------------------------------ requests
    def envelope(self, capabilities: dict[str, Any], request_id: RequestId) -> Mapping[str, object]:
        """The `_meta` object for one request (`RequestMeta`; the `META` keys spelled out)."""
        meta: RequestMeta = {
            "io.modelcontextprotocol/protocolVersion": self.protocol_version,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": client_info(),
            "progressToken": f"mrtr-{request_id}",
        }
        if self.log_level:
            meta["io.modelcontextprotocol/logLevel"] = self.log_level
        return meta

    def new_request(self, method: str, params: Mapping[str, object] | None,
                    capabilities: dict[str, Any]) -> JSONRPCRequest:
        """A request message with a fresh id and this session's `_meta` (`envelope`) set
        on top of any `_meta` the caller put in `params`."""
        msg = make_request(method, None)
        body: dict[str, object] = dict(params or {})
        caller_meta = body.get("_meta")
        body["_meta"] = {**(caller_meta if isinstance(caller_meta, Mapping) else {}),
                         **self.envelope(capabilities, msg["id"])}
        msg["params"] = body
        return msg

    def request(
        self,
        method: str,
        params: Mapping[str, object] | None = None,
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
                from mrtr_cli.transport.errors import BrokenStream  # noqa: PLC0415 - lazy for start-up time

                # 2026-07-28: a broken response stream loses the request; re-issue it
                # once as a new request with a new id. Said on stderr: the server may run
                # it twice, and what each run sends (its logs, its progress) is shown. Not
                # once the session is closing: closing is what broke it.
                if (isinstance(exc, BrokenStream) and not stream_retried and not deadline.expired()
                        and not self.closing):
                    stream_retried = True
                    self._say_reissued(exc.message, msg)
                    continue
                raise
            try:
                result = unwrap_response(response)
            except JsonRpcError as err:
                if err.code == UNSUPPORTED_PROTOCOL_VERSION and not version_retried:
                    version_retried = True
                    self.protocol_version = pick_version(err, self.protocol_version)
                    self.tracer.note(f"retrying with protocol version {self.protocol_version}")
                    continue
                if err.code == UNSUPPORTED_PROTOCOL_VERSION:
                    raise ProtocolError(
                        f"the server rejected protocol version {self.protocol_version} twice",
                        code=err.code,
                        data=err.data,
                    ) from None
                if err.code == MISSING_REQUIRED_CLIENT_CAPABILITY:
                    raise missing_capability(err) from None
                if (err.code == HEADER_MISMATCH and not header_retried and self.param_headers is not None
                        and self.param_headers.refresh_after_mismatch(method, msg["params"])):
                    # streamable-http "x-mcp-header": re-read tools/list, retry once.
                    header_retried = True
                    self.tracer.note("header mismatch (-32020): tool list refreshed; "
                                     "retrying with new Mcp-Param headers")
                    continue
                raise
            self.check_result(method, result, "modern")
            self._note_server_info(result)
            return result

    def _say_reissued(self, why: str, msg: JSONRPCRequest) -> None:
        """One stderr line (a `-v` note with `--quiet`) for a request re-issued after its
        response stream broke (`why`): the server may have run the first one, and what that
        run sent before the break (a log line, progress) may come again from the second."""
        text = (f"{why}; {_label(msg)} sent again as a new request, which the server may run a second time "
                "(what it sends for each run is shown)")
        if self.env.quiet:
            self.tracer.note(text)
        else:
            from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time

            self.env.err(sanitize(f"mrtr: warning: {text}", single_line=True))

    def check_result(self, method: str, result: dict[str, Any], era: str) -> None:
        """`protocol.checks.validate.check_result` for this session. With `--strict` (an
        `observer`), a shape the schema forbids has already been reported as a violation
        (exit 4) and the result is still printed, as a lint does; without it, it is an
        invalid response.

        Raises:
            InvalidShape: the schema forbids something in `result` (not with `--strict`).
        """
        self._check_shape(check_result, method, result, era)

    def check_input_request(self, request: object, path: str, era: str) -> None:
        """`protocol.checks.validate.check_input_request` for this session (a task's input request,
        `path` naming it), with `--strict` as `check_result` has it.

        Raises:
            InvalidShape: the schema forbids something in `request` (not with `--strict`).
        """
        self._check_shape(check_input_request, request, path, era)

    def _check_shape(self, check: Callable[..., None], *args: object) -> None:
        from mrtr_cli.protocol.checks.validate import InvalidShape  # noqa: PLC0415 - lazy for start-up time

        try:
            check(*args)
        except InvalidShape:
            if self.observer is None:
                raise

    def notify(self, method: str, params: Mapping[str, object] | None = None, *,
               timeout: float | None = None) -> None:
        """Send a notification (stdio only in 2026-07-28; HTTP defines none); `timeout`
        bounds its delivery in seconds (Transport.send)."""
        msg = make_notification(method, params)
        self.tracer.message("send", msg)
        self.transport.send(msg, self.headers_for(method, params), timeout=timeout)

    def headers_for(self, method: str, params: Mapping[str, object] | None) -> dict[str, str]:
        """The HTTP headers of one POSTed message (2026-07-28: version, method, name)."""
        return request_headers(method, params, self.protocol_version)

    def cancel(self, request_id: object, reason: str) -> None:
        """Cancel an in-flight request (basic/patterns/cancellation): send
        `notifications/cancelled` `{requestId, reason}` on stdio, close the response
        stream on HTTP (no notification there). Never raises: the server may be gone."""
        if not self.transport.cancel_by_close:
            try:  # noqa: SIM105 - a catch of Exception stays marked for BLE001; suppress() would hide it
                self.notify("notifications/cancelled", {"requestId": request_id, "reason": reason},
                            timeout=CANCEL_SEND_TIMEOUT)
            except Exception:  # noqa: BLE001 - the server may already be gone
                pass
        try:  # noqa: SIM105 - a catch of Exception stays marked for BLE001; suppress() would hide it
            self.transport.abort(request_id)
        except Exception:  # noqa: BLE001 - never raises: the server may be gone
            pass

    # ------------------------------------------------------------------ internals
    def _exchange(self, msg: JSONRPCRequest, deadline: Deadline, on_progress: ProgressCallback | None) -> Message:
        """Send `msg` and wait for its response, honouring `deadline` and Ctrl-C.

        The request's `progressToken` routes its progress notifications to `on_progress`
        and the session's progress sink, and extends `deadline` (up to its cap).
        On timeout or Ctrl-C the request is cancelled first; after a Ctrl-C a second one
        exits at once (protocol/interrupts). Server-initiated requests that arrive
        meanwhile are answered on this thread (`_wait`, the message pump).
        """
        rid = msg["id"]
        params = msg.get("params")
        raw_meta = params.get("_meta") if params is not None else None
        meta = raw_meta if isinstance(raw_meta, Mapping) else {}
        token = meta.get("progressToken")
        headers = self.headers_for(msg["method"], msg.get("params"))
        if self.param_headers is not None:  # may fetch tools/list first
            headers.update(self.param_headers.headers_for(msg["method"], msg.get("params")))
        if token is not None:
            with self._lock:
                self._progress[token] = (on_progress, deadline, _label(msg))
        self.tracer.message("send", msg)
        with self._lock:
            self._in_flight += 1
        try:
            if self._inline():
                response = self._exchange_inline(msg, headers, deadline)
            else:
                fut = self.transport.request(msg, headers, budget=deadline.remaining)
                response = self._wait(fut, deadline, msg["method"], label=lambda: _label(msg), token=token)
        except TransportError:
            raise
        except KeyboardInterrupt as stop:
            from mrtr_cli.protocol.interrupts import arm_hard_exit  # noqa: PLC0415 - lazy for start-up time

            arm_hard_exit(lambda: kill_server(self.transport))
            self._end_progress(token)
            if not self.env.quiet:
                signal_name = stop.args[0] if stop.args and str(stop.args[0]).startswith("SIG") else None
                again = (f"a second {signal_name} or Ctrl-C stops at once" if signal_name
                         else "press Ctrl-C again to stop at once")
                self.env.err(f"mrtr: cancelling {_label(msg)} ({again})")
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
            with self._lock:
                self._in_flight -= 1
            self.drain_server_requests()
            self.summarise_floods()
        self.tracer.message("recv", response)
        if self.observer is not None:  # --strict (protocol/checks/strict.py)
            self.observer.version = self.protocol_version
            self.observer.response(msg, response, declared=self._declared_once())
        return response

    def _declared_once(self) -> dict[str, Any] | None:
        """What the session declared once for all its requests (None: each request carries it)."""
        return None

    def declared_once(self) -> dict[str, Any] | None:
        """The client capabilities the session declared once for all its requests (a
        2025-11-25 server's `initialize`: what a later run over it declares is not heard),
        or None when each request carries its own (2026-07-28)."""
        return self._declared_once()

    def _inline(self) -> bool:
        """Run this request in the calling thread: the transport can, the thread is not the
        main one (which must stay free for Ctrl-C), and no server request can arrive for this
        thread to answer meanwhile (a 2026-07-28 server asks its questions in results)."""
        return (self.transport.inline_exchange and self.asks_in_results
                and threading.current_thread() is not threading.main_thread())

    def _exchange_inline(self, msg: JSONRPCRequest, headers: dict[str, str], deadline: Deadline) -> Message:
        from mrtr_cli.transport.base import RequestTimeout  # noqa: PLC0415 - lazy for start-up time

        try:
            return self.transport.exchange(msg, headers, deadline.remaining)
        except RequestTimeout:
            raise timeout_error(self.transport, deadline, msg["method"]) from None

    def _note_server_info(self, result: dict[str, Any]) -> None:
        meta = result.get("_meta")
        if isinstance(meta, dict):
            info = meta.get(META + "serverInfo")
            if isinstance(info, dict):
                self.server_info = info


def _label(msg: JSONRPCRequest) -> str:
    """A short description of a request for progress lines: "tools/call slow"."""
    raw_params = msg.get("params")
    params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
    subject = params.get("uri") if msg.get("method") == "resources/read" else params.get("name")
    return f"{msg.get('method')} {subject}" if isinstance(subject, str) else str(msg.get("method"))
