"""An argument error never repeats a value it was given (docs/answers.md: a message about an
`-a` flag names the flag, never its value): an `-a` without `=`, and click's "unexpected
extra argument" for `NAME=VALUE` / `NAME:VALUE` words, against the SDK test server
tests/servers/shell_server.py over stdio."""

from __future__ import annotations

import re

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
    assert "***" in run.stderr or "..." in run.stderr or "not shown" in run.stderr, run.stderr


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


@pytest.mark.parametrize(("args", "said"), [
    (("--stdio", "unused", "--log-level", TOKEN, "tools"),
     "--log-level word 4 (16 characters, not shown): expected one of"),
    (("--stdio", "unused", f"--log-level={TOKEN}", "tools"), "--log-level word 3 (16 characters, not shown): expected"),
    (("--stdio", "unused", "--max-message-size", TOKEN, "tools"),
     "--max-message-size word 4 (16 characters, not shown) is not a size"),
    (("--stdio", "unused", "--protocol", TOKEN, "tools"),
     "--protocol word 4 (16 characters, not shown): expected one of"),
    (("--url", "http://127.0.0.1:9/mcp", "-H", f"Authorization=Bearer_{TOKEN}", "tools"),
     "-H Authorization...: expected \"Name: value\""),
    (("--url", "http://127.0.0.1:9/mcp", "-H", TOKEN, "tools"), "-H word 4 (16 characters, not shown): expected"),
    (("--url", "http://127.0.0.1:9/mcp", "--bearer-token-env", TOKEN, "tools"),
     "--bearer-token-env word 4 (16 characters, not shown): that environment variable is empty or unset"),
    (("help", TOKEN), "help: no topic or command word 2 (16 characters, not shown)"),
    (("help", "call", TOKEN), "takes no topic or subcommand (word 3 (16 characters, not shown))"),
    (("help", "exit-codes", TOKEN), "takes no further word (word 3 (16 characters, not shown))"),
    (("--stdio", "unused", "call", "echo", "-a", TOKEN), "-a word 6 (16 characters, not shown): a flag without '='"),
    (("--stdio", "unused", "call", "echo", "--answer", TOKEN), "--answer word 6 (16 characters, not shown): a flag"),
    (("--stdio", "unused", "call", "echo", f"--json={TOKEN}"),
     "Option '--json' does not take a value (given word 5 (16 characters, not shown))"),
])
@pytest.mark.parametrize("json_mode", [False, True])
def test_a_value_an_option_refuses_is_named_by_place_never_printed(mrtr_here, args, said, json_mode):
    """mrtr's own checks of an option's value (and of `help`'s words) go by the rule click's
    do (errors.refused): a value not spelled as a name is named by its place and length."""
    r = mrtr_here(*(["--json"] if json_mode else []), *args)
    assert r.code == 2, r.stderr
    assert TOKEN not in r.stderr and "123456" not in r.stderr and "abcdef" not in r.stderr, r.stderr
    if json_mode:
        said = re.sub(r"word (\d+)", lambda m: f"word {int(m.group(1)) + 1}", said).replace('"', '\\"')
    assert said in r.stderr, r.stderr


def test_a_value_an_option_refuses_is_said_when_spelled_as_a_name(mrtr_here):
    r = mrtr_here("--stdio", "unused", "--log-level", "debg", "tools")
    assert r.code == 2 and "--log-level debg: expected one of debug" in r.stderr, r.stderr
    r = mrtr_here("help", "tols")
    assert r.code == 2 and "help: no topic or command 'tols'" in r.stderr and "did you mean: tools?" in r.stderr
    r = mrtr_here("--url", "http://127.0.0.1:9/mcp", "--bearer-token-env", "NOPE", "tools")
    assert r.code == 2 and "--bearer-token-env NOPE: that environment variable" in r.stderr, r.stderr
