"""`call`: call a tool, answering the server's questions (the MRTR-capable path `prompt`
shares: `run_named`). Spec: tools/call, Multi Round-Trip Requests."""

from __future__ import annotations

from typing import Any

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import answer_options, complete, global_options, make_app, task_options


@cli.command("call", short_help="Call TOOL, answering the server's questions, and print the result.")
@click.argument("tool", shell_complete=complete("tools"))
@click.argument("items", nargs=-1, shell_complete=complete("tool-arguments"))
@click.option("--args", "args_json", metavar="JSON|@FILE|-", help="All arguments as one JSON object.")
@click.option("--no-validate", is_flag=True, default=None,
              help="Send the call even if the tool is not listed or the arguments fail its inputSchema "
                   "(to test the server's own checks).")
@global_options
@answer_options
@task_options
@click.pass_context
def call_cmd(ctx: click.Context, /, tool: str, items: tuple[str, ...], args_json: str | None, **kw: object) -> int:
    """Call TOOL on the server (tools/call) with ARG items, answer the server's questions
    (forms, URL consent, sampling, roots) from -a flags, answer files or the terminal, and
    print the result (--json: exactly as the server sent it)."""
    return run_named(ctx, kw, "call", tool, items, args_json)


def run_named(ctx: click.Context, kw: dict[str, Any], command: str, name: str, items: tuple[str, ...],
               args_json: str | None) -> int:
    """`call TOOL` / `prompt NAME` (`command`: "call" or "prompt"; `kw`: the command's click values): parse
    the ARG items and `--args`, open the session, run MRTR; the exit code. Raises what the run raises
    (`errors.MrtrError` and its kinds)."""
    from mrtr_cli.schema.arguments import load_args_option, parse_item  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw, [("--args", "-", "input")] if args_json == "-" else [])  # stdin: one of its inputs
    parsed = [parse_item(text, app.read_file) for text in items]
    base = load_args_option(args_json, app.read_file) if args_json else None
    store = app.answer_store()
    target = app.target()
    app.spawn_early(target)
    with app.session(target) as session:
        from mrtr_cli.engine.run import run_request  # noqa: PLC0415 - loaded while the server boots
        from mrtr_cli.protocol.requests import request_params  # noqa: PLC0415 - lazy for start-up time

        method, params = request_params(app, session, command, name, parsed, base)
        return run_request(app, method, params, session=session, chain=app.chain(store), target=target)
