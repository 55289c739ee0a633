"""Tasks: `mrtr` polls, feeds and finishes tasks, over stdio and HTTP.

Servers: tests/servers/task_server.py (the SDK's extension hooks; tasks stored in a
file over stdio so they outlive a connection, in memory over HTTP), in its
extension and SEP-2322 variants, and fastmcp + fastmcp-tasks from PyPI (a real
implementation of the tasks extension, in-memory backend).

Also the task pieces that need no server: task states, the poll delay, local records,
resume commands and the off-terminal status lines."""

from __future__ import annotations

import io
import json
import random
import re
import shlex
import time
from pathlib import Path

import pytest
from mcp_types.methods import validate_client_request

from mrtr_cli.env import Environment
from mrtr_cli.errors import ProtocolError, UsageError
from mrtr_cli.render.live.status import StatusLine, StatusView, format_seconds
from mrtr_cli.tasks.driver import MIN_POLL_MS, TaskContext, poll_delay
from mrtr_cli.tasks.ext import ExtTasksWire
from mrtr_cli.tasks.records import TaskRecord, TaskRecords
from mrtr_cli.tasks.sep2322 import Sep2322Wire
from mrtr_cli.tasks.sep2322 import parse_sep2322_task as parse_sep
from mrtr_cli.tasks.state import parse_task
from tests.conftest import SERVERS, HttpServers, Target, needs_posix, stdio_cmd, url_args
from tests.support import growing_bound, timed_out_polling

TASK_SERVER = SERVERS / "task_server.py"
FASTMCP_SERVER = SERVERS / "fastmcp_tasks_server.py"
TASKS_EXT = "io.modelcontextprotocol/tasks"
RELATED = "io.modelcontextprotocol/related-task"


def task_target(request: pytest.FixtureRequest, http_servers: HttpServers, tmp_path_factory: pytest.TempPathFactory,
                *extra: str) -> Target:
    directory = tmp_path_factory.mktemp("tasks")
    record = directory / "record.jsonl"
    if request.param == "stdio":
        command = stdio_cmd(TASK_SERVER, "--record", str(record), "--store", str(directory / "store.json"), *extra)
        return Target("stdio", ["--stdio", command], record)
    return Target("http", url_args(http_servers.start(TASK_SERVER, "--record", str(record), *extra)), record)


@pytest.fixture(scope="module", params=["stdio", "http"])
def tasks(request: pytest.FixtureRequest, http_servers: HttpServers,
          tmp_path_factory: pytest.TempPathFactory) -> Target:
    """The tasks-extension test server."""
    return task_target(request, http_servers, tmp_path_factory)


@pytest.fixture(scope="module", params=["stdio", "http"])
def sep(request: pytest.FixtureRequest, http_servers: HttpServers, tmp_path_factory: pytest.TempPathFactory) -> Target:
    """The same server speaking the SEP-2322 persistent workflow."""
    return task_target(request, http_servers, tmp_path_factory, "--variant", "sep2322")


@pytest.fixture(scope="module", params=["stdio", "http"])
def sep_ms(request: pytest.FixtureRequest, http_servers: HttpServers,
           tmp_path_factory: pytest.TempPathFactory) -> Target:
    """The SEP-2322 workflow with the extension's field names: recognised only by behaviour."""
    return task_target(request, http_servers, tmp_path_factory, "--variant", "sep2322ms")


@pytest.fixture(scope="module", params=["stdio", "http"])
def fastmcp(request: pytest.FixtureRequest, http_servers: HttpServers) -> Target:
    """fastmcp + fastmcp-tasks (PyPI), in-memory Docket backend."""
    pytest.importorskip("fastmcp_tasks")
    if request.param == "stdio":
        return Target("stdio", ["--stdio", stdio_cmd(FASTMCP_SERVER)], None)
    return Target("http", url_args(http_servers.start(FASTMCP_SERVER, env={"FASTMCP_DOCKET_URL": "memory://"})), None)


def methods(target: Target) -> list[str]:
    return [m["method"] for m in target.requests()]


