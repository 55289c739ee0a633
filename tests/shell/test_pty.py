"""`mrtr shell` at a real pseudo-terminal (pexpect), against the bundled example server and
the SDK test server tests/servers/shell_server.py, over stdio and HTTP: Tab completion of a
tool name, an argument name and an enum value, a form answered in place, Ctrl-C during a
call (the server sees it cancelled, the shell goes on), Ctrl-C at the prompt, Ctrl-D, the
history across two shells (and no secret in its file), a list change shown above the
prompt and offered by completion, the prompt after exit 5, and one server process for the
whole shell. stdout goes to a file and holds only the results."""

from __future__ import annotations

import io
import json
import os
import shlex
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_SERVER, PY, ROOT, SERVERS, HttpServers, clean_env, stdio_cmd, url_args
from tests.support import SAFETY, running, wait_for
from tests.terminals import spawn_pty

pexpect = pytest.importorskip("pexpect")
pyte = pytest.importorskip("pyte")

pytestmark = pytest.mark.pty

SHELL_SERVER = SERVERS / "shell_server.py"
PICKY = SERVERS / "picky_server.py"
ENTER, TAB, CTRL_C, CTRL_D, UP = "\r", "\t", "\x03", "\x04", "\x1b[A"
ROWS, COLUMNS = 40, 140
PROMPT_ENDS = "\x1b[?2004l"  # bracketed paste off: a prompt took its line
PASTE = "\x1b[200~%s\x1b[201~"  # text pasted (bracketed paste)


class Shell:
    """`mrtr ARGS shell` in a pseudo-terminal whose screen is kept by a terminal emulator
    (pyte): the line editor redraws only what changed, so what a person sees is read from
    the screen, not from the stream of bytes. The emulator answers the line editor's
    cursor-position requests as a terminal does."""

    def __init__(self, tmp_path: Path, *args: str, name: str = "stdout.txt", env: dict[str, str] | None = None,
                 command: tuple[str, ...] = ("shell",)):
        self.out = tmp_path / name
        words = [PY, "-m", "mrtr_cli", *map(str, args), *command]
        command_line = shlex.join(words) + f" > {shlex.quote(str(self.out))}"
        self.child = spawn_pty("/bin/sh", ["-c", "exec " + command_line], cwd=str(ROOT), encoding="utf-8",
                               timeout=SAFETY, env=clean_env(tmp_path, {"TERM": "xterm-256color", **(env or {})}),
                               dimensions=(ROWS, COLUMNS))
        self.term = pyte.Screen(COLUMNS, ROWS)
        self.term.write_process_input = self.child.send  # cursor-position reports
        self.stream = pyte.Stream(self.term)
        self.log = io.StringIO()

    def _read(self, wait: float) -> None:
        try:
            data = self.child.read_nonblocking(65536, timeout=wait)
        except pexpect.TIMEOUT:
            return
        self.log.write(data)
        self.stream.feed(data)

    def wait(self, check: Callable[[], bool], what: str) -> None:
        """Read what the shell draws until `check()` is true (a safety-net time limit)."""
        deadline = time.monotonic() + SAFETY
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} did not show; the screen:\n" + "\n".join(self.term.display))
            try:
                self._read(0.2)
            except pexpect.EOF:
                raise AssertionError(f"the shell ended before {what}; the screen:\n"
                                     + "\n".join(self.term.display)) from None

    @property
    def line(self) -> str:
        """The screen line the cursor is on."""
        return self.term.display[self.term.cursor.y].rstrip()

    def expect(self, text: str) -> None:
        """Wait until `text` is on the screen."""
        self.wait(lambda: any(text in row for row in self.term.display), repr(text))

    def expect_line(self, text: str) -> None:
        """Wait until the line being typed ends with `text`."""
        self.wait(lambda: self.line.endswith(text.rstrip()), f"the line ending {text!r}")

    def prompt(self, name: str = "shell-test") -> None:
        """Wait for a new, empty prompt."""
        self.wait(lambda: self.line == name + ">" and self.term.cursor.x == len(name) + 2, f"the prompt {name}>")

    def type(self, keys: str) -> None:
        self.child.send(keys)

    def submit(self, line: str = "") -> None:
        """Type `line` and Enter, and wait until the line editor took it (it turns
        bracketed paste off as a prompt ends)."""
        before = self.log.getvalue().count(PROMPT_ENDS)
        self.type(line + ENTER)
        self.wait(lambda: self.log.getvalue().count(PROMPT_ENDS) > before, f"{line!r} to be accepted")

    def run(self, line: str, name: str = "shell-test") -> None:
        """Type `line`, Enter, and wait for the next prompt."""
        self.submit(line)
        self.prompt(name)

    def finish(self) -> int:
        """Ctrl-D at the prompt; the shell's exit code."""
        self.type(CTRL_D)
        try:
            while True:
                self._read(0.2)
        except pexpect.EOF:
            pass
        self.child.close()
        return self.child.exitstatus

    @property
    def stdout(self) -> str:
        return self.out.read_text(encoding="utf-8")

    @property
    def screen(self) -> str:
        return "\n".join(self.term.display)


