"""Options before or after the command: one rule for every option of every command.

`mrtr --root . tools` is `mrtr tools --root .`, and `mrtr task --json list` is
`mrtr task list --json`: before a group parses its own options, every option word in
front of the command name that is not the group's own option (with its value) is moved
to just after the command name, where the command (or the next group, which does the
same) parses it. The command's options are read from the command itself, so a new
option needs nothing here. The group's own options (the global options, also declared
on every command) stay where they are.
"""

from __future__ import annotations

from collections.abc import Iterable

import click

from mrtr_cli.cli.help.format import HelpCommand, HelpGroup
from mrtr_cli.cli.interrupts import InterruptGroup
from mrtr_cli.cli.quickparse import ReusedParser
from mrtr_cli.errors import UnreadWords, UsageError

#: An option table: each spelling (`--root`, `-c`) -> whether it takes a value.
Table = dict[str, bool]


def option_table(params: Iterable[click.Parameter]) -> Table:
    """The spellings of the options among `params` and whether each takes a value."""
    table: Table = {}
    for param in params:
        if isinstance(param, click.Option):
            takes = not (param.is_flag or param.count)
            for spelling in (*param.opts, *param.secondary_opts):
                table[spelling] = takes
    return table


def command_table(ctx: click.Context, command: click.Command) -> Table:
    """The options of `command` and, for a group, of every command under it."""
    table = option_table(command.params)
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None:
                table.update(command_table(ctx, sub))
    return table


def option_words(args: list[str], i: int, table: Table) -> int:
    """How many words the option word `args[i]` spans (1, or 2 with a separate value),
    read with `table` as click reads it (`--opt=value`, `-cVALUE`, bundled short flags)."""
    word = args[i]
    if word.startswith("--"):
        return 2 if table.get(word, False) and "=" not in word else 1
    for k in range(1, len(word)):  # -vq, -c2, -c 2
        if table.get("-" + word[k], False):
            return 2 if k == len(word) - 1 else 1
    return 1


def is_option(word: str) -> bool:
    """True for an option word (`-x`, `--xy`), not `-` (stdin) or `--`."""
    return word.startswith("-") and word not in ("-", "--")


def first_positional(args: list[str], table: Table) -> int | None:
    """The index of the first word that is not an option or an option's value, or None."""
    i = 0
    while i < len(args):
        if args[i] == "--":
            return None
        if not is_option(args[i]):
            return i
        i += option_words(args, i, table)
    return None


def own(word: str, table: Table) -> bool:
    """True when the option word is the group's own (every short flag of a bundle too, up
    to the one whose value follows)."""
    if word.startswith("--"):
        return word.partition("=")[0] in table
    for c in word[1:]:
        if "-" + c not in table:
            return False
        if table["-" + c]:
            return True
    return True


def place_options(group: click.Group, ctx: click.Context, args: list[str]) -> list[str]:
    """`args` with the command's options written before the command name moved after it.

    The command is the first word that names one of the group's commands and is not an
    option's value (read with the group's options and that command's); when none does,
    `args` is returned as is (click reports what is wrong).
    """
    mine = option_table(group.params)
    end = first_positional(args, mine)
    if end is None or all(own(w, mine) for w in _option_words_before(args, end, mine)):
        return args  # nothing but the group's own options before the command (the usual case)
    names = set(group.command_names(ctx)) if isinstance(group, PlacementGroup) else set(group.list_commands(ctx))
    for i, word in enumerate(args):
        if word == "--":
            break
        if is_option(word) or word not in names:
            continue
        command = group.get_command(ctx, word)
        if command is None:
            continue
        table = {**command_table(ctx, command), **mine}
        if first_positional(args, table) != i:
            continue
        kept: list[str] = []
        moved: list[str] = []
        j = 0
        while j < i:
            span = option_words(args, j, table)
            (kept if own(args[j], mine) else moved).extend(args[j:j + span])
            j += span
        return [*kept, word, *moved, *args[i + 1:]]
    return args


def names_no_command(group: click.Group, ctx: click.Context, args: list[str]) -> bool:
    """True for words that are all options of the group's commands, one at least not the
    group's own, before an optional `--` that ends the line: `--json` alone in a shell
    line (whose group has no options of its own), `-a x=1`. What is wrong there is the
    missing command, not the option, which click would report ("No such option"). An
    option of no command (`--bogus`), a help option, or the group's own options alone
    (`--version`) are left to click."""
    head = args[:args.index("--")] if "--" in args else args
    if not head or len(head) < len(args) - 1 or not is_option(head[0]):
        return False  # nothing, or words after `--`: click's own parse
    names = set(group.command_names(ctx)) if isinstance(group, PlacementGroup) else set(group.list_commands(ctx))
    if any(w in names or w in ctx.help_option_names for w in head):
        return False
    mine = option_table(group.params)
    table = {**command_table(ctx, group), **mine}  # every command loaded: only a line that names none gets here
    if first_positional(head, table) is not None:
        return False
    words = _option_words_before(head, len(head), table)
    return all(own(w, table) for w in words) and not all(own(w, mine) for w in words)


