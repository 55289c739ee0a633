"""Shell completion: `mrtr completion bash|zsh|fish` prints the script (copies live in
completions/), and the names a server offers complete from the list cache.

The scripts are click's own: the shell runs `mrtr` with `_MRTR_COMPLETE=bash_complete`
(or zsh/fish) and the words typed so far, and click answers with commands, options and,
through `complete_names`, tool, prompt and resource names from the last list fetched
from that server (`mrtr tools`, `mrtr call`, ...) and server names from config files.
Completion never contacts a server and never prints diagnostics.
"""

from __future__ import annotations

import os
from typing import Any

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import make_app

SHELLS = ("bash", "zsh", "fish")
PROG = "mrtr"
COMPLETE_VAR = "_MRTR_COMPLETE"

#: What each completion kind lists: (list method, item member holding the value).
KINDS = {
    "tools": ("tools/list", "tools", "name"),
    "prompts": ("prompts/list", "prompts", "name"),
    "resources": ("resources/list", "resources", "uri"),
}


def completion_script(shell: str) -> str:
    """The completion script for `shell` (click's template for `mrtr`)."""
    from click.shell_completion import get_completion_class  # noqa: PLC0415

    cls = get_completion_class(shell)
    if cls is None:  # pragma: no cover - guarded by click.Choice
        raise click.BadParameter(f"unsupported shell {shell!r}")
    completer = cls(cli, {}, PROG, COMPLETE_VAR)
    # `source()` of the bash class runs `bash --version`; the template alone is the script.
    return cls.source_template % completer.source_vars()


def complete_names(kind: str, ctx: click.Context, incomplete: str) -> list[Any]:
    """Completion items for a server name (`servers`) or a cached tool/prompt/resource name.

    Errors of any kind give no items: completion must never fail loudly.
    """
    from click.shell_completion import CompletionItem  # noqa: PLC0415

    from mrtr_cli.protocol.headers import invalid_x_mcp_header  # noqa: PLC0415
    from mrtr_cli.render.listing import one_line  # noqa: PLC0415

    try:
        root = ctx.find_root()
        if root.obj is not None:
            root.obj.stderr = open(os.devnull, "w")  # noqa: SIM115 - diagnostics must not reach the prompt
        app = make_app(ctx, dict(ctx.params))
        app.opts.quiet = True
        if kind == "servers":
            from mrtr_cli.config.servers import find_servers  # noqa: PLC0415

            entries = [s for s in find_servers(app.opts.config) if not s.shadowed]
            return [CompletionItem(s.name, help=s.kind) for s in entries if s.name.startswith(incomplete)]
        method, member, key = KINDS[kind]
        cache = app.list_cache()
        entry = cache.get(method) if cache is not None else None
        if entry is None:
            return []
        check_headers = kind == "tools" and bool(app.target().url)
        items = []
        for page in entry.pages:
            for item in page.get(member) or []:
                value = item.get(key) if isinstance(item, dict) else None
                if check_headers and invalid_x_mcp_header(item.get("inputSchema")) is not None:
                    continue  # left out over HTTP (streamable-http "x-mcp-header")
                if isinstance(value, str) and value.startswith(incomplete):
                    items.append(CompletionItem(value, help=one_line(item.get("description"), 60) or None))
        return items
    except Exception:  # noqa: BLE001
        return []


@cli.command("completion")
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion_cmd(ctx: click.Context, shell: str) -> int:
    """Print the completion script for SHELL.

    \b
    bash:  eval "$(mrtr completion bash)"            (in ~/.bashrc)
    zsh:   eval "$(mrtr completion zsh)"             (in ~/.zshrc, after compinit)
    fish:  mrtr completion fish > ~/.config/fish/completions/mrtr.fish
    """
    env = ctx.find_root().obj
    env.out(completion_script(shell))
    return 0
