"""Every option of every command works before the command as after it (cli/placement.py).

Pure parsing, in process: each option of each command (subcommands of `task` and `auth`
too) is given once after the command and once before it (and, under a group, between the
group and its command); the values the command's App is built from (cli/build.py) must be
the same, and not the value without the option.
"""

from __future__ import annotations

from typing import Any

import click
import pytest

from mrtr_cli.cli.build import _merge
from mrtr_cli.cli.main import _load_commands, cli


def leaf_values(argv: list[str]) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The command path reached by `argv` and the values make_app would merge."""
    ctx = cli.make_context("mrtr", list(argv))
    root = ctx
    path: list[str] = []
    while isinstance(ctx.command, click.Group):
        name, command, rest = ctx.command.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
        path.append(str(name))
        ctx = command.make_context(name, rest, parent=ctx)
    return tuple(path), _merge(root.params, ctx.params)


def commands() -> list[tuple[tuple[str, ...], click.Command]]:
    """(path, command) of every leaf command."""
    _load_commands()
    found: list[tuple[tuple[str, ...], click.Command]] = []

    def walk(group: click.Group, path: tuple[str, ...]) -> None:
        for name, command in sorted(group.commands.items()):
            if isinstance(command, click.Group):
                walk(command, (*path, name))
            else:
                found.append(((*path, name), command))

    walk(cli, ())
    return found


def required_arguments(command: click.Command) -> list[str]:
    words: list[str] = []
    for param in command.params:
        if isinstance(param, click.Argument) and param.required:
            choices = getattr(param.type, "choices", None)
            words.append(str(choices[0]) if choices else "k=v" if param.nargs == -1 else "x")
    return words


def option_words(option: click.Option) -> list[str]:
    spelling = next((o for o in option.opts if o.startswith("--")), option.opts[0])
    if option.is_flag or option.count:
        return [spelling]
    choices = getattr(option.type, "choices", None)
    if choices:
        return [spelling, str(choices[-1])]
    if (isinstance(option.type, (click.types.IntParamType, click.types.FloatParamType))
            or "SECONDS" in str(option.metavar)):
        return [spelling, "2"]
    return [spelling, "k=v"]


CASES = [(path, option) for path, command in commands() for option in command.params
         if isinstance(option, click.Option)]


@pytest.mark.parametrize(("path", "option"), CASES, ids=[f"{' '.join(p)} {o.opts[0]}" for p, o in CASES])
def test_an_option_works_before_and_after_the_command(path: tuple[str, ...], option: click.Option) -> None:
    *groups, name = path
    command_words = [*path, *required_arguments(_command(path))]
    words = option_words(option)
    _, baseline = leaf_values(command_words)
    reached, after = leaf_values([*command_words, *words])
    assert reached == path
    assert after.get(option.name) != baseline.get(option.name), option.name
    placements = [[*words, *command_words]]
    if groups:  # between the group and its command too: mrtr task --json list
        placements.append([*groups, *words, name, *command_words[len(path):]])
    for argv in placements:
        reached, before = leaf_values(argv)
        assert reached == path, argv
        assert before.get(option.name) == after.get(option.name), argv


def _command(path: tuple[str, ...]) -> click.Command:
    return dict(commands())[path]


def test_an_option_value_that_names_a_command_is_a_value() -> None:
    # `--sampling-command tools` takes "tools" as its value; the command is the next word.
    path, values = leaf_values(["--sampling-command", "tools", "tools", "--json"])
    assert path == ("tools",) and values["sampling_command"] == "tools" and values["json_mode"] is True
    path, values = leaf_values(["-vq", "-c", "3", "ping"])
    assert path == ("ping",) and values["count"] == 3 and values["verbosity"] == 1 and values["quiet"] is True


@pytest.mark.parametrize("words", [["--answer", "answers.json"], ["--answer=answers.json"]])
def test_a_value_meant_for_a_longer_option_names_the_option_typed(mrtr_here, words) -> None:
    # `--answer` is `-a KEY=VALUE`; a file name after it was meant for `--answers`.
    for argv in (["--stdio", "unused", "call", "t", *words], [*words, "--stdio", "unused", "call", "t"]):
        r = mrtr_here(*argv)
        assert r.code == 2, r.stderr
        place = argv.index(words[-1]) + 1 if words[-1] in argv else argv.index(words[0]) + 1
        assert r.stderr.splitlines() == [
            f"mrtr: error: --answer word {place} (12 characters, not shown): a flag without '=': expected "
            "FIELD=VALUE, INPUTKEY.FIELD=VALUE or FIELD:=JSON",
            "  did you mean --answers?"]
    r = mrtr_here("--stdio", "unused", "call", "t", "-a", "answers.json")  # typed as -a: no other option is near
    assert r.code == 2 and "did you mean" not in r.stderr, r.stderr
    assert "-a word 6 (12 characters, not shown): a flag without '=': expected FIELD=VALUE" in r.stderr, r.stderr
