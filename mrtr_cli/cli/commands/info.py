"""What a server offers: `tools [NAME]`, `prompts`, `resources`, `templates`, `discover`,
and the configured servers (`servers`).

Lists follow every page (2026-07-28 server/utilities/pagination); `--json` prints one
array of every item exactly as sent. Fetched lists are stored in the list cache,
which `call` (and shell completion) read.
"""

from __future__ import annotations

from typing import Any

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import complete, declare_options, global_options, make_app

# command -> (list method, table headers)
LISTS: dict[str, tuple[str, list[str]]] = {
    "prompts": ("prompts/list", ["NAME", "ARGUMENTS", "DESCRIPTION"]),
    "resources": ("resources/list", ["URI", "NAME", "TYPE", "DESCRIPTION"]),
    "templates": ("resources/templates/list", ["URI TEMPLATE", "NAME", "TYPE", "DESCRIPTION"]),
}


def _row(kind: str, item: object) -> list[str]:
    from mrtr_cli.render.listing import one_line  # noqa: PLC0415 - lazy for start-up time

    item = item if isinstance(item, dict) else {}
    label = one_line(item.get("title") or item.get("name"))
    description = one_line(item.get("description"))
    if kind == "tools":
        from mrtr_cli.render.listing import flatten_parameters  # noqa: PLC0415 - lazy for start-up time

        params = [name + ("*" if required else "") for name, _, required in
                  flatten_parameters(item.get("inputSchema")) if "." not in name]
        return [one_line(item.get("name")), one_line(", ".join(params)), description]
    if kind == "prompts":
        args = raw_args if isinstance(raw_args := item.get("arguments"), list) else []
        names = [str(a.get("name")) + ("*" if a.get("required") else "") for a in args if isinstance(a, dict)]
        return [one_line(item.get("name")), one_line(", ".join(names)), description]
    uri = item.get("uri") if kind == "resources" else item.get("uriTemplate")
    return [one_line(uri), label, one_line(item.get("mimeType")), description]


#: The list method of each listing command, and the member naming each item.
_METHODS = {"tools": ("tools/list", "tools", "name"), "prompts": ("prompts/list", "prompts", "name"),
            "resources": ("resources/list", "resources", "uri"),
            "templates": ("resources/templates/list", "resourceTemplates", "uriTemplate")}


def _earlier_listings(app: Any, kind: str) -> list[tuple[Any, list[str]]]:
    """What the list cache holds of `kind` for this server under any declaration: (the
    capabilities declared, the item names) of each entry that kept its declaration."""
    method, member, key = _METHODS[kind]
    cache = app.list_cache()
    out = []
    for entry in cache.get_every_declaration(method) if cache is not None else []:
        if entry.declared is not None:
            names = [str(item.get(key)) for page in entry.pages
                     for item in (page.get(member) if isinstance(page.get(member), list) else [])
                     if isinstance(item, dict)]
            out.append((entry.declared, names))
    return out


def _print_items(app: Any, kind: str, headers: list[str], items: list[Any], capabilities: object,
                 once: bool = False) -> None:
    """Print a listing (`capabilities`: what its requests declared; `once`: the session
    declared them once, at `initialize`). A note on stderr says what may be missing because
    a capability was not declared, and which option declares it, only where that can apply
    (`protocol.capabilities.declared.listing_note`)."""
    from mrtr_cli.protocol.capabilities.declared import DECLARING_OPTIONS, declares, listing_note  # noqa: PLC0415 - lazy
    from mrtr_cli.render.listing import print_table  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.output import print_json  # noqa: PLC0415 - lazy for start-up time

    if app.opts.json_mode:
        print_json(app.env, items)
        return
    if not items:
        app.env.err(f"mrtr: the server lists no {kind}")
    else:
        print_table(app.env, headers, [_row(kind, item) for item in items])
    if app.env.quiet or all(declares(capabilities, name) for name in DECLARING_OPTIONS):
        return
    key = _METHODS[kind][2]
    listed = [str(item.get(key)) for item in items if isinstance(item, dict)]
    note = listing_note(kind, capabilities, listed, _earlier_listings(app, kind), once)
    if note:
        app.env.err(f"mrtr: note: {note}")


@cli.command("discover", short_help="Show the protocol era and version, server info and capabilities.")
@global_options
@declare_options
@click.pass_context
def discover_cmd(ctx: click.Context, /, **kw: object) -> int:
    """Show the protocol era and version, server info and capabilities (server/discover,
    or the initialize result of an older server; --json prints that result as sent).

    --root, --sampling-command, --sampling-tools and --answers declare what a call with
    them declares (a server may offer more to a client that declares more)."""
    from mrtr_cli.render.output import print_json  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw)
    with app.session() as session:
        description = session.describe(app.deadline())
    if app.opts.json_mode:
        print_json(app.env, description["result"])
    else:
        from mrtr_cli.protocol.features.listen import listenable  # noqa: PLC0415 - start-up time (`mrtr --help`)
        from mrtr_cli.protocol.features.skills import EXTENSION, declares_skills  # noqa: PLC0415 - the same
        from mrtr_cli.render.listing import describe_discover  # noqa: PLC0415 - the same

        caps = description["result"].get("capabilities")
        app.env.out(describe_discover(description["result"], description["protocolVersion"],
                                      era=description["era"], skills=EXTENSION if declares_skills(caps) else None,
                                      listen=listenable(caps)))
    return 0


