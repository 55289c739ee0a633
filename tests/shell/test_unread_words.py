"""A word a shell line's command cannot take (a token pasted by mistake: a word with no `=`
among a call's `KEY=VALUE` items, an extra word, a first word that names no command, an
unknown option) is
never printed, from a script: not in the line's error (errors.UnreadWords names it by place
and length), not in the line naming the first failing line, not in the `--json` summary
(shell/grammar.py `unread_words`), against the SDK test server tests/servers/shell_server.py.
(The history file: test_pty.py.)"""

from __future__ import annotations

import json

import pytest

from tests.conftest import SERVERS, stdio_cmd

TARGET = ["--stdio", stdio_cmd(SERVERS / "shell_server.py")]
TOKEN = "ghp_abcdef123456"


@pytest.mark.parametrize(("line", "said", "summary"), [
    (f"call echo text=hi {TOKEN}", "word 4 (16 characters, not shown) is no argument", "call echo text=hi '***'"),
    (f"tools echo {TOKEN}", "unexpected extra argument: word 3 (16 characters, not shown)", "tools echo '***'"),
    (f"{TOKEN} echo", "No such command word 1 (16 characters, not shown)", "'***' echo"),
    (f"call echo text=hi --{TOKEN}", "No such option word 4 (18 characters, not shown)", "call echo text=hi '***'"),
    (f"call echo text=hi --timeout {TOKEN}", "Invalid value for '--timeout': word 5 (16 characters, not shown)",
     "call echo text=hi --timeout '***'"),
    (f"call echo text=hi --timeout={TOKEN}", "Invalid value for '--timeout': word 4 (16 characters, not shown)",
     "call echo text=hi '--timeout=***'"),
    (f"call echo text=hi --max-rounds {TOKEN}", "word 5 (16 characters, not shown)",
     "call echo text=hi --max-rounds '***'"),
    # a value an option refuses, by click's check or mrtr's own: the words its error hid
    (f"call echo --timeout {TOKEN}", "word 4 (16 characters, not shown) is not a number", "call echo --timeout '***'"),
    (f"call echo --color {TOKEN}", "word 4 (16 characters, not shown) is not one of", "call echo --color '***'"),
    (f"call echo -a {TOKEN}", "-a word 4 (16 characters, not shown): a flag without '='", "call echo -a '***'"),
    (f"call echo --json={TOKEN}", "does not take a value (given word 3 (16 characters", "call echo '--json=***'"),
    (f"mrtr call echo -a {TOKEN}", "-a word 4 (16 characters, not shown)", "mrtr call echo -a '***'"),
    (f"tools --max-message-size {TOKEN}", "--max-message-size sets up the session: give it on the shell's own",
     "tools --max-message-size '***'"),
    (f"help {TOKEN}", "help: no topic or command word 2 (16 characters, not shown)", "help '***'"),
])
def test_a_word_the_line_cannot_take_is_never_printed(mrtr, line, said, summary):
    run = mrtr(*TARGET, "shell", input=f"call echo text=fine\n{line}\n")
    assert run.code == 2, run.stderr
    assert TOKEN not in run.stderr and "123456" not in run.stderr, run.stderr
    assert said in run.stderr, run.stderr
    assert f"the first failing line is line 2 ({summary})" in run.stderr, run.stderr
    run = mrtr("--json", *TARGET, "shell", input=f"call echo text=fine\n{line}\n")
    assert run.code == 2 and TOKEN not in run.stderr, run.stderr
    shell = json.loads(run.stderr.splitlines()[-1])["shell"]
    assert shell["firstFailure"] == {"line": 2, "command": summary}, run.stderr


def test_a_typo_of_a_command_or_an_option_is_still_shown(mrtr):
    run = mrtr(*TARGET, "shell", input="cal echo\n")
    assert run.code == 2 and "No such command 'cal'. Did you mean 'call'?" in run.stderr, run.stderr
    assert "the first failing line is line 1 (cal echo)" in run.stderr, run.stderr
    run = mrtr(*TARGET, "shell", input="call echo text=fine\ncall echo --bogus\n")
    assert run.code == 2 and "No such option '--bogus'" in run.stderr, run.stderr
    assert "the first failing line is line 2 (call echo --bogus)" in run.stderr, run.stderr
    run = mrtr(*TARGET, "shell", input="call echo text=fine\ncall echo --timeout soon\n")  # a value spelled as a name
    assert run.code == 2 and "'soon' is not a number of seconds" in run.stderr, run.stderr
    assert "the first failing line is line 2 (call echo --timeout soon)" in run.stderr, run.stderr
