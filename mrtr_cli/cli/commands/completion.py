"""Shell completion: `mrtr completion bash|zsh|fish` prints the script (copies live in
completions/), and the names a server offers complete from the list cache.

The scripts are click's own: the shell runs `mrtr` with `_MRTR_COMPLETE=bash_complete`
(or zsh/fish) and the words typed so far, and click answers with commands, options and,
through `complete_names`, tool, prompt and resource names from the last list fetched
from that server (`mrtr tools`, `mrtr call`, ...), a tool's argument names and enum values
from its cached `inputSchema` (`call TOOL st<Tab>`: `state=`), and server names from config
files; names never contact a server
(cli/names.py). The values of prompt arguments (`prompt NAME ARG=<Tab>`)
and resource template variables (`read 'TEMPLATE' VAR=<Tab>`) are the server's
suggestions (`completion/complete`, server/utilities/completion), asked within
`MRTR_COMPLETE_TIMEOUT` seconds (default 3; nothing is offered when that passes) and
kept for a minute in the list cache (protocol/features/completions.py). Completion never prints
diagnostics.
"""

from __future__ import annotations

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import global_options

SHELLS = ("bash", "zsh", "fish")
PROG = "mrtr"
COMPLETE_VAR = "_MRTR_COMPLETE"


def completion_script(shell: str) -> str:
    """The completion script for `shell` (click's template for `mrtr`)."""
    from click.shell_completion import get_completion_class  # noqa: PLC0415 - lazy for start-up time

    cls = get_completion_class(shell)
    if cls is None:  # pragma: no cover - guarded by click.Choice
        raise click.BadParameter(f"unsupported shell {shell!r}")
    completer = cls(cli, {}, PROG, COMPLETE_VAR)
    # `source()` of the bash class runs `bash --version`; the template alone is the script.
    return cls.source_template % completer.source_vars()


@cli.command("completion")
@click.argument("shell", type=click.Choice(SHELLS))
@global_options  # accepted after the command as before it (they change nothing here)
@click.pass_context
def completion_cmd(ctx: click.Context, /, shell: str, **kw: object) -> int:
    """Print the completion script for SHELL.

    \b
    bash:  eval "$(mrtr completion bash)"            (in ~/.bashrc)
    zsh:   eval "$(mrtr completion zsh)"             (in ~/.zshrc, after compinit)
    fish:  mkdir -p ~/.config/fish/completions
           mrtr completion fish > ~/.config/fish/completions/mrtr.fish
    """
    env = ctx.find_root().obj
    env.out(completion_script(shell))
    return 0
