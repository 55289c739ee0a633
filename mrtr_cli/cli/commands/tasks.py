"""`mrtr task get|wait|update|cancel|list`: follow tasks after (or apart from) the call
that created them.

A task command needs the server the task lives on: `--url`/`--stdio` when given,
else the target saved in the task's local record (never headers: give `-H` again).
A task id may be shortened to a unique prefix of a recorded one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import answer_options, global_options, make_app
from mrtr_cli.errors import UsageError

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.app import App
    from mrtr_cli.config.target import Target
    from mrtr_cli.engine.mrtr import AnswerRecorder
    from mrtr_cli.protocol.session import Session
    from mrtr_cli.tasks.records import TaskRecord
    from mrtr_cli.tasks.runner import TaskRunner


@cli.group("task")
def task_group() -> None:
    """Follow tasks: get, wait, update, cancel, list (the local records)."""


def _open(app: App, task_id: str) -> tuple[str, TaskRecord | None, Target]:
    """The full task id, its record (or None) and the target to reach it."""
    from mrtr_cli.tasks.records import TaskRecords  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.tasks.runner import use_record_protocol, use_saved_target  # noqa: PLC0415 - lazy for start-up time

    o = app.opts
    given = bool(o.url or o.stdio or o.server)
    records = TaskRecords()
    record = None
    if given:
        if o.server and not o.config:  # a named server: its record may know the --config that finds it
            named = records.find(task_id, {"server": o.server})
            if named is not None:
                use_saved_target(app, named)
        target = app.target()
        record = records.find(task_id, target.public())
    else:
        record = records.find(task_id)
        if record is None:
            raise UsageError(f"no local record of task {task_id!r}",
                             hint="name its server: mrtr --url URL task ... or mrtr --stdio \"CMD\" task ...")
        use_saved_target(app, record)
        target = app.target()
    if record is not None:
        app.rejoin_session = use_record_protocol(app.opts, record)
    return (record.task_id if record is not None else task_id), record, target


def _runner(app: App, session: Session, target: Target, record: TaskRecord | None, *,
            params: dict[str, Any] | None = None, recorder: AnswerRecorder | None = None,
            earlier: dict[str, Any] | None = None) -> TaskRunner:
    from mrtr_cli.tasks.runner import TaskRunner  # noqa: PLC0415 - lazy for start-up time

    if record is not None and record.protocol_version and session.version_per_request:
        session.speak_version(record.protocol_version)
    tool = params.get("name") if params else (record.tool if record is not None else None)
    return TaskRunner(app, session, app.chain(), target, tool=tool, params=params, recorder=recorder,
                      earlier=earlier)


def _wait(app: App, task_id: str, record: TaskRecord | None, target: Target,
          params: dict[str, Any] | None = None, earlier: dict[str, Any] | None = None) -> int:
    """Drive the task to its end and print its result; `earlier`: the answers the call sent
    before (a pending document's `sentResponses`), which `--save-answers` and a later
    pending document carry on."""
    from mrtr_cli.engine.run import finish, save_answers  # noqa: PLC0415 - lazy for start-up time

    recorder = app.recorder()  # the same one an older server's own requests are recorded in
    if recorder is not None and earlier:
        recorder.seed(earlier, task_id=task_id)
    with app.session(target) as session:
        runner = _runner(app, session, target, record, params=params, recorder=recorder, earlier=earlier)
        try:
            outcome = runner.wait(task_id, record.variant if record is not None else None)
        finally:
            save_answers(app, recorder, app.chain().secret_fields)
    return int(finish(app, "tools/call", outcome))


def resume_task(app: App, doc: dict[str, Any]) -> int:
    """`mrtr resume PENDING.json` for a task that stopped for input: answer it and wait."""
    from mrtr_cli.config.trust import apply_saved_target  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.engine.resume import Seed  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.tasks.records import TaskRecord, TaskRecords  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.tasks.runner import use_saved_target  # noqa: PLC0415 - lazy for start-up time

    saved = doc["target"] if isinstance(doc["target"], dict) else {}
    record = TaskRecords().find(doc["taskId"], saved, prefix=False)
    if record is None:  # not a task this machine's mrtr started: the document's target is not trusted
        record = TaskRecord(task_id=doc["taskId"], target=saved, tool=doc["params"].get("name"),
                            protocol_version=doc.get("protocolVersion"))
        apply_saved_target(app.opts, saved, source="the pending document")
    use_saved_target(app, record)
    app.prefill_forms(Seed.of_pending(doc).typed)  # the fields typed before Ctrl-C, before the chain is built
    sent = doc.get("sentResponses")
    return _wait(app, record.task_id, record, app.target(), params=doc["params"] or None,
                 earlier=sent if isinstance(sent, dict) else None)


def _on_server(ctx: click.Context, kw: dict[str, Any], task_id: str,
               act: Callable[..., Any]) -> tuple[App, str, Any]:
    """Open the task's server and run `act(runner, task_id, variant)`; returns (app, full id, its value)."""
    app = make_app(ctx, kw)
    task_id, record, target = _open(app, task_id)
    with app.session(target) as session:
        runner = _runner(app, session, target, record)
        value = act(runner, task_id, record.variant if record is not None else None)
    return app, task_id, value


@task_group.command("get")
@click.argument("task_id")
@global_options
@click.pass_context
def get_cmd(ctx: click.Context, /, task_id: str, **kw: object) -> int:
    """Poll task TASK_ID once (tasks/get) and print it as the server sent it."""
    from mrtr_cli.render.output import print_json  # noqa: PLC0415 - lazy for start-up time

    app, _, (_, state) = _on_server(ctx, kw, task_id, lambda runner, tid, variant: runner.get(tid, variant))
    print_json(app.env, state.raw)
    return 0


@task_group.command("wait")
@click.argument("task_id")
@global_options
@answer_options
@click.option("--cancel-on-interrupt", is_flag=True, default=None,
              help="Ctrl-C cancels the task (tasks/cancel) instead of leaving it running.")
@click.pass_context
def wait_cmd(ctx: click.Context, /, task_id: str, **kw: object) -> int:
    """Wait for task TASK_ID to finish, answering its input requests, and print its result."""
    app = make_app(ctx, kw)
    task_id, record, target = _open(app, task_id)
    return _wait(app, task_id, record, target)


@task_group.command("update")
@click.argument("task_id")
@global_options
@answer_options
@click.pass_context
def update_cmd(ctx: click.Context, /, task_id: str, **kw: object) -> int:
    """Answer the input requests task TASK_ID waits for (tasks/update), then exit."""

    def update(runner: TaskRunner, tid: str, variant: str | None) -> tuple[list[str], str]:
        return runner.update(tid, variant), runner.context(tid).command("wait", tid)

    app, task_id, (sent, command) = _on_server(ctx, kw, task_id, update)
    what = (f"sent {len(sent)} answer(s) to task {task_id} ({', '.join(sent)})" if sent
            else f"task {task_id} has no unanswered input requests")
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - start-up time (`mrtr --help`)

    app.env.err(sanitize(f"mrtr: {what}; follow it with: {command}"))
    return 0


@task_group.command("cancel")
@click.argument("task_id")
@global_options
@click.pass_context
def cancel_cmd(ctx: click.Context, /, task_id: str, **kw: object) -> int:
    """Ask the server to cancel task TASK_ID (tasks/cancel; cooperative)."""
    app, task_id, state = _on_server(ctx, kw, task_id, lambda runner, tid, variant: runner.cancel(tid, variant))
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - start-up time (`mrtr --help`)

    if state is not None:
        app.env.err(sanitize(f"mrtr: task {task_id} is {state.status}"))
    else:
        app.env.err(sanitize(f"mrtr: asked the server to cancel task {task_id}; cancellation is cooperative "
                             "(`task get` shows the outcome)"))
    return 0


@task_group.command("list")
@global_options
@click.option("--remote", is_flag=True, help="Ask the server (tasks/list; MCP 2025-11-25 servers only).")
@click.pass_context
def list_cmd(ctx: click.Context, /, remote: bool, **kw: object) -> int:
    """List the tasks recorded on this machine, newest first; --remote: the server's own list."""
    from mrtr_cli.render.output import print_json  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.tasks.records import TaskRecords  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw)
    o = app.opts
    if remote:
        return _list_remote(app)
    target = app.target().public() if (o.url or o.stdio or o.server) else None
    records = [r for r in TaskRecords().all() if target is None or r.target == target]
    if app.opts.json_mode:
        print_json(app.env, [r.document() for r in records])
        return 0
    if not records:
        app.env.err("mrtr: no tasks recorded")
        return 0
    rows: list[tuple[str, ...]] = [("TASK ID", "STATUS", "TOOL", "CREATED", "TARGET")]
    for r in records:
        where = r.target.get("url") or r.target.get("stdio") or r.target.get("server") or ""
        rows.append((r.task_id, r.status, r.tool or "-", r.created.replace("T", " ").rstrip("Z"), where))
    _print_table(app, rows)
    return 0


