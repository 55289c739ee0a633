"""Running one MRTR-capable request of a command to its end: the engine's round trips
(engine/mrtr.py), the task it may become (through the task hook the run hands over,
`EngineRun.task_handler`: tasks/ sits above the engine), `--save-answers`, and the exit
code of the outcome (docs/architecture.md, "The walk-through").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from mrtr_cli.engine.withheld import SecretFields, withheld_notes
from mrtr_cli.errors import ExitStatus, InputRequired, WriteFailed, winning_status
from mrtr_cli.protocol.run import ProtocolRun

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.config.target import Target
    from mrtr_cli.engine.mrtr import AnswerRecorder, EngineOutcome, TaskHandler
    from mrtr_cli.engine.resume import Seed
    from mrtr_cli.protocol.deadline import Deadline
    from mrtr_cli.protocol.session import Session
    from mrtr_cli.responders.chain import ResponderChain



class EngineRun(ProtocolRun, Protocol):
    """One run, as the engine sees it (implemented by `mrtr_cli.app.App`): the protocol
    layer's view, with the responder chain, the `--save-answers` recorder and the task hook."""

    def chain(self) -> ResponderChain:
        """The run's responder chain (built once)."""

    def recorder(self) -> AnswerRecorder | None:
        """The `--save-answers` recorder, or None."""

    def task_handler(self, session: Session, chain: ResponderChain, target: Target, params: dict[str, Any], *,
                     recorder: AnswerRecorder | None, sent: AnswerRecorder, deadline: Deadline) -> TaskHandler:
        """The engine's task hook for one `tools/call`: called as `on_task(create_result,
        capabilities)`, it drives the task to an `engine.mrtr.EngineOutcome` (tasks/runner.py).
        `sent`: the engine's record of what the call sent before it became a task (its input
        rounds), which the task's pending documents and `--save-answers` carry on."""

def outcome_status(method: str, outcome: EngineOutcome) -> int:
    """The exit code of a finished request: 0, 1 when a tool result has `isError: true`,
    6 after a decline or cancel (docs/design.md, "Exit codes"), both by `errors.winning_status`
    (1 wins); a detached task is 0."""
    if outcome.extra.get("detached"):
        return int(ExitStatus.SUCCESS)
    return winning_status(*(
        [ExitStatus.TOOL_ERROR] if method == "tools/call" and outcome.result.get("isError") is True else []),
        *([ExitStatus.DECLINED] if outcome.declined else []))


def run_request(run: EngineRun, method: str, params: dict[str, Any], *, session: Session,
                chain: ResponderChain, target: Target, seed: Seed | None = None) -> int:
    """Drive one MRTR-capable request (`drive`), note the `-a` flags nobody asked for, print
    its result (`finish`) and return the exit code. `seed`: a resumed call (engine/resume.py),
    the same call started from the round it stopped at.

    Raises:
        MrtrError: as `drive` raises (InputRequired carries the pending document: exit 5).
    """
    try:
        outcome = drive(run, method, params, session=session, chain=chain, target=target, seed=seed)
    except InputRequired:
        chain.report_unused(stopped=True)  # a later round may still ask what a flag answers
        raise
    chain.report_unused()
    return finish(run, method, outcome)


def drive(run: EngineRun, method: str, params: dict[str, Any], *, session: Session, chain: ResponderChain,
          target: Target, deadline: Deadline | None = None, seed: Seed | None = None) -> EngineOutcome:
    """Drive one MRTR-capable request (and the task it may become) to its outcome,
    printing nothing of the result: `run_request` for one command, `mrtr batch` per line.
    A task the call becomes goes to the run's task hook (`run.task_handler`: tasks/runner.py).

    Args:
        deadline: bounds this request (default: the run's `deadline()`).
        seed: a resumed call (`MrtrEngine.run`).

    Raises:
        MrtrError: as `MrtrEngine.run` and the task driver raise (InputRequired with
            the pending document, JsonRpcError, TransportError, TimeoutExpired, ...).
    """
    from mrtr_cli.engine.mrtr import AnswerRecorder, MrtrEngine  # noqa: PLC0415 - start-up time: loaded while a stdio server boots

    recorder = run.recorder()
    deadline = deadline or run.deadline()
    sent = AnswerRecorder()  # the engine's rounds, which the task the call may become carries on
    on_task = run.task_handler(session, chain, target, params, recorder=recorder, sent=sent, deadline=deadline)
    engine = MrtrEngine(session, chain, target=target.public(), max_rounds=run.opts.max_rounds,
                        deadline=deadline, recorder=recorder, sent=sent,
                        # the tasks extension is declared on tools/call only
                        on_task=on_task if method == "tools/call" else None)
    try:
        return engine.run(method, params, seed=seed)
    finally:
        save_answers(run, recorder, chain.secret_fields)


def finish(run: EngineRun, method: str, outcome: EngineOutcome) -> int:
    """Print the final result (not for a detached task: it was printed when created) and
    return the exit code (`outcome_status`: 1 for isError, 6 after a decline)."""
    from mrtr_cli.render.output import note_outcome, print_result  # noqa: PLC0415 - lazy for start-up time

    code = outcome_status(method, outcome)
    if not outcome.extra.get("detached"):
        print_result(run.env, method, outcome.result, json_mode=run.opts.json_mode)
        note_outcome(run.env, method, outcome.result, code)
    return code


def save_answers(run: EngineRun, recorder: AnswerRecorder | None, secret_fields: SecretFields) -> None:
    """`--save-answers FILE`: write every answer the recorder holds as an answer file
    (docs/design.md, "Answer files"); nothing when none was recorded. A file that cannot be written
    ends the run with exit 2 (`env.write_failure`, cli/main.py). The secret fields
    (`secret_fields`: input key -> field names) hold `null`, one stderr line naming each
    (engine/withheld.py; docs/answers.md, "Secrets")."""
    if recorder is None or not (recorder.responses or recorder.in_order):
        return
    path = run.opts.save_answers
    assert path is not None
    try:
        from mrtr_cli.jsonfile import dumps_utf8  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.userfiles import open_user_output  # noqa: PLC0415 - lazy for start-up time

        dropped: list[str] = []
        document = recorder.document(secret_fields, dropped)
        with open_user_output(path) as fh:
            fh.write(dumps_utf8(document, indent=2) + "\n")
        for line in withheld_notes(dropped, f"--save-answers {path}", "when replaying it (-a KEY.FIELD=VALUE)"):
            run.env.err(line)
    except OSError as exc:
        run.env.write_failure = run.env.write_failure or WriteFailed(
            f"cannot write --save-answers {path}: {exc.strerror or exc}")
