"""Ctrl-C at a task's form, at a real pseudo-terminal: the task goes on running on the
server, the fields typed so far are kept (never a secret one), and the message names the
command that goes on with them: a bare `resume` inside `mrtr shell`, `mrtr resume FILE`
from the command line, whose form starts with those fields."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import SERVERS, HttpServers, stdio_cmd, url_args
from tests.shell.test_pty import CTRL_C, ENTER, Shell
from tests.support import spawn

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.pty

TASK_SERVER = SERVERS / "task_server.py"


def target(kind: str, tmp_path: Path, http_servers: HttpServers) -> list[str]:
    """The task server over `kind` (over stdio its tasks are kept in a file)."""
    if kind == "stdio":
        return ["--stdio", stdio_cmd(TASK_SERVER, "--store", str(tmp_path / "store.json"))]
    return url_args(http_servers.start(TASK_SERVER))


def confirmed(s: Shell) -> str:
    """Send the answers of the form on screen (Enter at its confirmation), then leave the shell
    (exit 0): the last line the task's result printed."""
    s.expect("Send these answers?")
    s.type(ENTER)
    s.prompt("task-test")
    assert s.finish() == 0
    return s.stdout.splitlines()[-1]


def saved(tmp_path: Path) -> list[str]:
    """The texts of the pending documents saved in the state directory."""
    folder = tmp_path / "state" / "mrtr" / "pending"
    return [p.read_text() for p in folder.iterdir()] if folder.exists() else []


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_ctrl_c_at_a_task_form_in_the_shell_keeps_the_fields_for_a_bare_resume(tmp_path, kind, http_servers):
    s = Shell(tmp_path, *target(kind, tmp_path, http_servers))
    s.prompt("task-test")
    s.submit("call ask_once")
    s.expect("Who should be greeted")
    s.type("An")
    s.expect_line("name * An")
    s.type(CTRL_C)
    s.prompt("task-test (resume)")
    screen = re.sub(r"\s+", " ", s.screen)
    assert "is still running on the server" in screen, screen
    assert "resume finishes it here" in screen, screen
    after = re.search(r"after this shell: mrtr resume (\S+)", s.log.getvalue())  # saved too
    assert after is not None, screen
    assert json.loads(Path(after.group(1)).read_text(encoding="utf-8"))["answersTemplate"], screen
    s.submit("resume")
    s.expect_line("name * An")  # the form starts with what was typed
    s.type("n" + ENTER)
    assert confirmed(s) == "hello Ann"


def test_a_secret_field_of_a_task_form_is_asked_again_after_ctrl_c(tmp_path, http_servers):
    s = Shell(tmp_path, *target("http", tmp_path, http_servers))
    s.prompt("task-test")
    s.submit("call sign_in")
    s.expect("Sign in")
    s.type("Bo" + ENTER)
    s.type("hunter2")
    s.expect_line("password * hunter2")  # typed, not Entered
    s.type(CTRL_C)
    s.prompt("task-test (resume)")
    kept = saved(tmp_path)
    assert kept and not any("hunter2" in text for text in kept)
    s.submit("resume")
    s.expect_line("user * Bo")
    s.type(ENTER)
    s.expect_line("password *")  # empty: asked again
    s.type("swordfish" + ENTER)
    assert confirmed(s) == "signed in Bo"


def test_ctrl_c_at_a_task_form_from_the_command_line_names_the_resume_that_keeps_the_fields(tmp_path, http_servers):
    args = target("http", tmp_path, http_servers)
    child, out = spawn(tmp_path, *args, "call", "ask_once")
    child.expect("Who should be greeted")
    child.send("An")
    child.expect("An")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    text = re.sub(r"\s*\n\s*", " ", child.before)
    assert re.search(r"interrupted at a question from task ask_once-\S+ \(input_required\); the task is still "
                     r"running on the server", text), text
    assert re.search(r"or wait for it, the form asked afresh: mrtr --url \S+ task wait ask_once-", text), text
    path = re.search(r"mrtr resume (\S+)", text).group(1)
    (doc,) = map(json.loads, saved(tmp_path))
    assert doc["answersTemplate"]["inputResponses"]["name-1"]["content"] == {"name": "An"}
    child, out = spawn(tmp_path, "resume", path)
    child.expect("Who should be greeted")
    child.send("n" + ENTER)  # after the "An" typed before
    child.expect(r"Send these answers\?")
    child.send(ENTER)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert out.read_text() == "hello Ann\n"
    assert saved(tmp_path) == []  # finished: the saved document is spent


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_a_stop_signal_at_a_task_form_in_the_shell_names_only_commands_for_after_it(tmp_path, kind, signame,
                                                                                    http_servers):
    """A stop signal while a task's form is drawn ends the shell with that line: every
    command its message names is one typed at the user's own shell (`mrtr resume FILE`,
    `mrtr --url URL task wait ID`), none a line of the shell that has ended."""
    import signal

    from tests.support import SAFETY

    args = target(kind, tmp_path, http_servers)
    s = Shell(tmp_path, *args)
    s.prompt("task-test")
    s.submit("call ask_once")
    s.expect("Who should be greeted")
    s.type("An")
    s.expect_line("name * An")
    s.child.kill(getattr(signal, signame))
    s.child.expect(pexpect.EOF, timeout=SAFETY)
    s.child.close()
    shown = s.log.getvalue() + (s.child.before or "")
    text = re.sub(r"\s*\n\s*", " ", shown)
    assert s.child.exitstatus == 130, shown
    assert f"mrtr: shell: ended by {signame}" in text, shown
    assert "resume finishes it here" not in text, shown
    path = re.search(r"mrtr resume (\S+) finishes it", text)
    assert path is not None, shown
    assert json.loads(Path(path.group(1)).read_text(encoding="utf-8"))["taskId"].startswith("ask_once-"), shown
    import shlex

    # the target as given (`--url URL` or `--stdio CMD`, not the test's --probe-timeout,
    # which is no part of the target), to the shell and to the user's own shell
    lead = "mrtr " + shlex.join(args[:2])
    commands = re.findall(r"(\S+ )task (?:wait|get|cancel|update) ask_once-", text)
    assert commands, shown
    assert len(re.findall(re.escape(lead) + r" task (?:wait|get|cancel|update) ask_once-", text)) == len(commands), \
        shown  # never the shell's bare `task wait ID`, which cannot work once the shell has ended
