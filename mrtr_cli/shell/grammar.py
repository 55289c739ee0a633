"""The command line's grammar as the shell sees it: each command's options (whether they
take a value, their choices) and subcommands, read from the click command definitions by
the `shell` command (cli/commands/shell.py) and handed in as plain data, so this package never
imports click. The shell uses it to complete a line and to tell an option's value from a
command's own words (`walk`); the line itself is parsed by the command definitions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mrtr_cli.errors import name_like


@dataclass(frozen=True)
class OptionSpec:
    """One option of a command.

    Attributes:
        spellings: every way to write it (`-a`, `--answer`).
        takes_value: False for a flag or a counter (`--json`, `-v`).
        choices: the values it accepts when they are a fixed set (`--color`), else empty.
        path: its value names a file or directory (`--answers FILE`, `--root PATH`).
        help: its one-line help.
        accepts: value -> whether the option takes it (its type's conversion, which has no
            side effect: a number, a number of seconds, a choice), None when the line's
            parse alone can tell (text, a path, an answer).
    """

    spellings: tuple[str, ...]
    takes_value: bool
    choices: tuple[str, ...] = ()
    path: bool = False
    help: str = ""
    accepts: Callable[[str], bool] | None = None


@dataclass
class CommandSpec:
    """One command (or group) of the command line.

    Attributes:
        name: its name (`call`, `task`).
        summary: its one-line help.
        options: spelling -> the option (each spelling of an option maps to the same spec).
        subcommands: a group's commands by name (`task get`), else empty.
        takes: the most positional words it takes (None: any number).
        items_from: how many positional words come before its `KEY=VALUE` items (`call
            TOOL ITEM...`: 1), None when it takes no items.
    """

    name: str
    summary: str = ""
    options: dict[str, OptionSpec] = field(default_factory=dict)
    subcommands: dict[str, CommandSpec] = field(default_factory=dict)
    takes: int | None = None
    items_from: int | None = None


@dataclass
class Walk:
    """A command line read with a command's options (`walk`).

    Attributes:
        path: the commands named, outermost first (`[task, get]`).
        positionals: the words that are not options or option values, after the commands.
        pending_option: the option whose value the line ends waiting for, or None.
        options: the option words given (as typed, without values).
        places: where each positional word is in the words walked (their indices).
        unknown: where each option word the command does not have is (their indices).
        values: each value given to an option: (the index of the word holding it, the
            option, the value): the word after the option, or the option word itself
            (`--opt=value`, `-aVALUE`).
    """

    path: list[CommandSpec]
    positionals: list[str]
    pending_option: OptionSpec | None
    options: list[str]
    places: list[int] = field(default_factory=list)
    unknown: list[int] = field(default_factory=list)
    values: list[tuple[int, OptionSpec, str]] = field(default_factory=list)


def walk(commands: dict[str, CommandSpec], words: list[str]) -> Walk | None:
    """Read `words` (a whole line's words, the command first) as the command definitions
    would: the command (and a group's subcommand), then options with their values
    (`--opt=value`, `-aVALUE`, `-a VALUE`) and the positional words; `--` ends the options.
    None when the first word names no command."""
    if not words or words[0] not in commands:
        return None
    path = [commands[words[0]]]
    positionals: list[str] = []
    places: list[int] = []
    unknown: list[int] = []
    given: list[str] = []
    values: list[tuple[int, OptionSpec, str]] = []
    pending: OptionSpec | None = None
    options_end = False
    for at, word in enumerate(words[1:], start=1):
        spec = path[-1]
        if pending is not None:
            values.append((at, pending, word))
            pending = None
            continue
        if not options_end and word == "--":
            options_end = True
            continue
        if not options_end and word.startswith("-") and word != "-":
            name, eq, _ = word.partition("=")
            option = spec.options.get(name if word.startswith("--") else word[:2])
            given.append(name if word.startswith("--") else word[:2])
            if option is None:
                unknown.append(at)
            if option is not None and option.takes_value and not eq and (word.startswith("--") or len(word) == 2):
                pending = option
            elif option is not None and option.takes_value:  # `--opt=value`, `-aVALUE`
                values.append((at, option, word.partition("=")[2] if word.startswith("--") else word[2:]))
            continue
        if not positionals and spec.subcommands and word in spec.subcommands:
            path.append(spec.subcommands[word])
            continue
        positionals.append(word)
        places.append(at)
    return Walk(path, positionals, pending, given, places, unknown, values)


def unread_words(commands: dict[str, CommandSpec], words: list[str]) -> set[int]:
    """The indices of the words of a line (`words`) that its command cannot take as they
    stand, which an error would not print (errors.UnreadWords) and the history keeps as
    `***`: a positional word past the most the command takes, a word with no `=` where
    its `KEY=VALUE` items go, and a first word that names no command, an option word the
    command does not have, or a value an option refuses (`OptionSpec.accepts`: `--timeout
    TOKEN`, `--timeout=TOKEN`), each not spelled as a name (`errors.name_like`, as the
    error's message does: a typo such as `cal`, `--bogus` or `--timeout soon` is kept)."""
    found = walk(commands, words)
    if found is None:
        first = words[0] if words else ""
        return set() if not first or first.startswith("-") or name_like(first) else {0}
    spec = found.path[-1]
    out = {at for at in found.unknown if not name_like(words[at].partition("=")[0])}
    out.update(at for at, option, value in found.values
               if option.accepts is not None and not name_like(value) and not option.accepts(value))
    for count, (word, at) in enumerate(zip(found.positionals, found.places, strict=True)):
        if spec.subcommands:
            continue  # a group's unknown subcommand: click names it
        past_end = spec.takes is not None and count >= spec.takes
        no_item = spec.items_from is not None and count >= spec.items_from and "=" not in word
        if past_end or no_item:
            out.add(at)
    return out
