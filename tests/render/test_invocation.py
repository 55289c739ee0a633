"""How a message names a command (render/invocation.py): by where it will be read. Inside
a shell that goes on, as typed at its prompt; at the command line, and once a stop signal
(SIGTERM, SIGHUP) ends the shell, as typed at the user's own shell: every spelling
(a command, a command path, a command's help, the sign-in, advice for a new shell) takes
that one decision."""

from __future__ import annotations

import signal

import pytest

from mrtr_cli import errors
from mrtr_cli.render import invocation
from mrtr_cli.render.invocation import command, command_path, for_new_shell, help_command, in_shell, signin_command

LOGIN = "mrtr --url http://127.0.0.1:1/mcp auth login"


def spellings() -> list[str]:
    """Every spelling of a command a message can hold, as one list."""
    return [command("task get ID"), command_path("mrtr task wait"), help_command("mrtr call"),
            signin_command(LOGIN), for_new_shell("--protocol V")]


AT_THE_COMMAND_LINE = ["mrtr task get ID", "mrtr task wait", "mrtr call --help", LOGIN, "--protocol V"]


@pytest.fixture(autouse=True)
def no_signal_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    """No stop signal noted (`errors.termination_received`), whatever ran before."""
    monkeypatch.setattr(errors, "_received", [])


def test_inside_a_shell_that_goes_on_a_command_is_named_as_typed_at_its_prompt():
    assert spellings() == AT_THE_COMMAND_LINE
    with in_shell():
        assert spellings() == ["task get ID", "task wait", "help call", "auth login",
                               "--protocol V (on the command line of a new shell: mrtr ... shell)"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_once_a_stop_signal_ends_the_shell_a_command_is_named_as_at_the_command_line(signum):
    with in_shell():
        errors.stop_signal(signum)  # noted, as the signal's handler (or a prompt it ended) notes it
        assert spellings() == AT_THE_COMMAND_LINE


def test_ctrl_c_leaves_the_shell_running_and_its_spelling_with_it():
    with in_shell():
        errors.stop_signal(signal.SIGINT)  # Ctrl-C stops the line, not the shell
        assert invocation.inside_shell()
        assert command("task get ID") == "task get ID"
