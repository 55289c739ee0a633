"""`mrtr batch FILE.jsonl`: many calls over one session, one JSON record per line.

The input format is in `mrtr_cli/batch/lines.py`, the records and the exit code in
`mrtr_cli/batch/records.py`, the runner in `mrtr_cli/batch/runner.py`.
"""

from __future__ import annotations

import json
import os
from typing import IO, Any

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import answer_options, global_options, make_app, task_options
from mrtr_cli.errors import ExitStatus, UsageError


@cli.command("batch", short_help="Run many calls from a JSON Lines file, one record each.")
@click.argument("file", metavar="FILE.jsonl")
@click.option("-j", "--jobs", type=click.IntRange(min=1, max=256), default=1, show_default=True, metavar="N",
              help="Lines in flight at once, over one session (one HTTP connection pool or one stdio server).")
@click.option("-o", "--output", metavar="FILE", help="Write the records to FILE instead of stdout.")
@click.option("--unordered", is_flag=True, help="Write each record when its line finishes (default: input order).")
@click.option("--fail-fast", is_flag=True, help="Start no more lines after the first one that fails.")
@click.option("--resume", "resume_path", metavar="OUT.jsonl",
              help="Skip the lines OUT.jsonl already has records for, and append the new records to it.")
@click.option("--retry-failed", is_flag=True,
              help="With --resume: run again the lines recorded with a non-zero exit code.")
@global_options
@answer_options
@task_options
@click.pass_context
def batch_cmd(ctx: click.Context, /, file: str, jobs: int, output: str | None, unordered: bool, fail_fast: bool,
              resume_path: str | None, retry_failed: bool, **kw: Any) -> int:
    """Run many calls from FILE.jsonl (`-`: stdin), one JSON object per line:

    \b
      {"id": "a1", "call": "TOOL", "arguments": {...}, "answers": {...}}
      {"id": "a2", "prompt": "NAME", "arguments": {...}, "answersFile": "answers.json"}
      {"id": "a3", "read": "URI"}

    \b
    Each line gets one record on stdout (or -o FILE), in input order:
      {"id", "line", "exitCode", "result" | "error" | "pending"}
    Nobody is asked anything (--no-input is implied): input with no answer gives
    a pending record (exit 5). Exit 0 when every line succeeded, else the exit
    code of the first failing line in input order; counts go to stderr.
    """
    from mrtr_cli.batch.lines import read_batch, read_batch_text  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.batch.records import RecordSink, Summary, load_records  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.batch.runner import BatchApp, run_batch  # noqa: PLC0415 - lazy for start-up time
    plain = make_app(ctx, kw, [("FILE.jsonl", file, "input"), ("-o", output, "records"),
                               ("--resume", resume_path, "records")])
    app = BatchApp(plain.opts, plain.env)
    env = app.env
    if app.opts.save_answers:
        raise UsageError("--save-answers does not apply to batch: each line's answers are in its own record")
    if app.opts.open_urls:
        raise UsageError("--open-urls does not apply to batch: nobody is there to consent to a URL")
    if retry_failed and not resume_path:
        raise UsageError("--retry-failed goes with --resume OUT.jsonl")
    # Lines are never asked anything; a sign-in a server wants is still one person's
    # consent at the terminal, once for every line in flight.
    app.sign_in_allowed = env.can_prompt()
    app.opts.no_input = env.no_input = True

    if output and output != "-":
        from mrtr_cli.userfiles import claim_output  # noqa: PLC0415 - lazy for start-up time

        claim_output(output, "-o")  # as --trace and --save-answers: before anything is sent
    base_dir = os.getcwd() if file == "-" else os.path.dirname(os.path.abspath(file))
    from mrtr_cli.protocol.deadline import Deadline  # noqa: PLC0415 - lazy for start-up time

    lines = read_batch(read_batch_text(file, env.stdin, Deadline(app.opts.timeout)), base_dir)
    summary = Summary(lines=len(lines))
    recorded = load_records(resume_path) if resume_path else {}
    todo = []
    for line in lines:
        earlier = recorded.get(line.resume_key)
        if earlier is not None and not (retry_failed and earlier["exitCode"] != 0):
            summary.codes[line.number] = earlier["exitCode"]
            summary.ids[line.number] = line.id
            summary.skipped += 1
        else:
            todo.append(line)

    stream = _output_stream(output, resume_path)
    out = env.stdout if stream is None else stream
    sink = RecordSink(out.write, [line.number for line in todo], ordered=not unordered, flush=out.flush)
    try:
        run_batch(app, todo, sink, summary, jobs=jobs, fail_fast=fail_fast)
    except KeyboardInterrupt:
        summary.interrupted = True  # also before any line started (a server slow to start)
        _report(app, summary)
        return summary.exit_code()
    finally:
        if stream is not None:
            _close(stream, summary, env)
    _report(app, summary)
    return summary.exit_code()


def _output_stream(output: str | None, resume_path: str | None) -> IO[str] | None:
    """The records file: `-o FILE` (appended to when it is the --resume file; a FIFO, a
    device or a directory checked and opened by `userfiles.claim_output`, never locked),
    else the --resume file (appended to), else None for stdout."""
    from mrtr_cli.batch.records import open_output  # noqa: PLC0415 - lazy for start-up time

    if output and output != "-" and os.path.exists(output) and not os.path.isfile(output):
        from mrtr_cli.userfiles import claim_output, open_user_output  # noqa: PLC0415 - lazy for start-up time

        claim_output(output, "-o")  # a FIFO (-o >(jq .)) or a device: written as it is, never locked
        return open_user_output(output, "a")
    if output and output != "-":
        from mrtr_cli.userfiles import same_file  # noqa: PLC0415 - lazy for start-up time

        same = resume_path is not None and same_file(output, resume_path)  # a symlink or a hard link too
        return open_output(output, append=same)
    if resume_path and not output:
        return open_output(resume_path, append=True)
    return None


def _close(stream: IO[str], summary: Any, env: Any) -> None:
    """Close the records file; what it could not write (a full disk, `-o /dev/full`) stops the
    batch with exit 2, said once (a worker that failed first has said it)."""
    try:
        stream.close()
    except OSError as exc:
        if not summary.stopped:
            summary.stopped = int(ExitStatus.USAGE)
            env.err(f"mrtr: batch: cannot write the records: {exc.strerror or exc}; stopped")


def _report(app: Any, summary: Any) -> None:
    """The summary on stderr (one JSON line with --json); nothing with -q."""
    if app.env.quiet:
        return
    if app.opts.json_mode:
        app.env.err(json.dumps(summary.document(), ensure_ascii=False))
        return
    for line in summary.text():
        app.env.err(line)
