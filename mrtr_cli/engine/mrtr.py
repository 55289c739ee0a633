"""The Multi Round-Trip Request loop (2026-07-28 basic/patterns/mrtr; docs/design.md, "Input-required rounds").

For `tools/call`, `prompts/get` and `resources/read`:

- `resultType` absent or `"complete"`: done.
- `"input_required"`: answer every key of `inputRequests` through the responder
  chain, then retry: a new JSON-RPC id, the original method and params,
  `inputResponses` for the keys asked, and the exact `requestState` string if one
  came (none if none came). Nothing of this leaks into any other request.
- `requestState` alone (or with an empty `inputRequests`): retry at once with a short
  growing back-off. A result that asks nothing (no or an empty `inputRequests`) and keeps
  nothing (no or an empty `requestState`) cannot make progress: the retry would carry
  nothing new, an invalid response (exit 4) at once.
- `"task"`: handed to the task driver, only for `tools/call` when the tasks
  extension was declared on that request.
- on a legacy (2025-11-25) session, a `tools/call` result that is a CreateTaskResult
  (`{"task": {"taskId": ...}}`, no `resultType` in that era) goes to the task driver too.
- anything else: an invalid response (exit 4).

The number of `input_required` rounds is capped (`--max-rounds`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mrtr_cli.engine.withheld import SecretFields, responses_without_secrets, without_secrets
from mrtr_cli.errors import (
    InputRequired,
    Interrupted,
    MrtrError,
    ProtocolError,
    TimeoutExpired,
    TransportError,
    UsageError,
)
from mrtr_cli.jsonfile import unsendable_text
from mrtr_cli.protocol.capabilities.declared import TASKS_EXTENSION, declared_for
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.requests import origin_of
from mrtr_cli.protocol.routing import ProgressCallback
from mrtr_cli.protocol.session import Session
from mrtr_cli.render.sanitize import quote_value
from mrtr_cli.responders.chain import ResponderChain
from mrtr_cli.runcontext import DEFAULT_MAX_ROUNDS

if TYPE_CHECKING:
    from mrtr_cli.engine.pending import PendingDocument
    from mrtr_cli.engine.resume import Seed
    from mrtr_cli.protocol.messages import InputResponses

_BACKOFF_START = 0.05
_BACKOFF_MAX = 2.0


def rejected_explanation(rejected: dict[str, dict[str, str]]) -> str:
    """One sentence for keys the server asked again after a one-off answer was sent:
    `{key: {"source", "message"}}` -> "the server asked for 'k' again after the answer from
    SOURCE was sent, saying: MESSAGE" (the message as the server sent it; sanitised when shown)."""
    parts = []
    for key, info in rejected.items():
        said = f", saying: {info['message']}" if info.get("message") else " (it gave no message)"
        parts.append(f"the server asked for {quote_value(key)} again "
                     f"after the answer from {info['source']} was sent{said}")
    return "; ".join(parts) + "; an answer given once is used once: give another"


class AnswerRecorder:
    """Every input response actually sent, for `--save-answers`.

    A key answered in several rounds is saved as a list (one entry per round), which
    an answer file consumes in the same order on replay. A task's question whose key
    holds that task's id (`<taskId>:<hash>`) would never match on replay (the next run's
    task has another id): it is saved in `inOrder`, in the order asked (docs/answers.md).
    """

    def __init__(self) -> None:
        self.responses: dict[str, list[Any]] = {}
        self.in_order: list[Any] = []
        #: the key each `in_order` entry answered (its secret fields are known by key).
        self.in_order_keys: list[str] = []

    def record(self, responses: dict[str, Any], *, task_id: str | None = None) -> None:
        """Add one round's sent `responses` (key -> InputResponse); `task_id`: the task asking."""
        from mrtr_cli.responders.chain import task_keyed  # noqa: PLC0415 - lazy for start-up time

        for key, value in responses.items():
            if task_id and task_keyed(key, task_id):
                self.in_order.append(value)
                self.in_order_keys.append(key)
            else:
                self.responses.setdefault(key, []).append(value)

    def seed(self, document_responses: object, *, task_id: str | None = None) -> None:
        """Start from the `inputResponses` of an earlier `document()` (a pending document's
        `sentResponses`): a list is one entry per round, anything else one round. `task_id`:
        the task the document's questions came from (its own keys go into `inOrder`, as
        `record` puts them)."""
        if not isinstance(document_responses, dict):
            return
        for key, value in document_responses.items():
            for one in value if isinstance(value, list) else [value]:
                self.record({str(key): one}, task_id=task_id)

    def document(self, secret_fields: SecretFields | None = None, dropped: list[str] | None = None) -> dict[str, Any]:
        """The answer file: `{"inputResponses": {key: value | [values...]}}`, and
        `"inOrder": [...]` when a task's questions were keyed by its own id. With
        `secret_fields` (input key -> field names), those fields hold `null`
        (engine/withheld.py), and "KEY.FIELD" of each is added to `dropped`."""
        secrets = secret_fields or {}
        held = dropped if dropped is not None else []
        doc: dict[str, Any] = {"inputResponses": responses_without_secrets(
            {k: v[0] if len(v) == 1 else v for k, v in self.responses.items()}, secrets, held)}
        if self.in_order:
            doc["inOrder"] = [without_secrets(key, value, secrets, held)
                              for key, value in zip(self.in_order_keys, self.in_order, strict=True)]
        return doc


