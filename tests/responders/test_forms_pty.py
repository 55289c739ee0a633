"""Interactive answers in a real pseudo-terminal (pexpect): the forms appear on the terminal,
typed answers are sent, and stdout (redirected to a file) holds only the result."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from tests.conftest import EXAMPLE_SERVER, PY, ROOT, SERVERS, clean_env, stdio_cmd, url_args
from tests.support import DOWN, ENTER, SAFETY, spawn
from tests.terminals import spawn_pty

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.pty




@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_two_forms_in_turn_on_the_terminal(tmp_path, transport, http_servers):
    target = (["--stdio", stdio_cmd(EXAMPLE_SERVER)] if transport == "stdio"
              else url_args(http_servers.start(EXAMPLE_SERVER)))
    child, out = spawn(tmp_path, *target, "call", "update_work_item", "workItemId=4522", "state=Resolved", "--json")
    child.expect("asks \\(tools/call update_work_item, input resolution\\)")
    child.expect("How was work item 4522")
    child.expect("Resolution")
    child.send(DOWN + DOWN + ENTER)  # Fixed -> Won't Fix -> Duplicate
    child.expect("Comment")
    child.send("dup of 4301" + ENTER)
    child.expect("Send these answers\\?")
    child.send(ENTER)  # Send
    child.expect("Which work item does 4522 duplicate\\?")
    child.expect("Original work item id")
    child.send("abc" + ENTER)
    child.expect("expected an integer")
    child.send("\x08" * 3 + "4301" + ENTER)
    child.expect("Send these answers\\?")
    child.send(ENTER)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    result = json.loads(out.read_text())
    assert result["content"][0]["text"] == "Work item 4522 resolved as a duplicate of 4301."


def test_decline_from_the_review_step(tmp_path):
    child, out = spawn(tmp_path, "--stdio", stdio_cmd(EXAMPLE_SERVER), "call", "delete_work_item", "workItemId=4301")
    child.expect("Delete it")
    child.send("y")
    child.expect("Send these answers\\?")
    child.send(DOWN + DOWN + ENTER)  # Send -> Edit -> Decline
    child.expect(pexpect.EOF)
    screen = child.before
    child.close()
    assert child.exitstatus == 6
    assert out.read_text().strip() == "Work item 4301 was kept."
    # Exit 6 is said at the terminal, not left to the exit code alone.
    assert "an input request was declined or cancelled" in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen)
    assert "exit 6" in screen


def test_arguments_from_stdin_still_leave_the_terminal_to_ask(tmp_path):
    out = tmp_path / "stdout.txt"
    args = json.dumps({"workItemId": 4522, "state": "Resolved"})
    mrtr = " ".join(shlex.quote(a) for a in [PY, "-m", "mrtr_cli", "--stdio", stdio_cmd(EXAMPLE_SERVER),
                                              "call", "update_work_item", "--args", "-"])
    command = f"echo {shlex.quote(args)} | {mrtr} > {shlex.quote(str(out))}"
    child = spawn_pty("/bin/sh", ["-c", command], cwd=str(ROOT), env=clean_env(tmp_path),
                      encoding="utf-8", timeout=SAFETY, dimensions=(40, 140))
    child.expect("Resolution")  # asked on the terminal (/dev/tty), though stdin was the arguments
    child.send(ENTER)  # Fixed
    child.expect("Comment")
    child.send(ENTER)
    child.expect("Send these answers\\?")
    child.send(ENTER)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "4522" in out.read_text()


def test_a_long_opaque_input_key_is_shortened_in_the_form_header(tmp_path):
    """A server may key its questions with long opaque ids (a UUID, a digest): the header shows
    the start of one, as a task id is shown, not a line-long id."""
    key = "elicit-" + "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    ask = {"result": {"resultType": "input_required", "requestState": "s1", "inputRequests": {key: {
        "method": "elicitation/create", "params": {"mode": "form", "message": "Proceed?", "requestedSchema": {
            "type": "object", "properties": {"go": {"type": "boolean", "title": "Go"}}, "required": ["go"]}}}}}}
    done = {"result": {"resultType": "complete", "content": [{"type": "text", "text": "went"}]}}
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"calls": {"ask": [ask, done]}}))
    child, out = spawn(tmp_path, "--stdio", stdio_cmd(SERVERS / "raw_server.py", str(script)), "call", "ask")
    child.expect("Proceed\\?")
    header = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before)
    assert f"input {key[:16]}…)" in header, header
    assert key not in header
    child.expect("Go")  # the question itself: keys typed before it shows never answer it
    child.send("y")
    child.expect("Send these answers\\?")
    review = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before)
    assert f"(input {key[:16]}…)" in review and key not in review, review
    child.send(ENTER)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and out.read_text() == "went\n"


def test_a_server_log_during_a_form_goes_above_the_field_being_typed(tmp_path):
    """An older server's log message that arrives while its form asks (during the call) is
    printed on a line of its own above the field, which is drawn again below it whole."""
    from tests.shell.test_pty import Shell  # a screen kept by a terminal emulator (pyte)

    flag = tmp_path / "now"
    s = Shell(tmp_path, "--stdio", stdio_cmd(SERVERS / "legacy_server.py", "--version", "2025-11-25"),
              command=("call", "note_form", f"path={flag}"))
    s.expect("Leave a note")
    s.type("half a")
    s.expect_line("Note * half a")
    flag.write_text("")
    s.expect("[server info] the file is there")
    s.expect_line("Note * half a")  # drawn again below the log, whole
    assert all("the file is there" not in row or row.startswith("[server info]") for row in s.term.display), s.screen
    s.type(" note" + ENTER)
    s.expect("Send these answers?")
    s.type(ENTER)
    assert s.finish() == 0
    assert s.stdout == "note: half a note\n"
