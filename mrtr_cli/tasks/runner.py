"""Task work for one run of `mrtr`: the engine's task hook and the `mrtr task ...` commands.

Builds the wire, the status line, the local record and the driver from the run's
options (`runcontext.RunContext`, the application layer's `App`: never imported here),
and knows how to find a task's server again from its record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrtr_cli.config.target import Target
from mrtr_cli.engine.mrtr import AnswerRecorder, EngineOutcome
from mrtr_cli.errors import JsonRpcError, UsageError
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.requests import origin_of
from mrtr_cli.protocol.run import ProtocolRun
from mrtr_cli.protocol.session import Session
from mrtr_cli.render.ids import short_id
from mrtr_cli.render.live.status import StatusLine
from mrtr_cli.render.output import print_json
from mrtr_cli.render.sanitize import sanitize
from mrtr_cli.responders.chain import ResponderChain
from mrtr_cli.runcontext import RunContext, RunOptions
from mrtr_cli.tasks.driver import TaskContext, TaskDriver
from mrtr_cli.tasks.records import TaskRecord, TaskRecords, target_words
from mrtr_cli.tasks.state import INPUT_REQUIRED, TaskState
from mrtr_cli.tasks.wire import TaskWire
from mrtr_cli.tasks.wires import wire_for, wire_for_created

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.protocol.run import RejoinSession


def task_capabilities(chain: ResponderChain) -> dict[str, Any]:
    """What every `tasks/*` request declares: what the chain can answer, plus the extension."""
    from mrtr_cli.protocol.capabilities.declared import declared_for  # noqa: PLC0415 - lazy for start-up time

    return declared_for(chain.capabilities(), "tasks/get")


def command_prefix(app: RunContext, target: dict[str, Any]) -> tuple[list[str], str]:
    """The options after `mrtr` that reach `target` again, without any secret, and what to
    say before the command (`credentials.url_in_command`'s lead, for a URL with credentials):
    the command line's spelling, also for a run inside `mrtr shell` (whose hints leave them
    out while the shell goes on: `TaskContext.command`, render/invocation.py `command_line`).

    A named server keeps the run's `--config FILE` / `--expand-env` (`Environment.config_words`).
    `--bearer-token-env VAR` names a variable, not its value, so it is kept; header
    values are secrets and are never repeated (`-H` must be given again).
    """
    from mrtr_cli.credentials import url_in_command  # noqa: PLC0415 - lazy for start-up time

    words, lead = target_words(target), ""
    if words[:1] == ["-s"]:  # a named server: found again only through the same config options
        words[0:0] = app.opts.config_words()
    if words[:1] == ["--url"]:  # a URL whose credentials are hidden cannot be pasted as shown
        url_words, lead = url_in_command(words[1])
        words[0:2] = url_words
    if app.opts.bearer_token_env:
        words += ["--bearer-token-env", app.opts.bearer_token_env]
    return words, lead


def use_record_protocol(opts: RunOptions, record: TaskRecord) -> RejoinSession | None:
    """A task recorded on a legacy session is reached again with `initialize` offering the
    same protocol version (2025-11-25 tasks live in that era), unless `--protocol` was given
    (set in `opts`); returns the HTTP session kept open that a task left running there is
    reached in, or None."""
    from mrtr_cli.protocol.legacy_versions import LEGACY_VERSIONS  # noqa: PLC0415 - lazy for start-up time

    if opts.protocol in (None, "", "auto") and record.protocol_version in LEGACY_VERSIONS:
        opts.protocol = record.protocol_version
    if record.session_id and (not opts.url or opts.url == record.target.get("url")):
        # The task was left running in an HTTP session mrtr kept open: rejoin it (a server
        # may keep tasks per session; a new session would not know the task).
        return {"sessionId": record.session_id, "serverCapabilities": record.server_capabilities}
    return None


def use_saved_target(app: RunContext, record: TaskRecord) -> None:
    """Point `app` at the server in `record` unless the command line named one."""
    from mrtr_cli.config.trust import apply_saved_target  # noqa: PLC0415 - lazy for start-up time

    o = app.opts
    named = record.target.get("server")
    if record.config and not o.config and named and (not (o.url or o.stdio or o.server) or o.server == named):
        o.config, o.expand_env = record.config, o.expand_env or bool(record.expand_env)
    if o.url or o.stdio or o.server:
        return
    apply_saved_target(o, record.target, source=f"the record of task {record.task_id}", trusted=True)
    if record.bearer_token_env and not o.bearer_token_env:
        o.bearer_token_env = record.bearer_token_env


class TaskRunner:
    """Task handling bound to one session.

    Args:
        app: the run (options, environment, output).
        session: the open session.
        chain: answers input requests.
        target: the target the session reaches.
        tool: the tool the task runs (when known).
        params: the original `tools/call` params (when known).
        recorder: collects sent answers for `--save-answers`.
        earlier: the answers the call sent before it became a task (its input rounds, or a
            pending document's `sentResponses`), as an answer file's `inputResponses`: the
            task's pending documents carry them on.
        deadline: bounds the whole run (`--timeout`).
        batch: a line of `mrtr batch`: a detached task goes into the line's record instead of
            stdout, and status lines are plain (several lines share the terminal).
    """

    def __init__(self, app: ProtocolRun, session: Session, chain: ResponderChain, target: Target, *,
                 tool: str | None = None, params: dict[str, Any] | None = None,
                 recorder: AnswerRecorder | None = None, earlier: dict[str, Any] | None = None,
                 deadline: Deadline | None = None, batch: bool = False):
        self.app = app
        self.env = app.env
        self.session = session
        self.chain = chain
        self.target = target.public()
        #: the server is a process this run started (`--stdio`, or `-s NAME` with a command)
        self.over_stdio = bool(target.command) and not target.url
        self.tool = tool
        self.params = params
        self.recorder = recorder
        self.earlier = dict(earlier or {})
        self.deadline = deadline or app.deadline()
        self.batch = batch
        self.records = TaskRecords(warn=self.env.err)

    # ------------------------------------------------------------------ building blocks
    def wire(self, variant: str | None = None, capabilities: dict[str, Any] | None = None) -> TaskWire:
        wire = wire_for(variant, self.session, capabilities or task_capabilities(self.chain), self.deadline)
        wire.see_command = lambda task_id: self.context(task_id).command("get", task_id)
        return wire

    def context(self, task_id: str) -> TaskContext:
        call = origin_of("tools/call", self.params or {"name": self.tool}) if (self.params or self.tool) else None
        origin = f"task {short_id(task_id)}" + (f" of {call}" if call else "")
        words, lead = command_prefix(self.app, self.target)
        return TaskContext(target=self.target, tool=self.tool, params=self.params,
                           protocol_version=self.session.protocol_version,
                           target_words=words, origin=origin, stdio=self.over_stdio,
                           earlier=self.earlier, lead=lead)

    def driver(self, wire: TaskWire, record: TaskRecord, *, cancel_on_interrupt: bool = False) -> TaskDriver:
        status = StatusLine(self.env)
        status.live = status.live and not self.batch
        return TaskDriver(wire, self.chain, self.context(record.task_id), record=record, records=self.records,
                          env=self.env, status=status, deadline=self.deadline,
                          max_rounds=self.app.opts.max_rounds,
                          recorder=self.recorder, cancel_on_interrupt=cancel_on_interrupt)

    def record_for(self, task_id: str, wire: TaskWire, state: TaskState | None = None) -> TaskRecord:
        """The local record of `task_id` on this target (a new one if there is none yet)."""
        record = self.records.find(task_id, self.target, prefix=False)
        if record is None:
            record = TaskRecord(task_id=task_id, target=self.target, tool=self.tool)
        record.tool = record.tool or self.tool
        record.variant = wire.variant
        record.protocol_version = self.session.protocol_version
        record.bearer_token_env = self.app.opts.bearer_token_env or record.bearer_token_env
        if self.target.get("server") and self.app.opts.config:
            import os  # noqa: PLC0415 - lazy for start-up time

            record.config = os.path.abspath(self.app.opts.config)
            record.expand_env = bool(self.app.opts.expand_env)
        if state is not None:
            record.status, record.status_message = state.status, state.status_message
            record.ttl_ms, record.poll_interval_ms = state.ttl_ms, state.poll_interval_ms
        return record

    # ------------------------------------------------------------------ the engine's hook
    def on_task(self, create_result: dict[str, Any], capabilities: dict[str, Any]) -> EngineOutcome:
        """`tools/call` became a task: record it, then detach or drive it to the end."""
        wire = wire_for_created(create_result, self.session, capabilities, self.deadline)
        state = wire.created(create_result)
        record = self.record_for(state.task_id, wire, state)
        self.records.save(record)
        if self.app.opts.detach:
            return self._detach(state, create_result, record)
        if not self.batch:
            driver = self.driver(wire, record, cancel_on_interrupt=self.app.opts.cancel_on_interrupt)
            return driver.run(state, fresh=True)
        # A batch line's worker thread never sees Ctrl-C: the batch (`BatchApp.live_tasks`)
        # names the tasks still running.
        live = self.app.live_tasks
        live[state.task_id] = self.context(state.task_id).command("wait", state.task_id)
        try:
            return self.driver(wire, record).run(state, fresh=True)
        finally:
            live.pop(state.task_id, None)

    def _detach(self, state: TaskState, create_result: dict[str, Any], record: TaskRecord) -> EngineOutcome:
        if not self.batch:  # in `mrtr batch` the creation result goes into the line's record
            if self.app.opts.json_mode:
                print_json(self.env, create_result)
            else:
                self.env.out(sanitize(state.task_id, single_line=True))
        command = self.context(state.task_id).command("wait", state.task_id)
        if self.over_stdio and not self.context(state.task_id).server_ends_with_run():
            self.env.err(sanitize(
                f"mrtr: task {state.task_id} created ({state.status}) in the stdio server process, which "
                f"this shell keeps until it ends: `{command}` reaches it until then"))
        elif self.over_stdio:
            # The task lives in the server process, which stops when mrtr exits: a later
            # command reaches it only if the server keeps its tasks somewhere else.
            self.env.err(sanitize(
                f"mrtr: warning: task {state.task_id} created ({state.status}) in the stdio server "
                "process, which stops when mrtr exits: unless the server keeps its tasks elsewhere "
                f"(a file, a database), the task ends with this run and `{command}` will not find "
                "it; for a task that outlives the run use a server over --url, or leave out --detach"))
        else:
            from mrtr_cli.tasks.legacy import KEPT_SESSION_NOTE, keep_session_for  # noqa: PLC0415 - lazy for start-up time

            kept = keep_session_for(self.session, record)
            if kept:
                self.records.save(record)
            self.env.err(sanitize(f"mrtr: task {state.task_id} created ({state.status}); follow it with: {command}"
                                  + (f"; {KEPT_SESSION_NOTE}" if kept else "")))
        return EngineOutcome(result=create_result, task={"taskId": state.task_id, "status": state.status},
                             extra={"detached": True})

    # ------------------------------------------------------------------ mrtr task ...
    def get(self, task_id: str, variant: str | None = None) -> tuple[TaskWire, TaskState]:
        """One `tasks/get` (recorded); returns the wire that fits the server, and the state.

        Raises:
            TaskGone: the server does not know the task (`-32602`), explained as `task wait`
                explains it (`TaskDriver.gone`: a recorded task's record says so).
        """
        wire = self.wire(variant)
        try:
            state = wire.get(task_id)
        except JsonRpcError as err:
            raise self.driver(wire, self.record_for(task_id, wire)).gone(err) from None
        adapted = wire.adapt(state)
        if adapted is not wire:
            wire, state = adapted, adapted.read(state.raw, "tasks/get result", task_id)
        self.records.save(self.record_for(task_id, wire, state))
        return wire, state

    def wait(self, task_id: str, variant: str | None = None) -> EngineOutcome:
        """Drive an existing task to its end, as `call` would (raises like `TaskDriver.run`)."""
        wire = self.wire(variant)
        driver = self.driver(wire, self.record_for(task_id, wire),
                             cancel_on_interrupt=self.app.opts.cancel_on_interrupt)
        return driver.run()

    def update(self, task_id: str, variant: str | None = None) -> list[str]:
        """Answer the task's outstanding input requests once; returns the keys sent.

        Raises:
            UsageError: the task is not waiting for input, or its variant takes answers only
                while waiting for its result (2025-11-25: use `task wait`).
            InputRequired: some requests stay unanswered (pending document).
        """
        wire, state = self.get(task_id, variant)
        if not wire.takes_input_by_update:
            raise UsageError(f"task {task_id} speaks MCP {wire.variant}, which takes answers only while mrtr "
                             "waits for its result (tasks/result)",
                             hint="answer and finish it with: "
                                  + self.context(task_id).command("wait", task_id, "--answers", "FILE"))
        state = wire.complete(state)
        if state.status != INPUT_REQUIRED:
            raise UsageError(f"task {task_id} is not waiting for input (status {state.status})")
        return self.driver(wire, self.record_for(task_id, wire, state)).answer(state)

    def cancel(self, task_id: str, variant: str | None = None) -> TaskState | None:
        """Ask the server to cancel the task (`tasks/cancel`); returns the task's new state when
        the server's answer carries it (2025-11-25), else None."""
        wire = self.wire(variant)
        state = wire.cancel(task_id)
        record = self.record_for(task_id, wire, state)
        if state is None:
            record.status_message = "cancellation requested"
        self.records.save(record)
        return state