def shell_server(kind: str, tmp_path: Path, http_servers: HttpServers) -> tuple[list[str], Path]:
    events = tmp_path / f"events-{kind}.jsonl"
    args = (["--stdio", stdio_cmd(SHELL_SERVER, "--events", str(events))] if kind == "stdio"
            else url_args(http_servers.start(SHELL_SERVER, "--events", str(events))))
    return args, events


def started(kind: str, tmp_path: Path, http_servers: HttpServers) -> tuple[Shell, Path]:
    """A shell on the shell test server over `kind`, at its first prompt, and the server's events file."""
    args, path = shell_server(kind, tmp_path, http_servers)
    s = Shell(tmp_path, *args)
    s.prompt()
    return s, path


def events(path: Path, name: str) -> list[dict]:
    lines = path.read_text().splitlines() if path.exists() else []
    return [e for e in map(json.loads, lines) if e["event"] == name]


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_tab_completes_a_tool_and_an_argument_and_a_form_is_answered_in_place(tmp_path, kind, http_servers):
    target = (["--stdio", stdio_cmd(EXAMPLE_SERVER)] if kind == "stdio"
              else url_args(http_servers.start(EXAMPLE_SERVER)))
    s = Shell(tmp_path, *target)
    s.prompt("work-items")
    s.type("call upd" + TAB)
    s.expect_line("work-items> call update_work_item")
    s.type("workItemId=4522 st" + TAB)
    s.expect_line("call update_work_item workItemId=4522 state=")
    s.submit("Resolved")
    s.expect("Resolution")  # the form, in place
    s.type(ENTER)  # Fixed
    s.expect("Comment")
    s.type(ENTER)
    s.expect("Send these answers?")
    s.type(ENTER)
    s.prompt("work-items")
    assert s.finish() == 0
    assert s.stdout.startswith("Work item 4522 resolved: Fixed.\n")


def test_no_slow_server_notice_while_an_older_servers_form_is_answered(tmp_path):
    # A 2025-11-25 server asks during the call: the time the person takes is not the
    # server's silence. The notice may come only once the server has been silent for
    # MRTR_WAIT_NOTICE_SECONDS after the answer was sent (at least that long after the key).
    notice = 2.0
    s = Shell(tmp_path, "--stdio", stdio_cmd(SERVERS / "legacy_server.py", "--version", "2025-11-25"),
              env={"MRTR_WAIT_NOTICE_SECONDS": f"{notice:g}"})
    s.prompt("legacy-test")
    s.submit("call book_table date=mon")
    s.expect("Party size")
    s.type("2" + ENTER)
    s.expect("Seating")
    s.type(ENTER)
    s.expect("Send these answers?")
    thinking = time.monotonic() + notice + 1  # the person thinking, the form on screen
    s.wait(lambda: time.monotonic() >= thinking, "the end of the thinking")
    assert "has not answered" not in s.screen
    sent = time.monotonic()
    s.type(ENTER)
    s.prompt("legacy-test")
    if "has not answered" in s.screen:
        assert time.monotonic() - sent >= notice, "the notice counted the time the form was on screen"
    assert s.finish() == 0
    assert s.stdout.startswith("Booked a table for 2 (indoor) on mon.\n")


