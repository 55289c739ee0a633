"""An argument error never repeats a value it was given (docs/answers.md: a message about an
`-a` flag names the flag, never its value): an `-a` without `=`, and click's "unexpected
extra argument" for `NAME=VALUE` / `NAME:VALUE` words, against the SDK test server
tests/servers/shell_server.py over stdio."""

from __future__ import annotations

import pytest

from tests.conftest import SERVERS, stdio_cmd

SHELL_SERVER = SERVERS / "shell_server.py"


@pytest.mark.parametrize("args", [
    ("call", "echo", "-a", "apiToken:SECU1234"),
    ("tools", "login", "code_word=SECO1234"),
    ("ping", "apiToken=SECY1234"),
    ("ping", "a=1", "conn:SECZ1234"),
])
def test_an_argument_error_names_no_value(mrtr, args):
    run = mrtr("--stdio", stdio_cmd(SHELL_SERVER), *args)
    assert run.code == 2, run.stderr
    assert "mrtr: error: " in run.stderr, run.stderr
    assert "1234" not in run.stderr, run.stderr
    assert "***" in run.stderr or "..." in run.stderr, run.stderr


def test_a_value_meant_for_a_longer_option_is_not_repeated_when_it_may_hold_a_secret(mrtr_here):
    r = mrtr_here("--stdio", "unused", "call", "t", "--answer", "apiToken:SECW1234")
    assert r.code == 2 and "1234" not in r.stderr and "did you mean --answers?" in r.stderr, r.stderr
