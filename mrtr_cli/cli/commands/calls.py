"""`call`, `prompt`, `read` and `resume`: the MRTR-capable commands."""

from __future__ import annotations

from typing import Any

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import answer_options, complete, global_options, make_app, task_options
from mrtr_cli.errors import JsonRpcError, ProtocolError, UsageError, explained


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
    return _run_named(ctx, kw, "call", tool, items, args_json)


@cli.command("prompt", short_help="Get prompt NAME with key=value arguments and print its messages.")
@click.argument("name", shell_complete=complete("prompts"))
@click.argument("items", nargs=-1, shell_complete=complete("prompt-arguments"))
@click.option("--args", "args_json", metavar="JSON|@FILE|-", help="All arguments as one JSON object.")
@click.option("--no-validate", is_flag=True, default=None,
              help="Send the request even if the prompt is not listed or its arguments do not match "
                   "prompts/list (to test the server's own checks).")
@global_options
@answer_options
@click.pass_context
def prompt_cmd(ctx: click.Context, /, name: str, items: tuple[str, ...], args_json: str | None, **kw: object) -> int:
    """Get prompt NAME (prompts/get) with key=value arguments (prompt arguments are strings),
    answering the server's questions as `call` does, and print its messages; arguments are
    checked against prompts/list first (unknown names, missing required ones)."""
    return _run_named(ctx, kw, "prompt", name, items, args_json)


def _run_named(ctx: click.Context, kw: dict[str, Any], command: str, name: str, items: tuple[str, ...],
               args_json: str | None) -> int:
    """`call TOOL` / `prompt NAME`: parse the ARG items and `--args`, open the session, run MRTR."""
    from mrtr_cli.schema.arguments import load_args_option, parse_item  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw)
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


@cli.command("read", short_help="Read resource URI (or a filled URI template) and print it.")
@click.argument("uri", shell_complete=complete("resources"))
@click.argument("items", nargs=-1, shell_complete=complete("template-variables"))
@global_options
@answer_options
@click.pass_context
def read_cmd(ctx: click.Context, /, uri: str, items: tuple[str, ...], **kw: object) -> int:
    """Read resource URI (resources/read), answering the server's questions as `call` does, and
    print its contents (a single binary resource to a pipe or file: its bytes). A URI template
    with NAME=VALUE items is filled first, e.g. mrtr read 'repo://{owner}/{name}' owner=alice name=wonderland."""
    from mrtr_cli.schema.arguments import parse_item  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw)
    parsed = [parse_item(text, app.read_file) for text in items]
    store = app.answer_store()
    target = app.target()
    app.spawn_early(target)
    with app.session(target) as session:
        from mrtr_cli.engine.run import run_request  # noqa: PLC0415 - loaded while the server boots
        from mrtr_cli.protocol.requests import request_params  # noqa: PLC0415 - lazy for start-up time

        method, params = request_params(app, session, "read", uri, parsed)
        return run_request(app, method, params, session=session, chain=app.chain(store), target=target)


@cli.command("resume", short_help="Finish a call that stopped for input (exit 5) from its pending document.")
@click.argument("pending")
@global_options
@answer_options
@task_options
@click.pass_context
def resume_cmd(ctx: click.Context, /, pending: str, **kw: object) -> int:
    """Finish a call that stopped for input (exit 5) from its PENDING document (`-`: stdin).

    \b
    The retry goes straight to the round that stopped (earlier rounds are not redone):
    same method and params, the answers, and the document's exact requestState.
    The target is the saved one unless --url/--stdio is given; headers are never
    saved, so give -H / --bearer-token-env again when the server needs them.
    """
    from mrtr_cli.config.trust import apply_saved_target  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.engine.pending import forget_interrupted, start_again_command  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.engine.resume import Seed, is_rejected_state, load_pending  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.protocol.modern import MODERN_VERSIONS  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw)
    doc = load_pending(pending, app.read_stdin() if pending == "-" else None, app.env.config_words)
    if isinstance(doc.get("taskId"), str):  # a task waiting for input: answer it and wait
        from mrtr_cli.cli.commands.tasks import resume_task  # noqa: PLC0415 - lazy for start-up time

        return resume_task(app, doc)
    store = app.answer_store()
    o = app.opts
    # The saved target (never with headers: -H on resume still applies).
    apply_saved_target(o, doc["target"],
                       source="the pending document" if pending == "-" else f"pending document {pending}")
    target = app.target()
    if o.protocol in (None, "", "auto") and doc.get("protocolVersion") in MODERN_VERSIONS:
        o.protocol = str(doc["protocolVersion"])  # requestState belongs to a modern server: no era probe
    seed = Seed.of_pending(doc, "the pending document" if pending == "-" else pending)
    app.prefill_forms(seed.typed)  # before the session builds the chain
    with app.session(target) as session:
        from mrtr_cli.engine.run import run_request  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.protocol.requests import request_params  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.schema.toolargs import tool_arguments  # noqa: PLC0415 - lazy for start-up time

        if doc.get("protocolVersion"):
            session.speak_version(str(doc["protocolVersion"]))
        # Checked as `call`, `prompt` and `read` check them: nothing invalid is sent.
        params = doc["params"]
        if doc["method"] == "resources/read":
            if not isinstance(params.get("uri"), str):
                raise UsageError(f"{pending}: params must give the resource's uri as text")
        elif not isinstance(params.get("name"), str) or not isinstance(params.get("arguments", {}), dict):
            raise UsageError(f"{pending}: params must give a name, and the arguments as an object")
        elif doc["method"] == "tools/call":
            tool_arguments(app.catalog(session), params["name"], [], params.get("arguments") or {},
                           no_validate=o.no_validate, note=app.tracer.note)
        else:
            request_params(app, session, "prompt", params["name"], [], params.get("arguments") or {})
        try:
            code = run_request(app, str(doc["method"]), doc["params"], session=session, chain=app.chain(store),
                               target=target, seed=seed)
            forget_interrupted(pending)  # finished: a document mrtr saved after Ctrl-C is spent
            return code
        except JsonRpcError as err:
            if not is_rejected_state(err):
                raise
            raise explained(
                err, ProtocolError,
                "the server refused this pending call's requestState: it has expired, or the server was "
                "restarted without a shared key, so the call cannot be resumed and must be started again",
                hint="start it again: " + start_again_command(doc, app.env.config_words),
            ) from None