def test_tab_completes_an_enum_value(tmp_path, http_servers):
    s, _ = started("stdio", tmp_path, http_servers)
    s.type("call set_state item=2 state=Re" + TAB)
    s.expect_line("shell-test> call set_state item=2 state=Resolved")
    s.run("")
    assert s.finish() == 0
    assert s.stdout == "item 2 is Resolved\n"


def test_tab_offers_no_name_an_item_would_read_as_another(tmp_path):
    """Tab's menu of a tool's names lists no `k=v=` (which sets `k`), `x.y=` (which sets `y`
    of `x`) or `-dash=` (an option); an enum value with a space is completed quoted, and
    the call gets it (tests/servers/odd_names_server.py)."""
    s = Shell(tmp_path, "--stdio", stdio_cmd(SERVERS / "odd_names_server.py"))
    s.prompt("odd-names")
    s.type("call odd " + TAB)
    s.expect("nested.inner=")  # the menu, drawn whole
    assert not {"k=v=", "x.y=", "-dash=", "a:="} & set(s.screen.split()), s.screen
    s.type(CTRL_C)
    s.prompt("odd-names")
    s.type("call odd mode=In" + TAB)
    s.expect_line("odd-names> call odd 'mode=In Progress'")
    s.run("", "odd-names")
    assert s.finish() == 0
    assert s.stdout == '{"mode": "In Progress"}\n'


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_ctrl_c_cancels_the_call_and_the_shell_goes_on(tmp_path, kind, http_servers):
    s, path = started(kind, tmp_path, http_servers)
    s.submit("call hang")
    wait_for(lambda: events(path, "started"), what="the call reached the server")
    s.type(CTRL_C)
    s.expect("mrtr: interrupted")
    s.prompt()
    rows = [row.rstrip() for row in s.term.display]
    cancelling = next(n for n, row in enumerate(rows) if "mrtr: cancelling tools/call hang" in row)
    assert rows[cancelling + 1] == "mrtr: interrupted", s.screen  # no stray blank line between them
    wait_for(lambda: events(path, "cancelled"), what="the server saw the call cancelled")
    s.run("call echo text=still-here")
    assert s.finish() == 0
    assert s.stdout == "still-here\n"


def test_ctrl_c_at_the_prompt_clears_the_line_and_ctrl_d_stops_the_server(tmp_path, http_servers):
    s, path = started("stdio", tmp_path, http_servers)
    s.type("call echo text=dropped")
    s.expect_line("shell-test> call echo text=dropped")
    s.type(CTRL_C)
    s.prompt()
    s.run("call echo text=kept")
    s.run("call pid")
    s.run("call echo text=again")
    assert s.finish() == 0
    out = s.stdout.splitlines()
    assert out[0] == "kept" and out[2] == "again"
    (start,) = events(path, "start")  # one server process for the whole shell
    assert int(out[1]) == start["pid"]
    assert not running(start["pid"])  # stopped with the shell


