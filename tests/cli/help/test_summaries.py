"""`mrtr --help` lists the commands from cli/help/summaries.py (written by scripts/sync-help)
instead of importing every command module (docs/performance.md); the list must be the
commands' own."""

from __future__ import annotations

import click
from click.testing import CliRunner

from mrtr_cli.cli.help.format import HelpGroup
from mrtr_cli.cli.help.summaries import SUMMARIES
from mrtr_cli.cli.main import COMMAND_MODULES, _load_commands, cli


def test_the_summaries_are_the_commands_own_help_in_their_order():
    _load_commands()
    assert {name: (cmd.help, cmd.short_help) for name, cmd in cli.commands.items()} == SUMMARIES, \
        "run scripts/sync-help"
    # The order a fresh `mrtr --help` loads them in: module by module, as each registers its commands.
    modules = list(dict.fromkeys(COMMAND_MODULES.values()))
    registered = list(cli.commands)
    assert list(SUMMARIES) == sorted(registered, key=lambda n: (modules.index(COMMAND_MODULES[n]), registered.index(n)))


def test_no_command_is_hidden_or_deprecated():
    """The list is written from the help texts alone: a hidden or deprecated command would
    need more than cli/help/summaries.py keeps."""
    _load_commands()
    assert [name for name, cmd in cli.commands.items() if cmd.hidden or cmd.deprecated] == []


def test_the_list_is_the_one_the_commands_would_write():
    _load_commands()
    for width in (50, 78, 98):
        ctx = click.Context(cli, info_name="mrtr", max_content_width=100, terminal_width=width)
        from_summaries, from_commands = click.HelpFormatter(width=width), click.HelpFormatter(width=width)
        cli.format_commands(ctx, from_summaries)
        HelpGroup.format_commands(cli, ctx, from_commands)
        assert from_summaries.getvalue() == from_commands.getvalue()
        assert "call" in from_summaries.getvalue()


def test_mrtr_help_lists_its_own_command_first_as_before(mrtr):
    """`mrtr help` has loaded its own command before it writes the list: it comes first, as
    it did when every command module was imported for the list."""
    r = mrtr("help")
    assert r.code == 0, r.stderr
    listed = r.stdout.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    names = [line.split()[0] for line in listed.splitlines() if not line.startswith("   ")]  # not a wrapped line
    assert names == ["help", *[n for n in SUMMARIES if n != "help"]]


def test_help_via_the_cli_lists_every_command():
    result = CliRunner().invoke(cli, ["--help"], terminal_width=80)
    assert result.exit_code == 0
    listed = result.output.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    names = [line.split()[0] for line in listed.splitlines() if not line.startswith("   ")]  # not a wrapped line
    assert sorted(names) == sorted(SUMMARIES) and len(names) == len(SUMMARIES)  # the order: tests above