@dataclass(eq=False, repr=False)
class EngineOutcome:
    """How a call ended.

    Attributes:
        result: the final result object exactly as the server sent it.
        rounds: how many input_required rounds were answered.
        declined: some elicitation was answered with decline or cancel.
        task: for a call that became a task, the task driver's summary (else None).
    """

    result: dict[str, Any]
    rounds: int = 0
    declined: bool = False
    task: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


TaskHandler = Callable[[dict[str, Any], dict[str, Any]], EngineOutcome]


@dataclass(frozen=True)
class Round:
    """One `input_required` result, checked (basic/patterns/mrtr "Input-required rounds").

    Attributes:
        number: which round of the call (1 for the first).
        input_requests: the server's `inputRequests` (key -> input request), or None (or
            empty) when only `requestState` came (load shedding).
        request_state: the exact `requestState` string to send back, or None.
    """

    number: int
    input_requests: Any
    request_state: str | None

    @classmethod
    def of(cls, result: dict[str, Any], number: int, max_rounds: int) -> Round:
        """Round `number` from an `input_required` `result`.

        Raises:
            ProtocolError: beyond `max_rounds` (`--max-rounds`), a requestState that is not
                a string, a result whose retry cannot make progress (`_no_progress`).
        """
        if number > max_rounds:
            raise ProtocolError(
                f"the server still asks for input after {max_rounds} rounds (--max-rounds {max_rounds})",
                hint="raise --max-rounds if the server really needs more rounds",
            )
        input_requests = result.get("inputRequests")
        request_state = result.get("requestState")
        if request_state is not None and not isinstance(request_state, str):
            raise ProtocolError("the server's requestState is not a string")
        stalled = _no_progress(input_requests, request_state)
        if stalled is not None:
            raise ProtocolError(f"the server's input_required result {stalled}")
        return cls(number, input_requests, request_state)


def _refuse_lone_surrogate(params: dict[str, Any]) -> None:
    """Raises UsageError: the user's own text holds a lone surrogate (a server's is echoed as it came)."""
    problem = unsendable_text(params)
    if problem is not None:
        raise UsageError(problem)


def _no_progress(input_requests: object, request_state: str | None) -> str | None:
    """Why the retry of an `input_required` result could not make progress, or None when it
    can (basic/patterns/mrtr: "at least one of inputRequests or requestState"): a retry moves
    on by the answers to a non-empty `inputRequests` or by a non-empty `requestState` echoed
    back; with neither, it carries nothing the first request did not (an empty string is no
    state: nothing is inspected beyond its length). The text completes "the server's
    input_required result ..." (exit 4, one line)."""
    if input_requests or request_state:
        return None
    if input_requests is None and request_state is None:
        return "has neither inputRequests nor requestState"
    asked = "no inputRequests" if input_requests is None else "inputRequests is empty"
    kept = "has no requestState" if request_state is None else "its requestState is empty"
    return f"asks for nothing ({asked}) and {kept}"