def _list_remote(app: App) -> int:
    """`task list --remote`: the server's `tasks/list` (all pages), tools from the local records."""
    from mrtr_cli.render.output import print_json  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.tasks.legacy import list_remote_tasks  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.tasks.records import TaskRecords  # noqa: PLC0415 - lazy for start-up time

    target = app.target()
    with app.session(target) as session:
        tasks = list_remote_tasks(session, app.deadline())
    if app.opts.json_mode:
        print_json(app.env, tasks)
        return 0
    if not tasks:
        app.env.err("mrtr: the server lists no tasks")
        return 0
    tools: dict[object, str | None] = {r.task_id: r.tool for r in TaskRecords().all() if r.target == target.public()}
    rows: list[tuple[str, ...]] = [("TASK ID", "STATUS", "TOOL", "CREATED", "MESSAGE")]
    for task in tasks:
        task = task if isinstance(task, dict) else {}
        rows.append(tuple(str(v) for v in (task.get("taskId"), task.get("status"), tools.get(task.get("taskId")) or "-",
                                           str(task.get("createdAt") or "").replace("T", " ").rstrip("Z"),
                                           task.get("statusMessage") or "")))
    _print_table(app, rows)
    return 0


def _print_table(app: App, rows: list[tuple[str, ...]]) -> None:
    """Columns padded to their widest cell (the last one is not padded), sanitised."""
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time

    rows = [tuple(sanitize(cell, single_line=True) for cell in row) for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] + [row[-1]]
        app.env.out("  ".join(cells).rstrip())
