"""The `mrtr` command line (DESIGN.md section 1).

Parses options with click, builds an `App`, runs one command, and maps every
error to its exit code (DESIGN.md section 2) with a one-line message and never
a traceback. Global options work before or after the command.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import click

from mrtr_cli import __version__
from mrtr_cli.env import Environment
from mrtr_cli.errors import ExitStatus, InputRequired, MrtrError, UsageError

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


# ---------------------------------------------------------------------- option sets
def _options(*decorators: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def apply(f: Any) -> Any:
        for decorator in reversed(decorators):
            f = decorator(f)
        return f

    return apply


global_options = _options(
    click.option("--url", metavar="URL", help="Streamable HTTP endpoint, e.g. http://127.0.0.1:8000/mcp (or MRTR_URL)."),
    click.option("--stdio", metavar="'CMD ARGS'", help="Launch a server subprocess (split like a shell; no shell runs it) (or MRTR_STDIO)."),
    click.option("-s", "--server", metavar="NAME", help="A server from an mcp.json-style config (or MRTR_SERVER)."),
    click.option("--config", metavar="FILE", help="Config file for -s/--server."),
    click.option("-H", "--header", "headers", multiple=True, metavar="'Name: value'", help="HTTP header (repeatable)."),
    click.option("--bearer-token-env", metavar="VAR", help="Send 'Authorization: Bearer $VAR'."),
    click.option("--json", "json_mode", is_flag=True, default=None, help="Print results (and errors) as JSON, exactly as the server sent them."),
    click.option("-v", "--verbose", "verbosity", count=True, help="Trace JSON-RPC messages to stderr (-vv: HTTP headers too)."),
    click.option("-q", "--quiet", is_flag=True, default=None, help="Hide the server's stderr and notes."),
    click.option("--trace", metavar="FILE", help="Write every message as a JSON line to FILE."),
    click.option("--no-input", is_flag=True, default=None, help="Never prompt; unanswerable input exits 5 with a pending document."),
    click.option("--timeout", type=float, metavar="SECONDS", help="Overall time bound (exit 7)."),
    click.option("--max-timeout", type=float, metavar="SECONDS", help="Let progress notifications extend --timeout up to this."),
    click.option("--protocol", metavar="auto|2026-07-28", help="Protocol era and version (default auto)."),
    click.option("--log-level", metavar="LEVEL", help="Ask the server for log notifications at LEVEL and above."),
)

answer_options = _options(
    click.option("--answers", multiple=True, metavar="FILE", help="Answer file (repeatable; later files win)."),
    click.option("-a", "--answer", "answer_flags", multiple=True, metavar="KEY=VALUE", help="One answer: FIELD=VALUE or INPUTKEY.FIELD=VALUE (repeatable)."),
    click.option("--save-answers", metavar="FILE", help="Write every answer sent as an answer file."),
    click.option("--max-rounds", type=click.IntRange(min=1), metavar="N", help="Cap on input_required rounds (default 10)."),
    click.option("--open-urls", is_flag=True, default=None, help="Consent up front to opening URL-elicitation links in a browser."),
)


def _merge(group: dict[str, Any], sub: dict[str, Any]) -> dict[str, Any]:
    """Combine group-level and command-level values of the same options."""
    out = dict(group)
    for key, value in sub.items():
        before = out.get(key)
        if isinstance(value, tuple):
            out[key] = tuple(before or ()) + value
        elif isinstance(value, int) and not isinstance(value, bool) and key == "verbosity":
            out[key] = (before or 0) + value
        elif value is not None:
            out[key] = value
    return out


def make_app(ctx: click.Context, kw: dict[str, Any]) -> Any:
    """Build the App for a command from its options and the group's."""
    from mrtr_cli.app import App, RunOptions  # noqa: PLC0415

    values = _merge(ctx.find_root().params, kw)
    env: Environment = ctx.find_root().obj
    opts = RunOptions()
    for key, value in values.items():
        if value is None or not hasattr(opts, key):
            continue
        if isinstance(value, tuple):
            value = list(value)
        setattr(opts, key, value)
    env.json_mode = opts.json_mode
    env.verbosity = opts.verbosity
    env.quiet = opts.quiet
    env.no_input = opts.no_input
    return App(opts, env)


