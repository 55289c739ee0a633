"""A command parsed again and again (a shell's lines) gives what click alone gives
(cli/quickparse.py): the same values and the same parameter sources for every line,
whatever the lines before it gave, and click's own errors.

Pure parsing, in process: each command's context after `ReusedParser`'s parse is compared
with the one click's own `Command.parse_args` makes from the same words.
"""

from __future__ import annotations

from typing import Any

import click
import pytest

from mrtr_cli.cli.main import _load_commands, cli
from mrtr_cli.cli.quickparse import ReusedParser

#: `call`'s lines, in this order: options given, then not, then others given.
CALL_LINES = [
    ["echo", "text=hi"],
    ["echo", "--json", "-v", "-v", "-a", "x=1", "--root", ".", "text=hi"],
    ["echo", "text=hi"],
    ["echo", "--timeout", "3", "--color", "never", "--no-input"],
    ["echo"],
    ["echo", "--answers", "a.json", "--answers", "b.json", "--json"],
    ["echo", "text=hi"],
]


def _command(name: str) -> click.Command:
    _load_commands()
    command = cli.get_command(click.Context(cli, info_name="mrtr"), name)
    assert isinstance(command, ReusedParser)
    return command


def _seen(ctx: click.Context) -> tuple[dict[str, Any], dict[str, Any]]:
    return dict(ctx.params), {name: ctx.get_parameter_source(name) for name in ctx.params}


def _by_click(command: click.Command, words: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """What click's own parse makes of `words` (none of ReusedParser's kept values)."""
    parent = click.Context(cli, info_name="mrtr")
    ctx = click.Context(command, info_name=command.name, parent=parent)
    with ctx.scope(cleanup=False):
        params = click.Command.get_params(command, ctx)
        parser = click.Command.make_parser(command, ctx)
        opts, args, order = parser.parse_args(args=list(words))
        for param in click.core.iter_params_for_processing(order, params):
            _, args = param.handle_parse_result(ctx, opts, args)
        for name, value in list(ctx.params.items()):
            if value is getattr(click.core, "UNSET", object()):
                ctx.params[name] = None
    return _seen(ctx)


#: Lines of other commands: their global options given, then not.
OTHER_LINES = [[], ["--json", "-v", "--root", "."], [], ["--timeout", "3", "--color", "never"], ["-q"], []]


@pytest.mark.parametrize(("name", "lines"), [("call", CALL_LINES), ("tools", OTHER_LINES),
                                             ("read", [["file:///x", *line] for line in OTHER_LINES])])
def test_every_line_gets_what_click_alone_gives_it(name: str, lines: list[list[str]]) -> None:
    command = _command(name)
    parent = click.Context(cli, info_name="mrtr")
    for _ in range(2):  # the second round: every option's value kept from the first
        for words in lines:
            ctx = command.make_context(name, list(words), parent=parent)
            assert _seen(ctx) == _by_click(command, words), words
            assert ctx.args == []


def test_a_kept_value_never_hides_a_given_one() -> None:
    command = _command("call")
    parent = click.Context(cli, info_name="mrtr")
    for words in CALL_LINES:
        command.make_context("call", list(words), parent=parent)
    ctx = command.make_context("call", ["echo", "--json", "-vvv", "--timeout", "2"], parent=parent)
    assert ctx.params["json_mode"] is True and ctx.params["verbosity"] == 3 and ctx.params["timeout"] == 2.0
    assert ctx.get_parameter_source("json_mode") == click.core.ParameterSource.COMMANDLINE
    ctx = command.make_context("call", ["echo"], parent=parent)
    assert ctx.params["json_mode"] is None and ctx.params["verbosity"] == 0 and ctx.params["timeout"] is None
    assert ctx.get_parameter_source("json_mode") == click.core.ParameterSource.DEFAULT


def test_click_still_finds_the_errors_after_kept_values() -> None:
    command = _command("call")
    parent = click.Context(cli, info_name="mrtr")
    command.make_context("call", ["echo"], parent=parent)
    with pytest.raises(click.BadParameter):
        command.make_context("call", ["echo", "--max-rounds", "0"], parent=parent)
    with pytest.raises(click.NoSuchOption):
        command.make_context("call", ["echo", "--no-such-option"], parent=parent)
    ctx = command.make_context("call", ["echo"], parent=parent)  # nothing left over from the failures
    assert ctx.params["max_rounds"] is None and "mrtr.quickparse.found" not in ctx.meta


def test_help_lists_every_option_after_kept_values() -> None:
    command = _command("call")
    parent = click.Context(cli, info_name="mrtr")
    for words in CALL_LINES:
        command.make_context("call", list(words), parent=parent)
    ctx = click.Context(command, info_name="call", parent=parent)
    names = {p.name for p in command.get_params(ctx)}
    assert {p.name for p in command.params} <= names
    assert "--timeout" in command.get_help(ctx) and "--json" in command.get_help(ctx)


@pytest.mark.parametrize("given", [[], ["--json"]])
def test_help_given_on_a_line_lists_every_option(capsys: pytest.CaptureFixture[str], given: list[str]) -> None:
    command = _command("call")
    parent = click.Context(cli, info_name="mrtr")
    for words in CALL_LINES:
        command.make_context("call", list(words), parent=parent)
    with pytest.raises(click.exceptions.Exit):  # --help prints while the line is parsed
        command.make_context("call", [*given, "--help"], parent=parent)
    shown = capsys.readouterr().out
    for option in ("--timeout", "--json", "--answers", "--no-input", "--max-rounds"):
        assert option in shown, shown



def test_a_line_without_help_leaves_clicks_help_option_unprocessed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Click's `--help` flag, not given on a line, is not processed again (its callback does
    nothing then); its parameter source is the one click's own parse records, and a line
    that gives it still gets the help (test_help_given_on_a_line_lists_every_option)."""
    command = _command("call")
    parent = click.Context(cli, info_name="mrtr")
    help_option = command.get_help_option(click.Context(command, info_name="call", parent=parent))
    assert help_option is not None and help_option.name is not None
    command.make_context("call", ["echo", "text=hi"], parent=parent)  # the values kept
    processed: list[str | None] = []
    handle = type(help_option).handle_parse_result

    def spy(self: click.Parameter, ctx: click.Context, opts: Any, args: list[str]) -> Any:
        processed.append(self.name)
        return handle(self, ctx, opts, args)

    monkeypatch.setattr(type(help_option), "handle_parse_result", spy)
    ctx = command.make_context("call", ["echo", "text=hi"], parent=parent)
    assert help_option.name not in processed
    by_click = click.Context(command, info_name="call", parent=parent)
    with by_click.scope(cleanup=False):
        opts, _, order = click.Command.make_parser(command, by_click).parse_args(args=["echo", "text=hi"])
        help_option.handle_parse_result(by_click, opts, [])
    assert ctx.get_parameter_source(help_option.name) == by_click.get_parameter_source(help_option.name)
    assert ctx.get_parameter_source(help_option.name) is not None
