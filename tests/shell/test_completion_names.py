"""Tab offers only what a `KEY=VALUE` item gives as typed, against a real server
(tests/servers/odd_names_server.py, the official SDK) whose tool has odd property names and
enum values: a name `k=v`, a top-level `x.y`, `-dash`, `a:` or `a:=b` is never offered as
`NAME=` (an item would name another property, or an option); an enum value read as a file
(`@file`) or typed as another type (`level=1`, the string "1") is never offered after
`NAME=`. Each candidate that is offered, finished with a value and run in `mrtr shell`,
reaches the server as that property and value. The test of a name is the one the example
call of `tools NAME` makes (schema/example.py `key_reads_back`). (At a terminal: test_pty.py.)"""

from __future__ import annotations

import json
import shlex

import pytest

from tests.conftest import SERVERS, stdio_cmd

ODD = ["--stdio", stdio_cmd(SERVERS / "odd_names_server.py")]


class _Live:
    """The live names of the real server, as `mrtr tools --json` lists them."""

    pending: dict | None = None

    def __init__(self, tools: list[dict]) -> None:
        self.asked: dict = {}
        self.tools = tools

    def names(self, method: str) -> list[dict]:
        return self.tools if method == "tools/list" else []

    def suggest(self, kind: str, ref: str, argument: str, value: str, context: dict[str, str]) -> list[str]:
        return []


@pytest.fixture
def completer(mrtr):
    from mrtr_cli.cli.commands.shell import commands
    from mrtr_cli.shell.completion import Completer

    listed = mrtr(*ODD, "tools", "--json")
    assert listed.code == 0, listed.stderr
    return Completer(commands, _Live(json.loads(listed.stdout)))


def _typed(text: str, value: str) -> str:
    """Candidate `text` finished with `value` as a person types it (an open quote closed)."""
    return text + value + ("'" if text.startswith("'") and not text.endswith("' ") else "")


def _sent(mrtr, words: list[str]) -> list[dict]:
    """The arguments the server got for each `call odd WORD` line of a shell script."""
    run = mrtr(*ODD, "shell", input="".join(f"call odd {word}\n" for word in words))
    assert run.code == 0, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()]


def test_only_names_an_item_gives_as_typed_are_offered_and_each_reaches_the_server(mrtr, completer):
    offered = completer.complete("call odd ")
    assert sorted(c.display for c in offered) == sorted(
        ["plain=", "with space=", "@at=", "col:on=", "nested=", "nested.inner=", "mode=", "level=",
         "it's=", "#hash=", "back\\slash="])
    words = [_typed(c.text, "v") for c in offered if c.display not in ("nested=", "mode=", "level=")]
    assert _sent(mrtr, words) == [{"plain": "v"}, {"with space": "v"}, {"@at": "v"}, {"col:on": "v"},
                                  {"nested": {"inner": "v"}}, {"it's": "v"}, {"#hash": "v"}, {"back\\slash": "v"}]
    for start in ("k", "x", "a"):
        assert completer.complete(f"call odd {start}") == [], start
    assert "-dash=" not in [c.display for c in completer.complete("call odd -")]


def test_only_enum_values_typed_as_they_stand_are_offered(mrtr, completer):
    modes = [c.text for c in completer.complete("call odd mode=")]
    assert modes == ["mode=fast ", shlex.quote("mode=In Progress") + " ", "mode=a=b "]
    levels = [c.text for c in completer.complete("call odd level=")]
    assert levels == ["level=2 "]
    assert completer.complete("call odd mode=@") == []
    assert _sent(mrtr, [t.strip() for t in [*modes, *levels]]) == [
        {"mode": "fast"}, {"mode": "In Progress"}, {"mode": "a=b"}, {"level": "2"}]
    literal = [c.text for c in completer.complete("call odd mode:=")]
    assert literal == ['\'mode:="fast"\' ', '\'mode:="In Progress"\' ', '\'mode:="a=b"\' ', '\'mode:="@file"\' ']
    assert _sent(mrtr, [t.strip() for t in literal])[-1] == {"mode": "@file"}


def test_a_tool_name_that_starts_with_a_dash_is_offered_after_dashes(mrtr, completer):
    """`-x` and `--json` are read as options unless after `--`: Tab inserts `-- NAME` (the
    menu shows NAME), or NAME itself once `--` is on the line; the line runs that tool."""
    offered = {c.display: c.text for c in completer.complete("call ")}
    assert offered["-x"] == "-- -x " and offered["--json"] == "-- --json " and offered["odd"] == "odd ", offered
    assert {c.display: c.text for c in completer.complete("call -- ")}["--json"] == "--json "
    run = mrtr(*ODD, "shell", input=f"call {offered['--json']}\ncall {offered['-x']}\n")
    assert run.code == 0 and run.stdout == "{}\n{}\n", run.stderr
