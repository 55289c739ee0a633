"""2025-11-25 tasks in a real pseudo-terminal (pexpect): the server's question, sent while
`tasks/result` blocks, is asked at the terminal; the status line keeps ticking while
`mrtr` waits in `tasks/result`; Ctrl-C leaves the task running or, with
`--cancel-on-interrupt`, cancels it."""

from __future__ import annotations

import re

import pytest

from tests.conftest import SERVERS, HttpServers, read_records, stdio_cmd, url_args
from tests.support import ENTER, spawn

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.pty

SERVER = SERVERS / "legacy_task_server.py"


def server(transport: str, http_servers: HttpServers, tmp_path) -> tuple[list[str], object]:
    record = tmp_path / "record.jsonl"
    if transport == "stdio":
        return ["--stdio", stdio_cmd(SERVER, "--record", str(record))], record
    return url_args(http_servers.start(SERVER, "--record", str(record))), record


def finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_task_question_is_asked_at_the_terminal(tmp_path, transport, http_servers):
    target, record = server(transport, http_servers, tmp_path)
    child, out = spawn(tmp_path, *target, "call", "approve", "item=invoice-7")
    child.expect(r"asks \(task approve-[0-9a-f]+, input elicitation-1")
    child.expect("Approve invoice-7?")
    child.expect("Approver")
    child.send("Eve" + ENTER)
    child.expect("Note")
    child.send(ENTER)
    child.expect(r"Send these answers\?")
    child.send(ENTER)
    assert finish(child) == 0
    assert out.read_text() == "invoice-7 approved by Eve\n"
    replies = [m for m in read_records(record) if "method" not in m]
    assert [m["result"] for m in replies] == [{"action": "accept", "content": {"approver": "Eve"}}]


def test_status_line_ticks_while_waiting_in_tasks_result(tmp_path):
    target, _ = server("stdio", None, tmp_path)
    child, out = spawn(tmp_path, *target, "call", "approve", "item=a", "work:=12", "-a", "approver=Flo")
    child.expect(r"waiting for the result \(tasks/result\)[^\r\n]*?\((\d+)s\)")
    first = int(child.match.group(1))
    child.expect(r"waiting for the result \(tasks/result\)[^\r\n]*?\((\d+)s\)")
    child.expect(r"waiting for the result \(tasks/result\)[^\r\n]*?\((\d+)s\)")
    assert int(child.match.group(1)) > first  # redrawn while the request blocks
    assert out.read_text() == ""
    assert finish(child) == 0
    assert out.read_text() == "a approved by Flo\n"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_ctrl_c_with_cancel_on_interrupt_cancels_the_task(tmp_path, transport, http_servers, mrtr):
    target, record = server(transport, http_servers, tmp_path)
    child, out = spawn(tmp_path, *target, "call", "slow", "seconds:=3600", "--cancel-on-interrupt")  # ends if cancelled
    child.expect("Ctrl-C cancels it")
    child.sendintr()
    assert finish(child) == 130
    text = re.sub(r"\s*\n\s*", " ", child.before)
    task_id = re.search(r"interrupted; task (slow-[0-9a-f]+) is cancelled", text).group(1)
    assert out.read_text() == ""
    cancels = [m for m in read_records(record) if m.get("method") == "tasks/cancel"]
    assert [m["params"]["taskId"] for m in cancels] == [task_id]
    [listed] = mrtr("task", "list", "--json").json()
    assert (listed["taskId"], listed["status"]) == (task_id, "cancelled")
    if transport == "http":  # the server keeps its tasks: a new process sees the cancellation
        r = mrtr("task", "wait", "--", task_id)
        assert r.code == 6, r.stderr


def test_ctrl_c_at_the_task_question_says_what_the_server_was_told(tmp_path, http_servers, mrtr):
    # The question arrived inside tasks/result; Ctrl-C answers it with an error (the server
    # must not wait forever), so mrtr must not claim the task still waits (tester finding 3).
    target, record = server("http", http_servers, tmp_path)
    child, out = spawn(tmp_path, *target, "call", "approve", "item=b")
    child.expect("Approver")
    child.sendintr()
    assert finish(child) == 130
    text = re.sub(r"\s*\n\s*", " ", child.before)
    task_id = re.search(r"interrupted at a question from task (approve-[0-9a-f]+): the server was told that mrtr "
                        r"stopped before answering", text).group(1)
    assert "still running" not in text
    assert f"task get {task_id}" in text and f"task wait {task_id}" in text
    methods = [m.get("method") for m in read_records(record)]
    assert "tasks/cancel" not in methods
    [reply] = [m for m in read_records(record) if "method" not in m]
    assert "error" in reply  # the server's question got an answer before mrtr stopped
    r = mrtr("task", "get", "--json", "--", task_id)
    assert r.code == 0, r.stderr
    assert r.json()["status"] == "completed"  # this server ends the task: what mrtr said allows it


def test_ctrl_c_keeps_a_per_session_task_reachable(tmp_path, http_servers, mrtr):
    # a server keeping tasks per session; Ctrl-C prints `task wait`, which must work.
    url = http_servers.start(SERVER, "--per-session")
    # The task ends after 20 polls, not at a time: it is still running when Ctrl-C comes,
    # however slowly a loaded machine drew the line.
    child, out = spawn(tmp_path, *url_args(url), "call", "countdown", "polls:=20")
    child.expect(r"step \d+ of 20")
    child.sendintr()
    assert finish(child) == 130
    text = re.sub(r"\s*\n\s*", " ", child.before)
    task_id = re.search(r"task (countdown-[0-9a-f]+) \(working\) is still running", text).group(1)
    assert "the HTTP session it runs in is left open" in text
    r = mrtr("task", "wait", "--", task_id)
    assert (r.code, r.stdout) == (0, "done after 20 polls\n"), r.stderr
