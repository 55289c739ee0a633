"""`discover` and `tools`: what a server offers."""

from __future__ import annotations

from typing import Any

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import global_options, make_app
from mrtr_cli.errors import UsageError

@cli.command("discover")
@global_options
@click.pass_context
def discover_cmd(ctx: click.Context, **kw: Any) -> int:
    """Show the protocol era and version, server info and capabilities (server/discover,
    or the initialize result of an older server). --json: {era, protocolVersion, result}."""
    from mrtr_cli.render.discover import discover_text  # noqa: PLC0415
    from mrtr_cli.render.output import print_json  # noqa: PLC0415

    app = make_app(ctx, kw)
    with app.session() as session:
        description = session.describe(app.deadline())
    if app.opts.json_mode:
        print_json(app.env, description)
    else:
        app.env.out(discover_text(description))
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
