"""Tasks in a real pseudo-terminal (pexpect): the live status line on stderr, task input
asked at the terminal, and Ctrl-C leaving the task on the server."""

from __future__ import annotations

import re

import pytest

from tests.conftest import SERVERS, HttpServers, read_records, stdio_cmd, url_args
from tests.support import ENTER, SAFETY, spawn

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.pty

TASK_SERVER = SERVERS / "task_server.py"
FASTMCP_SERVER = SERVERS / "fastmcp_tasks_server.py"
ERASE_LINE = "\x1b[2K"


def answer_form(child: pexpect.spawn, value: str) -> None:
    """Type one field's value, then choose Send at the review step."""
    child.send(value + ENTER)
    child.expect(r"Send these answers\?")
    child.send(ENTER)


def task_server(transport: str, http_servers: HttpServers, tmp_path) -> tuple[list[str], object]:
    """Target arguments for the task server (tasks stored in a file over stdio) and its record file."""
    record = tmp_path / "record.jsonl"
    if transport == "stdio":
        command = stdio_cmd(TASK_SERVER, "--store", str(tmp_path / "store.json"), "--record", str(record))
        return ["--stdio", command], record
    return url_args(http_servers.start(TASK_SERVER, "--record", str(record))), record


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_status_line_updates_while_stdout_stays_empty(tmp_path, transport, http_servers):
    target, _ = task_server(transport, http_servers, tmp_path)
    # The task moves a step per poll (not per second): every step is drawn, however slowly
    # a loaded machine polls.
    child, out = spawn(tmp_path, *target, "call", "countdown", "polls:=6")
    child.expect(r"task countdown-")
    child.expect(r"step \d of 6")
    assert out.read_text() == ""
    child.expect(r"next poll in \d+s")
    # over stdio Ctrl-C stops the server process, so the line does not say it leaves the task running.
    child.expect("Ctrl-C stops the stdio server" if transport == "stdio" else "Ctrl-C leaves it running")
    child.expect(r"step \d of 6")
    redraw = child.before
    assert out.read_text() == ""
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert out.read_text() == "done after 6 polls\n"
    # The line is redrawn in place (erased and rewritten), not printed line after line.
    assert "\r" + ERASE_LINE in redraw, repr(redraw)  # back to the start, erase, draw again


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_ctrl_c_leaves_the_task_running_and_task_wait_finishes_it(tmp_path, transport, http_servers, mrtr):
    target, record = task_server(transport, http_servers, tmp_path)
    # The task ends after 20 polls, not at a time: it is still running when Ctrl-C comes,
    # however slowly a loaded machine drew the line.
    child, out = spawn(tmp_path, *target, "call", "countdown", "polls:=20")
    child.expect(r"step \d+ of 20")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    text = re.sub(r"\s*\n\s*", " ", child.before)
    task_id = re.search(r"task (countdown-\S+) \(working\) is still running on the server", text).group(1)
    assert re.search(rf"wait for it: mrtr --{'stdio' if transport == 'stdio' else 'url'} .* task wait {task_id}", text)
    assert out.read_text() == ""
    assert "tasks/cancel" not in [m["method"] for m in read_records(record)]
    listed = mrtr("task", "list", "--json").json()
    assert [(t["taskId"], t["status"]) for t in listed] == [(task_id, "working")]
    r = mrtr("task", "wait", "--", task_id)  # a new process, target from the local record
    assert r.code == 0, r.stderr
    assert r.stdout == "done after 20 polls\n"


def test_cancel_on_interrupt_cancels_the_task(tmp_path, http_servers, mrtr):
    target, record = task_server("http", http_servers, tmp_path)
    child, _ = spawn(tmp_path, *target, "call", "slow", "seconds:=3600", "--cancel-on-interrupt")  # ends if cancelled
    child.expect("Ctrl-C cancels it")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "asked the server to cancel task slow-" in child.before
    cancels = [m for m in read_records(record) if m.get("method") == "tasks/cancel"]
    assert len(cancels) == 1
    task_id = cancels[0]["params"]["taskId"]
    r = mrtr("task", "wait", "--", task_id)
    assert r.code == 6, r.stderr


def test_task_input_is_asked_at_the_terminal_and_asked_again(tmp_path):
    pytest.importorskip("fastmcp_tasks")
    child, out = spawn(tmp_path, "--stdio", stdio_cmd(FASTMCP_SERVER), "call", "unlock")
    child.expect(r"asks \(task .* of tools/call unlock, input ")
    child.expect("Enter the code")
    child.expect("code")
    answer_form(child, "41")
    child.expect("Wrong code; try again")  # a new input request (a new key) after the wrong answer
    child.expect("code")
    answer_form(child, "42")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert out.read_text() == "unlocked\n"  # structuredContent {"result": "unlocked"} adds nothing: said once


def test_task_input_at_the_terminal_over_http(tmp_path, http_servers):
    target, _ = task_server("http", http_servers, tmp_path)
    child, out = spawn(tmp_path, *target, "call", "ask_once")
    child.expect("Who should be greeted")
    answer_form(child, "Ann")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert out.read_text() == "hello Ann\n"


def test_the_status_line_ticks_while_tasks_get_takes_its_time(tmp_path, http_servers):
    target, _ = task_server("http", http_servers, tmp_path)
    child, out = spawn(tmp_path, *target, "call", "slow_get", "polls:=1")
    child.expect("polling \\(tasks/get\\)")
    # the elapsed clock moves on during the slow (3 s) request: 2 s or more (a loaded
    # machine may redraw the line too late for 2 s itself)
    child.expect("\\((?:[2-9]|[1-9][0-9]+)s")
    child.expect(pexpect.EOF, timeout=SAFETY)
    child.close()
    assert child.exitstatus == 0
    assert out.read_text() == "done after 1 polls\n"
