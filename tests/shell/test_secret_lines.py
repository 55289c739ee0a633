"""No secret a line gave in what the shell says of the line: the first failing line (stderr,
and `--json`'s `command`) is masked as the history file masks it, a line that never parsed
too (by the names of its arguments, and a tail that cannot be split into words whole), and
the history masks the dotted parts of a secret argument (`x.y` of a `writeOnly` `x`).
Against the SDK test server tests/servers/shell_server.py (`login`: `code_word` is
`writeOnly`) over stdio, from a script. And a history file found more open than 0600 is
made 0600 (in this process: the history's file class).
"""

from __future__ import annotations

import json
import os
import stat

import pytest

from tests.conftest import SERVERS, stdio_cmd

SHELL_SERVER = SERVERS / "shell_server.py"

#: Lines that fail before (or while) their arguments are read, each with a secret in it.
NEVER_PARSED = [
    "call login user=ada password=hunter22 --bogus",  # an unknown option
    "call nosuchtool pin=qqqq1111",  # an unknown tool
    "call login token=ffff1111 --timeout abc",  # a bad option value
    "call login api_key=ffff1111 -a",  # an option without its value
    "call login --args '{\"password\": \"hunter22\"'",  # --args that is no JSON
    "call login user=ada pin='hunter22",  # an unclosed quote: the rest cannot be read
    "call login pin.y=hunter22 pin=ffff1111",  # a key both a value and an object
    "prompt nope token=ffff1111",  # an unknown prompt
]


@pytest.mark.parametrize("line", NEVER_PARSED)
def test_the_first_failing_line_shows_no_secret(mrtr, line):
    target = ["--stdio", stdio_cmd(SHELL_SERVER)]
    run = mrtr(*target, "shell", input=line + "\n")
    assert run.code in (2, 4), run.stderr
    summary = run.stderr.strip().splitlines()[-1]
    assert "the first failing line is line 1 (" in summary, run.stderr
    assert "***" in summary, summary
    for secret in ("hunter22", "ffff1111", "qqqq1111"):
        assert secret not in summary, summary
    run = mrtr(*target, "--json", "shell", input=line + "\n")
    first = json.loads(run.stderr.strip().splitlines()[-1])["shell"]["firstFailure"]
    assert "***" in first["command"], first
    for secret in ("hunter22", "ffff1111", "qqqq1111"):
        assert secret not in first["command"], first


def test_a_writeonly_argument_and_its_dotted_parts_are_masked(mrtr):
    """By the tool's schema once the line has read it: `code_word` (writeOnly) and
    `code_word.x` below it."""
    run = mrtr("--stdio", stdio_cmd(SHELL_SERVER), "shell",
               input="call login user=ada code_word=wordword1 code_word.x=deepdeep2\n")
    assert run.code == 2, run.stderr
    assert "(call login user=ada 'code_word=***' 'code_word.x=***')" in run.stderr, run.stderr


def test_shown_masks_a_line_that_cannot_be_split():
    """The words up to where splitting fails are masked as the history masks them; the rest is `***`."""
    from mrtr_cli.shell.history import shown

    def secret_field(where: str, name: str) -> bool:
        return (where, name) == ("argument", "code_word")

    def masked(line: str) -> str:
        return shown(line, secrets={"tok-123456"}, secret_field=secret_field)

    assert masked("call echo text=hi") == "call echo text=hi"
    assert masked("call login code_word=xyzzy --bogus") == "call login 'code_word=***' --bogus"
    assert masked("call login code_word.a.b=xyzzy") == "call login 'code_word.a.b=***'"
    assert masked("call login user=ada 'code_word=xy") == "call login user=ada ***"
    assert masked("call login text=tok-123456 \"open") == "call login 'text=***' ***"
    assert masked("call login --args '{\"a\": ") == "call login --args ***"
    assert masked("call login a=1 b\\") == "call login a=1 ***"
    assert masked("'open") == "***"


