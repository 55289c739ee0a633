"""Answering server-initiated requests (MCP 2025-11-25 and earlier) with the responder chain.

A legacy server asks its questions by sending JSON-RPC requests in the middle of a
call: `elicitation/create`, `sampling/createMessage` and `roots/list` (2025-11-25
`client/elicitation`, `client/sampling`, `client/roots`; the session answers `ping`
itself). Each request is wrapped as a one-key `inputRequests` map and answered by the
same `ResponderChain` as MRTR input requests, so `-a` flags, `fields` and `roots` in
answer files, and the terminal work exactly as they do for a 2026-07-28 server.

Keys are stable within a run: `elicitation-1`, `elicitation-2`, `sampling-1`,
`roots-1`, ... in the order the server asks, so an answer file keyed that way (or one
written by `--save-answers`) replays the run. A session that serves many runs (the lines
of `mrtr batch`, the commands of `mrtr shell`) starts each with `begin`: its keys count
from 1 again, so each line is keyed as the same `mrtr call` would be.

When nobody can answer (`--no-input`, no terminal, nothing prepared) an elicitation is
answered `{"action": "cancel"}` and a sampling or roots request gets an error; the ask
is kept so the session can end the run with exit 5 and a pending-style document
(there is no `requestState` to resume in these protocol versions).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from mrtr_cli.protocol.capabilities.declared import declares
from mrtr_cli.protocol.capabilities.kinds import INPUT_METHODS, method_member
from mrtr_cli.render.sanitize import one_line, quote_value
from mrtr_cli.responders.chain import ResponderChain
from mrtr_cli.responders.kinds import kind_of, request_kind

RELATED_TASK = "io.modelcontextprotocol/related-task"

#: JSON-RPC error codes used in answers: the method is not offered by this client, or
#: nobody could answer (the code 2025-11-25 client/sampling uses for a user rejection).
METHOD_NOT_FOUND = -32601
NOT_ANSWERED = -1

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import JSONRPCErrorResponse, JSONRPCResponse, JSONRPCResultResponse


class Recorder(Protocol):
    """Collects answers actually sent (`--save-answers`); `AnswerRecorder` fits."""

    def record(self, responses: dict[str, Any]) -> None: ...


@dataclass
class ServerAsks:
    """What a server asked during one client request.

    Attributes:
        input_requests: key -> `{method, params}` as the server sent them.
        responses: key -> the answer sent (answered keys only).
        missing: keys nobody could answer (answered `cancel` or with an error).
        prefill: key -> partial form content found in flags or files.
        reason: why the missing keys could not be answered ("--no-input was given", ...).
    """

    input_requests: dict[str, Any] = field(default_factory=dict)
    responses: dict[str, Any] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    prefill: dict[str, dict[str, Any]] = field(default_factory=dict)
    reason: str = ""


def error_reply(request_id: object, code: int, message: str) -> JSONRPCErrorResponse:
    """A JSON-RPC error response to a server request."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def result_reply(request_id: object, result: Mapping[str, object]) -> JSONRPCResultResponse:
    """A JSON-RPC result response to a server request."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


class ServerRequestResponder:
    """Answers server-initiated requests through a `ResponderChain`.

    Args:
        chain: the run's responder chain (the same one MRTR input requests use).
        capabilities: the `ClientCapabilities` declared in `initialize`; requests for
            anything not declared get a `-32601` error instead of an answer.
        recorder: where answers sent are recorded for `--save-answers`, or None.
        pending: builds the pending document for asks nobody could answer
            (`engine.pending.legacy_pending`, handed over by the application layer:
            the document format belongs to the engine, above this package).
    """

    def __init__(self, chain: ResponderChain, *, capabilities: dict[str, Any],
                 pending: Callable[..., dict[str, Any]], recorder: Recorder | None = None):
        self.chain = chain
        self.capabilities = capabilities
        self.recorder = recorder
        self._pending = pending
        self._counts: dict[str, int] = {}
        self._asks = ServerAsks()
        self._lock = threading.Lock()

    def pending_document(self, **facts: object) -> dict[str, Any]:
        """The pending document for asks nobody could answer (`pending`, given `facts`),
        with the chain's secret fields left out and a stderr line for each
        (`ResponderChain.secret_fields`)."""
        return self._pending(**facts, secret_fields=self.chain.secret_fields,
                             secret_arguments=self.chain.env.places.tools, note=self.chain.env.err)

    # ------------------------------------------------------------------ answering
    def answer(self, msg: Mapping[str, object], *, server_name: str, origin: str) -> JSONRPCResponse:
        """The response message for one server request `{id, method, params}`.

        Raises:
            UsageError: a prepared answer (flag or file) is invalid for the request.
            ProtocolError: the request is malformed (e.g. a form schema that is not flat).
            Declined: the person refused a sampling request at the terminal.
            KeyboardInterrupt: Ctrl-C at a prompt.
        """
        request_id = msg.get("id")
        method = msg.get("method")
        raw_params = msg.get("params")
        params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
        if method not in INPUT_METHODS:
            return error_reply(request_id, METHOD_NOT_FOUND, f"mrtr does not answer {quote_value(method)} requests")
        kind = kind_of(method, params)
        if kind is None or not declares(self.capabilities, kind.spec.capability):
            return error_reply(request_id, METHOD_NOT_FOUND,
                               f"mrtr did not declare the {method_member(method)} capability on this session")
        origin = _task_origin(params) or origin
        asks = self.ask({self.next_key(method): {"method": method, "params": params}},
                        server_name=server_name, origin=origin)
        key = next(iter(asks.input_requests))
        if key in asks.responses:
            return result_reply(request_id, asks.responses[key])
        unanswered = kind.unanswered()
        if unanswered is not None:
            return result_reply(request_id, unanswered)
        return error_reply(request_id, NOT_ANSWERED, f"nobody could answer {method} ({asks.reason})")

    def ask(self, input_requests: dict[str, Any], *, server_name: str, origin: str) -> ServerAsks:
        """Answer an `inputRequests`-shaped map through the chain, remember what was
        asked for `take_asks`, and return this round's part.

        Raises: as `answer`.
        """
        outcome = self.chain.answer_round(input_requests, server_name=server_name, origin=origin,
                                          capabilities=self.capabilities)
        for key, response in outcome.responses.items():
            found = request_kind(input_requests[key])
            if found is None:
                continue
            kind, params = found
            note = kind.answered_note(server_name, params, response, outcome.sources.get(key, "answers"))
            if note is not None:
                self.chain.env.err(note)
        if self.recorder is not None and outcome.responses:
            self.recorder.record(outcome.responses)
        env = self.chain.env
        reason = ("--no-input was given" if env.no_input
                  else "no terminal to ask" if not self.chain.interactive else "no answer was given")
        part = ServerAsks(dict(input_requests), dict(outcome.responses), list(outcome.missing),
                          dict(outcome.prefill), reason)
        with self._lock:
            self._asks.input_requests.update(part.input_requests)
            self._asks.responses.update(part.responses)
            self._asks.missing.extend(part.missing)
            self._asks.prefill.update(part.prefill)
            self._asks.reason = reason
        return part

    def begin(self, chain: ResponderChain, recorder: Recorder | None) -> None:
        """A new run over this session (a batch line, a shell command): its questions are
        answered by `chain`, the answers sent are recorded in `recorder` (its
        `--save-answers`, or None), and keys count from 1 again (`elicitation-1`), as in
        one `mrtr call`; nothing asked before is kept."""
        with self._lock:
            self.chain = chain
            self.recorder = recorder
            self._counts.clear()
            self._asks = ServerAsks()

    def take_asks(self) -> ServerAsks:
        """Everything asked since the last call (and forget it)."""
        with self._lock:
            asks, self._asks = self._asks, ServerAsks()
        return asks

    def next_key(self, method: str) -> str:
        """The key for the next request of `method`, named by its capability (`elicitation-3`)."""
        prefix = str(method_member(method))
        with self._lock:
            self._counts[prefix] = self._counts.get(prefix, 0) + 1
            return f"{prefix}-{self._counts[prefix]}"


def _task_origin(params: Mapping[str, object]) -> str | None:
    """"task ID" for a request tagged with `io.modelcontextprotocol/related-task` (2025-11-25 tasks)."""
    meta = params.get("_meta")
    related = meta.get(RELATED_TASK) if isinstance(meta, dict) else None
    if isinstance(related, dict) and related.get("taskId") is not None:
        return f"task {one_line(related['taskId'])}"
    return None
