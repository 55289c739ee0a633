"""Help that reads well: `mrtr help TOPIC` piped is plain text (no Markdown syntax, no line
over 80 columns); at a terminal it is rendered (rich) and goes through the pager
(`MRTR_PAGER`, `PAGER`, `less -FRX`), as `mrtr --help` and `mrtr COMMAND --help` do;
`--no-pager` and `MRTR_PAGER=cat` turn the pager off; command lists are never cut
mid-sentence."""

from __future__ import annotations

import re
import sys

import pytest

from tests.conftest import PY
from tests.terminals import spawn_pty

TOPICS = ["exit-codes", "answers", "arguments", "environment", "configuration"]

#: Markdown syntax that must not reach a pipe: a heading mark, a code span or fence, strong
#: emphasis, a table row or rule, a link.
MARKDOWN = [re.compile(p, re.M) for p in (r"^\s*#{1,6} ", r"`", r"\*\*\w", r"^\s*\|", r"\|\s*$",
                                          r"^\s*\|?-{3,}\|", r"\]\(")]


@pytest.mark.parametrize("topic", TOPICS)
def test_a_piped_topic_is_plain_text_within_80_columns(mrtr_here, topic):
    r = mrtr_here("help", topic)
    assert r.code == 0, r.stderr
    for pattern in MARKDOWN:
        assert not pattern.search(r.stdout), (pattern.pattern, pattern.search(r.stdout))
    long = [line for line in r.stdout.splitlines() if len(line) > 80]
    assert long == []
    assert "\x1b" not in r.stdout


def test_the_exit_code_table_reads_as_a_list(mrtr_here):
    r = mrtr_here("help", "exit-codes")
    lines = r.stdout.splitlines()
    assert lines[0] == "EXIT CODES"
    assert "  0    success" in lines
    assert any(line.startswith("  130  interrupted") for line in lines)
    assert "isError: true" in r.stdout  # the code span's text stays, its backticks go


def test_plain_text_keeps_commands_and_cuts_no_word():
    from mrtr_cli.render.markdown import plain_text

    text = plain_text("# Title\n\nRun `mrtr --url http://127.0.0.1:8000/mcp tools` **now**, *please*; "
                      "this sentence goes on long enough to wrap at the eightieth column for sure.\n\n"
                      "| a | b | c |\n|---|---|---|\n| `--long-option-name-here` | one | two \\| three |\n\n"
                      "```sh\nmkdir -p ~/.config/fish/completions\n```\n")
    assert text.startswith("TITLE\n\nRun mrtr --url http://127.0.0.1:8000/mcp tools now, please;")
    assert "http://127.0.0.1:8000/mcp" in text.split()  # a URL is never broken
    assert "  --long-option-name-here\n      b: one\n      c: two | three\n" in text
    assert "    mkdir -p ~/.config/fish/completions\n" in text
    assert all(len(line) <= 80 for line in text.splitlines())


def test_command_lists_are_never_cut_mid_sentence(mrtr_here):
    for words in ([], ["task"], ["auth"]):
        r = mrtr_here(*words, "--help")
        assert r.code == 0, r.stderr
        listing = r.stdout.split("\nCommands:\n", 1)[1].split("\n\n", 1)[0]
        assert "..." not in listing, listing
        entries = re.split(r"\n  (?=\S)", "\n" + listing)[1:]
        for entry in entries:
            assert entry.rstrip().endswith((".", ")")), entry


# ---------------------------------------------------------------------- at a terminal

PAGER = """import os, sys
with open(os.environ["PAGER_LOG"], "a", encoding="utf-8") as log:
    log.write("pager ran with " + " ".join(sys.argv[1:]) + "\\n" + sys.stdin.read())
"""


def _at_terminal(tmp_path, *args: str, env: dict[str, str]) -> tuple[int, str, str]:
    """`mrtr ARGS` with a pseudo-terminal as stdout: (exit code, what reached the terminal,
    what the fake pager was given, "" when it never ran)."""
    from tests.conftest import SAFETY, clean_env

    log = tmp_path / "pager.log"
    child = spawn_pty(PY, ["-m", "mrtr_cli", *args], env=clean_env(tmp_path, {"PAGER_LOG": str(log),
                      "TERM": "xterm-256color", **env}), encoding="utf-8", timeout=SAFETY, dimensions=(30, 100))
    screen = child.read()
    child.close()
    return child.exitstatus, screen, log.read_text(encoding="utf-8") if log.exists() else ""


@pytest.fixture
def fake_pager(tmp_path):
    script = tmp_path / "pager.py"
    script.write_text(PAGER, encoding="utf-8")
    return f"{PY} {script} --marker"


@pytest.mark.pty
@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals (pexpect)")
@pytest.mark.parametrize("variable", ["MRTR_PAGER", "PAGER"])
def test_a_topic_at_a_terminal_is_rendered_and_paged(tmp_path, fake_pager, variable):
    code, screen, paged = _at_terminal(tmp_path, "help", "exit-codes", env={variable: fake_pager})
    assert code == 0
    assert paged.startswith("pager ran with --marker\n")
    assert "Exit codes" in paged and "# Exit codes" not in paged  # rendered: no heading mark
    assert "`" not in paged and "\x1b[" in paged  # styled by rich, for `less -R`
    assert "|---" not in paged and "| 130 |" not in paged
    assert "Exit codes" not in screen  # all of it went to the pager


@pytest.mark.pty
@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals (pexpect)")
@pytest.mark.parametrize("words", [["--help"], ["call", "--help"], ["help", "call"], ["task", "wait", "--help"]])
def test_command_help_at_a_terminal_is_paged(tmp_path, fake_pager, words):
    code, screen, paged = _at_terminal(tmp_path, *words, env={"MRTR_PAGER": fake_pager})
    assert code == 0
    assert paged.startswith("pager ran with --marker\nUsage: mrtr")
    assert "Usage:" not in screen


@pytest.mark.pty
@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals (pexpect)")
@pytest.mark.parametrize(("args", "env"), [(["--no-pager", "help", "exit-codes"], {}),
                                           (["help", "exit-codes", "--no-pager"], {}),
                                           (["call", "--help", "--no-pager"], {}),
                                           (["help", "exit-codes"], {"MRTR_PAGER": "cat"}),
                                           (["help", "exit-codes"], {"MRTR_PAGER": ""})])
def test_the_pager_can_be_turned_off(tmp_path, fake_pager, args, env):
    code, screen, paged = _at_terminal(tmp_path, *args, env={"PAGER": fake_pager, **env})
    assert code == 0 and paged == ""
    assert "Exit codes" in screen or "Usage: mrtr call" in screen


@pytest.mark.pty
@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals (pexpect)")
def test_a_pager_that_fails_loses_nothing(tmp_path):
    code, screen, _ = _at_terminal(tmp_path, "help", "exit-codes",
                                   env={"PAGER": f"{PY} -c \"import sys; sys.exit(1)\""})
    assert code == 0
    assert "Exit codes" in screen  # printed as it is when the pager failed


def test_a_pipe_is_never_paged(mrtr, tmp_path, fake_pager):
    log = tmp_path / "pager.log"
    r = mrtr("help", "exit-codes", env={"MRTR_PAGER": fake_pager, "PAGER_LOG": str(log)})
    assert r.code == 0 and r.stdout.startswith("EXIT CODES\n") and not log.exists()