class MrtrEngine:
    """Drives one MRTR-capable request to a final result.

    Args:
        session: the server session.
        chain: the responder chain answering input requests.
        target: the public description of the target, for pending documents.
        max_rounds: cap on input_required rounds (`--max-rounds`).
        deadline: the overall bound (`--timeout`).
        recorder: collects sent answers for `--save-answers`, or None.
        sent: collects every response this call sends (pending documents carry them on, as
            does the task the call may become: `EngineRun.task_handler`); a new one if None.
        on_task: task driver, called as `on_task(create_task_result, capabilities)`
            when `tools/call` returns `resultType: "task"`; None means tasks are not
            declared (and a task result is invalid).
        on_progress: progress callback passed to every request.
    """

    def __init__(
        self,
        session: Session,
        chain: ResponderChain,
        *,
        target: dict[str, Any],
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        deadline: Deadline | None = None,
        recorder: AnswerRecorder | None = None,
        sent: AnswerRecorder | None = None,
        on_task: TaskHandler | None = None,
        on_progress: ProgressCallback | None = None,
    ):
        self.session = session
        self.chain = chain
        self.target = target
        self.max_rounds = max_rounds
        self.deadline = deadline or Deadline.unbounded()
        self.recorder = recorder
        self.sent = sent if sent is not None else AnswerRecorder()  # every response sent in this call
        self.on_task = on_task
        self.on_progress = on_progress
        #: key -> (source, answer) of one-off answers already sent in this call (never sent again).
        self.given_once: dict[str, tuple[str, Any]] = {}

    def capabilities(self, method: str) -> dict[str, Any]:
        """The client capabilities declared on every request of this call."""
        if method == "tools/call" and self.on_task is not None:
            return declared_for(self.chain.capabilities(), method)
        return self.chain.capabilities()

    def run(self, method: str, params: dict[str, Any], *, seed: Seed | None = None) -> EngineOutcome:
        """Send `method` with `params` and answer input rounds until a final result.

        Args:
            method: `tools/call`, `prompts/get` or `resources/read`.
            params: the original params (`name`/`arguments`, or `uri`), without `_meta`.
            seed: a resumed call (`mrtr resume`, engine/resume.py): the loop starts from the
                seed's round, with the answers already given for it, instead of sending the
                first request; otherwise the call is the same.

        Raises:
            InputRequired: input is needed that nobody can give now (pending document attached).
            ProtocolError: invalid resultType, malformed input_required result, round cap.
            JsonRpcError, TransportError, AuthError, TimeoutExpired, UsageError, Declined.
            Interrupted: Ctrl-C at a prompt (the pending document is saved to the state dir).
        """
        caps = self.capabilities(method)
        preset = self._seed(seed, caps) if seed is not None else {}
        _refuse_lone_surrogate(params)
        outcome = EngineOutcome(result={})
        result = seed.result() if seed is not None else self._send(method, params, caps, None, None)
        backoff = _BACKOFF_START
        while True:
            result_type = self._result_type(method, result)
            if result_type != "input_required":
                return self._final(result_type, method, result, caps, outcome)
            outcome.rounds += 1
            rnd = Round.of(result, outcome.rounds, self.max_rounds)
            responses: dict[str, Any] | None = None
            if rnd.input_requests:
                responses = self._answer_round(method, params, caps, rnd, preset, outcome)
                preset = {}
                backoff = _BACKOFF_START
            else:  # load shedding: only requestState came back; retry soon, backing off
                self._sleep(backoff)
                backoff = min(backoff * 2, _BACKOFF_MAX)
            result = self._retry(method, params, caps, rnd, responses)

    # ------------------------------------------------------------------ one round, as policy around the loop
    def _seed(self, seed: Seed, caps: dict[str, Any]) -> dict[str, Any]:
        """Start a resumed call where `seed` left it: the answers already given for its round
        are taken as any prepared answer is (`null` fields left out, `-a` flags laid over,
        checked: exit 2 before anything is sent), and the answers its earlier rounds sent are
        carried on (by a later pending document, and by `--save-answers`, which then replays
        the whole call). Its typed fields are the chain's, given when the chain was built
        (`App.prefill_forms`).

        Returns:
            key -> the answer to send in the round (the preset of its first round).

        Raises:
            UsageError: an answer given for the round does not fit its request, or a request
                of the round needs a capability this run (`caps`) does not declare.
        """
        preset = self.chain.check_given(seed.input_requests, seed.answered, seed.source,
                                        declared=(caps, seed.document))
        self.sent.seed(seed.sent)
        if self.recorder is not None:
            self.recorder.seed(seed.sent)
        return preset

    def _result_type(self, method: str, result: dict[str, Any]) -> object:
        """The result's `resultType` ("complete" when absent); a 2025-11-25 CreateTaskResult is "task"."""
        result_type: object = result.get("resultType", "complete")
        if result_type == "complete" and self._legacy_task(method, result):
            return "task"
        return result_type

    def _final(self, result_type: object, method: str, result: dict[str, Any], caps: dict[str, Any],
               outcome: EngineOutcome) -> EngineOutcome:
        """The call's outcome for a result that is not `input_required`: complete, or a task
        (handed to the task hook).

        Raises:
            ProtocolError: a task this request did not declare the tasks extension for, or an
                unrecognised resultType.
        """
        if result_type == "complete":
            outcome.result = result
            outcome.declined = outcome.declined or self.chain.declined
            return outcome
        if result_type == "task":
            if self.on_task is None or method != "tools/call" or TASKS_EXTENSION not in caps.get("extensions", {}):
                raise ProtocolError(
                    f"the server answered {method} with a task, but this request did not declare the "
                    "tasks extension"
                )
            task_outcome = self.on_task(result, caps)
            task_outcome.rounds += outcome.rounds
            task_outcome.declined = task_outcome.declined or outcome.declined
            return task_outcome
        raise ProtocolError(
            f"the server sent an unrecognised resultType {quote_value(result_type)} for {method}",
            data={"resultType": result_type},
        )

    def _answer_round(self, method: str, params: dict[str, Any], caps: dict[str, Any], rnd: Round,
                      preset: dict[str, Any], outcome: EngineOutcome) -> dict[str, Any]:
        """The responses to `rnd`'s input requests (`preset`: already gathered, on resume),
        recorded for `--save-answers`; a declined or cancelled form marks `outcome`."""
        responses = self._answer(method, params, caps, rnd.input_requests, rnd.request_state, preset)
        if self.recorder is not None:
            self.recorder.record(responses)
        if any(isinstance(r, dict) and r.get("action") in ("decline", "cancel") for r in responses.values()):
            outcome.declined = True
        return responses

    def _retry(self, method: str, params: dict[str, Any], caps: dict[str, Any], rnd: Round,
               responses: dict[str, Any] | None) -> dict[str, Any]:
        """The request again with `responses` and `rnd`'s exact requestState; the server's
        answer. A person's answers that could not be delivered are kept (`_keep_typed_answers`)."""
        try:
            result = self._send(method, params, caps, responses, rnd.request_state)
        except (TransportError, TimeoutExpired) as exc:
            if responses and self.chain.interactive:
                self._keep_typed_answers(exc, method, params, rnd.input_requests, rnd.request_state, responses)
            raise
        if responses:
            self.sent.record(responses)  # the server has them (a pending document carries them on)
        return result

    # ------------------------------------------------------------------ internals
    def _legacy_task(self, method: str, result: dict[str, Any]) -> bool:
        """A 2025-11-25 CreateTaskResult answering `tools/call` on a legacy session."""
        if method != "tools/call" or not self.session.augments_tasks or "task" not in result:
            return False
        from mrtr_cli.protocol.legacy import is_create_task_result  # noqa: PLC0415 - start-up time: loaded with a legacy session

        return is_create_task_result(result)

    def _send(
        self,
        method: str,
        params: dict[str, Any],
        caps: dict[str, Any],
        responses: InputResponses | None,
        request_state: str | None,
    ) -> dict[str, Any]:
        body = dict(params)
        if responses is not None:
            body["inputResponses"] = responses
        if request_state is not None:
            body["requestState"] = request_state
        return self.session.request(
            method, body, capabilities=caps, deadline=self.deadline, on_progress=self.on_progress
        )

    def _answer(
        self,
        method: str,
        params: dict[str, Any],
        caps: dict[str, Any],
        input_requests: Any,
        request_state: str | None,
        preset: dict[str, Any],
    ) -> dict[str, Any]:
        remaining = (
            {k: v for k, v in input_requests.items() if k not in preset} if isinstance(input_requests, dict)
            else input_requests
        )
        try:
            round_outcome = self.chain.answer_round(
                remaining, server_name=self.session.server_name, origin=origin_of(method, params), capabilities=caps,
                given_once=self.given_once,
            )
        except KeyboardInterrupt as exc:
            typed = {**preset, **getattr(exc, "responses", {})}
            left = [k for k in input_requests if k not in typed]
            # Fields typed into the interrupted form go into the answersTemplate.
            doc = self._pending(method, params, input_requests, request_state, left, typed,
                                getattr(exc, "prefill", {}))
            from mrtr_cli.engine.pending import (  # noqa: PLC0415 - only when a round stops
                after_shell,
                resume_command,
                save_interrupted,
            )
            from mrtr_cli.render.invocation import inside_shell  # noqa: PLC0415 - only when a round stops
            path = save_interrupted(doc)
            config_words = self.chain.env.config_words

            # Only a form has fields: a URL-mode question (or a form left untouched) just asks again.
            filled = ", the fields typed so far filled in" if any(getattr(exc, "prefill", {}).values()) else ""
            if inside_shell():  # the shell keeps the call (shell/lineapp.py): a bare `resume` finishes it
                hint: str | None = (f"the call is kept: resume finishes it here (it asks again{filled})"
                                    + after_shell(doc, path, config_words))
            else:  # the command line, or a shell a stop signal ends: read at the command line
                hint = (f"the call can be finished later: {resume_command(doc, path, config_words)} (it asks again "
                        f"at a terminal{filled}; in a script add --answers FILE)") if path else None
            raise Interrupted("interrupted while answering the server's questions", hint=hint, pending=doc) from None
        answered = {**preset, **round_outcome.responses}
        if round_outcome.missing:
            doc = self._pending(method, params, input_requests, request_state, round_outcome.missing,
                                answered, round_outcome.prefill)
            missing = ", ".join(round_outcome.missing)
            env = self.chain.env
            why = ("--no-input was given" if env.no_input
                   else "no terminal to ask" if not self.chain.interactive else "no answer was given")
            rejected = {k: v for k, v in round_outcome.rejected.items() if k in round_outcome.missing}
            if rejected:
                doc["rejected"] = rejected
                doc["explanation"] = rejected_explanation(rejected)
                raise InputRequired(f"{doc['explanation']} ({why}); the pending document is on stdout", doc)
            raise InputRequired(f"input required for {missing} ({why}); the pending document is on stdout", doc)
        self.given_once.update(round_outcome.once)
        return answered

    def _keep_typed_answers(self, exc: MrtrError, method: str, params: dict[str, Any], input_requests: Any,
                            request_state: str | None, responses: dict[str, Any]) -> None:
        """The retry carrying a person's answers failed (the server died, a timeout): keep the
        answers in a pending document in the state dir, and say how to send them again."""
        from mrtr_cli.engine.pending import resume_command, save_interrupted  # noqa: PLC0415 - when a round stops

        doc = self._pending(method, params, input_requests, request_state, [], responses, {})
        path = save_interrupted(doc)
        if path:
            from mrtr_cli.render.invocation import command_line, inside_shell  # noqa: PLC0415 - lazy for start-up time

            # At the shell's prompt, its one server needs no naming; else as the user's own shell runs it.
            here = (command_line(["resume"], [str(path)]) if inside_shell()
                    else resume_command(doc, path, self.chain.env.config_words))
            more = (f"your answers are kept: {here}" if here
                    else "your answers are kept in a pending document in the state directory (its path "
                         "cannot be shown as typed)")
            exc.hint = f"{exc.hint}\n{more}" if exc.hint else more

    def _pending(
        self,
        method: str,
        params: dict[str, Any],
        input_requests: dict[str, Any],
        request_state: str | None,
        missing: list[str],
        answered: dict[str, Any],
        prefill: dict[str, dict[str, Any]],
    ) -> PendingDocument:
        from mrtr_cli.engine.pending import build_pending  # noqa: PLC0415 - only when a round stops

        return build_pending(
            target=self.target,
            protocol_version=self.session.protocol_version,
            method=method,
            params=params,
            input_requests=input_requests,
            request_state=request_state,
            missing=missing,
            answered=answered,
            prefill=prefill,
            sent_responses=self.sent.document()["inputResponses"] if self.sent.responses else None,
            secret_fields=self.chain.secret_fields,
            secret_arguments=self.chain.env.places.tools,
            note=self.chain.env.err,
        )

    def _sleep(self, seconds: float) -> None:
        left = self.deadline.remaining()
        if left is not None:
            if left <= 0:
                raise TimeoutExpired(f"timed out{self.deadline.describe()}")
            seconds = min(seconds, left)
        time.sleep(seconds)
