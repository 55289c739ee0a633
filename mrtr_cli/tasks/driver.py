"""The task waiting loop: poll, answer input, finish, and never lose the task.

Spec: ext-tasks "Task Polling", "Task Update Requests", "Task Cancellation";
docs/design.md, "Exit codes" and "Input-required rounds". Works on normalised `TaskState`s through a
`TaskWire`, so every variant shares it:

- poll at the task's `pollIntervalMs` (re-read on every poll), never faster than
  `MIN_POLL_MS`, plus a little jitter; sleep on an event between polls (no busy
  loop); `--timeout` bounds the whole wait;
- `input_required`: answer the keys not answered yet through the responder chain
  (flags, answer files, the terminal) and send them in one update; a key seen
  again on a later poll is not asked twice; what nobody can answer stops the run
  with exit 5 and a pending document naming the task;
- `completed` -> the result; `failed` -> the task's JSON-RPC error (exit 4), or a
  tool result with `isError: true` (2025-11-25 counts those as failed; exit 1);
  `cancelled` -> exit 6;
- a variant that takes input while blocking on the result (2025-11-25 `tasks/result`)
  keeps the status line ticking meanwhile and pauses it before any prompt;
- Ctrl-C leaves the task running and says how to pick it up again (or, with
  `--cancel-on-interrupt`, asks the server to cancel it); exit 130.

Every status change is written to the task's local record.

The loop itself (`TaskDriver._loop`) is a few lines over `TaskState` values, the shape of the
engine's round loop (engine/mrtr.py); what surrounds it is policy, one method each: the
state it starts from (`_first`), a state made whole and recorded (`_settle`), answering a
round of input (`_answer`, `_deliver`), waiting for the next poll (`_sleep_until_poll`), the
outcome of a task that ended (`_final`), and the endings of the run while the task goes on
(Ctrl-C, `--timeout`, a failure: `run`).
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.engine.mrtr import AnswerRecorder, EngineOutcome
from mrtr_cli.engine.pending import build_pending
from mrtr_cli.engine.withheld import arguments_without_secrets, withheld_member
from mrtr_cli.env import Environment
from mrtr_cli.errors import (
    Declined,
    InputRequired,
    Interrupted,
    JsonRpcError,
    MrtrError,
    ProtocolError,
    TimeoutExpired,
    explained,
)
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.render.errors import shown_message
from mrtr_cli.render.ids import short_id  # a task id for a status line
from mrtr_cli.render.live.status import StatusLine, StatusView
from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line
from mrtr_cli.responders.chain import ResponderChain
from mrtr_cli.tasks.records import TaskRecord, TaskRecords
from mrtr_cli.tasks.state import CANCELLED, COMPLETED, FAILED, INPUT_REQUIRED, WORKING, TaskState
from mrtr_cli.tasks.wire import TaskWire

DEFAULT_POLL_MS = 1000  # when the server suggests no interval
MIN_POLL_MS = 100  # never poll faster than this, whatever the server says
JITTER_FRACTION = 0.1  # up to 10% of the interval is added...
MAX_JITTER_SECONDS = 1.0  # ...but never more than a second
MAX_POLL_MS = 60_000  # a longer pollIntervalMs is waited as a minute (the task is still followed)
CANCEL_TIMEOUT_SECONDS = 5.0  # for tasks/cancel after Ctrl-C
INVALID_PARAMS = -32602  # an unknown or expired task id


def poll_delay(poll_interval_ms: int | None, rng: random.Random | None = None) -> float:
    """Seconds to wait before the next poll: `pollIntervalMs` as a floor plus jitter, the
    interval kept between `MIN_POLL_MS` and `MAX_POLL_MS` (a server's `1e300` is not a wait)."""
    wanted = poll_interval_ms if poll_interval_ms is not None else DEFAULT_POLL_MS
    interval = min(max(wanted, MIN_POLL_MS), MAX_POLL_MS) / 1000
    return interval + (rng or random).uniform(0, min(interval * JITTER_FRACTION, MAX_JITTER_SECONDS))


@dataclass
class TaskContext:
    """Where a task lives and what created it.

    Attributes:
        target: the public target (URL or stdio command; never headers).
        tool: the tool the task runs, when known.
        params: the original `tools/call` params, when known (for pending documents).
        protocol_version: the protocol version of the session.
        target_words: the words after `mrtr` that reach the same server, e.g. `--url
            http://127.0.0.1:8000/mcp` (no secrets; render/invocation.py `command_line`
            leaves them out of a hint read inside `mrtr shell`, whose one server needs no
            naming, and keeps them once a stop signal ends the shell).
        origin: how to name the task's input requests to a person.
        stdio: the server is a process this run started (`--stdio`, or a named server whose
            config entry is a command); None: decided from `target` alone.
        earlier: the answers the call sent before the task existed (its input rounds, or a
            pending document's `sentResponses`), as an answer file's `inputResponses` (key ->
            InputResponse, a list for a key answered in several rounds).
    """

    target: dict[str, Any]
    tool: str | None
    params: dict[str, Any] | None
    protocol_version: str
    target_words: list[str]
    origin: str
    stdio: bool | None = None
    earlier: dict[str, Any] = field(default_factory=dict)
    #: Said before a printed command at the command line: how to give a URL whose
    #: credentials are not printed (`credentials.url_in_command`); "" when none is needed.
    lead: str = ""

    def __post_init__(self) -> None:
        if self.stdio is None:
            self.stdio = "stdio" in self.target

    def command(self, verb: str, task_id: str, *options: str) -> str:
        """The exact `mrtr ... task VERB [OPTIONS] ID` command for this target, built by
        render/invocation.py `command_line` as a hint built now names it where it will be
        read (`inside_shell`): `task VERB ... ID` at the prompt of a shell that goes on, with
        the target everywhere else (quoted; an id that starts with `-` comes after `--`, so
        it is not read as an option); for an id that cannot be shown as typed, the command
        named in words."""
        from mrtr_cli.render.invocation import command_line, inside_shell  # noqa: PLC0415 - lazy for start-up time

        line = command_line(["task", verb, *options], [task_id], target=self.target_words)
        if line is None:
            return f"task {verb} with the task's id (it cannot be shown as typed; task list --json shows it)"
        return ("" if inside_shell() else self.lead) + line

    def server_ends_with_run(self) -> bool:
        """The task lives in a stdio server process that ends when this run does: true for
        `mrtr call`, not inside `mrtr shell`, which keeps its server until the shell ends."""
        from mrtr_cli.render.invocation import inside_shell  # noqa: PLC0415 - lazy for start-up time

        return bool(self.stdio) and not inside_shell()


class TaskFailed(JsonRpcError):
    """The task ended `failed`; carries the task's own JSON-RPC error (exit 4)."""


class TaskGone(ProtocolError):
    """The server answers `-32602` for the task: unknown, expired or removed (exit 4)."""


def typed_fields(stop: KeyboardInterrupt) -> dict[str, dict[str, Any]]:
    """The form fields typed before Ctrl-C at a prompt (`chain.PromptInterrupted`), by input key:
    those of the form being filled, and the content of each form of the round already
    answered (not sent: the round was not finished), so a form asked again starts with them."""
    typed: dict[str, dict[str, Any]] = {}
    for key, response in getattr(stop, "responses", {}).items():
        content = response.get("content") if isinstance(response, dict) else None
        if isinstance(content, dict):
            typed[str(key)] = dict(content)
    for key, fields in getattr(stop, "prefill", {}).items():
        typed[str(key)] = {**typed.get(str(key), {}), **fields}
    return typed


class TaskCancelled(Declined):
    """The task ended `cancelled` (exit 6)."""


class TaskDriver:
    """Drives one task to its end.

    Args:
        wire: the variant's wire code (may be swapped by `wire.adapt`).
        chain: answers the task's input requests.
        context: target, tool and the resume command.
        record, records: the task's local record and where it is saved.
        env: the run's environment.
        status: the status line on stderr.
        deadline: bounds the whole wait (`--timeout`).
        max_rounds: cap on input rounds answered (`--max-rounds`).
        recorder: collects sent answers (`--save-answers`), or None.
        cancel_on_interrupt: Ctrl-C sends `tasks/cancel` instead of leaving the task running.
    """

    def __init__(self, wire: TaskWire, chain: ResponderChain, context: TaskContext, *, record: TaskRecord,
                 records: TaskRecords, env: Environment, status: StatusLine, deadline: Deadline,
                 max_rounds: int, recorder: AnswerRecorder | None = None, cancel_on_interrupt: bool = False):
        self.wire = wire
        self.chain = chain
        self.context = context
        self.record = record
        self.records = records
        self.env = env
        self.status = status
        self.deadline = deadline
        self.max_rounds = max_rounds
        self.recorder = recorder
        #: The task was created by this run (not found again by `task wait` or `resume`).
        self.started_here = False
        self.cancel_on_interrupt = cancel_on_interrupt
        self.answered: set[str] = set(record.answered_keys)
        #: The answers this run sent the task, by key in the order asked (a stdio task's
        #: pending document replays them: `pending.replay_template`).
        self.sent: dict[str, Any] = {}
        self.rounds = 0
        self.declined = False
        #: The pending document of a form interrupted by Ctrl-C (the fields typed so far), or None.
        self.typed_at_stop: dict[str, Any] | None = None
        self.started = time.monotonic()
        self.state: TaskState | None = None
        self._wake = threading.Event()

    @property
    def task_id(self) -> str:
        return self.record.task_id

    # ------------------------------------------------------------------ entry points
    def run(self, state: TaskState | None = None, *, fresh: bool = False) -> EngineOutcome:
        """Wait for the task until it ends; returns the completed result.

        Args:
            state: the latest known state; None polls the task first.
            fresh: `state` is the creation handle (a Task without payloads): it is
                shown and recorded, then polled, rather than acted on.

        Raises:
            TaskFailed: the task failed (its JSON-RPC error; exit 4).
            TaskCancelled: the task was cancelled (exit 6).
            TaskGone: the server no longer knows the task (exit 4).
            InputRequired: it needs input nobody can give now (exit 5; pending document).
            TimeoutExpired: `--timeout` passed (exit 7; the task goes on).
            Interrupted: Ctrl-C (exit 130; the task goes on unless `--cancel-on-interrupt`).
            MrtrError: anything else that ends the run (a bad answer, a malformed message,
                the round cap, the server unreachable), with a hint to resume the task.
        """
        self.started_here = fresh
        try:
            return self._loop(self._first(state, fresh))
        except KeyboardInterrupt:
            self.status.close()
            raise self._interrupted() from None
        except TimeoutExpired:
            self.status.close()
            raise self._timed_out() from None
        except InputRequired as err:
            if err.pending.get("resumable") is False and str(err.pending.get("method")).startswith("tasks/"):
                raise self._unanswered(err) from None  # asked by a 2025-11-25 task during tasks/*
            raise
        except (TaskFailed, TaskGone, TaskCancelled, Interrupted):
            raise
        except MrtrError as exc:
            # Anything else (a bad answer, the server dying) ends the run, not the task.
            self._add_resume_hint(exc)
            raise
        finally:
            self.status.close()

    def answer(self, state: TaskState) -> list[str]:
        """Answer the outstanding input requests of `state` once (`mrtr task update`).

        Returns the keys sent. Raises like `run` (InputRequired when some stay unanswered).
        """
        self.state = state
        return self._answer(state)

    # ------------------------------------------------------------------ the loop
    def _loop(self, state: TaskState) -> EngineOutcome:
        """The task's states until it ends: each one settled (`_settle`), its input answered,
        the next one polled after the server's interval; the last one's outcome (`_final`)."""
        state = self._settle(state)
        while not state.terminal:
            if state.status == INPUT_REQUIRED:
                self._answer(state)
            self._sleep_until_poll(state)
            state = self._settle(self._get())
        return self._final(state)

    # ------------------------------------------------------------------ one state, as policy around the loop
    def _first(self, state: TaskState | None, fresh: bool) -> TaskState:
        """The state the loop starts from: `state`, or a poll when there is none; a creation
        handle (`fresh`) is shown and recorded first, and polled after the server's interval
        while the task is working."""
        if state is None:
            return self._get()
        if not fresh:
            return state
        self._observe(state)
        if state.status == WORKING:
            self._sleep_until_poll(state)
        return self._get()

    def _settle(self, state: TaskState) -> TaskState:
        """`state` as the loop acts on it: read by the wire that fits the server (`wire.adapt`,
        the variant recorded), with what the variant fetches besides the status (`_complete`),
        shown and recorded; a 2025-11-25 HTTP session kept for the task is released once it ends."""
        adapted = self.wire.adapt(state)
        if adapted is not self.wire:
            self.wire = adapted
            state = adapted.read(state.raw, "tasks/get result", self.task_id)
            self._save(variant=adapted.variant)
        state = self._complete(state)
        self._observe(state)
        if state.terminal and self.record.session_id:
            from mrtr_cli.tasks.legacy import release_session  # noqa: PLC0415 - lazy for start-up time

            release_session(self.wire.session, self.record)
            self._save()
        return state

    def _final(self, state: TaskState) -> EngineOutcome:
        """The outcome of a task that ended: its result when completed (or failed with a tool
        result, which 2025-11-25 counts as failed).

        Raises:
            TaskFailed: it failed (its JSON-RPC error; exit 4).
            TaskCancelled: it was cancelled (exit 6).
        """
        if state.status == FAILED and not (isinstance(state.result, dict) and state.result.get("isError") is True):
            raise self._failed(state)
        if state.status == CANCELLED:
            message = f": {state.status_message}" if state.status_message else ""
            raise TaskCancelled(f"task {self.task_id} was cancelled{message}",
                                data={"taskId": self.task_id, "status": CANCELLED})
        return self._completed(state)

    def _get(self) -> TaskState:
        if self.status.live and self.state is not None and self.status.view is not None:
            # On a terminal the clock ticks while tasks/get takes its time (no change lines off it).
            self._show(self.state, note="polling (tasks/get)")
            self.status.hold()
        try:
            return self.wire.get(self.task_id)
        except JsonRpcError as err:
            raise self.gone(err) from None

    def gone(self, err: JsonRpcError) -> JsonRpcError | TaskGone:
        """`-32602` on a task request means the task is unknown (TaskGone); other errors stay.

        The explanation says only what is known: a task this machine never saw (no record,
        never reported by the server in this run) is one the server does not know, and gets
        no record; a recorded one is marked unknown, its `statusMessage` this explanation (so
        a record an earlier run explained otherwise says what is true now), and over stdio,
        when this run's server process never reported it, it lived in the process of the
        earlier run that created it. The server process answering is alive: its error is
        never explained as that process stopping.
        """
        if err.code != INVALID_PARAMS:
            return err
        seen = self._seen()
        if not (seen or self._recorded()):
            return explained(err, TaskGone, f"the server does not know task {self.task_id}, and no mrtr run "
                                            "on this machine recorded a task of that id on this server")
        ttl = self.record.ttl_ms
        if self.context.stdio and not seen:
            why = ("over stdio a task lives in the server process that created it, which stopped when that "
                   "mrtr run ended; this command started a new one, which does not know it")
        else:
            why = f"it may have expired (ttlMs {ttl})" if ttl is not None else "it may have expired or been removed"
        explanation = f"the server no longer knows task {self.task_id}: {why}"
        self._save(status="unknown", status_message=explanation)
        return explained(err, TaskGone, explanation)

    def _seen(self) -> bool:
        """Whether this run knows the task exists: it started it, or its server reported it."""
        return self.started_here or self.state is not None

    def _recorded(self) -> bool:
        """Whether a local record of the task on this target was written before (by this
        run or an earlier one)."""
        return self.records.find(self.task_id, self.record.target, prefix=False) is not None

    def _complete(self, state: TaskState) -> TaskState:
        """`wire.complete(state)`; for a call that blocks (2025-11-25 `tasks/result`), with the
        status line ticking and paused before any prompt the server's questions need."""
        if not self.wire.blocks(state):
            return self.wire.complete(state)
        self._observe(state, note="waiting for the result (tasks/result)")
        self.status.hold()
        with self.chain.prompting_after(self.status.pause):
            try:
                return self.wire.complete(state)
            except JsonRpcError as err:
                raise self.gone(err) from None

    def _observe(self, state: TaskState, note: str | None = None) -> None:
        self.state = state
        self.record.poll_interval_ms = state.poll_interval_ms
        if state.ttl_ms is not None:
            self.record.ttl_ms = state.ttl_ms
        if (state.status, state.status_message) != (self.record.status, self.record.status_message):
            self._save(status=state.status, status_message=state.status_message)
        self._show(state, note=note)

    def _completed(self, state: TaskState) -> EngineOutcome:
        if state.result is None:
            raise ProtocolError(f"task {self.task_id} completed but the server sent no result")
        if not isinstance(state.result, dict):
            raise ProtocolError(f"task {self.task_id} completed with a result that is not an object")
        self.wire.session.check_result("tools/call", state.result, self.wire.session.era)  # checked as a call's result
        return EngineOutcome(result=state.result, rounds=self.rounds, declined=self.declined or self.chain.declined,
                             task={"taskId": self.task_id, "status": state.status, "variant": self.wire.variant})

    def _failed(self, state: TaskState) -> TaskFailed:
        error = state.error if isinstance(state.error, dict) else {}
        code = error.get("code")
        message = error.get("message") or state.status_message or "the server sent no error"
        return TaskFailed(code if isinstance(code, int) and not isinstance(code, bool) else -32603,
                          f"task {self.task_id} failed: {message}", error.get("data"))

    # ------------------------------------------------------------------ input
    def _check_requests(self, requests: dict[str, Any]) -> None:
        """Check a task's new input requests against the spec's schema before anyone is
        asked (as the engine checks an `input_required` result's), unless `--strict` reports
        them instead.

        Raises:
            InvalidShape: a request the schema forbids, its path named (exit 4).
        """
        session = self.wire.session
        for key, request in requests.items():
            session.check_input_request(request, f"tasks/get result.inputRequests[{json.dumps(key)}]", session.era)

    def _answer(self, state: TaskState) -> list[str]:
        """Answer the input requests of `state` not answered yet, as one round through the
        responder chain, and send the answers (`_deliver`); returns the keys sent (none when
        everything asked is answered: the server has not caught up yet).

        Raises:
            ProtocolError: the round cap (`--max-rounds`), or a malformed request.
            InputRequired: some stay unanswered (a pending document naming the task).
        """
        requests = state.input_requests or {}
        new = {key: request for key, request in requests.items() if key not in self.answered}
        if not new:
            return []
        self._check_requests(new)
        self._count_round()
        self.status.pause()
        try:
            outcome = self.chain.answer_round(new, server_name=self.wire.session.server_name,
                                              origin=self.context.origin, capabilities=self.wire.capabilities,
                                              task_id=self.task_id)
        except KeyboardInterrupt as exc:  # Ctrl-C at the form: what was typed is kept (`_interrupted`)
            self.typed_at_stop = self._pending(new, list(new), typed_fields(exc), replay=False)
            raise
        if outcome.responses:
            self._deliver(outcome.responses)
        if outcome.missing:
            raise self._input_required(new, outcome.missing, outcome.prefill)
        return list(outcome.responses)

    def _count_round(self) -> None:
        """One more input round; raises ProtocolError past `--max-rounds`."""
        self.rounds += 1
        if self.rounds > self.max_rounds:
            raise ProtocolError(
                f"task {self.task_id} still asks for input after {self.max_rounds} rounds "
                f"(--max-rounds {self.max_rounds})", hint="raise --max-rounds if the task really needs more")

    def _deliver(self, responses: dict[str, Any]) -> None:
        """Send `responses` (key -> InputResponse) to the task, then note them: answered keys
        in the record (never asked twice), the answers sent (`--save-answers`, a stdio task's
        replay), a decline or cancel (exit 6).

        Raises:
            TaskGone: the server no longer knows the task (`-32602`; the record is marked unknown).
        """
        try:
            self.wire.send_input(self.task_id, responses)
        except JsonRpcError as err:
            raise self.gone(err) from None
        self.answered.update(responses)
        self.sent.update(responses)
        self.record.answered_keys = sorted(self.answered)
        self._save()
        if self.recorder is not None:
            self.recorder.record(responses, task_id=self.task_id)
        if any(isinstance(r, dict) and r.get("action") in ("decline", "cancel") for r in responses.values()):
            self.declined = True

    def _input_required(self, requests: dict[str, Any], missing: list[str],
                        prefill: dict[str, dict[str, Any]]) -> InputRequired:
        doc = self._pending(requests, missing, prefill, replay=self._over_stdio())
        why = ("--no-input was given" if self.env.no_input
               else "no terminal to ask" if not self.chain.interactive else "no answer was given")
        err = InputRequired(f"task {self.task_id} needs input for {', '.join(missing)} ({why}); "
                            "the pending document is on stdout", doc)
        if self.context.server_ends_with_run():
            # The task lives in the server process, which stops when mrtr exits: no later
            # `task update` can reach it (the same truth `--detach` over stdio tells).
            err.hint = ("over stdio the task lives in the server process, which stops when mrtr exits: unless "
                        "the server keeps its tasks elsewhere (a file, a database), the task ends with this run, "
                        "so fill in the pending document's answersTemplate, which answers the call from the "
                        "beginning, and start the call again with it (below)")
            if "inOrder" not in doc["answersTemplate"]:  # keyed as asked: a kept task takes the answers
                err.hint += ("; a server that keeps them takes the answers with: "
                             f"{self.context.command('update', self.task_id, '--answers', 'ANSWERS.json')}")
        else:
            err.hint = (f"the task waits on the server; answer it with: "
                        f"{self.context.command('update', self.task_id, '--answers', 'ANSWERS.json')}")
        return err

    def _pending(self, requests: dict[str, Any], missing: list[str], prefill: dict[str, dict[str, Any]], *,
                 replay: bool) -> dict[str, Any]:
        """The pending document of the task waiting for `missing` (keys of `requests`), its
        template filled with `prefill` (key -> form fields; never a secret one: `build_pending`);
        `replay`: the template answers the call started again (a task that ends with the run)."""
        params = self.context.params if self.context.params is not None else (
            {"name": self.context.tool} if self.context.tool else {})
        # Every answer the call sent, before the task existed and to the task: the document
        # carries them on (`resume --save-answers` then replays the whole call).
        recorded = AnswerRecorder()
        recorded.seed(self.context.earlier)
        recorded.record(self.sent)
        sent = recorded.document()["inputResponses"]  # a key answered in several rounds: a list
        doc = build_pending(target=self.context.target, protocol_version=self.context.protocol_version,
                            method="tools/call", params=params,
                            input_requests={k: requests[k] for k in missing}, request_state=None,
                            missing=missing, prefill=prefill, task_id=self.task_id,
                            sent_responses=sent or None, replay=sent if replay else None,
                            secret_fields=self.chain.secret_fields, secret_arguments=self.env.places.tools,
                            note=self.env.err)
        return dict(doc)

    def _over_stdio(self) -> bool:
        """True when the task lives in a stdio server process that this run started (and stops)."""
        return bool(self.context.stdio)

    def _unanswered(self, err: InputRequired) -> InputRequired:
        """The legacy session's exit-5 error for questions a 2025-11-25 task asked during a
        `tasks/*` request (`tasks/result`, usually) that nobody could answer (the server was
        told `cancel`): its document names the original call and the task instead."""
        params = self.context.params if self.context.params is not None else (
            {"name": self.context.tool} if self.context.tool else {})
        # The call's own params, less its secret arguments (as `build_pending` leaves them out).
        params, withheld = arguments_without_secrets(params, self.env.places.tools.get(str(params.get("name")), ()))
        doc: dict[str, Any] = {}
        for key, value in err.pending.items():
            if key == "withheld":
                continue
            doc[key] = {"method": "tools/call", "params": params}.get(key, value)
            if key == "params":
                if withheld:
                    doc["withheld"] = withheld_member(withheld)
                doc["taskId"] = self.task_id
        with contextlib.suppress(MrtrError):  # the server was told `cancel`: record how the task went on
            self._observe(self.wire.get(self.task_id))
        return InputRequired(f"task {self.task_id}: {one_line(err.message, SERVER_TEXT_CHARS)}", doc)

    # ------------------------------------------------------------------ waiting
    def _sleep_until_poll(self, state: TaskState) -> None:
        delay = poll_delay(state.poll_interval_ms)
        left = self.deadline.remaining()
        if left is not None:
            if left <= 0:
                raise TimeoutExpired("timed out")
            delay = min(delay, left)
        next_at = time.monotonic() + delay
        self._show(state, next_at)
        while True:
            remaining = next_at - time.monotonic()
            if remaining <= 0:
                break
            tick = self.status.refresh_interval
            self._wake.wait(remaining if tick is None else min(remaining, tick))
            self.status.refresh()
        if self.deadline.expired():
            raise TimeoutExpired("timed out")

    def _show(self, state: TaskState, next_at: float | None = None, note: str | None = None) -> None:
        waiting_on_server = state.status == INPUT_REQUIRED and all(
            k in self.answered for k in (state.input_requests or {}))
        message = state.status_message
        if waiting_on_server and state.input_requests:
            note = "answers sent; waiting for the server"
        if note:
            message = note + (f" ({message})" if message else "")
        tone = {INPUT_REQUIRED: "attention", COMPLETED: "done", FAILED: "error", CANCELLED: "error"}.get(
            state.status, "active")
        hint = ("Ctrl-C cancels it" if self.cancel_on_interrupt
                else "Ctrl-C stops the stdio server" if self.context.server_ends_with_run()
                else "Ctrl-C leaves it running")
        self.status.show(StatusView(label=f"task {short_id(self.task_id) if self.status.live else self.task_id}",
                                    status=state.status, message=message, started=self.started,
                                    next_at=next_at, tone=tone, hint=hint if not state.terminal else None))

    # ------------------------------------------------------------------ endings
    def _save(self, **changes: object) -> None:
        for name, value in changes.items():
            setattr(self.record, name, value)
        self.records.save(self.record)

    def _where(self) -> str:
        status = self.state.status if self.state is not None else self.record.status
        return f"task {self.task_id} ({status})"

    def _resume_lines(self) -> str:
        lines = f"wait for it: {self.context.command('wait', self.task_id)}"
        from mrtr_cli.tasks.legacy import KEPT_SESSION_NOTE, keep_session_for  # noqa: PLC0415 - lazy for start-up time

        if keep_session_for(self.wire.session, self.record):  # 2025-11-25 over HTTP
            self._save()
            lines += f"\n({KEPT_SESSION_NOTE})"
        if self.context.server_ends_with_run():
            lines += ("\n(over stdio the task lives in the server process, which mrtr stops on exit; "
                      "`task wait` finds it only if the server keeps its tasks)")
        return lines

    def _add_resume_hint(self, err: MrtrError) -> None:
        """Say how to pick the task up again, where it is known to exist: started by this run,
        reported by the server, or recorded here (`mrtr task wait ID` of an id the server never
        answered for gets no claim that it is running)."""
        if not (self._seen() or self._recorded()):
            return
        note = f"{self._where()} stays on the server; {self._resume_lines()}"
        err.hint = f"{err.hint}\n{note}" if err.hint else note

    def _interrupted(self) -> Interrupted:
        """Ctrl-C: the task is left running (recorded, with how to pick it up again), or with
        `--cancel-on-interrupt` asked to cancel (`_cancel_at_interrupt`); exit 130."""
        data = {"taskId": self.task_id, "command": self.context.command("wait", self.task_id)}
        if self.cancel_on_interrupt:
            return self._cancel_at_interrupt(data)
        if getattr(self.wire.session, "refused_at_stop", None):
            # A 2025-11-25 task's question (inside tasks/result) was being answered: the
            # server was told the client stopped (a JSON-RPC error), so the task is no longer
            # simply waiting; what it does next is the server's choice.
            self._save(status_message="its question was answered with an error at Ctrl-C")
            return Interrupted(
                f"interrupted at a question from task {self.task_id}: the server was told that mrtr stopped "
                "before answering, so the task may go on without the answer or end",
                data=data, hint=f"see where it stands: {self.context.command('get', self.task_id)}\n"
                                f"{self._resume_lines()}")
        self._save()
        if self.typed_at_stop is not None:
            return self._interrupted_at_form(data, self.typed_at_stop)
        return Interrupted(f"interrupted; {self._where()} is still running on the server",
                           data=data, hint=self._resume_lines())

    def _interrupted_at_form(self, data: dict[str, Any], doc: dict[str, Any]) -> Interrupted:
        """Ctrl-C at the task's form: the task goes on, and the pending document naming it keeps
        the fields typed so far (no secret one). Inside `mrtr shell` it is the one a bare `resume`
        finishes (shell/lineapp.py keeps it); elsewhere `mrtr resume FILE` of the copy saved in
        the state directory does. Either asks the form again with those fields filled in."""
        from mrtr_cli.engine.pending import (  # noqa: PLC0415 - only when a form stops
            after_shell,
            resume_command,
            save_interrupted,
        )
        from mrtr_cli.render.invocation import inside_shell  # noqa: PLC0415 - only when a form stops

        path = save_interrupted(doc)  # as a call's is (engine/mrtr.py), in the shell too
        if inside_shell():  # and after the shell, the saved copy (as engine/mrtr.py says of a call)
            keep: str | None = "resume finishes it here" + after_shell(doc, path, self.env.config_words)
        else:  # the command line, or a shell a stop signal ends
            keep = f"{resume_command(doc, path, self.env.config_words)} finishes it" if path else None
        fresh = (self._resume_lines().replace("wait for it: ", "or wait for it, the form asked afresh: ", 1)
                 .replace("`task wait` finds it", "`resume` and `task wait` find it", 1))
        hint = (f"the fields typed so far are kept: {keep} (it asks again, those fields filled in; a secret one "
                f"is asked again)\n{fresh}") if keep else self._resume_lines()
        return Interrupted(f"interrupted at a question from {self._where()}; the task is still running on the server",
                           data=data, hint=hint, pending=doc)

    def _cancel_at_interrupt(self, data: dict[str, Any]) -> Interrupted:
        """`--cancel-on-interrupt`: ask the server to cancel the task (`tasks/cancel`, bounded by
        `CANCEL_TIMEOUT_SECONDS`) and say how that went; `data`: the Interrupted error's data."""
        try:
            cancelled = self.wire.cancel(self.task_id, deadline=Deadline(CANCEL_TIMEOUT_SECONDS))
        except (MrtrError, KeyboardInterrupt) as exc:
            reason = shown_message(exc) if isinstance(exc, MrtrError) else "interrupted again"
            self._save(status=self.record.status)
            return Interrupted(f"interrupted; could not cancel task {self.task_id} ({reason})",
                               data=data, hint=f"it may still be running; {self._resume_lines()}")
        if cancelled is not None:
            self._save(status=cancelled.status, status_message=cancelled.status_message)
            return Interrupted(f"interrupted; task {self.task_id} is {cancelled.status}", data=data)
        self._save(status_message="cancellation requested")
        return Interrupted(f"interrupted; asked the server to cancel task {self.task_id}", data=data)

    def _timed_out(self) -> TimeoutExpired:
        self._save()
        data = {"taskId": self.task_id, "command": self.context.command("wait", self.task_id)}
        return TimeoutExpired(f"timed out{self.deadline.describe()} waiting for {self._where()}; the task goes on",
                              data=data, hint=self._resume_lines())