def write_json(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


# ---------------------------------------------------------------------- the tasks extension
def test_task_completes_after_a_few_polls(mrtr, tasks: Target):
    tasks.reset()
    r = mrtr(*tasks.args, "call", "countdown", "polls:=3")
    assert r.code == 0, r.stderr
    assert r.stdout == "done after 3 polls\n"
    assert "step 2 of 3" in r.stderr  # status changes are reported on stderr
    requests = [m for m in tasks.requests() if m["method"] != "tools/list"]  # tools/list types the arguments
    assert [m["method"] for m in requests] == ["tools/call", "tasks/get", "tasks/get", "tasks/get"]
    task_id = re.search(r"task (countdown-\S+):", r.stderr).group(1)
    for msg in requests:
        caps = msg["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
        assert caps["extensions"] == {TASKS_EXT: {}}, msg["method"]
        if msg["method"] == "tools/call":
            validate_client_request("tools/call", "2026-07-28", msg["params"])
        else:
            assert msg["params"]["taskId"] == task_id
            if tasks.kind == "http":
                assert msg["_http"]["headers"]["mcp-method"] == "tasks/get"
                assert msg["_http"]["headers"]["mcp-name"] == task_id


def test_completed_result_json_is_lossless(mrtr, tasks: Target):
    r = mrtr(*tasks.args, "call", "countdown", "polls:=1", "--json")
    assert r.code == 0, r.stderr
    assert r.json() == {"content": [{"type": "text", "text": "done after 1 polls"}], "isError": False}


def test_input_once(mrtr, tasks: Target):
    tasks.reset()
    r = mrtr(*tasks.args, "call", "ask_once", "-a", "name=Ann")
    assert r.code == 0, r.stderr
    assert r.stdout == "hello Ann\n"
    updates = [m for m in tasks.requests() if m["method"] == "tasks/update"]
    assert [u["params"]["inputResponses"] for u in updates] == [
        {"name-1": {"action": "accept", "content": {"name": "Ann"}}}]


def test_input_twice_from_an_answer_file(mrtr, tasks: Target, tmp_path):
    tasks.reset()
    answers = write_json(tmp_path / "a.json", {"fields": {"name": "Ann", "color": "red"}})
    r = mrtr(*tasks.args, "call", "ask_twice", "--answers", answers)
    assert r.code == 0, r.stderr
    assert r.stdout == "Ann likes red\n"
    updates = [m["params"]["inputResponses"] for m in tasks.requests() if m["method"] == "tasks/update"]
    assert [list(u) for u in updates] == [["name-1"], ["color-1"]]


def test_reasked_under_a_new_key_when_an_answer_is_wrong(mrtr, tasks: Target, tmp_path):
    tasks.reset()
    answers = write_json(tmp_path / "a.json", {"inputResponses": {
        "code-1": {"action": "accept", "content": {"code": "41"}},
        "code-2": {"action": "accept", "content": {"code": "42"}}}})
    r = mrtr(*tasks.args, "call", "reask", "--answers", answers)
    assert r.code == 0, r.stderr
    assert r.stdout == "unlocked after 2 attempts\n"
    updates = [m["params"]["inputResponses"] for m in tasks.requests() if m["method"] == "tasks/update"]
    # Each key is answered once, however many polls still show it.
    assert [list(u) for u in updates] == [["code-1"], ["code-2"]]
    assert methods(tasks).count("tasks/get") == 3  # one poll per key asked, and the last


def test_two_input_requests_answered_in_one_update(mrtr, tasks: Target):
    tasks.reset()
    r = mrtr(*tasks.args, "call", "two_at_once", "-a", "a=x", "-a", "b=3")
    assert r.code == 0, r.stderr
    assert r.stdout == "a=x b=3 in 1 update(s)\n"
    updates = [m["params"]["inputResponses"] for m in tasks.requests() if m["method"] == "tasks/update"]
    assert updates == [{"a-1": {"action": "accept", "content": {"a": "x"}},
                        "b-1": {"action": "accept", "content": {"b": 3}}}]


def test_failed_task_exits_4_with_its_error(mrtr, tasks: Target):
    r = mrtr(*tasks.args, "call", "fail")
    assert r.code == 4, r.stderr
    assert r.stdout == ""
    assert "server error -32000: task fail-" in r.stderr
    assert "the build broke at the link step" in r.stderr
    r = mrtr(*tasks.args, "call", "fail", "--json")
    assert r.code == 4
    error = json.loads(r.stderr.strip().splitlines()[-1])["error"]
    assert (error["exitCode"], error["code"], error["data"]) == (4, -32000, {"step": "link"})


def test_cancelled_task_exits_6(mrtr, tasks: Target):
    r = mrtr(*tasks.args, "call", "cancel_self")
    assert r.code == 6, r.stderr
    assert "was cancelled: cancelled by an operator" in r.stderr


def test_tool_error_result_exits_1(mrtr, tasks: Target):
    r = mrtr(*tasks.args, "call", "error_result")
    assert r.code == 1, r.stderr
    assert r.stdout == "tool failed politely\n"


def test_expired_ttl(mrtr, tasks: Target):
    r = mrtr(*tasks.args, "call", "expire", "ttlMs:=500")
    assert r.code == 4, r.stderr
    assert "the server no longer knows task expire-" in r.stderr
    assert "expired (ttlMs 500)" in r.stderr
    r = mrtr("task", "list", "--json")
    assert [t["status"] for t in r.json()] == ["unknown"]


def test_poll_interval_is_respected_as_it_changes(mrtr, tasks: Target):
    r = mrtr(*tasks.args, "call", "intervals", "--json")
    assert r.code == 0, r.stderr
    measured = r.json()["structuredContent"]
    # The server measured the gap before each poll; the interval it announced before
    # that poll (200, 700, 300, 300 ms) is a floor: never polled sooner. (A gap has no
    # upper bound here: a loaded machine stretches it without end. How much later than
    # the interval mrtr means to poll, jitter at most 10%, is
    # test_poll_delay_is_a_floor_plus_bounded_jitter.)
    assert measured["announcedMs"] == [200, 200, 700, 300]
    for gap, announced in zip(measured["gapsMs"], measured["announcedMs"], strict=True):
        assert announced - 1 <= gap, measured


def test_tasks_get_with_a_wrong_result_type_is_tolerated(mrtr, tasks: Target):
    r = mrtr(*tasks.args, "call", "sloppy")
    assert r.code == 0, r.stderr
    assert r.stdout == "done after 2 polls\n"


def test_mrtr_rounds_then_a_task(mrtr, tasks: Target):
    tasks.reset()
    r = mrtr(*tasks.args, "call", "deploy", "-a", "env=staging", "-a", "approve=true")
    assert r.code == 0, r.stderr
    assert r.stdout == "deployed to staging, approved=True\n"
    requests = [m for m in tasks.requests() if m["method"] != "tools/list"]
    first, retry = requests[0], requests[1]
    assert (first["method"], retry["method"]) == ("tools/call", "tools/call")
    assert "inputResponses" not in first["params"]
    assert retry["params"]["inputResponses"] == {"env": {"action": "accept", "content": {"env": "staging"}}}
    assert retry["params"]["requestState"]
    updates = [m["params"] for m in requests if m["method"] == "tasks/update"]
    assert [u["inputResponses"] for u in updates] == [{"approve-1": {"action": "accept", "content": {"approve": True}}}]
    assert requests[2:] and all("requestState" not in m["params"] for m in requests[2:])


# ---------------------------------------------------------------------- nobody to answer; resuming
def test_no_input_pending_document_then_update_and_wait(mrtr, tasks: Target, tmp_path):
    r = mrtr(*tasks.args, "--no-input", "call", "ask_once")
    assert r.code == 5, r.stderr
    pending = r.json()
    task_id = pending["taskId"]
    assert task_id.startswith("ask_once-")
    assert pending["mrtr"] == "pending/1"
    assert pending["params"] == {"name": "ask_once", "arguments": {}}
    assert list(pending["inputRequests"]) == ["name-1"] and pending["missing"] == ["name-1"]
    assert "task update" in r.stderr and task_id in r.stderr
    # over stdio the server process ends with the run; the message says so.
    if tasks.kind == "stdio":
        assert "the task waits on the server" not in r.stderr
        assert ("unless the server keeps its tasks elsewhere (a file, a database), the task ends with this run"
                in r.stderr)
        assert "start the call again with it" in r.stderr
        # keyed as asked (name-1): a server that keeps its tasks takes the answers, so both are named
        assert "if the server keeps its tasks (a file, a database): mrtr resume PENDING.json" in r.stderr
    else:
        assert "the task waits on the server; answer it with:" in r.stderr
    template = pending["answersTemplate"]
    template["inputResponses"]["name-1"]["content"]["name"] = "Bea"
    answers = write_json(tmp_path / "answers.json", template)
    # The local record knows the server: no --url/--stdio needed.
    r = mrtr("task", "update", "--answers", answers, "--", task_id)
    assert r.code == 0, r.stderr
    assert "sent 1 answer(s)" in r.stderr
    r = mrtr("task", "wait", "--", task_id)
    assert r.code == 0, r.stderr
    assert r.stdout == "hello Bea\n"


def test_resume_a_task_pending_document(mrtr, tasks: Target, tmp_path):
    r = mrtr(*tasks.args, "call", "ask_twice", "--no-input", "-a", "name=Cy")
    assert r.code == 5, r.stderr
    assert r.json()["missing"] == ["color-1"]
    pending = write_json(tmp_path / "pending.json", r.json())
    r = mrtr("resume", pending, "-a", "color=green")
    assert r.code == 0, r.stderr
    assert r.stdout == "Cy likes green\n"


ENV_STAGING = {"env": {"action": "accept", "content": {"env": "staging"}}}
APPROVED = {"approve-1": {"action": "accept", "content": {"approve": True}}}


def saved_answers_replay_rounds_then_a_task(mrtr, target: Target, tmp_path: Path) -> None:
    """`--save-answers` of a call whose input round came before the task holds both answers,
    and replays the call with no question left."""
    saved = tmp_path / "saved.json"
    r = mrtr(*target.args, "call", "deploy", "-a", "env=staging", "-a", "approve=true", "--save-answers", saved)
    assert r.code == 0, r.stderr
    assert json.loads(saved.read_text()) == {"inputResponses": {**ENV_STAGING, **APPROVED}}
    r = mrtr(*target.args, "call", "deploy", "--answers", saved, "--no-input")
    assert r.code == 0, r.stderr
    assert r.stdout == "deployed to staging, approved=True\n"


def stopped_task_carries_the_rounds_before_it(mrtr, target: Target, tmp_path: Path) -> None:
    """The call's input round (env) came before the task existed: the task's pending document
    carries its answer, so `resume --save-answers` writes a file that replays the whole call,
    and the document's answersTemplate (for a stdio task that ends with the run) does too."""
    r = mrtr(*target.args, "call", "deploy", "-a", "env=staging", "--no-input")
    assert r.code == 5, r.stderr
    doc = r.json()
    assert doc["missing"] == ["approve-1"]
    assert doc["sentResponses"] == ENV_STAGING
    if target.kind == "stdio":
        template = doc["answersTemplate"]
        assert template["inputResponses"]["env"] == ENV_STAGING["env"]
        template["inputResponses"]["approve-1"]["content"]["approve"] = True
        r = mrtr(*target.args, "call", "deploy", "--answers", write_json(tmp_path / "filled.json", template),
                 "--no-input")
        assert r.code == 0, r.stderr
        assert r.stdout == "deployed to staging, approved=True\n"
    saved = tmp_path / "saved.json"
    r = mrtr("resume", write_json(tmp_path / "pending.json", doc), "-a", "approve=true", "--save-answers", saved)
    assert r.code == 0, r.stderr
    assert r.stdout == "deployed to staging, approved=True\n"
    assert json.loads(saved.read_text()) == {"inputResponses": {**ENV_STAGING, **APPROVED}}
    r = mrtr(*target.args, "call", "deploy", "--answers", saved, "--no-input")
    assert r.code == 0, r.stderr
    assert r.stdout == "deployed to staging, approved=True\n"


def test_saved_answers_of_rounds_then_a_task_replay_the_call(mrtr, tasks: Target, tmp_path):
    saved_answers_replay_rounds_then_a_task(mrtr, tasks, tmp_path)


def test_saved_answers_of_rounds_then_a_sep2322_task_replay_the_call(mrtr, sep: Target, tmp_path):
    saved_answers_replay_rounds_then_a_task(mrtr, sep, tmp_path)


def test_a_task_stopped_for_input_carries_the_rounds_before_it(mrtr, tasks: Target, tmp_path):
    stopped_task_carries_the_rounds_before_it(mrtr, tasks, tmp_path)


def test_a_sep2322_task_stopped_for_input_carries_the_rounds_before_it(mrtr, sep: Target, tmp_path):
    stopped_task_carries_the_rounds_before_it(mrtr, sep, tmp_path)


def test_a_task_stopped_again_carries_every_earlier_answer(mrtr, tasks: Target, tmp_path):
    """A task answered once, then stopped for its second question: the document carries the
    first answer, and a resume that stops again carries it on."""
    r = mrtr(*tasks.args, "call", "ask_twice", "--no-input", "-a", "name=Cy")
    assert r.code == 5, r.stderr
    doc = r.json()
    assert doc["sentResponses"] == {"name-1": {"action": "accept", "content": {"name": "Cy"}}}
    r = mrtr("resume", write_json(tmp_path / "pending.json", doc), "--no-input")
    assert r.code == 5, r.stderr
    assert r.json()["sentResponses"] == doc["sentResponses"]
    saved = tmp_path / "saved.json"
    r = mrtr("resume", write_json(tmp_path / "again.json", r.json()), "-a", "color=green", "--save-answers", saved)
    assert r.code == 0, r.stderr
    assert r.stdout == "Cy likes green\n"
    r = mrtr(*tasks.args, "call", "ask_twice", "--answers", saved, "--no-input")
    assert r.code == 0, r.stderr
    assert r.stdout == "Cy likes green\n"


def test_detach_then_list_and_wait(mrtr, tasks: Target):
    r = mrtr(*tasks.args, "call", "slow", "seconds:=1.5", "--detach", "--json")
    assert r.code == 0, r.stderr
    handle = r.json()
    assert handle["resultType"] == "task" and handle["status"] == "working"
    task_id = handle["taskId"]
    assert f"task wait {task_id}" in r.stderr
    r = mrtr(*tasks.args, "call", "slow", "seconds:=1", "--detach")
    assert r.code == 0 and r.stdout.strip().startswith("slow-")
    r = mrtr("task", "list")
    assert r.code == 0
    assert task_id in r.stdout and "working" in r.stdout
    r = mrtr("task", "get", "--", task_id[:12])
    assert r.code == 0, r.stderr
    assert r.json()["taskId"] == task_id
    r = mrtr("task", "wait", "--", task_id)
    assert r.code == 0, r.stderr
    assert r.stdout == "slept 1.5s\n"
    assert [t["status"] for t in mrtr("task", "list", "--json").json() if t["taskId"] == task_id] == ["completed"]


def test_timeout_leaves_the_task_running(mrtr, tasks: Target):
    # --timeout is the only way out; its bound grows until a run polled the task (start-up
    # and the first connection count against --timeout: a loaded machine can spend it all).
    stderr = timed_out_polling(mrtr, tasks)
    task_id = re.search(r"waiting for task (slow-\S+) ", stderr).group(1)
    assert f"task wait {task_id}" in stderr
    r = mrtr("task", "get", "--", task_id)
    assert r.code == 0 and r.json()["status"] == "working"


def test_task_cancel_then_wait_exits_6(mrtr, tasks: Target):
    r = mrtr(*tasks.args, "call", "slow", "seconds:=3600", "--detach")  # done only if cancelled
    task_id = r.stdout.strip()
    r = mrtr("task", "cancel", "--", task_id)
    assert r.code == 0, r.stderr
    r = mrtr("task", "wait", "--", task_id)
    assert r.code == 6, r.stderr


def test_an_unknown_task_id_is_exit_2_locally_and_4_from_the_server(mrtr, tasks: Target):
    r = mrtr("task", "wait", "nope")
    assert r.code == 2 and "no local record of task 'nope'" in r.stderr
    r = mrtr(*tasks.args, "task", "get", "nope")
    assert r.code == 4 and "not found" in r.stderr


def test_records_and_commands_hold_no_secrets(mrtr, http_servers, tmp_path):
    url = http_servers.start(TASK_SERVER)
    records_dir = tmp_path / "state" / "mrtr" / "tasks"

    def attempt(bound: float) -> str | None:  # the bound grows until the task was created in it
        r = mrtr(*url_args(url), "-H", "Authorization: Bearer sekrit-token-123", "call", "slow", "seconds:=3600",
                 "--timeout", f"{bound:g}")
        assert r.code == 7, r.stderr
        assert "sekrit" not in r.stderr
        return r.stderr if list(records_dir.glob("*.json")) else None

    stderr = growing_bound(attempt, 5, what="a run that created its task")
    assert f"mrtr --url {url} task wait" in stderr
    records = list(records_dir.glob("*.json"))
    assert len(records) == 1
    text = records[0].read_text()
    assert "sekrit" not in text and json.loads(text)["target"] == {"url": url}
    assert records[0].stat().st_mode & 0o077 == 0


@needs_posix("the CPU time of child processes (resource.getrusage)")
def test_waiting_uses_no_cpu_between_polls(mrtr, http_servers):
    import resource

    url = http_servers.start(TASK_SERVER)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    r = mrtr(*url_args(url), "call", "slow", "seconds:=4")
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert r.code == 0, r.stderr
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # Start-up plus ~20 polls; a busy loop would burn the whole 4 s.
    assert cpu < wall * 0.4, (cpu, wall)


# ---------------------------------------------------------------------- the SEP-2322 variant
def test_sep2322_persistent_workflow(mrtr, sep: Target):
    sep.reset()
    r = mrtr(*sep.args, "call", "ask_twice", "-a", "name=Di", "-a", "color=red", "--json")
    assert r.code == 0, r.stderr
    result = r.json()
    assert result["content"][0]["text"] == "Di likes red"
    assert result["_meta"][RELATED]["taskId"].startswith("ask_twice-")
    requests = sep.requests()
    used = [m["method"] for m in requests]
    assert "tasks/update" not in used
    assert used.count("tasks/input_response") == 2 and "tasks/result" in used
    for msg in requests:
        if msg["method"] == "tasks/input_response":
            assert "taskId" not in msg["params"]
            assert msg["params"]["_meta"][RELATED]["taskId"] == result["_meta"][RELATED]["taskId"]


def test_sep2322_failure_comes_from_tasks_result(mrtr, sep: Target):
    r = mrtr(*sep.args, "call", "fail")
    assert r.code == 4, r.stderr
    assert "the build broke at the link step" in r.stderr


def test_sep2322_no_input_then_task_wait(mrtr, sep: Target, tmp_path):
    r = mrtr(*sep.args, "call", "ask_once", "--no-input")
    assert r.code == 5, r.stderr
    task_id = r.json()["taskId"]
    r = mrtr("task", "wait", "-a", "name=Ed", "--", task_id)
    assert r.code == 0, r.stderr
    assert r.stdout == "hello Ed\n"
    assert [t["variant"] for t in mrtr("task", "list", "--json").json()] == ["sep-2322"]


def test_sep2322_recognised_by_what_tasks_get_leaves_out(mrtr, sep_ms: Target):
    sep_ms.reset()
    r = mrtr(*sep_ms.args, "call", "ask_once", "-a", "name=Gus", "-v")
    assert r.code == 0, r.stderr
    assert r.stdout == "hello Gus\n"
    assert "the server follows SEP-2322" in r.stderr
    assert [m for m in methods(sep_ms) if m.startswith("tasks/") and m != "tasks/get"] == [
        "tasks/result", "tasks/input_response", "tasks/result"]


# ---------------------------------------------------------------------- fastmcp-tasks (PyPI)
def test_fastmcp_task_completes_after_polls(mrtr, fastmcp: Target):
    # Each step of `steps` lasts until a poll has seen it (not a time): every status change
    # is reported, on stderr, in order.
    r = mrtr(*fastmcp.args, "call", "steps", "count:=3", "--json")
    assert r.code == 0, r.stderr
    assert r.json()["content"][0]["text"] == "done in 3 steps"
    seen = re.findall(r"step \d of 3", r.stderr)
    assert seen == ["step 1 of 3", "step 2 of 3", "step 3 of 3"], r.stderr


def test_fastmcp_input_once_and_twice(mrtr, fastmcp: Target, tmp_path):
    r = mrtr(*fastmcp.args, "call", "greet", "-a", "name=Ann", "--json")
    assert r.code == 0, r.stderr
    assert r.json()["structuredContent"] == {"result": "hello Ann"}
    answers = write_json(tmp_path / "a.json", {"fields": {"name": "Bo", "color": "green"}})
    r = mrtr(*fastmcp.args, "call", "greet_twice", "--answers", answers, "--json")
    assert r.code == 0, r.stderr
    assert r.json()["structuredContent"] == {"result": "Bo likes green"}


def test_fastmcp_two_requests_in_one_update(mrtr, fastmcp: Target):
    r = mrtr(*fastmcp.args, "call", "pair", "-a", "a=x", "-a", "b=3", "--json", "-v")
    assert r.code == 0, r.stderr
    assert r.json()["structuredContent"] == {"result": "a=x b=3"}
    sent = [line for line in r.stderr.splitlines() if line.startswith("-> ") and '"tasks/update"' in line]
    assert len(sent) == 1
    assert len(json.loads(sent[0][3:])["params"]["inputResponses"]) == 2


def test_fastmcp_failed_and_tool_error(mrtr, fastmcp: Target):
    r = mrtr(*fastmcp.args, "call", "explode")
    assert r.code == 4, r.stderr
    assert "server error -32001" in r.stderr and "the reactor overheated" in r.stderr
    r = mrtr(*fastmcp.args, "call", "oops")
    assert r.code == 1, r.stderr
    assert "the tool failed politely" in r.stdout


# HTTP only: fastmcp-tasks keeps tasks in the server process's memory; over stdio it ends with the run.
@pytest.mark.parametrize("fastmcp", ["http"], indirect=True)
def test_fastmcp_task_cancel(mrtr, fastmcp: Target):
    r = mrtr(*fastmcp.args, "call", "slow", "seconds:=3600", "--detach")  # done only if cancelled
    assert r.code == 0, r.stderr
    task_id = r.stdout.strip()
    assert mrtr("task", "cancel", "--", task_id).code == 0
    r = mrtr("task", "wait", "--", task_id)
    assert r.code == 6, r.stderr


# HTTP only: fastmcp-tasks keeps tasks in the server process's memory; over stdio it ends with the run.
@pytest.mark.parametrize("fastmcp", ["http"], indirect=True)
def test_fastmcp_no_input_then_update_and_wait(mrtr, fastmcp: Target, http_servers, tmp_path):
    r = mrtr(*fastmcp.args, "call", "greet", "--no-input")
    assert r.code == 5, r.stderr
    pending = r.json()
    (key,) = pending["missing"]
    assert key.startswith(pending["taskId"])  # fastmcp-tasks mints keys from the task id
    answers = write_json(tmp_path / "a.json", {"fields": {"name": "Flo"}})
    assert mrtr("task", "update", "--answers", answers, "--", pending["taskId"]).code == 0
    r = mrtr("task", "wait", "--json", "--", pending["taskId"])
    assert r.code == 0, r.stderr
    assert r.json()["structuredContent"] == {"result": "hello Flo"}



def test_a_task_gone_when_its_answer_arrives(mrtr, tasks: Target):
    r = mrtr(*tasks.args, "call", "vanish", "-a", "name=Ann")
    assert r.code == 4, r.stderr
    assert "no longer knows task" in r.stderr and "stays on the server" not in r.stderr
    listed = mrtr("task", "list", "--json").json()
    assert [t["status"] for t in listed] == ["unknown"]


def test_save_answers_replays_task_keyed_questions_in_order(mrtr, fastmcp: Target, tmp_path):
    # fastmcp-tasks keys each question by the task's own id (`<taskId>:<hash>`): a new run's
    # task has another id, so the saved file answers those questions in the order asked.
    saved = tmp_path / "saved.json"
    r = mrtr(*fastmcp.args, "call", "greet_twice", "-a", "name=Ann", "-a", "color=green", "--save-answers", saved)
    assert r.code == 0 and r.stdout.startswith("Ann likes green\n"), r.stderr
    doc = json.loads(saved.read_text())
    assert doc["inputResponses"] == {}
    assert [a["content"] for a in doc["inOrder"]] == [{"name": "Ann"}, {"color": "green"}]
    r = mrtr(*fastmcp.args, "call", "greet_twice", "--answers", saved, "--no-input", "-v")
    assert r.code == 0 and r.stdout.startswith("Ann likes green\n"), r.stderr
    assert "inOrder[0]" in r.stderr and "inOrder[1]" in r.stderr


def test_a_stdio_task_needing_input_gets_a_template_that_answers_the_call_started_again(mrtr, tmp_path):
    """Over stdio the task ends with the run, and fastmcp-tasks keys its questions by the
    task's id: the template answers them in `inOrder` (those answered before first), the
    printed command works as printed, and no `resume` line is printed (nothing can resume)."""
    pytest.importorskip("fastmcp_tasks")
    stdio = ["--stdio", stdio_cmd(FASTMCP_SERVER)]
    r = mrtr(*stdio, "--no-input", "call", "greet_twice", "-a", "name=Ann")
    assert r.code == 5, r.stderr
    pending = r.json()
    template = pending["answersTemplate"]
    assert [a["content"] for a in template["inOrder"]] == [{"name": "Ann"}, {"color": None}]
    assert template["inputResponses"] == {}
    assert "resume" not in r.stderr and "task update" not in r.stderr, r.stderr
    (command,) = [line.strip() for line in r.stderr.splitlines() if line.strip().startswith("mrtr --stdio")]
    template["inOrder"][1]["content"]["color"] = "green"
    answers = write_json(tmp_path / "ANSWERS.json", template)
    words = shlex.split(command)
    assert words[:2] == ["mrtr", "--stdio"] and words[-2:] == ["--answers", "ANSWERS.json"], command
    again = mrtr(*words[1:-1], answers, "--no-input")  # the printed command, as printed
    assert again.code == 0 and again.stdout.startswith("Ann likes green\n"), again.stderr


def test_task_id_that_starts_with_a_dash_goes_after_double_dash(mrtr):
    # Server-minted ids (e.g. base64url tokens) may start with "-": click reads them as
    # options unless they follow "--"; the usage error says so.
    r = mrtr("task", "update", "-IfO7DC7", "--answers", "a.json")
    assert r.code == 2
    assert "after '--': mrtr task update [OPTIONS] -- VALUE" in r.stderr
    r = mrtr("task", "get", "--", "-IfO7DC7")
    assert r.code == 2
    assert "no local record of task '-IfO7DC7'" in r.stderr


HANDLE = {"resultType": "task", "taskId": "786512e2", "status": "working", "statusMessage": "started",
          "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z", "ttlMs": 60000,
          "pollIntervalMs": 5000}


# The CreateTaskResult and tasks/get examples of the 2025-11-25 spec (basic/utilities/tasks).
LEGACY_CREATED = {"task": {"taskId": "786512e2-9e0d-44bd-8f29-789f320fe840", "status": "working",
                           "statusMessage": "The operation is now in progress.", "createdAt": "2025-11-25T10:30:00Z",
                           "lastUpdatedAt": "2025-11-25T10:40:00Z", "ttl": 60000, "pollInterval": 5000}}


def test_parse_task_reads_the_flat_handle_losslessly():
    state = parse_task(HANDLE, what="CreateTaskResult")
    assert (state.task_id, state.status, state.status_message) == ("786512e2", "working", "started")
    assert (state.ttl_ms, state.poll_interval_ms) == (60000, 5000)
    assert state.raw is HANDLE and not state.terminal


def test_parse_task_ignores_result_type_and_checks_payloads():
    completed = {**HANDLE, "resultType": "task", "status": "completed", "result": {"content": []}}
    assert parse_task(completed, what="tasks/get result").result == {"content": []}
    assert parse_task({"status": "working", "ttlMs": None}, what="x", known_id="t1").ttl_ms is None
    with pytest.raises(ProtocolError, match='unknown task status "done"'):
        parse_task({**HANDLE, "status": "done"}, what="x")
    with pytest.raises(ProtocolError, match="no taskId"):
        parse_task({"status": "working"}, what="x")
    with pytest.raises(ProtocolError, match="'inputRequests' that is not an object"):
        parse_task({**HANDLE, "status": "input_required", "inputRequests": []}, what="x")
    # A malformed interval is ignored (the default applies), never trusted.
    assert parse_task({**HANDLE, "pollIntervalMs": "soon"}, what="x").poll_interval_ms is None


def test_sep2322_names_and_nested_creation():
    state = parse_sep({"task": {"taskId": "echo_1", "status": "working", "ttl": 60000, "pollInterval": 100}}, "x")
    assert (state.task_id, state.ttl_ms, state.poll_interval_ms) == ("echo_1", 60000, 100)


def test_variant_recognised_from_the_creation_result():
    assert ExtTasksWire.recognises(HANDLE) and not Sep2322Wire.recognises(HANDLE)
    assert Sep2322Wire.recognises({"task": {"taskId": "echo_1", "status": "working"}})
    assert Sep2322Wire.recognises({"taskId": "t", "status": "working", "ttl": 1, "pollInterval": 100})
    assert not ExtTasksWire.recognises({"content": []})


def test_poll_delay_is_a_floor_plus_bounded_jitter():
    rng = random.Random(7)
    for interval in (0, 50, 200, 5000, 60_000):
        for _ in range(50):
            delay = poll_delay(interval, rng)
            floor = max(interval, MIN_POLL_MS) / 1000
            assert floor <= delay <= floor + min(floor * 0.1, 1.0)
    assert 1.0 <= poll_delay(None, rng) <= 1.1


def test_records_save_find_by_prefix_and_reject_ambiguity(tmp_path):
    records = TaskRecords(str(tmp_path / "tasks"))
    a = TaskRecord(task_id="abc-111", target={"url": "http://h/mcp"}, tool="deploy", created="2026-01-01T00:00:00Z")
    b = TaskRecord(task_id="abc-222", target={"stdio": "python s.py"}, created="2026-01-02T00:00:00Z")
    records.save(a)
    records.save(b)
    assert [r.task_id for r in records.all()] == ["abc-222", "abc-111"]
    assert records.find("abc-1").tool == "deploy"
    assert records.find("abc-111", {"stdio": "python s.py"}) is None
    assert records.find("zzz") is None
    assert records.find("abc", prefix=False) is None  # exact only: no ambiguity
    with pytest.raises(UsageError, match="ambiguous"):
        records.find("abc")
    (tmp_path / "tasks" / "junk.json").write_text("not json")
    assert len(records.all()) == 2


def test_record_write_failure_warns_once(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    warnings: list[str] = []
    records = TaskRecords(str(blocker / "tasks"), warn=warnings.append)
    record = TaskRecord(task_id="t", target={"url": "u"})
    records.save(record)
    records.save(record)
    assert len(warnings) == 1 and "cannot write the task record" in warnings[0]


def test_resume_command_quotes_and_guards_a_leading_dash():
    context = TaskContext(target={"stdio": "python s.py"}, tool=None, params=None, protocol_version="2026-07-28",
                          target_words=["--stdio", "python s.py"], origin="task")
    assert context.command("wait", "abc") == "mrtr --stdio 'python s.py' task wait abc"
    assert context.command("wait", "-xY") == "mrtr --stdio 'python s.py' task wait -- -xY"
    assert (context.command("update", "-xY", "--answers", "a b.json")
            == "mrtr --stdio 'python s.py' task update --answers 'a b.json' -- -xY")


def test_status_lines_off_terminal_only_on_change_and_sanitised():
    err = io.StringIO()
    env = Environment(stdout=io.StringIO(), stderr=err, stdin=io.StringIO())
    line = StatusLine(env)
    assert not line.live and line.refresh_interval is None
    view = StatusView(label="task t1", status="working", message="step 1\x1b[2J", started=0.0)
    line.show(view)
    line.show(view)
    line.show(StatusView(label="task t1", status="working", message="step 2", started=0.0, next_at=5.0))
    line.show(StatusView(label="task t\x1b]0;x\x07", status="working", message=None, started=0.0))
    line.close()
    assert err.getvalue() == ("mrtr: task t1: working: step 1\\x1b[2J\nmrtr: task t1: working: step 2\n"
                              "mrtr: task t\\x1b]0;x\\x07: working\n")


def test_elapsed_time_reads_as_seconds_minutes_or_hours():
    assert [format_seconds(s) for s in (0, 59.9, 61, 3725)] == ["0s", "59s", "1m01s", "1h02m"]


def test_legacy_create_task_result_is_recognised_by_task_id():
    from mrtr_cli.protocol.legacy import is_create_task_result
    from mrtr_cli.tasks.legacy import LegacyTasksWire

    assert is_create_task_result(LEGACY_CREATED) and LegacyTasksWire.recognises(LEGACY_CREATED)
    assert not is_create_task_result({"content": [], "task": {"taskId": "t"}})  # a CallToolResult
    assert not is_create_task_result({"task": {"status": "working"}})
    assert not is_create_task_result({"task": "t1"})
    assert not is_create_task_result(HANDLE)  # the extension's flat handle


def test_legacy_task_names_ttl_and_poll_interval():
    from mrtr_cli.tasks.legacy import parse_legacy_task

    state = parse_legacy_task(LEGACY_CREATED, "CreateTaskResult")
    assert (state.task_id, state.status, state.ttl_ms, state.poll_interval_ms) == (
        "786512e2-9e0d-44bd-8f29-789f320fe840", "working", 60000, 5000)
    assert state.raw is LEGACY_CREATED["task"]
    flat = parse_legacy_task({**LEGACY_CREATED["task"], "ttl": None, "status": "input_required"}, "tasks/get result")
    assert flat.ttl_ms is None and flat.status == "input_required"  # null: unlimited


def test_tool_task_support_defaults_to_forbidden():
    from mrtr_cli.tasks.legacy import tool_task_support

    assert tool_task_support({"name": "a", "execution": {"taskSupport": "required"}}) == "required"
    assert tool_task_support({"name": "a", "execution": {"taskSupport": "optional"}}) == "optional"
    assert tool_task_support({"name": "a"}) == "forbidden"
    assert tool_task_support({"name": "a", "execution": {"taskSupport": "always"}}) == "forbidden"
    assert tool_task_support({"name": "a", "execution": []}) == "forbidden"


def test_a_tasks_get_answer_about_another_task_is_a_protocol_error():
    from mrtr_cli.errors import ProtocolError

    with pytest.raises(ProtocolError, match="is about task other, not mine"):
        parse_task({"taskId": "other", "status": "working"}, what="tasks/get result", known_id="mine")
    assert parse_task({"status": "working"}, what="tasks/get result", known_id="mine").task_id == "mine"
