"""A legacy (2025-11-25 and earlier) session: the `initialize` handshake and server requests.

Spec: 2025-11-25 `basic/lifecycle` (initialize, `notifications/initialized`, version
negotiation), `basic/transports` (Streamable HTTP sessions: `Mcp-Session-Id`, 404 means
initialize again, DELETE at exit, `MCP-Protocol-Version` after initialize, the
optional GET stream), `client/elicitation` (URL mode, `elicitationId`,
`notifications/elicitation/complete`, `-32042` URLElicitationRequired), and the
2026-07-28 digest section 9 (what a dual-era client must speak).

`LegacySession.request` has the same signature as the modern `Session.request`, so the
MRTR engine and the commands do not know which era they talk to: a legacy result has
no `resultType` (complete), and the server's questions arrive as server-initiated
requests while the call is in flight. Those are answered by the message pump (on
the thread waiting in `request`, so during any request, including a long
`tasks/result`) through the run's responder chain. A request tagged
`io.modelcontextprotocol/related-task` in `_meta` is answered the same way.

When the server asked something nobody could answer, the call still finishes (the
server was told `cancel`), and then `request` raises `InputRequired` with a
pending-style document that says it cannot be resumed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from mrtr_cli.env import Environment
from mrtr_cli.errors import Declined, InputRequired, JsonRpcError, ProtocolError, TransportError
from mrtr_cli.protocol.capabilities.kinds import ELICITATION_URL, INPUT_KINDS
from mrtr_cli.protocol.checks.validate import check_server_request
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.jsonrpc import make_request, unwrap_response
from mrtr_cli.protocol.legacy_versions import LATEST_LEGACY, LEGACY_VERSIONS
from mrtr_cli.protocol.modern import client_info
from mrtr_cli.protocol.requests import origin_of
from mrtr_cli.protocol.routing import LogSink, ProgressCallback
from mrtr_cli.protocol.run import RejoinSession
from mrtr_cli.protocol.session import CANCEL_SEND_TIMEOUT, Session
from mrtr_cli.protocol.waiting import timeout_error
from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line, quote_value
from mrtr_cli.render.trace import Tracer
from mrtr_cli.transport.base import Message, OutgoingMessage, Transport

URL_ELICITATION_REQUIRED = -32042
RESOURCE_NOT_FOUND = -32002
MAX_URL_ELICITATION_ROUNDS = 3
#: The first handshake version whose capabilities have members (elicitation modes, `sampling.tools`).
MEMBERS_SINCE = "2025-11-25"
SESSION_HEADER = "Mcp-Session-Id"

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import RequestId


class ServerRequestHandler(Protocol):
    """What answers server requests (`ServerRequestResponder` fits); `capabilities` is
    set to what `initialize` declared."""

    capabilities: dict[str, Any]

    def answer(self, msg: Mapping[str, object], *, server_name: str, origin: str) -> OutgoingMessage: ...

    def ask(self, input_requests: dict[str, Any], *, server_name: str, origin: str) -> Any: ...

    def take_asks(self) -> Any: ...

    def next_key(self, method: str) -> str: ...

    def pending_document(self, **facts: object) -> dict[str, Any]:
        """The pending document (exit 5) for asks nobody could answer: `facts` are the
        target, protocol version, method, params, input requests, missing and answered
        keys, prefill, the server's `result` or `error`, and `told` (the server was
        answered 'cancel'). The document format is not this layer's: the responder
        builds it with what the run handed it (`engine.pending.legacy_pending`)."""
        ...


def declared_capabilities(capabilities: Mapping[str, Any], version: str) -> dict[str, Any]:
    """The run's `ClientCapabilities` in the shape of handshake version `version`.

    `extensions` (2026-07-28 only) are dropped; each input kind's capability from its first
    version (`InputKind.since`: bare `elicitation: {}` from 2025-06-18, roots and sampling
    always), with its members (elicitation modes, `sampling.tools`) from 2025-11-25
    (`MEMBERS_SINCE`). No client `tasks` capability is declared.
    """
    out: dict[str, Any] = {}
    for member, since in dict.fromkeys((kind.member, kind.since) for kind in INPUT_KINDS):
        if member in capabilities and version >= since:
            out[member] = dict(capabilities[member] or {}) if version >= MEMBERS_SINCE else {}
    return out


def is_create_task_result(result: object) -> bool:
    """True for a 2025-11-25 CreateTaskResult: `{"task": {"taskId": "...", ...}}` (and no
    CallToolResult `content`)."""
    if not isinstance(result, dict):
        return False
    task = result.get("task")
    return isinstance(task, dict) and isinstance(task.get("taskId"), str) and "content" not in result


class LegacySession(Session):
    """Speaks a handshake-era protocol version to one server.

    Args:
        transport: the transport (started here by `open`, or adopted after a probe).
        env, tracer: as for `Session`.
        protocol_version: the version to offer in `initialize` (the newest by default);
            after `initialize` it is the version the server chose.
        log_level: sent as `logging/setLevel` when the server declares `logging`.
        capabilities: what this run can answer (`ResponderChain.capabilities()`);
            declared once, in `initialize`, in the offered version's shape.
        responder: answers server-initiated requests (elicitation, sampling, roots).
        target: the public target description, for pending-style documents.
        rejoin: `{"sessionId", "serverCapabilities"}` of an HTTP session left open for a
            task: `open` rejoins it instead of sending `initialize` (a new session would not
            know the task); None sends `initialize`.
        on_log, observer: as for `Session`.

    Attributes:
        initialize_result: the `InitializeResult` exactly as sent.
        server_capabilities: its `capabilities` (e.g. `tasks.requests.tools.call`).
        declared: the capabilities declared in `initialize`.
        keep_open: set when a task the user may follow is left running in this HTTP
            session (`keep_for_task`): `close` then does not end (DELETE) the session, as a
            server may keep tasks per session.
        on_error: called with every JSON-RPC error a request gets, before it is raised
            (`watch_errors`), or None.
    """

    era = "legacy"
    ping_method = "ping"
    #: The server asks its questions in requests of its own while a call is in flight,
    #: answered on the thread waiting for that call (the message pump).
    asks_in_results = False
    augments_tasks = True
    lists_tasks = True
    version_per_request = False
    #: List changes come as `notifications/*/list_changed` the server declared in
    #: `initialize`, resource updates after `resources/subscribe`.
    listens_by_request = False
    mirrors_param_headers = False

    def __init__(
        self,
        transport: Transport,
        env: Environment,
        tracer: Tracer,
        *,
        protocol_version: str = LATEST_LEGACY,
        log_level: str | None = None,
        capabilities: Mapping[str, Any] | None = None,
        responder: ServerRequestHandler | None = None,
        target: dict[str, Any] | None = None,
        rejoin: RejoinSession | None = None,
        on_log: LogSink | None = None,
        observer: Any = None,
    ):
        super().__init__(transport, env, tracer, protocol_version=protocol_version, log_level=log_level,
                         capabilities=capabilities, on_log=on_log, observer=observer)
        self.declared: dict[str, Any] = {}
        self.responder = responder
        self.target = dict(target or {})
        self.initialize_result: dict[str, Any] | None = None
        self.server_capabilities: dict[str, Any] = {}
        self._initialized = False
        self.keep_open = False
        self.rejoin = rejoin
        self._capture_session = False
        self._inflight: list[tuple[str, dict[str, Any]]] = []
        self._inflight_lock = threading.Lock()
        self.on_error: Callable[[JsonRpcError], None] | None = None
        if responder is not None:
            self.on_server_request = self._answer_server_request
        #: The transport's sessions face (Streamable HTTP), or None (stdio: no sessions).
        self.sessions = transport.sessions()
        if self.sessions is not None:
            self.sessions.on_response_headers = self._note_response_headers

    # ------------------------------------------------------------------ lifecycle
    def open(self, deadline: Deadline | None = None) -> None:
        """Start the transport and run the handshake (see `initialize`)."""
        super().open()
        if not self._initialized and not self._rejoin():
            self.initialize(deadline)

    def _rejoin(self) -> bool:
        """Rejoin the HTTP session in `rejoin` (no `initialize`); False when there is none.
        If the server has ended it meanwhile, the first request gets a 404 and a new session
        is initialized (`request`)."""
        sessions = self.sessions
        session_id = self.rejoin["sessionId"] if self.rejoin else None
        if sessions is None or not isinstance(session_id, str) or not session_id or \
                sessions.refuses_session_id(session_id):
            return False
        self.env.add_secret(session_id)
        sessions.session_headers[SESSION_HEADER] = session_id
        caps = self.rejoin.get("serverCapabilities") if self.rejoin else None
        self.server_capabilities = caps if isinstance(caps, dict) else {}
        self.declared = declared_capabilities(self.capabilities, self.protocol_version)
        if self.responder is not None:
            self.responder.capabilities = self.declared
        self._initialized = True
        self.keep_open = True  # until a task driver sees its task end (`release_for_task`)
        sessions.resume_streams = True
        self.tracer.note("rejoining the HTTP session the task was left running in (no initialize)")
        return True

    def session_id(self) -> str | None:
        """The `Mcp-Session-Id` of this HTTP session, or None (stdio, or no session)."""
        return self.sessions.session_headers.get(SESSION_HEADER) if self.sessions is not None else None

    @property
    def server_description(self) -> dict[str, Any] | None:
        """The `InitializeResult` as sent; None before `initialize` (or in a rejoined session)."""
        return self.initialize_result

    def task_capability(self, *path: str) -> bool:
        """Whether the `initialize` result's `capabilities.tasks` has `path` (e.g. "requests",
        "tools", "call", or "list"; 2025-11-25 basic/utilities/tasks)."""
        node: Any = self.server_capabilities
        for key in ("tasks", *path):
            node = node.get(key) if isinstance(node, dict) else None
        return isinstance(node, dict)

    def keep_for_task(self) -> str | None:
        """Leave this HTTP session open at exit (`keep_open`) for a task the user may follow,
        and return its `Mcp-Session-Id`; None (nothing kept) without one (stdio)."""
        session_id = self.session_id()
        if not session_id:
            return None
        self.keep_open = True
        return session_id

    def release_for_task(self) -> None:
        """The task this session was rejoined for has ended: `close` ends the session again."""
        if self.rejoin and self.keep_open:
            self.keep_open = False

    def watch_errors(self, callback: Callable[[JsonRpcError], None] | None) -> None:
        """Call `callback` with every JSON-RPC error a request gets from now on, before it is
        raised (the era opener notices a server that changed era since it was cached)."""
        self.on_error = callback

    def initialize(self, deadline: Deadline | None = None) -> dict[str, Any]:
        """`initialize`, then `notifications/initialized` (2025-11-25 basic/lifecycle).

        Offers `protocol_version`; when the server rejects it listing `supported`
        versions, retries once with the newest one both sides speak. On HTTP the
        `Mcp-Session-Id` from the response is sent on every later request, the GET
        stream is opened, and `--log-level` becomes `logging/setLevel`.

        Returns:
            the InitializeResult as sent.

        Raises:
            JsonRpcError: the server refused `initialize` (the caller may try another era).
            ProtocolError: the server chose a version this client does not speak, or
                sent an invalid session id.
            TransportError, AuthError, TimeoutExpired: as for `request`.
        """
        deadline = deadline or Deadline.unbounded()
        if self.sessions is not None:
            self.sessions.session_headers.pop(SESSION_HEADER, None)
        self._initialized = False
        offered = self.protocol_version
        for attempt in (1, 2):
            self.declared = declared_capabilities(self.capabilities, offered)
            msg = make_request("initialize", {"protocolVersion": offered, "capabilities": self.declared,
                                              "clientInfo": client_info()})
            self._capture_session = True
            try:
                response = self._exchange(msg, deadline, None)
            finally:
                self._capture_session = False
            try:
                result = unwrap_response(response)
            except JsonRpcError as err:
                better = _newest_common(err.data)
                if attempt == 1 and better is not None and better != offered:
                    self.tracer.note(f"the server does not accept {offered}; offering {better}")
                    offered = better
                    continue
                raise
            break
        version = result.get("protocolVersion")
        if version not in LEGACY_VERSIONS:
            raise ProtocolError(
                f"the server chose protocol version {quote_value(version)} in its initialize result, "
                "which mrtr does not speak",
                data={"protocolVersion": version},
                hint="supported handshake versions: " + ", ".join(LEGACY_VERSIONS),
            )
        self.protocol_version = str(version)
        self.initialize_result = result
        self.server_capabilities = raw_caps if isinstance(raw_caps := result.get("capabilities"), dict) else {}
        if self.responder is not None:
            self.responder.capabilities = self.declared
        info = result.get("serverInfo")
        if isinstance(info, dict):
            self.server_info = info
        self._initialized = True
        left = deadline.remaining()  # an unacknowledged notification costs what --timeout leaves
        try:
            self.notify("notifications/initialized", timeout=None if left is None else max(left, 0.0))
        except TransportError:
            if deadline.expired():  # --timeout ran out while the server held the POST: exit 7
                raise timeout_error(self.transport, deadline, "notifications/initialized",
                                    text=f"timed out{deadline.describe()} waiting for the server to "
                                         "acknowledge notifications/initialized") from None
            raise
        if self.log_level and "logging" in self.server_capabilities:
            self.request("logging/setLevel", {"level": self.log_level}, deadline=deadline)
        elif self.log_level:
            self.tracer.note("the server does not declare logging; --log-level has no effect")
        if self.sessions is not None:
            self.sessions.resume_streams = True  # legacy Streamable HTTP streams are resumable
            self.sessions.open_event_stream({"MCP-Protocol-Version": self.protocol_version})
        return result

    def close(self) -> None:
        """End the HTTP session (DELETE) and close the transport."""
        sessions = self.sessions
        if self.keep_open and sessions is not None:
            self.tracer.note("left the HTTP session open: a task the user may follow runs in it")
            sessions = None
        if sessions is not None:
            status = sessions.end_session(self.headers_for("", None))
            if status is not None:
                self.tracer.note(f"ended the session (DELETE: HTTP {status})")
        super().close()

    def describe(self, deadline: Deadline | None = None) -> dict[str, Any]:
        """`{era, protocolVersion, result}` with the InitializeResult as sent."""
        return {"era": self.era, "protocolVersion": self.protocol_version, "result": self.initialize_result}

    def envelope(self, capabilities: dict[str, Any], request_id: RequestId) -> Mapping[str, object]:
        """Only a fresh `progressToken`: handshake versions carry no protocol `_meta` keys."""
        return {"progressToken": f"mrtr-{request_id}"}

    def headers_for(self, method: str, params: Mapping[str, object] | None) -> dict[str, str]:
        """`MCP-Protocol-Version` on every message after `initialize` (the session id is
        added by the transport); nothing on `initialize` itself."""
        return {"MCP-Protocol-Version": self.protocol_version} if self._initialized else {}

    # ------------------------------------------------------------------ requests
    def request(
        self,
        method: str,
        params: Mapping[str, object] | None = None,
        *,
        capabilities: dict[str, Any] | None = None,
        deadline: Deadline | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> dict[str, Any]:
        """Send one request and return its `result`, answering server requests meanwhile.

        `capabilities` is accepted for interface parity and ignored: a legacy session
        declares its capabilities once, in `initialize`. A fresh `progressToken` is set
        in `_meta`. An expired HTTP session (404) is re-initialized and the request
        re-sent once; `-32042` (URL elicitation required) is shown, and the request
        retried after consent.

        Raises:
            InputRequired: the server asked something nobody could answer (exit 5); the
                document holds what was asked and what the server then returned.
            Declined: the person refused a URL elicitation the request needs.
            JsonRpcError, ProtocolError, TransportError, AuthError, TimeoutExpired, UsageError.
        """
        from mrtr_cli.transport.errors import SessionExpired  # noqa: PLC0415 - lazy for start-up time

        deadline = deadline or Deadline.unbounded()
        reinitialized = False
        url_rounds = 0
        while True:
            msg = self.new_request(method, params, {})
            with self._inflight_lock:
                self._inflight.append((method, dict(params or {})))
            try:
                response = self._exchange(msg, deadline, on_progress)
            except SessionExpired:
                if reinitialized:
                    raise
                reinitialized = True
                self.tracer.note("the server ended the session (HTTP 404); initializing a new one")
                self.initialize(deadline)
                continue
            finally:
                with self._inflight_lock:
                    self._inflight.remove((method, dict(params or {})))
            asks = self.responder.take_asks() if self.responder is not None else None
            try:
                result = unwrap_response(response)
            except JsonRpcError as err:
                if asks is not None and asks.missing:
                    raise self._input_required(method, params, asks, error=err) from None
                if err.code == URL_ELICITATION_REQUIRED and url_rounds < MAX_URL_ELICITATION_ROUNDS:
                    url_rounds += 1
                    self._url_elicitation_required(err, method, params or {})
                    continue
                if err.code == RESOURCE_NOT_FOUND and method == "resources/read":
                    err.hint = err.hint or f"the server has no resource {one_line((params or {}).get('uri'))}"
                if self.on_error is not None:
                    self.on_error(err)
                raise
            self.check_result(method, result, "legacy")
            if asks is not None and asks.missing:
                raise self._input_required(method, params, asks, result=result)
            return result

    def cancel(self, request_id: object, reason: str) -> None:
        """`notifications/cancelled` on every transport: in legacy Streamable HTTP a
        disconnection is not a cancellation."""
        try:  # noqa: SIM105 - a catch of Exception stays marked for BLE001; suppress() would hide it
            self.notify("notifications/cancelled", {"requestId": request_id, "reason": reason},
                        timeout=CANCEL_SEND_TIMEOUT)
        except Exception:  # noqa: BLE001 - the server may already be gone
            pass
        self.transport.abort(request_id)

    # ------------------------------------------------------------------ internals
    def _declared_once(self) -> dict[str, Any] | None:
        """What `initialize` declared: handshake-era requests carry no capabilities."""
        return self.declared

    def _origin(self) -> str:
        with self._inflight_lock:
            current = self._inflight[-1] if self._inflight else None
        return origin_of(*current) if current else "the session"

    def _answer_server_request(self, msg: Message) -> OutgoingMessage:
        assert self.responder is not None
        check_server_request(msg)  # a request the schema forbids ends the call (exit 4)
        return self.responder.answer(msg, server_name=self.server_name, origin=self._origin())

    def _on_message(self, msg: Message) -> None:
        if msg.get("method") == "notifications/elicitation/complete" and "id" not in msg:
            raw_params = msg.get("params")
            params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
            self.tracer.message("recv", msg)
            self.env.err(f"mrtr: the server reports that URL elicitation "
                         f"{one_line(params.get('elicitationId'))} is complete")
            return
        super()._on_message(msg)

    def _note_response_headers(self, headers: Mapping[str, str]) -> None:
        if not self._capture_session or self.sessions is None:
            return
        session_id = headers.get(SESSION_HEADER.lower()) or headers.get(SESSION_HEADER)
        if session_id is None:
            return
        why = self.sessions.refuses_session_id(session_id) if session_id else "it is empty"
        if why:
            raise ProtocolError(f"the server sent an Mcp-Session-Id that cannot be sent back in a header ({why})")
        self.env.add_secret(session_id)  # whoever holds it can act in the session: never traced
        self.sessions.session_headers[SESSION_HEADER] = session_id

    def _url_elicitation_required(self, err: JsonRpcError, method: str, params: Mapping[str, object]) -> None:
        """`-32042`: show each URL elicitation, ask for consent; return to retry.

        Raises:
            JsonRpcError: the error carries no usable `elicitations` (or no responder).
            InputRequired: nobody can consent now.
            Declined: the person declined or cancelled.
        """
        data = err.data if isinstance(err.data, dict) else {}
        elicitations = data.get("elicitations")
        if self.responder is None or not isinstance(elicitations, list) or not elicitations:
            raise err
        requests = {}
        for item in elicitations:
            if not isinstance(item, dict):
                raise err
            requests[self.responder.next_key(ELICITATION_URL.method)] = {
                "method": ELICITATION_URL.method, "params": {**item, "mode": ELICITATION_URL.mode}}
        asks = self.responder.ask(requests, server_name=self.server_name, origin=origin_of(method, params))
        self.responder.take_asks()
        if asks.missing:
            raise self._input_required(method, params, asks, error=err, told=False)
        refused = [k for k, r in asks.responses.items() if r.get("action") != "accept"]
        if refused:
            raise Declined(f"you did not consent to the URL the server requires ({', '.join(refused)}); "
                           f"{method} failed: {one_line(err.message, SERVER_TEXT_CHARS)}", code=err.code, data=err.data)
        self.tracer.note("URL elicitation accepted; retrying the request")

    def _input_required(self, method: str, params: Mapping[str, object] | None, asks: Any, *,
                        result: dict[str, Any] | None = None, error: JsonRpcError | None = None,
                        told: bool = True) -> InputRequired:
        """The exit-5 error for asks nobody could answer, with a pending-style document
        (`told`: the server was answered 'cancel'; False for `-32042`, which asks nothing
        of the client: the server's error already ended the call)."""
        assert self.responder is not None  # the asks came from it
        doc = self.responder.pending_document(
            target=self.target, protocol_version=self.protocol_version, method=method, params=dict(params or {}),
            input_requests=asks.input_requests, missing=asks.missing,
            answered={k: v for k, v in asks.responses.items() if k not in asks.missing}, prefill=asks.prefill,
            result=result, error=error, told=told,
        )
        missing = ", ".join(asks.missing)
        told_what = ("the server was answered 'cancel'" if told
                     else "the server's -32042 error ended the call, nothing was answered")
        return InputRequired(f"input required for {missing} ({asks.reason}); {told_what} "
                             "and the pending document is on stdout", doc)


def _newest_common(data: object) -> str | None:
    """The newest handshake version in an error's `data.supported` list, if any."""
    supported = data.get("supported") if isinstance(data, dict) else None
    if not isinstance(supported, list):
        return None
    return next((v for v in LEGACY_VERSIONS if v in supported), None)