def test_history_is_kept_across_shells_without_secrets(tmp_path, http_servers):
    args, _ = shell_server("stdio", tmp_path, http_servers)
    s = Shell(tmp_path, *args)
    s.prompt()
    s.run("call login user=ada code_word=xyzzy-57")
    s.run("call echo text=plain-line")
    s.run("call unlock -a password=hunter2-57")
    assert s.finish() == 0
    history = tmp_path / "state" / "mrtr" / "shell-history"
    data = history.read_bytes()
    assert b"xyzzy-57" not in data and b"hunter2-57" not in data
    assert b"call echo text=plain-line" in data
    assert (history.stat().st_mode & 0o777) == 0o600
    second = Shell(tmp_path, *args, name="second.txt")
    second.prompt()
    second.type(UP)  # the last line of the first shell
    second.expect_line("shell-test> call unlock -a 'password=***'")
    second.type(UP + UP)
    second.expect_line("shell-test> call login user=ada 'code_word=***'")
    second.type(CTRL_C)
    second.prompt()
    second.type("\x12plain")  # Ctrl-R: search back
    second.expect("call echo text=plain-line")
    second.type(ENTER)  # take what was found
    second.expect_line("shell-test> call echo text=plain-line")
    second.submit()
    second.prompt()
    assert second.finish() == 0
    assert second.stdout == "plain-line\n"


def test_history_keeps_no_word_the_line_cannot_take(tmp_path, http_servers):
    """A token pasted on its own onto a call line (no `=`, among its `KEY=VALUE` items) or past
    what a command takes is kept as `***` in the history, and its error does not print it."""
    args, _ = shell_server("stdio", tmp_path, http_servers)
    s = Shell(tmp_path, *args)
    s.prompt()
    s.run("call echo text=plain-line ghp_pasted123456")
    s.run("tools echo ghp_extra123456")
    s.run("cal echo")
    s.run("call echo text=plain-line --timeout ghp_timeout123456")  # a value the option refuses
    s.run("call echo text=plain-line --timeout 30")  # one it takes is kept as typed
    assert "(16 characters, not shown)" in s.screen and "(15 characters, not shown)" in s.screen, s.screen
    assert "(17 characters, not shown)" in s.screen, s.screen
    s.finish()
    data = (tmp_path / "state" / "mrtr" / "shell-history").read_text()
    errors = [row for row in s.screen.splitlines() if "error" in row]
    assert len(errors) == 4 and not any("123456" in row for row in errors), s.screen
    assert "123456" not in data, data
    assert "call echo text=plain-line '***'" in data and "tools echo '***'" in data and "cal echo" in data, data
    assert "call echo text=plain-line --timeout '***'" in data, data
    assert "call echo text=plain-line --timeout 30" in data, data


def test_history_keeps_no_word_an_error_hid(tmp_path, http_servers):
    """A value an option refuses (click's check or mrtr's own), a flag given a value, an
    `-a` with no `=` and a session option's value given on a line: each error names the
    word by place without printing it, and the history keeps it as `***` (the same
    decision: the words the error hid)."""
    args, _ = shell_server("stdio", tmp_path, http_servers)
    s = Shell(tmp_path, *args)
    s.prompt()
    lines = ["call echo --timeout ghp_one123456", "call echo -a ghp_two123456 text=x",
             "call echo --json=ghp_three12345",
             "tools --max-message-size ghp_four1234567", "help ghp_five1234567"]
    for line in lines:
        s.run(line)
    s.finish()
    data = (tmp_path / "state" / "mrtr" / "shell-history").read_text()
    errors = [row for row in s.screen.splitlines() if "error" in row]
    assert len(errors) == len(lines) and not any("ghp_" in row for row in errors), s.screen
    assert "ghp_" not in data, data
    kept = ["call echo --timeout '***'", "call echo -a '***' text=x", "call echo '--json=***'",
            "tools --max-message-size '***'", "help '***'"]
    assert all(f"+{line}\n" in data for line in kept), data