@cli.command("tools")
@click.argument("name", required=False, shell_complete=complete("tools"))
@global_options
@declare_options
@click.pass_context
def tools_cmd(ctx: click.Context, /, name: str | None, **kw: object) -> int:
    """List the server's tools (all pages), or describe tool NAME.

    Required parameters are marked *. Over HTTP, tools with an invalid x-mcp-header
    annotation are left out (with a warning).
    """
    from mrtr_cli.render.output import print_json  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw)
    with app.session() as session:
        catalog = app.catalog(session)
        tools = catalog.load(refresh=True)
    from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line, quote_value  # noqa: PLC0415 - lazy for start-up time

    for excluded, reason in catalog.excluded.items():
        app.env.err(f"mrtr: warning: leaving out tool {quote_value(excluded)}: "
                    f"invalid x-mcp-header ({one_line(reason, SERVER_TEXT_CHARS)})")
    if name is None:
        _print_items(app, "tools", ["NAME", "PARAMETERS", "DESCRIPTION"], tools, session.capabilities,
                     session.declared_once() is not None)
        return 0
    tool = next((t for t in tools if t.get("name") == name), None)
    if tool is None:
        raise catalog.unknown(name)
    if app.opts.json_mode:
        print_json(app.env, tool)
    else:
        from mrtr_cli.cli.build import public_target_words  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.render.invocation import inside_shell  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.render.listing import describe_tool  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.schema.example import example_call  # noqa: PLC0415 - lazy for start-up time

        # a URL with credentials: never printed, and as shown it cannot work (the lead says so)
        words, lead = public_target_words(app.opts)
        lead = "" if inside_shell() else lead  # a shell's lines reach its server: nothing to set
        app.env.out(describe_tool(tool, example_call(tool, words), lead=lead))
    return 0


def _list_command(kind: str) -> None:
    method, headers = LISTS[kind]

    @cli.command(kind, help=f"List the server's {kind} ({method}, all pages).",
                 short_help=f"List the server's {'resource templates' if kind == 'templates' else kind}.")
    @global_options
    @declare_options
    @click.pass_context
    def command(ctx: click.Context, /, **kw: object) -> int:
        from mrtr_cli.protocol.lists.catalog import fetch_list  # noqa: PLC0415 - lazy for start-up time

        app = make_app(ctx, kw)
        with app.session() as session:
            items, _ = fetch_list(session, method, app.list_cache(), deadline=app.deadline())
            capabilities, once = session.capabilities, session.declared_once() is not None
        _print_items(app, kind, headers, items, capabilities, once)
        return 0


for _kind in LISTS:
    _list_command(_kind)


@cli.command("servers", short_help="List the configured servers: where each comes from, which -s NAME picks.")
@global_options
@click.pass_context
def servers_cmd(ctx: click.Context, /, **kw: object) -> int:
    """List the servers in the config files of mrtr and of the MCP hosts (Claude Code,
    Claude Desktop, Codex, Gemini CLI, VS Code, Cursor, Windsurf, OpenCode, Zed, goose):
    where each comes from, which one -s NAME picks, the -s HOST:NAME that picks a shadowed
    one, and why an entry cannot be used. Env and header values are never shown."""
    from mrtr_cli.config.servers import config_files, find_servers  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.listing import print_table  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.output import print_json  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw)
    servers = find_servers(app.opts.config, warn=app.env.err)
    if app.opts.json_mode:
        print_json(app.env, [s.public() for s in servers])
        return 0
    if not servers:
        app.env.err("mrtr: no servers configured; looked in: "
                    + ", ".join(c.path for c, _ in config_files(app.opts.config)))
        return 0
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time

    print_table(app.env, ["NAME", "TYPE", "COMMAND / URL", "FROM", "STATUS"],
                [[sanitize(c, single_line=True) for c in _server_row(s)] for s in servers])
    return 0


def _server_row(s: Any) -> list[str]:
    """One `mrtr servers` row: name, type, command or URL (no secrets), host and file, and
    how `-s` picks it (or why it cannot be used)."""
    from mrtr_cli.platform import shellwords  # noqa: PLC0415 - lazy for start-up time

    e = s.entry
    public = s.public()
    if e.kind == "stdio":
        where = shellwords.join([str(e.command)] + [str(a) for a in e.args])
    else:
        where = str(public.get("url") or "-")
    if e.unusable is not None:
        status = f"not usable: {e.unusable}"
    elif s.shadowed:
        status = f"shadowed; -s {s.select}" if s.select else "shadowed (an earlier entry of this host has the name)"
    else:
        status = f"-s {s.select}"
    return [s.name, e.kind or "-", where, f"{s.source.label}: {s.source.path}", status]