def test_the_history_masks_the_dotted_parts_of_a_secret_argument():
    from mrtr_cli.shell.history import scrub

    def secret_field(where: str, name: str) -> bool:
        return (where, name) == ("argument", "x")

    assert scrub("call t x=abcdefgh x.y=deepsecret2", secrets=set(), secret_field=secret_field) == (
        "call t 'x=***' 'x.y=***'")
    assert scrub("call t 'x:={\"b\": 1}' x.c.d=2", secrets=set(), secret_field=secret_field) == (
        "call t 'x:=***' 'x.c.d=***'")


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's")
@pytest.mark.parametrize("use", ["read", "write"])
def test_a_history_file_more_open_than_0600_is_made_0600(tmp_path, use):
    """A history file found 0644 (written by hand or an older mrtr) is 0600 once the shell
    has opened it, to read it as a shell starts or to append a line; a symbolic link is
    never followed (its target keeps its mode)."""
    from mrtr_cli.shell.terminal import _history_class

    path = tmp_path / "shell-history"
    path.write_text("\n# then\n+call echo text=hi\n")
    path.chmod(0o644)
    history = _history_class()(str(path), lambda text: text)
    if use == "read":
        assert list(history.load_history_strings()) == ["call echo text=hi"]
    else:
        history.store_string("call echo text=two")
        history.flush()
        assert "+call echo text=two\n" in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    target = tmp_path / "elsewhere"
    target.write_text("")
    target.chmod(0o644)
    link = tmp_path / "link-history"
    link.symlink_to(target)
    linked = _history_class()(str(link), lambda text: text)
    assert list(linked.load_history_strings()) == []
    linked.store_string("call echo text=three")
    linked.flush()
    assert stat.S_IMODE(target.stat().st_mode) == 0o644 and target.read_text() == ""


#: Lines naming a tool whose schema the shell has not read when the line fails (the line is
#: refused before the tool list is fetched): every argument value is masked, in every way
#: a value can be given.
UNREAD_SCHEMA = [
    "call login code_word=wordword1 --bogus",
    "call login --args '{\"code_word\": \"wordword1\"}' --bogus",
    "call login '--args={\"code_word\": \"wordword1\"}' --bogus",
    "call login code_word:='\"wordword1\"' --bogus",
    "call login --args '{\"code_word\": {\"k\": \"wordword1\"}}' --bogus",
    "call login user=ada code_word=wordword1 --no-such",
]


@pytest.mark.parametrize("line", UNREAD_SCHEMA)
def test_a_line_of_a_tool_not_yet_listed_shows_no_argument_value(mrtr, line):
    target = ["--stdio", stdio_cmd(SHELL_SERVER)]
    run = mrtr(*target, "shell", input=line + "\n")
    assert run.code == 2, run.stderr
    summary = run.stderr.strip().splitlines()[-1]
    assert "the first failing line is line 1 (call login " in summary, run.stderr
    assert "wordword1" not in summary and "ada" not in summary, summary
    run = mrtr(*target, "--json", "shell", input=line + "\n")
    first = json.loads(run.stderr.strip().splitlines()[-1])["shell"]["firstFailure"]
    assert "wordword1" not in first["command"] and "***" in first["command"], first


def test_a_listed_tool_shows_its_plain_arguments_and_masks_its_secret_ones(mrtr):
    """Once a line listed the tools, the schema proves `user` is no secret: it is shown."""
    run = mrtr("--stdio", stdio_cmd(SHELL_SERVER), "shell",
               input="tools\ncall login user=ada code_word=wordword1 --bogus\n")
    assert run.code == 2, run.stderr
    assert "line 2 (call login user=ada 'code_word=***' --bogus)" in run.stderr, run.stderr


def test_an_unknown_tool_shows_no_argument_value_after_a_listing(mrtr):
    run = mrtr("--stdio", stdio_cmd(SHELL_SERVER), "shell", input="tools\ncall nosuchtool text=plain1234\n")
    assert run.code != 0, run.stderr
    summary = run.stderr.strip().splitlines()[-1]
    assert "line 2 (call nosuchtool 'text=***')" in summary, summary


def test_a_url_mode_action_is_kept_and_any_other_value_of_its_key_masked():
    """`-a KEY=accept` (decline, cancel) answering a URL-mode request is an action, kept as
    typed so that the line recalled works; another value of that key stays masked."""
    from mrtr_cli.shell.history import scrub

    def secret_field(where: str, name: str) -> bool:
        return (where, name) == ("answer", "login")

    def kept(line: str) -> str | None:
        return scrub(line, secrets=set(), secret_field=secret_field, action_field=lambda name: name == "login")

    for action in ("accept", "decline", "cancel"):
        assert kept(f"resume -a login={action}") == f"resume -a login={action}"
        assert kept(f"resume -alogin={action}") == f"resume -alogin={action}"
        assert kept(f"resume --answer=login={action}") == f"resume --answer=login={action}"
    assert kept("resume -a login=sk-abc") == "resume -a 'login=***'"
    assert kept("resume -a login:='\"accept\"'") == "resume -a 'login:=***'"