def test_history_keeps_no_secret_inside_json_or_an_options_value(tmp_path, http_servers):
    """A secret inside `--args` JSON (`code_word` is `writeOnly` in login's inputSchema), inside
    `NAME:=JSON`, and a token typed as `--bearer-token-env`'s value are `***` in the history file
    where they stood; a second shell recalls the lines so."""
    args, _ = shell_server("stdio", tmp_path, http_servers)
    s = Shell(tmp_path, *args)
    s.prompt()
    s.run("call login --args '{\"user\": \"ada\", \"code_word\": \"xyzzy-58\"}'")
    s.run("call echo text:='{\"password\": \"hunter2-58\"}'")
    s.run("tools --bearer-token-env tok-58-abcdef")
    assert s.finish() == 0
    data = (tmp_path / "state" / "mrtr" / "shell-history").read_text()
    assert "xyzzy-58" not in data and "hunter2-58" not in data and "tok-58" not in data, data
    second = Shell(tmp_path, *args, name="second.txt")
    second.prompt()
    second.type(UP)
    second.expect_line("shell-test> tools --bearer-token-env '***'")
    second.type(UP)
    second.expect_line("""shell-test> call echo 'text:={"password": "***"}'""")
    second.type(UP)
    second.expect_line("""shell-test> call login --args '{"user": "ada", "code_word": "***"}'""")
    second.type(CTRL_C)
    second.prompt()
    assert second.finish() == 0
    assert "xyzzy-58" not in second.screen and "tok-58" not in second.screen


def test_history_leaves_out_answers_to_fields_the_form_marks_secret(tmp_path):
    """`sign_in`'s `login.pin` is a secret by the form's schema only (`writeOnly`): an `-a`
    answer to it, in any spelling, is not in the history, even on the line that first
    showed the form (the history is written once the line has run)."""
    s = Shell(tmp_path, "--stdio", stdio_cmd(SERVERS / "forms_server.py"))
    s.prompt("forms-test")
    s.run("call sign_in -a login.user=bob -a login.pin=2472 -a terms.agree=true -a otp.code=777115", "forms-test")
    s.run("call sign_in -a login.user=bob -apin=2468 -a terms.agree=true -a otp.code=777111", "forms-test")
    # lines that end before any form comes still know the fields the session's forms marked
    s.run("call no_such_tool -a pin=5913", "forms-test")
    s.run("call sign_in -a login.pin=5914 --timeout nan", "forms-test")
    s.run("ping", "forms-test")
    assert s.finish() == 0
    assert s.stdout.splitlines()[:2] == ["welcome bob: pin wrong, code wrong", "welcome bob: pin ok, code ok"]
    data = (tmp_path / "state" / "mrtr" / "shell-history").read_text()
    assert "2472" not in data and "2468" not in data, data
    assert "5913" not in data and "5914" not in data, data
    assert "no_such_tool" in data and "--timeout nan" in data, data
    assert "777115" not in data and "777111" not in data, data
    assert "+ping" in data and "login.user=bob" in data, data


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_a_list_change_shows_above_the_prompt_and_completes(tmp_path, kind, http_servers):
    flag = tmp_path / "now"
    s, path = started(kind, tmp_path, http_servers)
    s.run(f"call add_tool_when name=fresh_tool path={flag}")
    s.type("call fre")  # being typed when the change arrives
    s.expect_line("shell-test> call fre")
    flag.write_text("")
    s.expect("mrtr: shell: the server's tool list changed")
    s.expect_line("shell-test> call fre")  # drawn again below the message, whole
    s.type(TAB)  # and the new tool completes
    s.expect_line("shell-test> call fresh_tool")
    s.run("")
    assert s.finish() == 0
    assert s.stdout.splitlines()[-1] == "fresh_tool here"
    assert len(events(path, "start")) == 1


def test_the_prompt_says_a_call_can_be_resumed(tmp_path, http_servers):
    s, _ = started("stdio", tmp_path, http_servers)
    s.submit("call unlock --no-input")
    s.prompt("shell-test (resume)")
    s.run("resume -a password=open-sesame")  # the plain prompt again: nothing left to resume
    assert s.finish() == 0
    assert s.stdout.splitlines()[-1] == "unlocked"


def test_ctrl_c_at_a_form_keeps_the_call_for_a_bare_resume(tmp_path, http_servers):
    """Ctrl-C while a form asks: the line ends with 130, and the call it interrupted is the
    one a bare `resume` finishes (as after exit 5), without naming the file it was saved in."""
    s, _ = started("stdio", tmp_path, http_servers)
    s.submit("call unlock")
    s.expect("The password, please")  # the form, in place
    s.type(CTRL_C)
    s.prompt("shell-test (resume)")
    s.run("resume -a password=open-sesame")
    assert s.finish() == 0  # at a terminal, leaving is 0
    assert s.stdout.splitlines()[-1] == "unlocked"