# ---------------------------------------------------------------------- commands
class _Group(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


@click.group(cls=_Group, context_settings=CONTEXT_SETTINGS)
@global_options
@click.version_option(__version__, "-V", "--version", prog_name="mrtr", message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx: click.Context, **kw: Any) -> None:
    """mrtr: call tools, get prompts and read resources on any MCP server, answering
    the server's questions (Multi Round-Trip Requests) from a terminal or answer files.

    \b
    Examples:
      mrtr --stdio "python server.py" call update_work_item workItemId=4522 state=Resolved
      mrtr --url http://127.0.0.1:8000/mcp call deploy --answers answers.json --json
    """


@cli.command("call")
@click.argument("tool")
@click.argument("items", nargs=-1)
@click.option("--args", "args_json", metavar="JSON|@FILE|-", help="All arguments as one JSON object.")
@global_options
@answer_options
@click.pass_context
def call_cmd(ctx: click.Context, tool: str, items: tuple[str, ...], args_json: str | None, **kw: Any) -> int:
    """Call TOOL (tools/call) with ARG items: key=value, key:=<json>, key=@file."""
    from mrtr_cli.schema.arguments import build_arguments, load_args_option, parse_item  # noqa: PLC0415

    app = make_app(ctx, kw)
    parsed = [parse_item(text, app.read_file) for text in items]
    base = load_args_option(args_json, app.read_file) if args_json else None
    store = app.answer_store()
    target = app.target()
    with app.session(target) as session:
        schema = None
        if any(not item.literal for item in parsed):
            schema = app.tool_input_schema(session, tool)
        arguments = build_arguments(parsed, base, schema)
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        return app.run_mrtr("tools/call", params, session=session, chain=app.chain(store), target=target)


@cli.command("prompt")
@click.argument("name")
@click.argument("items", nargs=-1)
@click.option("--args", "args_json", metavar="JSON|@FILE|-", help="All arguments as one JSON object.")
@global_options
@answer_options
@click.pass_context
def prompt_cmd(ctx: click.Context, name: str, items: tuple[str, ...], args_json: str | None, **kw: Any) -> int:
    """Get prompt NAME (prompts/get) with key=value arguments (prompt arguments are strings)."""
    from mrtr_cli.schema.arguments import build_arguments, load_args_option, parse_item  # noqa: PLC0415

    app = make_app(ctx, kw)
    parsed = [parse_item(text, app.read_file) for text in items]
    base = load_args_option(args_json, app.read_file) if args_json else None
    arguments = build_arguments(parsed, base, None)
    store = app.answer_store()
    target = app.target()
    params: dict[str, Any] = {"name": name}
    if arguments:
        params["arguments"] = arguments
    with app.session(target) as session:
        return app.run_mrtr("prompts/get", params, session=session, chain=app.chain(store), target=target)


@cli.command("read")
@click.argument("uri")
@global_options
@answer_options
@click.pass_context
def read_cmd(ctx: click.Context, uri: str, **kw: Any) -> int:
    """Read resource URI (resources/read)."""
    app = make_app(ctx, kw)
    store = app.answer_store()
    target = app.target()
    with app.session(target) as session:
        return app.run_mrtr("resources/read", {"uri": uri}, session=session, chain=app.chain(store), target=target)


@cli.command("resume")
@click.argument("pending")
@global_options
@answer_options
@click.pass_context
def resume_cmd(ctx: click.Context, pending: str, **kw: Any) -> int:
    """Finish a call that stopped for input (exit 5) from its PENDING document."""
    from mrtr_cli.engine.pending import load_pending  # noqa: PLC0415

    app = make_app(ctx, kw)
    doc = load_pending(pending, app.read_stdin() if pending == "-" else None)
    store = app.answer_store()
    o = app.opts
    if not (o.url or o.stdio or o.server):
        # The saved target (never with headers: -H on resume still applies).
        saved = doc["target"] if isinstance(doc["target"], dict) else {}
        o.url, o.stdio = saved.get("url"), saved.get("stdio")
        o.server = saved.get("server") if not (o.url or o.stdio) else None
    target = app.target()
    resume_from: dict[str, Any] = {"resultType": "input_required", "inputRequests": doc["inputRequests"]}
    if "requestState" in doc:
        resume_from["requestState"] = doc["requestState"]
    answered = doc.get("answered") if isinstance(doc.get("answered"), dict) else None
    with app.session(target) as session:
        if doc.get("protocolVersion"):
            session.protocol_version = str(doc["protocolVersion"])
        return app.run_mrtr(str(doc["method"]), doc["params"], session=session, chain=app.chain(store),
                            target=target, resume_from=resume_from, answered=answered)


@cli.command("discover")
@global_options
@click.pass_context
def discover_cmd(ctx: click.Context, **kw: Any) -> int:
    """Show server info, supported versions and capabilities (server/discover)."""
    from mrtr_cli.render.output import print_json  # noqa: PLC0415

    app = make_app(ctx, kw)
    with app.session() as session:
        result = session.request("server/discover", {}, capabilities={}, deadline=app.deadline())
    print_json(app.env, result)
    return 0


@cli.command("tools")
@click.argument("name", required=False)
@global_options
@click.pass_context
def tools_cmd(ctx: click.Context, name: str | None, **kw: Any) -> int:
    """List the server's tools (all pages), or describe tool NAME."""
    from mrtr_cli.protocol.listing import list_all  # noqa: PLC0415
    from mrtr_cli.render.output import print_json  # noqa: PLC0415
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415

    app = make_app(ctx, kw)
    with app.session() as session:
        tools, _ = list_all(session, "tools/list", deadline=app.deadline())
    if name is not None:
        tools = [t for t in tools if isinstance(t, dict) and t.get("name") == name]
        if not tools:
            raise UsageError(f"unknown tool {name!r}")
    if app.opts.json_mode:
        print_json(app.env, tools if name is None else tools[0])
        return 0
    for tool in tools:
        if isinstance(tool, dict):
            desc = sanitize(str(tool.get("description") or ""), single_line=True)
            app.env.out(f"{sanitize(str(tool.get('name')), single_line=True)}" + (f"  {desc}" if desc else ""))
    return 0


# ---------------------------------------------------------------------- entry point
def main(argv: list[str] | None = None) -> None:
    """Run the CLI and exit with the documented code (never a traceback)."""
    env = Environment()
    code = run(argv, env)
    sys.exit(code)


def run(argv: list[str] | None, env: Environment) -> int:
    """Run the CLI in `env` and return the exit code."""
    from mrtr_cli.render.errors import print_error  # noqa: PLC0415

    try:
        rv = cli.main(args=argv, prog_name="mrtr", standalone_mode=False, obj=env)
        return int(rv or 0) if not isinstance(rv, bool) else 0
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        env.err("mrtr: interrupted")
        return int(ExitStatus.INTERRUPTED)
    except click.ClickException as exc:
        if env.json_mode:
            print_error(env, UsageError(exc.format_message()), json_mode=True)
        else:
            exc.show(file=env.stderr)
        return int(ExitStatus.USAGE)
    except InputRequired as exc:
        from mrtr_cli.render.output import print_json  # noqa: PLC0415

        print_json(env, exc.pending)
        print_error(env, exc, json_mode=env.json_mode)
        if not env.json_mode:
            env.err("  fill in answersTemplate, then: mrtr resume PENDING.json --answers ANSWERS.json")
        return int(exc.exit_status)
    except MrtrError as exc:
        print_error(env, exc, json_mode=env.json_mode)
        return int(exc.exit_status)
    except KeyboardInterrupt:
        env.err("mrtr: interrupted")
        return int(ExitStatus.INTERRUPTED)
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        except OSError:
            pass
        return 0
