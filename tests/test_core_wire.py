"""Wire-level behaviour: odd results from a hand-written server, version and capability
errors, HTTP headers, SSE responses, and a server that dies (issue 2)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import EXAMPLE_SERVER, SERVERS, read_records, stdio_cmd


def raw(tmp_path: Path, script: dict, record: bool = True) -> tuple[list[str], Path]:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    rec = tmp_path / "raw-record.jsonl"
    extra = ["--record", str(rec)] if record else []
    return ["--stdio", stdio_cmd(SERVERS / "raw_server.py", str(path), *extra)], rec


def test_absent_result_type_is_complete(mrtr, tmp_path):
    args, _ = raw(tmp_path, {"calls": {"t": [{"result": {"content": [{"type": "text", "text": "old style"}]}}]}})
    r = mrtr(*args, "call", "t", "--json")
    assert r.code == 0, r.stderr
    assert r.json() == {"content": [{"type": "text", "text": "old style"}]}


def test_unknown_result_type_exits_4(mrtr, tmp_path):
    args, _ = raw(tmp_path, {"calls": {"t": [{"result": {"resultType": "bogus", "content": []}}]}})
    r = mrtr(*args, "call", "t")
    assert r.code == 4
    assert "resultType 'bogus'" in r.stderr
    assert r.stdout == ""


def test_task_result_without_declaring_tasks_is_invalid(mrtr, tmp_path):
    args, _ = raw(tmp_path, {"calls": {"t": [{"result": {"resultType": "task", "taskId": "x", "status": "working"}}]}})
    r = mrtr(*args, "call", "t", "--protocol", "2026-07-28")
    # Either the task driver runs (tasks declared) or the result is invalid: never a crash.
    assert r.code in (3, 4, 7), r.stderr
    assert "Traceback" not in r.stderr


def test_input_required_without_requests_or_state_is_invalid(mrtr, tmp_path):
    args, _ = raw(tmp_path, {"calls": {"t": [{"result": {"resultType": "input_required"}}]}})
    r = mrtr(*args, "call", "t")
    assert r.code == 4
    assert "neither inputRequests nor requestState" in r.stderr


def test_unsupported_version_is_retried_once_with_a_mutual_version(mrtr, tmp_path):
    # The server rejects the first request (a version it "does not know") and lists 2026-07-28.
    args, rec = raw(tmp_path, {
        "calls": {"t": [{"error": {"code": -32022, "message": "Unsupported protocol version",
                                   "data": {"supported": ["2026-07-28"], "requested": "2026-07-28"}}},
                        {"result": {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}}]},
    })
    r = mrtr(*args, "call", "t")
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "ok"
    calls = [m for m in read_records(rec) if m.get("method") == "tools/call"]
    assert len(calls) == 2 and calls[0]["id"] != calls[1]["id"]


def test_unsupported_version_without_a_common_one_is_a_clear_error(mrtr, tmp_path):
    args, _ = raw(tmp_path, {"rejectVersions": ["2026-07-28"], "supported": ["2025-06-18"]})
    r = mrtr(*args, "call", "t", "--protocol", "2026-07-28")
    assert r.code == 4
    assert "2025-06-18" in r.stderr
    assert "Traceback" not in r.stderr


def test_server_dying_mid_call_exits_3_with_its_stderr(mrtr):
    r = mrtr("-q", "--stdio", stdio_cmd(SERVERS / "core_server.py"), "call", "crash")
    assert r.code == 3
    assert "exited with code 3" in r.stderr
    assert "simulated crash" in r.stderr


def test_server_stderr_is_passed_through_or_hidden(mrtr):
    r = mrtr("--stdio", stdio_cmd(SERVERS / "core_server.py"), "call", "crash")
    assert r.stderr.count("simulated crash") == 1
    r = mrtr("-q", "--stdio", stdio_cmd(SERVERS / "core_server.py"), "call", "crash")
    assert r.stderr.count("simulated crash") == 1  # only in the failure report


def test_command_not_found_exits_3(mrtr):
    r = mrtr("--stdio", "definitely-not-a-command-xyz", "call", "t")
    assert r.code == 3
    assert "command not found: definitely-not-a-command-xyz" in r.stderr


def test_unreachable_url_exits_3(mrtr):
    r = mrtr("--url", "http://127.0.0.1:9/mcp", "call", "t")
    assert r.code == 3
    assert "cannot connect" in r.stderr


def test_http_headers_and_base64_name(mrtr, http_servers, tmp_path):
    record = tmp_path / "http.jsonl"
    url = http_servers.start(SERVERS / "core_server.py", "--record", str(record))
    r = mrtr("--url", url, "-H", "X-Trace: abc", "call", "no_state", "-a", "name=Ada")
    assert r.code == 0, r.stderr
    r = mrtr("--url", url, "call", "ünïcode tool")
    records = read_records(record)
    first = [m for m in records if m.get("method") == "tools/call"][0]["_http"]
    assert first["method"] == "POST"
    headers = first["headers"]
    assert set(map(str.strip, headers["accept"].split(","))) == {"application/json", "text/event-stream"}
    assert headers["content-type"].startswith("application/json")
    assert headers["mcp-protocol-version"] == "2026-07-28"
    assert headers["mcp-method"] == "tools/call"
    assert headers["mcp-name"] == "no_state"
    assert headers["x-trace"] == "abc"
    unicode_call = [m for m in records if m.get("params", {}).get("name") == "ünïcode tool"][0]
    assert unicode_call["_http"]["headers"]["mcp-name"] == "=?base64?w7xuw69jb2RlIHRvb2w=?="


def test_sse_response_with_notifications_then_result(mrtr, http_servers):
    url = http_servers.start(SERVERS / "core_server.py")
    r = mrtr("--url", url, "call", "slow_progress", "steps:=4", "-v")
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "slow done"
    assert r.stderr.count("notifications/progress") == 4


def test_json_rpc_error_in_a_4xx_body_is_read(mrtr, http_servers):
    # The SDK answers -32021 with HTTP 400 and a JSON-RPC error body.
    url = http_servers.start(SERVERS / "core_server.py")
    r = mrtr("--url", url, "call", "needs_sampling", "--json", "-vv")
    assert r.code == 4
    assert "<- HTTP 400" in r.stderr
    err = json.loads(r.stderr.strip().splitlines()[-1])["error"]
    assert err["code"] == -32021


def test_verbose_traces_messages_on_stderr_only(mrtr):
    r = mrtr("--stdio", stdio_cmd(EXAMPLE_SERVER), "call", "list_work_items", "-v", "--json")
    assert r.code == 0, r.stderr
    json.loads(r.stdout)  # stdout is only the result
    assert "-> {" in r.stderr and '"method": "tools/call"' in r.stderr
    assert "<- {" in r.stderr


def test_an_internal_error_is_one_line_not_a_traceback(mrtr, tmp_path):
    # A sitecustomize that breaks one internal function simulates a bug in mrtr.
    (tmp_path / "sitecustomize.py").write_text(
        "import mrtr_cli.render.output as o\n"
        "def boom(*a, **k):\n    raise RuntimeError('simulated bug')\n"
        "o.print_result = boom\n")
    args, _ = raw(tmp_path, {"calls": {"t": [{"result": {"content": []}}]}}, record=False)
    r = mrtr(*args, "call", "t", env={"PYTHONPATH": str(tmp_path)})
    assert r.code == 70
    assert "internal error (a bug in mrtr): RuntimeError: simulated bug" in r.stderr
    assert "Traceback" not in r.stderr
