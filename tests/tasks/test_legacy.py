"""2025-11-25 core tasks on legacy sessions, over stdio and legacy Streamable HTTP (SSE).

Server: tests/servers/legacy_task_server.py, a hand-written 2025-11-25 task server (the
official SDK leaves `tasks/*` out for that version): `execution.taskSupport` on tools,
CreateTaskResult, `tasks/get`, the blocking `tasks/result` that sends `elicitation/create`
tagged with `related-task` while a task needs input, `tasks/list` and `tasks/cancel`.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from mcp_types.methods import validate_client_request, validate_client_result

from tests.conftest import SERVERS, HttpServers, Target, read_records, stdio_cmd, url_args
from tests.support import SAFETY, growing_bound, timed_out_polling

SERVER = SERVERS / "legacy_task_server.py"
RELATED = "io.modelcontextprotocol/related-task"
DEFAULT_TTL_MS = 3_600_000


@pytest.fixture(scope="module", params=["stdio", "http"])
def legacy(request: pytest.FixtureRequest, http_servers: HttpServers,
           tmp_path_factory: pytest.TempPathFactory) -> Target:
    """The 2025-11-25 task server, recording what it receives (over HTTP it keeps its tasks)."""
    record = tmp_path_factory.mktemp("legacy-tasks") / "record.jsonl"
    if request.param == "stdio":
        return Target("stdio", ["--stdio", stdio_cmd(SERVER, "--record", str(record))], record)
    return Target("http", url_args(http_servers.start(SERVER, "--record", str(record))), record)


def methods(target: Target) -> list[str]:
    return [m["method"] for m in target.requests() if m["method"] != "tools/list"]


def write_json(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def task_id_in(stderr: str, tool: str) -> str:
    return re.search(rf"task ({tool}-[0-9a-f]+)", stderr).group(1)


# ---------------------------------------------------------------------- creating and polling
def test_required_task_tool_completes_after_polls(mrtr, legacy: Target):
    legacy.reset()
    r = mrtr(*legacy.args, "call", "countdown", "polls:=3")
    assert r.code == 0, r.stderr
    assert r.stdout == "done after 3 polls\n"
    assert "step 2 of 3" in r.stderr
    # initialize first (the probe found a legacy server), then the task: polled until
    # terminal, and only then tasks/result for the payload.
    assert methods(legacy) == ["initialize", "tools/call", "tasks/get", "tasks/get", "tasks/get", "tasks/result"]
    call = legacy.calls()[0]["params"]
    validate_client_request("tools/call", "2025-11-25", call)
    assert call["task"] == {"ttl": DEFAULT_TTL_MS}
    task_id = task_id_in(r.stderr, "countdown")
    for msg in legacy.requests()[3:]:
        assert msg["params"]["taskId"] == task_id


def test_result_json_is_lossless_and_the_task_ttl_is_an_option(mrtr, legacy: Target):
    legacy.reset()
    r = mrtr(*legacy.args, "call", "countdown", "polls:=1", "--task-ttl", "90", "--json")
    assert r.code == 0, r.stderr
    task_id = task_id_in(r.stderr, "countdown")
    assert r.json() == {"content": [{"type": "text", "text": "done after 1 polls"}], "isError": False,
                        "_meta": {RELATED: {"taskId": task_id}}}
    assert legacy.calls()[0]["params"]["task"] == {"ttl": 90_000}


def test_optional_tool_runs_as_a_task_only_with_the_task_option(mrtr, legacy: Target):
    legacy.reset()
    r = mrtr(*legacy.args, "call", "quick", "text=hi")
    assert (r.code, r.stdout) == (0, "quick: hi\n"), r.stderr
    assert "task" not in legacy.calls()[0]["params"]
    assert "tasks/get" not in methods(legacy)
    legacy.reset()
    r = mrtr(*legacy.args, "call", "quick", "text=hi", "--task")
    assert (r.code, r.stdout) == (0, "quick: hi\n"), r.stderr
    assert legacy.calls()[0]["params"]["task"] == {"ttl": DEFAULT_TTL_MS}
    assert methods(legacy)[-2:] == ["tasks/get", "tasks/result"]


def test_task_option_refused_for_a_forbidden_tool(mrtr, legacy: Target):
    legacy.reset()
    r = mrtr(*legacy.args, "call", "echo", "text=hi", "--task")
    assert r.code == 2
    assert "--task: tool echo on legacy-tasks cannot run as a task (its execution.taskSupport is forbidden)" in r.stderr
    assert legacy.calls() == []  # nothing was called
    r = mrtr(*legacy.args, "call", "echo", "text=hi")
    assert (r.code, r.stdout) == (0, "hi\n"), r.stderr
    assert "task" not in legacy.calls()[0]["params"]


# ---------------------------------------------------------------------- input through tasks/result
def test_task_input_answered_from_an_answer_file_through_tasks_result(mrtr, legacy: Target, tmp_path):
    """The acceptance item: the server's elicitation/create, sent while tasks/result blocks,
    is answered from the answer file, and the task completes."""
    legacy.reset()
    answers = write_json(tmp_path / "a.json", {"inputResponses": {
        "elicitation-1": {"action": "accept", "content": {"approver": "Ann"}}}})
    saved = tmp_path / "saved.json"
    r = mrtr(*legacy.args, "call", "approve", "item=invoice-7", "--answers", answers, "--save-answers", saved)
    assert r.code == 0, r.stderr
    assert r.stdout == "invoice-7 approved by Ann\n"
    task_id = task_id_in(r.stderr, "approve")
    assert "input_required" in r.stderr
    messages = [m for m in read_records(legacy.record) if m.get("method") not in ("tools/list",
                                                                                  "notifications/initialized")]
    names = [m.get("method", "(response)") for m in messages]
    # Polled until input_required, then tasks/result: the answer goes back while it blocks;
    # one tasks/get afterwards tells how the task ended.
    polls = names.index("tasks/result") - 2  # one, unless the server was slow to ask
    assert names == ["initialize", "tools/call", *["tasks/get"] * polls, "tasks/result", "(response)", "tasks/get"]
    assert polls >= 1
    reply = messages[names.index("(response)")]
    assert reply["id"] == "srv-1"
    validate_client_result("elicitation/create", "2025-11-25", reply["result"])
    assert reply["result"] == {"action": "accept", "content": {"approver": "Ann"}}
    assert json.loads(saved.read_text()) == {"inputResponses": {
        "elicitation-1": {"action": "accept", "content": {"approver": "Ann"}}}}
    assert task_id in r.stderr


def test_task_input_answered_by_field_name_and_a_decline_exits_6(mrtr, legacy: Target, tmp_path):
    r = mrtr(*legacy.args, "call", "approve", "item=x", "--answers",
             write_json(tmp_path / "f.json", {"fields": {"approver": "Bo"}}))
    assert (r.code, r.stdout) == (0, "x approved by Bo\n"), r.stderr
    r = mrtr(*legacy.args, "call", "approve", "item=x", "--answers",
             write_json(tmp_path / "d.json", {"inputResponses": {"elicitation-1": {"action": "decline"}}}))
    assert r.code == 6, r.stderr
    assert r.stdout == "x not approved (decline)\n"


def test_no_input_answers_cancel_and_exits_5_naming_the_task(mrtr, legacy: Target, tmp_path):
    legacy.reset()
    r = mrtr(*legacy.args, "call", "approve", "item=invoice-7", "--no-input")
    assert r.code == 5, r.stderr
    doc = r.json()
    task_id = task_id_in(r.stderr, "approve")
    assert doc["taskId"] == task_id
    assert (doc["era"], doc["resumable"], doc["protocolVersion"]) == ("legacy", False, "2025-11-25")
    assert doc["method"] == "tools/call"
    assert doc["params"] == {"name": "approve", "arguments": {"item": "invoice-7"}, "task": {"ttl": DEFAULT_TTL_MS}}
    assert doc["missing"] == ["elicitation-1"]
    asked = doc["inputRequests"]["elicitation-1"]
    assert asked["method"] == "elicitation/create"
    assert asked["params"]["message"] == "Approve invoice-7?"
    assert asked["params"]["_meta"] == {RELATED: {"taskId": task_id}}
    assert doc["result"]["content"][0]["text"] == "invoice-7 not approved (cancel)"  # what the server did then
    replies = [m for m in read_records(legacy.record) if "method" not in m]
    assert [m["result"] for m in replies] == [{"action": "cancel"}]
    assert f"task {task_id}: input required for elicitation-1 (--no-input was given)" in r.stderr
    assert ("call approve --args '{\"item\":\"invoice-7\"}' --task --protocol 2025-11-25 --answers ANSWERS.json"
            in r.stderr)
    # The filled-in template answers the call started again.
    template = doc["answersTemplate"]
    template["inputResponses"]["elicitation-1"]["content"]["approver"] = "Cy"
    r = mrtr(*legacy.args, "call", "approve", "item=invoice-7", "--answers", write_json(tmp_path / "t.json", template))
    assert (r.code, r.stdout) == (0, "invoice-7 approved by Cy\n"), r.stderr
    # Such a document cannot be resumed (there is no requestState).
    r2 = mrtr("resume", write_json(tmp_path / "p.json", doc))
    assert r2.code == 2 and "cannot be resumed" in r2.stderr


# ---------------------------------------------------------------------- how tasks end
def test_failed_task_exits_4_with_the_error_tasks_result_returned(mrtr, legacy: Target):
    r = mrtr(*legacy.args, "call", "explode", "--json")
    assert r.code == 4, r.stderr
    assert r.stdout == ""
    error = json.loads(r.stderr.strip().splitlines()[-1])["error"]
    assert error["code"] == -32001 and "the build exploded" in error["message"]


def test_failed_task_with_an_is_error_result_prints_it_and_exits_1(mrtr, legacy: Target):
    r = mrtr(*legacy.args, "call", "check", "value=v9")
    assert r.code == 1, r.stderr
    assert r.stdout == "check failed: v9\n"
    assert ": failed" in r.stderr


def test_timeout_leaves_the_task_running(mrtr, legacy: Target):
    # --timeout is the only way out; its bound grows until a run polled the task (start-up,
    # the handshake and the call count against --timeout: a loaded machine can spend it all).
    stderr = timed_out_polling(mrtr, legacy)
    task_id = task_id_in(stderr, "slow")
    assert f"task wait {task_id}" in stderr


# ---------------------------------------------------------------------- task commands
def test_detach_then_task_wait_from_a_new_process(mrtr, http_servers, tmp_path):
    record = tmp_path / "record.jsonl"
    url = http_servers.start(SERVER, "--record", str(record))
    r = mrtr(*url_args(url), "call", "slow", "seconds:=1", "--detach")
    assert r.code == 0, r.stderr
    task_id = r.stdout.strip()
    assert re.fullmatch(r"slow-[0-9a-f]+", task_id)
    [listed] = mrtr("task", "list", "--json").json()
    assert (listed["taskId"], listed["variant"], listed["protocolVersion"]) == (task_id, "2025-11-25", "2025-11-25")
    for cache in tmp_path.glob("state/mrtr/eras.json"):
        cache.unlink()  # the record alone must bring the new process back to the handshake
    record.write_text("")
    r = mrtr("task", "get", "--", task_id)
    assert r.code == 0, r.stderr
    got = r.json()
    assert got["taskId"] == task_id and "ttl" in got and "pollInterval" in got
    r = mrtr("task", "wait", "--", task_id)
    assert (r.code, r.stdout) == (0, "slept 1s\n"), r.stderr
    sent = read_records(record, probe=True)
    # The session the task runs in was left open: the new processes rejoin it.
    assert [m for m in sent if m.get("method") == "initialize"] == []
    assert "server/discover" not in [m.get("method") for m in sent]
    sessions = {m["_http"]["headers"].get("mcp-session-id") for m in sent if m.get("method") == "tasks/get"}
    assert len(sessions) == 1 and None not in sessions
    [listed] = mrtr("task", "list", "--json").json()
    assert "sessionId" not in listed  # the task ended: the session is let go (and ended at exit)
    assert "DELETE" in http_methods(record)


def test_a_task_in_a_per_session_server_is_followed_after_detach_and_timeout(mrtr, http_servers, tmp_path):
    # A 2025-11-25 server that keeps tasks per session: mrtr must not end the session
    # it promised `task wait` for, and `task wait` must come back to that session.
    record = tmp_path / "record.jsonl"
    url = http_servers.start(SERVER, "--per-session", "--record", str(record))
    r = mrtr(*url_args(url), "call", "slow", "seconds:=1", "--detach")
    assert r.code == 0, r.stderr
    task_id = r.stdout.strip()
    assert "the HTTP session it runs in is left open" in r.stderr and f"task wait {task_id}" in r.stderr
    assert "DELETE" not in http_methods(record)
    r = mrtr("task", "wait", "--", task_id)
    assert (r.code, r.stdout) == (0, "slept 1s\n"), r.stderr
    # --timeout: the same promise, kept. The task outlasts the bound by 5 s (it starts
    # after mrtr's clock does); the bound grows until a run polled its task.
    def attempt(bound: float) -> tuple[str, float] | None:
        record.write_text("")
        r = mrtr(*url_args(url), "call", "slow", f"seconds:={bound + 5:g}", "--timeout", f"{bound:g}")
        assert r.code == 7, r.stderr
        return (r.stderr, bound + 5) if "tasks/get" in [m.get("method") for m in read_records(record)] else None

    stderr, seconds = growing_bound(attempt, 5, what="a run that polled its task")
    task_id = task_id_in(stderr, "slow")
    assert "the HTTP session it runs in is left open" in stderr
    r = mrtr("task", "wait", "--", task_id)
    assert (r.code, r.stdout) == (0, f"slept {seconds:g}s\n"), r.stderr


def test_task_cancel_of_an_id_the_server_does_not_know_says_so(mrtr, legacy: Target):
    # 2025-11-25 answers -32602 both for a task that has ended and for an unknown id: the
    # hint says which one the server reports (tasks/get), and guesses nothing.
    r = mrtr(*legacy.args, "task", "cancel", "nope-123")
    assert r.code == 4
    assert "the server does not know task nope-123" in r.stderr, r.stderr
    assert "ended" not in r.stderr, r.stderr


@pytest.mark.parametrize("server", ["legacy_server.py", "forms_server.py"])
def test_task_wait_of_an_id_no_server_knows_claims_no_running_task(mrtr, server):
    # A server without tasks answers tasks/get with -32601: nothing says such a task exists,
    # so no hint tells the person it is still running, or to wait for it again.
    r = mrtr("--stdio", stdio_cmd(SERVERS / server), "task", "wait", "nope-123")
    assert r.code == 4, r.stderr
    assert "-32601" in r.stderr, r.stderr
    assert "stays on the server" not in r.stderr and "task wait" not in r.stderr, r.stderr


def test_task_cancel_then_wait_exits_6(mrtr, http_servers):
    url = http_servers.start(SERVER)
    task_id = mrtr(*url_args(url), "call", "slow", "seconds:=3600", "--detach").stdout.strip()  # ends if cancelled
    r = mrtr("task", "cancel", "--", task_id)
    assert r.code == 0, r.stderr
    assert f"task {task_id} is cancelled" in r.stderr
    [listed] = mrtr("task", "list", "--json").json()
    assert listed["status"] == "cancelled"
    r = mrtr("task", "cancel", "--", task_id)  # a terminal task: -32602
    assert r.code == 4
    assert "already cancelled" in r.stderr and "cannot be cancelled" in r.stderr
    r = mrtr("task", "wait", "--", task_id)
    assert r.code == 6
    assert "was cancelled: The task was cancelled by request." in r.stderr


@pytest.mark.parametrize("ids", [[], ["--dash-ids"]], ids=["plain-ids", "ids-starting-with-a-dash"])
def test_task_update_points_to_task_wait(mrtr, http_servers, tmp_path, ids):
    url = http_servers.start(SERVER, *ids)
    task_id = mrtr(*url_args(url), "call", "approve", "item=z", "--detach").stdout.strip()
    r = mrtr("task", "update", "-a", "approver=Di", "--", task_id)
    assert r.code == 2
    assert "takes answers only while mrtr waits for its result" in r.stderr
    # the command it names works as printed (its options before the id, which may need `--`)
    (command,) = [line.split("answer and finish it with: ", 1)[1] for line in r.stderr.splitlines()
                  if "answer and finish it with: " in line]
    words = shlex.split(command)
    assert words[:3] == ["mrtr", "--url", url] and words[3:5] == ["task", "wait"] and "FILE" in words, command
    answers = tmp_path / "FILE"
    answers.write_text(json.dumps({"fields": {"approver": "Di"}}))
    # (with the era probe's bound at SAFETY, which this is not about: tests/probe_bound.py)
    r = mrtr("--probe-timeout", f"{SAFETY:g}", *[str(answers) if w == "FILE" else w for w in words[1:]])
    assert (r.code, r.stdout) == (0, "z approved by Di\n"), (command, r.stderr)


def test_task_list_remote_follows_every_page(mrtr, http_servers, tmp_path):
    record = tmp_path / "record.jsonl"
    url = http_servers.start(SERVER, "--record", str(record))
    ids = [mrtr(*url_args(url), "call", "slow", "seconds:=0.1", "--detach").stdout.strip() for _ in range(3)]
    ids.append(task_id_in(mrtr(*url_args(url), "call", "check", "value=q").stderr, "check"))
    r = mrtr(*url_args(url), "task", "list", "--remote", "--json")
    assert r.code == 0, r.stderr
    listed = r.json()
    assert sorted(t["taskId"] for t in listed) == sorted(ids)
    assert all(set(t) >= {"taskId", "status", "createdAt", "lastUpdatedAt", "ttl"} for t in listed)
    pages = [m["params"] for m in read_records(record) if m.get("method") == "tasks/list"]
    assert len(pages) == 2 and "cursor" not in pages[0] and isinstance(pages[1]["cursor"], str)
    r = mrtr(*url_args(url), "task", "list", "--remote")
    assert r.code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["TASK", "ID", "STATUS", "TOOL", "CREATED", "MESSAGE"]
    assert any(line.startswith(ids[-1]) and " failed " in line and " check " in line for line in lines)


def test_task_list_remote_on_stdio_and_where_there_is_no_tasks_list(mrtr):
    r = mrtr("--stdio", stdio_cmd(SERVER), "task", "list", "--remote")
    assert (r.code, r.stdout) == (0, ""), r.stderr
    assert "the server lists no tasks" in r.stderr
    r = mrtr("--stdio", stdio_cmd(SERVER, "--no-list"), "task", "list", "--remote")
    assert r.code == 2
    assert "does not offer tasks/list" in r.stderr
    r = mrtr("--stdio", stdio_cmd(SERVERS / "dual_server.py"), "task", "list", "--remote")
    assert r.code == 2
    assert "speaks MCP 2026-07-28, which has no tasks/list" in r.stderr
    r = mrtr("task", "list", "--remote")
    assert r.code == 2 and "no server given" in r.stderr


def test_task_option_against_a_server_without_tasks(mrtr):
    r = mrtr("--stdio", stdio_cmd(SERVERS / "legacy_server.py"), "call", "echo", "text=x", "--task")
    assert r.code == 2
    assert "cannot run tools as tasks (its initialize result has no capabilities.tasks.requests.tools.call)" in r.stderr
    r = mrtr("--stdio", stdio_cmd(SERVERS / "dual_server.py"), "call", "echo", "text=x", "--task")
    assert r.code == 0, r.stderr  # a 2026-07-28 server decides for itself
    assert "--task changes nothing on a 2026-07-28 server" in r.stderr


def test_tool_description_shows_task_support(mrtr):
    r = mrtr("--stdio", stdio_cmd(SERVER), "tools", "countdown")
    assert r.code == 0, r.stderr
    assert "Tasks: required (always runs as a task)" in r.stdout


def http_methods(path) -> list[str]:
    """The HTTP methods of every request a test server recorded (DELETE has no body)."""
    return [json.loads(line).get("method") for line in path.read_text().splitlines() if "raw" not in json.loads(line)]