def test_lines_pasted_at_once_run_in_turn(tmp_path, http_servers):
    s, _ = started("stdio", tmp_path, http_servers)
    s.type("\x1b[200~call echo text=p1\n# a comment\ncall echo text=p2\x1b[201~")  # a bracketed paste
    s.run("")
    assert s.finish() == 0
    assert s.stdout == "p1\np2\n"
    history = (tmp_path / "state" / "mrtr" / "shell-history").read_text()
    assert "+call echo text=p1\n" in history and "+call echo text=p2\n" in history


def test_a_paste_ending_with_a_newline_runs_every_line_without_another_enter(tmp_path, http_servers):
    s, _ = started("stdio", tmp_path, http_servers)
    s.type(PASTE % "call echo text=p1\n# a comment\ncall echo text=p2\ncall echo text=p3\n")
    s.wait(lambda: s.out.exists() and s.stdout == "p1\np2\np3\n", "the results of the three lines")  # no Enter
    s.prompt()
    assert s.finish() == 0
    history = (tmp_path / "state" / "mrtr" / "shell-history").read_text()
    assert all(f"+call echo text={text}\n" in history for text in ("p1", "p2", "p3"))


def test_the_last_line_of_a_paste_without_a_newline_is_left_to_finish(tmp_path, http_servers):
    s, _ = started("stdio", tmp_path, http_servers)
    s.type(PASTE % "call echo text=p1\ncall echo text=p2")
    s.wait(lambda: s.out.exists() and s.stdout == "p1\n", "the result of the first line")
    s.expect_line("shell-test> call echo text=p2")  # in the editor, not run
    assert s.stdout == "p1\n"
    s.run("x")  # finished by the person
    assert s.finish() == 0
    assert s.stdout == "p1\np2x\n"


def at_prompt(s: Shell) -> None:
    """Wait for a new, empty prompt of any name (the picky server's is its command line)."""
    s.wait(lambda: s.line.endswith(">") and s.term.cursor.x == len(s.line) + 1 and "note" not in s.line,
           "an empty prompt")


def test_a_paste_into_a_form_field_is_never_run_as_commands(tmp_path):
    """Lines pasted into a form's field (bracketed paste): the field keeps the first line;
    the others are dropped with a notice, never run at the next prompt."""
    s = Shell(tmp_path, "--stdio", stdio_cmd(PICKY))
    at_prompt(s)
    s.submit("call optional_flag")
    s.expect("(leave empty)")
    s.type(ENTER)
    s.expect("note")
    s.type(PASTE % "first line\ncall echo a=1\n")
    s.expect_line("note first line")
    s.type(ENTER)
    s.expect("Send these answers?")
    s.submit("")
    at_prompt(s)
    s.submit("call echo a=2")
    at_prompt(s)
    assert s.finish() == 0
    assert s.stdout.splitlines() == ['{"note": "first line"}', '{"a": 2}']
    assert "1 more line was left out" in s.screen, s.screen


def test_keys_left_after_a_forms_last_answer_are_never_run_as_a_command(tmp_path):
    """Lines pasted at a form's last question without bracketed paste are keys typed at
    once: Enter sends the form; the line after it is dropped with a notice, never run at the
    next prompt. (Each key is typed once its question shows: keys typed before a question
    shows never answer it.)"""
    s = Shell(tmp_path, "--stdio", stdio_cmd(PICKY))
    at_prompt(s)
    s.submit("call optional_flag")
    s.expect("(leave empty)")
    s.type(ENTER)
    s.expect("note")
    s.type("first line" + ENTER)
    s.expect("Send these answers?")
    s.type(ENTER + "call echo a=1" + ENTER)
    s.wait(lambda: s.out.exists() and s.stdout != "", "the form's result")
    at_prompt(s)
    s.submit("call echo a=2")
    at_prompt(s)
    assert s.finish() == 0
    assert s.stdout.splitlines() == ['{"note": "first line"}', '{"a": 2}']
    assert "typed after the form's last answer was dropped" in s.screen, s.screen


