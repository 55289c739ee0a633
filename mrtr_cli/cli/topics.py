"""`mrtr help [TOPIC|COMMAND]`: reference pages, as `gh help` has them (issue 16).

The pages are package data (`mrtr_cli/help/TOPIC.md`), copied from sections of the README
and docs/ pages by scripts/sync-help (tests/test_help.py checks them); `mrtr help COMMAND`
prints that command's `--help`.
"""

from __future__ import annotations

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.errors import UsageError

#: Topic -> (one-line summary, page file under mrtr_cli/help/).
TOPICS: dict[str, tuple[str, str]] = {
    "exit-codes": ("what each exit code means, and which one wins", "exit-codes.md"),
    "arguments": ("tool and prompt arguments: k=v, k:=json, k=@file, dotted and repeated keys", "arguments.md"),
    "answers": ("answering the server's questions: -a, answer files, the terminal", "answers.md"),
    "environment": ("environment variables mrtr reads", "environment.md"),
    "configuration": ("named servers: config files and -s NAME", "configuration.md"),
}


def topic_text(name: str) -> str:
    """The text of help topic `name` (Markdown, printed as it is).

    Raises:
        KeyError: no such topic.
    """
    from importlib.resources import files  # noqa: PLC0415

    return (files("mrtr_cli") / "help" / TOPICS[name][1]).read_text(encoding="utf-8")


@cli.command("help")
@click.argument("words", nargs=-1, metavar="[TOPIC | COMMAND [SUBCOMMAND]]")
@click.pass_context
def help_cmd(ctx: click.Context, words: tuple[str, ...]) -> int:
    """Show a help topic, or a command's help (`mrtr help` alone: every command and topic)."""
    root = ctx.find_root()
    if not words:
        click.echo(root.command.get_help(root))
        return 0
    if len(words) == 1 and words[0] in TOPICS:
        click.echo(topic_text(words[0]).rstrip("\n"))
        return 0
    command: click.Command = root.command
    sub_ctx = root
    for word in words:
        found = command.get_command(sub_ctx, word) if isinstance(command, click.Group) else None
        if found is None:
            from mrtr_cli.render.suggest import close_matches  # noqa: PLC0415

            names = [*TOPICS, *(root.command.list_commands(root) if isinstance(root.command, click.Group) else [])]
            close = close_matches(word, names)
            raise UsageError(f"help: no topic or command {word!r}",
                             hint=f"did you mean: {', '.join(close)}?" if close
                             else f"topics: {', '.join(TOPICS)}; commands: mrtr help")
        sub_ctx = click.Context(found, info_name=word, parent=sub_ctx)
        command = found
    click.echo(command.get_help(sub_ctx))
    return 0
