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


TOKEN = "ghp_abcdef123456"


@pytest.mark.parametrize(("args", "said"), [
    (("call", "echo", "text=hi", TOKEN), "word 6 (16 characters, not shown) is no argument: expected key=value"),
    (("tools", "echo", TOKEN), "unexpected extra argument: word 5 (16 characters, not shown)"),
    (("tools", "echo", "a=1", TOKEN), "unexpected extra arguments: a=***, word 6 (16 characters, not shown)"),
    ((TOKEN, "echo"), "No such command word 3 (16 characters, not shown)"),
    (("call", "echo", f"--{TOKEN}"), "No such option word 5 (18 characters, not shown)"),
    (("call", "echo", f"--{TOKEN}=1"), "No such option word 5 (18 characters, not shown)"),
    (("call", "echo", "--timeout", TOKEN), "Invalid value for '--timeout': word 6 (16 characters, not shown)"),
    (("call", "echo", f"--timeout={TOKEN}"), "Invalid value for '--timeout': word 5 (16 characters, not shown)"),
])
@pytest.mark.parametrize("json_mode", [False, True])
def test_a_word_mrtr_cannot_read_is_named_by_place_and_length_never_printed(mrtr_here, args, said, json_mode):
    r = mrtr_here(*(["--json"] if json_mode else []), "--stdio", "unused", *args)
    assert r.code == 2, r.stderr
    assert TOKEN not in r.stderr and "123456" not in r.stderr, r.stderr
    assert said.replace("word 6", "word 7").replace("word 5", "word 6").replace("word 3", "word 4") in r.stderr \
        if json_mode else said in r.stderr, r.stderr


def test_a_typo_of_a_name_is_still_said_with_its_did_you_mean(mrtr_here):
    r = mrtr_here("--stdio", "unused", "cal", "echo")
    assert r.code == 2 and "No such command 'cal'. Did you mean 'call'?" in r.stderr, r.stderr
    r = mrtr_here("--stdio", "unused", "call", "echo", "--bogus")
    assert r.code == 2 and "No such option '--bogus'" in r.stderr, r.stderr
    r = mrtr_here("--stdio", "unused", "call", "echo", "--color", "alwys")
    assert r.code == 2 and "'alwys' is not one of" in r.stderr, r.stderr
