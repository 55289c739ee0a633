"""Unit tests of the task pieces that need no server: parsing task states, the poll
delay, local records, resume commands and the off-terminal status lines (issue 4)."""

from __future__ import annotations

import io
import random

import pytest

from mrtr_cli.env import Environment
from mrtr_cli.errors import ProtocolError, UsageError
from mrtr_cli.render.status import StatusLine, StatusView, format_seconds
from mrtr_cli.tasks.driver import MIN_POLL_MS, TaskContext, poll_delay
from mrtr_cli.tasks.records import TaskRecord, TaskRecords
from mrtr_cli.tasks.ext import ExtTasksWire
from mrtr_cli.tasks.sep2322 import Sep2322Wire
from mrtr_cli.tasks.sep2322 import parse_sep2322_task as parse_sep
from mrtr_cli.tasks.state import parse_task

HANDLE = {"resultType": "task", "taskId": "786512e2", "status": "working", "statusMessage": "started",
          "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z", "ttlMs": 60000,
          "pollIntervalMs": 5000}


def test_parse_task_reads_the_flat_handle_losslessly():
    state = parse_task(HANDLE, what="CreateTaskResult")
    assert (state.task_id, state.status, state.status_message) == ("786512e2", "working", "started")
    assert (state.ttl_ms, state.poll_interval_ms) == (60000, 5000)
    assert state.raw is HANDLE and not state.terminal


def test_parse_task_ignores_result_type_and_checks_payloads():
    completed = {**HANDLE, "resultType": "task", "status": "completed", "result": {"content": []}}
    assert parse_task(completed, what="tasks/get result").result == {"content": []}
    assert parse_task({"status": "working", "ttlMs": None}, what="x", known_id="t1").ttl_ms is None
    with pytest.raises(ProtocolError, match="unknown task status 'done'"):
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
                         prefix="mrtr --stdio 'python s.py'", origin="task")
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


def test_format_seconds():
    assert [format_seconds(s) for s in (0, 59.9, 61, 3725)] == ["0s", "59s", "1m01s", "1h02m"]


# ---------------------------------------------------------------------- 2025-11-25 core tasks (issue 5)
# The CreateTaskResult and tasks/get examples of the 2025-11-25 spec (basic/utilities/tasks).
LEGACY_CREATED = {"task": {"taskId": "786512e2-9e0d-44bd-8f29-789f320fe840", "status": "working",
                           "statusMessage": "The operation is now in progress.", "createdAt": "2025-11-25T10:30:00Z",
                           "lastUpdatedAt": "2025-11-25T10:40:00Z", "ttl": 60000, "pollInterval": 5000}}


def test_legacy_create_task_result_is_recognised_by_task_id():
    from mrtr_cli.tasks.legacy import LegacyTasksWire, is_create_task_result

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