def test_a_notice_during_a_form_goes_above_the_field_being_typed(tmp_path, http_servers):
    """A list change announced while a form asks is printed on lines of its own above the
    field, which is drawn again below it with what was typed (as at the shell's prompt)."""
    flag = tmp_path / "now"
    s, _ = started("stdio", tmp_path, http_servers)
    s.run(f"call add_tool_when name=fresh_tool path={flag}")
    s.submit("call unlock")
    s.expect("The password, please")
    s.type("open-")
    s.expect_line("password * open-")
    flag.write_text("")
    s.expect("mrtr: shell: the server's tool list changed")
    s.expect_line("password * open-")  # drawn again below the notice, whole
    assert all("changed" not in row or row.startswith("mrtr: shell:") for row in s.term.display), s.screen
    s.type("sesame" + ENTER)
    s.expect("Send these answers?")
    s.run("")
    assert s.finish() == 0
    assert s.stdout.splitlines()[-1] == "unlocked"


def test_a_secret_typed_but_not_entered_is_not_kept_at_ctrl_c(tmp_path, http_servers):
    s, _ = started("stdio", tmp_path, http_servers)
    s.submit("call unlock")
    s.expect("The password, please")
    s.type("open-ses")
    s.expect_line("password * open-ses")
    s.type(CTRL_C)
    s.prompt("shell-test (resume)")
    assert s.finish() == 0
    saved = list((tmp_path / "state" / "mrtr" / "pending").iterdir())
    assert saved and not any("open-ses" in path.read_text() for path in saved)


def test_a_history_file_that_is_a_fifo_is_left_alone(tmp_path, http_servers):
    """Nothing is read from or written to a history "file" that is a FIFO nobody reads:
    the shell neither hangs at the start nor when a line is kept."""
    (tmp_path / "state" / "mrtr").mkdir(parents=True)
    os.mkfifo(tmp_path / "state" / "mrtr" / "shell-history")
    s, _ = started("stdio", tmp_path, http_servers)
    s.run("call echo text=kept-out")
    assert s.finish() == 0
    assert s.stdout == "kept-out\n"


def test_a_server_that_dies_at_the_prompt_is_said_once_and_started_again(tmp_path, http_servers):
    s, path = started("stdio", tmp_path, http_servers)
    (first,) = events(path, "start")
    os.kill(first["pid"], signal.SIGKILL)  # while nothing runs
    s.expect("mrtr: shell: the server stopped: the server process ")  # exited, or died (by the test launcher)
    s.expect("; the next command starts it again")
    s.prompt("shell-test (stopped)")
    s.run("call pid")
    assert s.screen.count("the server stopped") == 1
    s.expect("mrtr: shell: starting the server again")
    assert s.finish() == 0
    (_, second) = events(path, "start")
    assert s.stdout == f"{second['pid']}\n" and second["pid"] != first["pid"]


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_stop_signal_ends_the_shell_and_its_server(tmp_path, http_servers, signame):
    # Ctrl-C cancels one command; SIGTERM (kill, a CI job cancelled) and SIGHUP (the
    # terminal closed) end the shell, with the server it started.
    s, path = started("stdio", tmp_path, http_servers)
    s.run("call echo text=one")
    (start,) = events(path, "start")
    s.child.kill(getattr(signal, signame))
    s.wait(lambda: "mrtr: shell: ended by" in s.log.getvalue(), "the shell's last line")
    s.child.expect(pexpect.EOF, timeout=SAFETY)
    s.child.close()
    assert s.child.exitstatus == 130, s.screen
    assert f"mrtr: shell: ended by {signame}" in s.log.getvalue()
    wait_for(lambda: not running(start["pid"]), what="the server to end")
