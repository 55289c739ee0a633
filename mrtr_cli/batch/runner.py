"""Running the lines of `mrtr batch`: `-j N` workers over one session.

Every line goes through the same path as `mrtr call` / `prompt` / `read`
(`protocol.requests.request_params`, then `engine.run.drive`: the MRTR engine and the task driver) with
its own answer store and responder chain (the batch's `--answers` and `-a`, then
the line's `answersFile` and `answers`), its own `--timeout` window, and no
terminal: nobody is asked (`--no-input` is implied) and URL elicitation is not
declared, since nobody can consent during a batch.

All lines share one session: one HTTP connection pool, or one stdio server
process with requests multiplexed by JSON-RPC id. If a stdio server dies, the
lines in flight fail (exit 3: their outcome is unknown) and the server is started
again once; if it dies again, every line left fails at once with exit 3.

A server of an older protocol (2025-11-25 and earlier) asks its questions with
requests of its own in the middle of a call, naming no call: its lines run one at a
time, and each question is answered with that line's answers.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import threading
from typing import Any

from mrtr_cli.batch.lines import BatchLine
from mrtr_cli.batch.manylines import ManyLinesApp
from mrtr_cli.batch.records import (
    CODE_NAMES,
    BatchRecord,
    RecordSink,
    Summary,
    dumps_record,
    error_record,
    pending_record,
    result_record,
)
from mrtr_cli.engine.run import drive, outcome_status
from mrtr_cli.errors import ExitStatus, InputRequired, MrtrError, TransportError
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.requests import request_params
from mrtr_cli.protocol.session import Session
from mrtr_cli.render.errors import shown_message
from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line, sanitize
from mrtr_cli.responders.answers import AnswerStore
from mrtr_cli.responders.chain import ResponderChain
from mrtr_cli.transport.base import server_alive

_WAIT = 0.2  # seconds the main thread waits on a worker at a time (Ctrl-C stays responsive)
_NAMED_LINES = 5  # line numbers a note names before "and N more"


class BatchApp(ManyLinesApp):
    """The `App` of a batch run: every line gets its own time bound, its own responder
    chain without a terminal, and a task it creates is reported in its record (`batch`);
    `live_tasks` names the tasks lines wait for, after Ctrl-C: they keep running on the server."""

    batch = True

    def chain(self, store: AnswerStore | None = None) -> ResponderChain:
        """The batch's own chain (its `--answers` and `-a`; never a person, no URL elicitation):
        the capabilities an older server is told at `initialize`, and what answers that
        server's own requests (they name no line, so a line's `answers` cannot apply)."""
        if self._chain is None:
            self._chain = self.line_chain(store or self.answer_store(), self.deadline())
        return self._chain

    def line_chain(self, store: AnswerStore, deadline: Deadline) -> ResponderChain:
        """The chain for one line: its answers, roots and sampling command, no terminal.

        Raises:
            UsageError: a root in the line's answers that does not exist.
        """
        from mrtr_cli.responders.sources import build_chain  # noqa: PLC0415 - lazy for start-up time

        return build_chain(self.opts, self.env, store, self.sources(store), deadline, person=False)


class SessionSlot:
    """The batch's session: opened once, opened again (at most `restarts` times) when a
    stdio server process has died.

    Raises (from `get`):
        MrtrError: the session cannot be opened (the server cannot be started), or the
            server is gone for good; the same error for every later line.
    """

    def __init__(self, app: BatchApp, restarts: int = 1):
        self.app = app
        self.restarts = restarts
        self.session: Session | None = None
        self._context: Any = None
        self._gone: MrtrError | None = None
        self._death: str | None = None
        self._lock = threading.Lock()

    def get(self) -> Session:
        """The open session, (re)starting the server when needed."""
        session = self.session
        if session is not None and self._gone is None and server_alive(session.transport):
            return session  # the common case, without the lock every line would queue on
        with self._lock:
            session = self.session
            if self._gone is None and session is not None and not server_alive(session.transport):
                why = self._death or "the server process is gone"
                if self.restarts <= 0:
                    process = session.transport.process()
                    self._gone = TransportError(f"not sent: the server died ({why}) after being restarted",
                                                hint=process.describe_failure() if process is not None else None)
                else:
                    self.restarts -= 1
                    self.app.env.err(f"mrtr: batch: the server died ({one_line(why, SERVER_TEXT_CHARS)}); "
                                     "starting it again")
                    self._close(None)
            if self._gone is not None:
                gone = self._gone
                raise type(gone)(gone.message, code=gone.code, data=gone.data, hint=gone.hint)
            if self.session is None:
                self._open()
            assert self.session is not None
            return self.session

    def failed(self, session: Session, err: TransportError) -> None:
        """A line on `session` failed with a transport error: remember why, if the server died."""
        if not server_alive(session.transport):
            with self._lock:
                if session is self.session and self._death is None:
                    self._death = err.message

    def close(self, exc: BaseException | None = None) -> None:
        """Close the session (with the exception that ends the batch, if any)."""
        with self._lock:
            self._close(exc)

    def _open(self) -> None:
        context = self.app.session(self.app.target())
        try:
            session = context.__enter__()
        except MrtrError as exc:
            self._gone = exc
            raise
        self._context, self.session, self._death = context, session, None
        self.app.catalog(session)  # one tool catalog for every line of this session

    def _close(self, exc: BaseException | None) -> None:
        context, self._context, self.session = self._context, None, None
        if context is not None:
            context.__exit__(type(exc) if exc else None, exc, exc.__traceback__ if exc else None)


#: What the first line imports (each loaded lazily for one call's start-up): every line drives
#: the engine and may be asked a question (the form schema's module); a `call` line types and
#: checks its arguments by the tool's schema (and notes its secret ones), a `prompt` line its
#: arguments as strings.
LINE_MODULES = ("mrtr_cli.engine.mrtr", "mrtr_cli.tasks.field", "mrtr_cli.schema.elicit")
COMMAND_MODULES = {
    "call": ("mrtr_cli.schema.toolargs", "mrtr_cli.schema.arguments", "mrtr_cli.schema.quickcheck",
             "mrtr_cli.schema.secrecy"),
    "prompt": ("mrtr_cli.schema.arguments", "mrtr_cli.schema.prompt_arguments"),
}


def load_line_modules(commands: set[str]) -> None:
    """Import what running a line imports (`LINE_MODULES`, and `COMMAND_MODULES` of the lines'
    `commands`), on the calling thread before the workers start: workers reaching a first
    import together queue on its lock (all of them, while one loads it), and a worker importing
    while the interpreter ends can crash it."""
    import importlib  # noqa: PLC0415 - loaded with the interpreter

    for name in LINE_MODULES + tuple(name for command in sorted(commands) for name in COMMAND_MODULES.get(command, ())):
        importlib.import_module(name)


class BatchRunner:
    """Runs `lines` and hands each record to `sink`, filling `summary`.

    Args:
        app: the batch's `BatchApp` (options, target, environment).
        lines: the lines to run this time, in input order (malformed ones included: they
            become exit-2 records when their turn comes).
        sink: where records go.
        summary: counts every record (`codes`).
        jobs: lines in flight at once (`-j`).
        fail_fast: after the first failing record, start no more lines (those in flight finish).
        restarts: how many times a dead stdio server is started again.
    """

    def __init__(self, app: BatchApp, lines: list[BatchLine], sink: RecordSink, summary: Summary, *,
                 jobs: int = 1, fail_fast: bool = False, restarts: int = 1):
        self.app = app
        self.env = app.env
        self.lines = lines
        self.sink = sink
        self.summary = summary
        self.jobs = max(1, jobs)
        self.fail_fast = fail_fast
        self.slot = SessionSlot(app, restarts)
        self._base = app.answer_store()
        self._used_flags: set[int] = set()
        self._shadowed_flags: dict[int, str] = {}
        self._stopped: list[int] = []  # numbers of the lines that ran and stopped before a result
        self._next = itertools.count()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._interrupted = False
        self._failure: Exception | None = None  # what stopped a worker (its records could not be written)
        self.recorded = 0

    def run(self) -> None:
        """Run every line; returns when all started lines have their records.

        Raises:
            MrtrError: the session cannot be opened at all (nothing has run).
            KeyboardInterrupt: Ctrl-C; records finished so far are written, the lines in
                flight are cancelled (they get no record, so `--resume` runs them again).
        """
        if not any(line.error is None for line in self.lines):
            for line in self.lines:  # only malformed lines: no server needed
                self._take(line, self.run_line(line))
                if self.fail_fast:
                    break
            self.sink.flush()
            return
        calls = any(line.command == "call" and line.error is None for line in self.lines)
        session = self.slot.get()  # batch-level problems (cannot start the server, a bad option) end here
        if not session.asks_in_results and self.jobs > 1:
            # An older server's questions arrive in the middle of a call and name no call:
            # only with one line in flight can they be told apart (and get that line's answers).
            self.env.err(f"mrtr: batch: the server speaks MCP {session.protocol_version}, whose questions name "
                         "no call; running one line at a time")
            self.jobs = 1
        if calls:
            # The tool list, once, in its own --timeout window (a slow-starting server is not
            # charged to the first lines); if it fails, each line tries again and says why.
            with contextlib.suppress(MrtrError):
                self.app.catalog(session).load()
        load_line_modules({line.command for line in self.lines if line.error is None})
        workers = [threading.Thread(target=self._work, name=f"mrtr-batch-{i}", daemon=True)
                   for i in range(min(self.jobs, len(self.lines)))]
        for worker in workers:
            worker.start()
        try:
            for worker in workers:
                while worker.is_alive():
                    worker.join(_WAIT)  # a timeout: Ctrl-C is noticed between waits
        except KeyboardInterrupt as exc:
            with self._lock:  # from here on, lines that finish get no record
                self._interrupted = True
                self._stop.set()
                self.sink.flush()
            self.summary.interrupted = True
            stdio = bool(self.app.target().command)
            for task_id, command in list(self.app.live_tasks.items()):
                self.env.err(sanitize(
                    f"mrtr: task {task_id} stops with the server process (stdio)" if stdio else
                    f"mrtr: task {task_id} is still running on the server; finish it with: {command}"))
            self.slot.close(exc)
            raise
        try:
            if self._failure is None:
                self.sink.flush()
        except Exception as exc:  # noqa: BLE001
            self._failure = exc
        if self._failure is not None:
            self._stopped_by(self._failure)
        self.slot.close()
        self.report_unused_flags()

    def _stopped_by(self, exc: Exception) -> None:
        """A worker could not write a record: say why once, and make the batch's exit code say it
        (2 for an output that cannot be written, 70 for a bug)."""
        if isinstance(exc, BrokenPipeError):
            with contextlib.suppress(OSError):
                sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the interpreter's final flush
            why = "the reader of the output went away (broken pipe)"
        elif isinstance(exc, OSError):
            why = exc.strerror or str(exc)
        else:
            why = None
        if why is not None:
            self.summary.stopped = int(ExitStatus.USAGE)
            self.env.err(f"mrtr: batch: cannot write the records: {why}; stopped")
        else:
            self.summary.stopped = int(ExitStatus.INTERNAL)
            self.env.err(f"mrtr: batch: internal error (a bug in mrtr): {type(exc).__name__}: {exc}; stopped")

    # ------------------------------------------------------------------ one line
    def run_line(self, line: BatchLine) -> BatchRecord:
        """Run one line and return its record (never raises but for KeyboardInterrupt)."""
        if line.error is not None:
            return error_record(line, line.error, self.env)
        strict = self.app.strict_checker()
        if strict is None:
            return self._run_line(line)
        strict.begin_line()  # --strict: this line's violations go into its record
        record = self._run_line(line)
        record["strictViolations"] = strict.line_count()
        from mrtr_cli.protocol.checks.strict import strict_exit  # noqa: PLC0415 - lazy for start-up time

        record["exitCode"] = strict_exit(record["exitCode"], record["strictViolations"])  # as `call --strict` exits
        return record

    def _run_line(self, line: BatchLine) -> BatchRecord:
        store = AnswerStore([*self._base.files, *line.answers], self._base.flags)
        session: Session | None = None
        try:
            session = self.slot.get()
            deadline = self.app.deadline()
            chain = self.app.line_chain(store, deadline)
            responder = getattr(session, "responder", None)
            if responder is not None:  # an older server's own requests: its answers and keys (one line at a time)
                responder.begin(chain, None)
            method, params = request_params(self.app, session, line.command, line.subject, base=line.arguments)
            outcome = drive(self.app, method, params, session=session, chain=chain, target=self.app.target(),
                            deadline=deadline)
            return result_record(line, outcome_status(method, outcome), outcome.result)
        except InputRequired as exc:
            return pending_record(line, exc.pending)
        except TransportError as exc:
            if session is not None:
                self.slot.failed(session, exc)
            return error_record(line, exc, self.env)
        except MrtrError as exc:
            return error_record(line, exc, self.env)
        except Exception as exc:  # noqa: BLE001 - a bug must not take the other lines down
            if self.env.settings.debug:
                import traceback  # noqa: PLC0415 - lazy for start-up time

                self.env.err("".join(traceback.format_exception(exc)).rstrip())
            err = MrtrError(f"internal error (a bug in mrtr): {type(exc).__name__}: {exc}",
                            hint="please report it (MRTR_DEBUG=1 shows the traceback); the other lines go on")
            err.exit_status = ExitStatus.INTERNAL
            return error_record(line, err, self.env)
        finally:
            if store.used_flags or store.shadowed:
                with self._lock:
                    self._used_flags |= store.used_flags
                    self._shadowed_flags.update(store.shadowed)

    # ------------------------------------------------------------------ workers
    def _work(self) -> None:
        try:
            self._work_lines()
        except Exception as exc:  # noqa: BLE001 - the records cannot be written (or a bug): stop the batch
            with self._lock:
                if self._failure is None:
                    self._failure = exc
            self._stop.set()

    def _work_lines(self) -> None:
        while not self._stop.is_set():
            index = next(self._next)  # atomic: no lock for workers to queue on
            if index >= len(self.lines):
                return
            line = self.lines[index]
            record = self.run_line(line)
            text = dumps_record(record) + "\n"  # encoded before taking the lock
            with self._lock:  # each worker writes its own records: no hand-off to another thread
                if self._interrupted:
                    return  # cancelled by Ctrl-C: no record, --resume runs the line again
                if self.fail_fast and record["exitCode"] != 0:
                    self._stop.set()  # before any worker takes another line
                self._take(line, record, text)
                self.sink.flush_output()

    def _take(self, line: BatchLine, record: BatchRecord, text: str | None = None) -> None:
        self.sink.add(record, text)
        self.recorded += 1
        code = record["exitCode"]
        self.summary.codes[line.number] = code
        self.summary.ids[line.number] = line.id
        if line.error is None and "result" not in record:
            self._stopped.append(line.number)
        if code == 0:
            return
        if not self.env.json_mode:  # with --json, the records say it all
            self._note_failure(line, record)

    def _note_failure(self, line: BatchLine, record: BatchRecord) -> None:
        if line.error is not None:  # the person's own input: always worth a line on stderr
            self.env.err(f"mrtr: batch: {shown_message(line.error)}")
        elif self.env.verbosity:
            error = record.get("error")
            what = error["message"] if error else CODE_NAMES.get(record["exitCode"], "failed")
            self.env.err(f"mrtr: batch: line {line.number}: exit {record['exitCode']}: "
                         f"{one_line(what, SERVER_TEXT_CHARS)}")

    def report_unused_flags(self) -> None:
        """Note each `-a` flag that no line's input request used (not with `-q`). When some
        line stopped before its result (input nobody gave, an error), the form a flag is for
        may be one it never reached: the note names those lines (`stopped_lines`) instead of
        saying no form in the batch has the field."""
        if self.env.quiet:
            return
        why = stopped_lines(self._stopped)
        # the lines' stores, and the batch chain's (older servers)
        for note in self._base.unused_flag_notes("in this batch", also_used=self._used_flags,
                                                 also_shadowed=self._shadowed_flags,
                                                 stopped=None if why is None else lambda _flag: why):
            self.env.err(note)


def stopped_lines(numbers: list[int]) -> str | None:
    """"line 3 stopped before its end", "lines 1, 4 stopped before their end" (at most
    `_NAMED_LINES` numbers, then "and N more") for the batch lines `numbers`; None for none."""
    if not numbers:
        return None
    ordered = sorted(numbers)
    shown = ", ".join(map(str, ordered[:_NAMED_LINES]))
    if len(ordered) > _NAMED_LINES:
        shown += f" and {len(ordered) - _NAMED_LINES} more"
    return f"line {shown} stopped before its end" if len(ordered) == 1 else f"lines {shown} stopped before their end"


def run_batch(app: BatchApp, lines: list[BatchLine], sink: RecordSink, summary: Summary, **kw: Any) -> None:
    """Run `lines` (see `BatchRunner`); lines left without a record are counted in `summary.not_run`."""
    runner = BatchRunner(app, lines, sink, summary, **kw)
    try:
        runner.run()
    finally:
        summary.not_run = len(lines) - runner.recorded
        with contextlib.suppress(Exception):
            runner.slot.close()