def check_prefix_values(command: click.Command, ctx: click.Context, args: list[str]) -> None:
    """Refuse a value given to an option whose name begins another option's, when the value
    does not fit the option typed but may be meant for the longer one (`--answer FILE`,
    where `--answers FILE` was meant): one usage error naming the option as typed, "did you
    mean" the longer one. Values are checked with the option's own type.

    Raises:
        UsageError: such a value.
    """
    options, longs, table = _prefix_tables(command)
    i = 0
    while i < len(args) and args[i] != "--":
        word = args[i]
        span = option_words(args, i, table) if is_option(word) else 1
        spelling, eq, attached = word.partition("=")
        longer = [o for o in longs if o.startswith(spelling) and o != spelling] if word.startswith("--") else []
        param = next((p for p in options if spelling in p.opts), None) if longer else None
        if param is not None and table.get(spelling) and (eq or span == 2):
            value = attached if eq else args[i + 1]
            try:
                param.type.convert(value, param, ctx)
            except (click.BadParameter, UsageError) as exc:
                # a type's message starts with the value (a UsageError's after the option it names)
                text = exc.message if isinstance(exc, click.BadParameter) else exc.message.split(" ", 1)[-1]
                shown = "" if any(c in value for c in ":=") else f" {value}"  # a `NAME:VALUE` may hold a secret
                hint = f"did you mean {' or '.join(longer)}{shown}?"
                if isinstance(exc, UnreadWords):  # the value is named by its place (errors.refused), never repeated
                    raise UnreadWords(f"{spelling} {exc.template.split(' ', 1)[-1]}", exc.words,
                                      hint=f"did you mean {' or '.join(longer)}?") from None
                raise UsageError(f"{spelling} {text}", hint=hint) from None
        i += span


def _prefix_tables(command: click.Command) -> tuple[list[click.Option], list[str], Table]:
    """`command`'s options, their long spellings and their table (`option_table`), made once
    per command (its options do not change; a shell parses many lines with it)."""
    cached = _PREFIX_TABLES.get(command)
    if cached is None:
        options = [p for p in command.params if isinstance(p, click.Option)]
        cached = options, [o for p in options for o in p.opts if o.startswith("--")], option_table(options)
        _PREFIX_TABLES[command] = cached
    return cached


#: `_prefix_tables` per command (the command objects live as long as the process).
_PREFIX_TABLES: dict[click.Command, tuple[list[click.Option], list[str], Table]] = {}


def _option_words_before(args: list[str], end: int, table: Table) -> list[str]:
    """The option words (not their values) of `args[:end]`."""
    words, i = [], 0
    while i < end:
        words.append(args[i])
        i += option_words(args, i, table)
    return words


class PlacementCommand(ReusedParser, HelpCommand):
    """A command that refuses a value meant for a longer option (`check_prefix_values`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        check_prefix_values(self, ctx, args)
        return super().parse_args(ctx, args)


class PlacementGroup(ReusedParser, InterruptGroup, HelpGroup):
    """A command group whose commands' options may also be written before the command (and
    whose commands' Ctrl-C leaves click quietly: `InterruptGroup`)."""

    command_class = PlacementCommand

    def command_names(self, ctx: click.Context) -> list[str]:
        """The names of the group's commands (a lazy group names them without loading them)."""
        return self.list_commands(ctx)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if names_no_command(self, ctx, args):
            ctx.fail("Missing command.")  # as for the group's own options alone (`mrtr --json`)
        return super().parse_args(ctx, place_options(self, ctx, list(args)))

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None,
                                                                           list[str]]:
        """click's, but an unknown command name gets "Did you mean 'call'?" from the names
        of all the group's commands (`command_names`), loaded or not: click suggests only
        among the commands a group holds (a shell line's group holds none of its own:
        cli/commands/shell.py `LineGroup`), and only from click 8.4 on.

        Raises:
            click.UsageError: "No such command 'NAME'." with a close name if there is one.
        """
        name = args[0] if args else ""
        if (name and not ctx.resilient_parsing and not is_option(name)
                and self.get_command(ctx, name) is None):
            from mrtr_cli.render.suggest import close_matches  # noqa: PLC0415 - only on an error path

            close = close_matches(name, self.command_names(ctx))
            spelled = ", ".join(repr(c) for c in close)
            said = (f" Did you mean {spelled}?" if len(close) == 1
                    else f" Did you mean one of: {spelled}?" if close else "")
            raise click.UsageError(f"No such command {name!r}.{said}", ctx=ctx)
        return super().resolve_command(ctx, args)


PlacementGroup.group_class = PlacementGroup  # `task`, `auth` and any later subgroup
