"""`mrtr help [TOPIC|COMMAND]`: reference pages, as `gh help` has them.

The pages are package data (`mrtr_cli/help/TOPIC.md`), copied from sections of the README
and docs/ pages by scripts/sync-help (tests/cli/help/test_help.py checks them); `mrtr help COMMAND`
prints that command's `--help`.
"""

from __future__ import annotations

import click

from mrtr_cli.cli.help.format import show_help, show_topic
from mrtr_cli.cli.help.topics import TOPICS, topic_text
from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import global_options
from mrtr_cli.errors import UnreadWords, name_like, refused
from mrtr_cli.render.invocation import command as typed_here

__all__ = ["TOPICS", "help_cmd", "topic_text"]


def complete_help(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of `mrtr help WORD`: the topics and commands, then a group's subcommands."""
    root = ctx.find_root()
    group: click.Command | None = root.command
    words = list(ctx.params.get("words") or ())
    names: list[str] = [*TOPICS] if not words else []
    for word in words:
        group = group.get_command(root, word) if isinstance(group, click.Group) else None
    if isinstance(group, click.Group):
        names += group.list_commands(root)
    return [name for name in dict.fromkeys(names) if name.startswith(incomplete)]


@cli.command("help")
@click.argument("words", nargs=-1, metavar="[TOPIC | COMMAND [SUBCOMMAND]]", shell_complete=complete_help)
@global_options  # accepted after the command as before it (they change nothing here)
@click.pass_context
def help_cmd(ctx: click.Context, /, words: tuple[str, ...], **kw: object) -> int:
    """Show a help topic, or a command's help (`mrtr help` alone: every command and topic)."""
    root = ctx.find_root()
    env = root.obj
    if not words:
        show_help(env, root.command.get_help(root))
        return 0
    if len(words) == 1 and words[0] in TOPICS:
        show_topic(env, topic_text(words[0]))
        return 0
    if words[0] in TOPICS and not (isinstance(root.command, click.Group) and root.command.get_command(root, words[0])):
        unread = [w for w in words[1:] if not name_like(w)]  # never repeated (errors.refused)
        shown = " ".join(f"{{{unread.index(w)}}}" if w in unread else repr(w).replace("{", "{{").replace("}", "}}")
                         for w in words[1:])
        raise UnreadWords(f"help: the topic {words[0]} takes no further word ({shown})", unread,
                          hint="see: " + typed_here(f"help {words[0]}"))
    command: click.Command = root.command
    sub_ctx = root
    for word in words:
        path = sub_ctx.command_path[len(root.command_path) + 1:]
        if not isinstance(command, click.Group):  # `mrtr help call extra`: a command has no topics
            raise refused(f"help: {path} is a command and takes no topic or subcommand ({{0}})", word, quote=True,
                          hint="see: " + typed_here(f"help {path}"))
        found = command.get_command(sub_ctx, word)
        if found is None and sub_ctx is not root:
            raise refused(f"help: {path} has no subcommand {{0}}", word, quote=True,
                          hint=f"its subcommands: {', '.join(command.list_commands(sub_ctx))}")
        if found is None:
            from mrtr_cli.render.suggest import close_matches  # noqa: PLC0415 - lazy for start-up time

            names = [*TOPICS, *(root.command.list_commands(root) if isinstance(root.command, click.Group) else [])]
            close = close_matches(word, names)
            raise refused("help: no topic or command {0}", word, quote=True,
                          hint=f"did you mean: {', '.join(close)}?" if close
                          else f"topics: {', '.join(TOPICS)}; commands: {typed_here('help')}")
        sub_ctx = click.Context(found, info_name=word, parent=sub_ctx)
        command = found
    show_help(env, command.get_help(sub_ctx))
    return 0
