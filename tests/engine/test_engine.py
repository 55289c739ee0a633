"""The MRTR engine: `mrtr call` finishes multi round-trip calls on real 2026-07-28 SDK servers,
over stdio and HTTP; odd results from a hand-written server (absent or unknown
result types, version negotiation), verbose traces, and an internal error (exit 70)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp_types.methods import validate_client_request

from mrtr_cli.limits import describe_seconds
from tests.conftest import ANSWERS, EXAMPLE_SERVER, SERVERS, Target, read_records, stdio_cmd
from tests.support import growing_bound

MODERN = "2026-07-28"


def test_resolve_duplicate_from_answer_file(mrtr, example: Target):
    r = mrtr(*example.args, "call", "update_work_item", "workItemId=4522", "state=Resolved",
             "--answers", ANSWERS / "resolve-duplicate.json", "--json")
    assert r.code == 0, r.stderr
    result = r.json()
    assert result["content"][0]["text"] == "Work item 4522 resolved as a duplicate of 4301."
    assert result["structuredContent"]["duplicateOf"] == 4301
    # Lossless: the server's _meta and resultType are printed as sent.
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "work-items"
    assert result["resultType"] == "complete"


def test_text_output_shows_text_and_structured_content(mrtr, example: Target):
    r = mrtr(*example.args, "call", "update_work_item", "workItemId=4522", "state=Resolved",
             "-a", "resolution=Fixed")
    assert r.code == 0, r.stderr
    first, rest = r.stdout.split("\n", 1)
    assert first == "Work item 4522 resolved: Fixed."
    assert json.loads(rest)["resolution"] == "Fixed"


def test_prompt_and_resource_answer_input(mrtr, example: Target):
    r = mrtr(*example.args, "prompt", "triage", "workItemId=4522", "-a", "audience=Engineers", "--json")
    assert r.code == 0, r.stderr
    assert "for an engineer" in r.json()["messages"][0]["content"]["text"]
    r = mrtr(*example.args, "read", "workitems://4301/export", "-a", "includeHistory=true")
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout)["history"] == ["created", "triaged"]


def test_decline_is_sent_and_exits_6(mrtr, example: Target):
    r = mrtr(*example.args, "call", "delete_work_item", "workItemId=4600",
             "--answers", ANSWERS / "decline.json")
    assert r.code == 6, r.stderr
    assert r.stdout.strip() == "Work item 4600 was kept."


def test_every_request_validates_against_official_types(mrtr, core: Target):
    core.reset()
    r = mrtr(*core.args, "call", "two_forms", "-a", "a=x", "-a", "b=2")
    assert r.code == 0, r.stderr
    r = mrtr(*core.args, "call", "big_state", "size:=50", "-a", "ok=true")
    assert r.code == 0, r.stderr
    requests = core.requests()
    assert [m["method"] for m in requests] == ["tools/list", "tools/call", "tools/call"] * 2  # one round each
    for msg in requests:
        params = {k: v for k, v in msg.get("params", {}).items()}
        validate_client_request(msg["method"], MODERN, params)
        meta = params["_meta"]
        assert meta["io.modelcontextprotocol/protocolVersion"] == MODERN
        assert meta["io.modelcontextprotocol/clientInfo"]["name"] == "mrtr"
        assert "elicitation" in meta["io.modelcontextprotocol/clientCapabilities"] or msg["method"] != "tools/call"


@pytest.mark.parametrize("size", [100, 100_000])
def test_request_state_echoed_byte_for_byte(mrtr, core: Target, size: int):
    core.reset()
    r = mrtr(*core.args, "call", "big_state", f"size:={size}", "-a", "ok=true")
    assert r.code == 0, r.stderr + r.stdout
    assert r.stdout.strip() == "state ok"
    first, retry = core.calls()
    # The server's own check passed; also compare the raw wire values.
    assert retry["params"]["requestState"] == first_state(size)
    assert retry["id"] != first["id"]
    assert retry["params"]["arguments"] == first["params"]["arguments"]
    assert retry["params"]["inputResponses"] == {"ok": {"action": "accept", "content": {"ok": True}}}


def first_state(size: int) -> str:
    from tests.servers.core_server import big_state

    return big_state(size)


def loop_answers(tmp_path, rounds: int = 10):
    """An answer file answering `loop`'s "again" for `rounds` rounds (a list: one entry per
    round; a one-off answer is never sent twice)."""
    path = tmp_path / "loop.json"
    path.write_text(json.dumps({"inputResponses": {"again": [{"action": "accept", "content": {"go": True}}] * rounds}}))
    return path


def test_each_retry_has_a_new_id(mrtr, core: Target, tmp_path):
    core.reset()
    r = mrtr(*core.args, "call", "loop", "--answers", loop_answers(tmp_path), "--max-rounds", "4")
    assert r.code == 4
    ids = [m["id"] for m in core.requests() if m["method"] == "tools/call"]
    assert len(ids) == 5
    assert len(set(ids)) == 5


def test_no_request_state_sent_when_none_came(mrtr, core: Target):
    core.reset()
    r = mrtr(*core.args, "call", "no_state", "-a", "name=Ada")
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "requestState present: False"
    retry = core.calls()[-1]
    assert "requestState" not in retry["params"]
    assert retry["params"]["inputResponses"] == {"q": {"action": "accept", "content": {"name": "Ada"}}}


def test_request_state_only_result_is_retried_without_prompting(mrtr, core: Target):
    core.reset()
    r = mrtr(*core.args, "call", "shed", "--no-input")
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "shed ok (try-again-1, inputResponses: False)"
    first, retry = core.calls()
    assert retry["params"]["requestState"] == "try-again-1"
    assert "inputResponses" not in retry["params"]
    assert "requestState" not in first["params"]


def test_round_cap_exits_4_naming_the_rounds(mrtr, core: Target, tmp_path):
    core.reset()
    r = mrtr(*core.args, "call", "loop", "--answers", loop_answers(tmp_path), "--max-rounds", "3")
    assert r.code == 4
    assert "the server still asks for input after 3 rounds (--max-rounds 3)" in r.stderr
    assert r.stdout == ""
    # The message names the cap; the server shows the rounds really answered: the first
    # request and one retry for each of the 3 rounds, the 4th input_required ending it.
    calls = [m for m in core.requests() if m["method"] == "tools/call"]
    assert len(calls) == 4
    assert ["inputResponses" in m["params"] for m in calls] == [False, True, True, True]


def test_wrong_answer_type_exits_2_naming_the_field(mrtr, core: Target, tmp_path):
    core.reset()
    r = mrtr(*core.args, "call", "typed", "-a", "count=many")
    assert r.code == 2
    assert '"count"' in r.stderr and "integer" in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"f": {"action": "accept", "content": {"count": "three"}}}))
    r = mrtr(*core.args, "call", "typed", "--answers", bad)
    assert r.code == 2
    assert str(bad) in r.stderr and '"count"' in r.stderr and "integer" in r.stderr
    # Nothing invalid was sent: only the first request reached the server each time.
    calls = [m for m in core.requests() if m["method"] == "tools/call"]
    assert len(calls) == 2
    assert all("inputResponses" not in m["params"] for m in calls)


def test_out_of_range_and_enum_answers_are_refused(mrtr, core: Target):
    r = mrtr(*core.args, "call", "typed", "-a", "count=11")
    assert r.code == 2 and "<= 10" in r.stderr
    r = mrtr(*core.args, "call", "typed", "-a", "count=1", "-a", "color=blue")
    assert r.code == 2 and "red, green" in r.stderr


def test_typed_flags_are_coerced_by_the_form_schema(mrtr, core: Target):
    r = mrtr(*core.args, "call", "typed", "-a", "count=3", "-a", "ratio=0.5", "-a", "flag=yes", "-a", "color=red")
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout) == {"color": "red", "count": 3, "flag": True, "ratio": 0.5}


def test_no_input_exits_5_with_pending_document(mrtr, core: Target):
    core.reset()
    r = mrtr(*core.args, "call", "two_forms", "--no-input")
    assert r.code == 5
    doc = r.json()
    assert doc["mrtr"] == "pending/1"
    assert doc["missing"] == ["first", "second"]
    assert doc["method"] == "tools/call"
    assert doc["params"] == {"name": "two_forms", "arguments": {}}
    assert doc["requestState"] == "two"
    assert set(doc["inputRequests"]) == {"first", "second"}
    assert doc["answersTemplate"]["inputResponses"]["second"] == {"action": "accept", "content": {"b": None}}
    assert "input required" in r.stderr
    assert len(core.calls()) == 1


def test_partial_answers_still_pend_and_resume_finishes(mrtr, core: Target, tmp_path):
    r = mrtr(*core.args, "call", "two_forms", "--no-input", "-a", "a=x")
    assert r.code == 5
    doc = r.json()
    assert doc["missing"] == ["second"]
    assert doc["answered"] == {"first": {"action": "accept", "content": {"a": "x"}}}
    pending = tmp_path / "pending.json"
    pending.write_text(r.stdout)
    r = mrtr("resume", pending, "-a", "b=7", *core.args)
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout) == {"first": {"a": "x"}, "second": {"b": 7}}


def test_missing_capability_is_a_clear_error(mrtr, core: Target):
    r = mrtr(*core.args, "call", "needs_sampling")
    assert r.code == 4
    assert "sampling" in r.stderr
    assert "--sampling-command" in r.stderr


def test_json_errors_are_one_json_line_on_stderr(mrtr, core: Target):
    r = mrtr(*core.args, "call", "needs_sampling", "--json")
    assert r.code == 4
    assert r.stdout == ""
    err = json.loads(r.stderr.strip().splitlines()[-1])["error"]
    assert err["exitCode"] == 4 and err["code"] == -32021
    assert err["data"] == {"requiredCapabilities": {"sampling": {}}}


def test_timeout_exits_7(mrtr, core: Target):
    # `hang` never answers: --timeout is the only way the call ends. mrtr's start-up and
    # the first connection (a stdio server's start-up too) count against --timeout, and a
    # loaded machine can spend all of it there: such a run never sent the call, so the
    # bound grows until one did (the server recorded it).
    def attempt(bound: float) -> bool | None:
        core.reset()
        r = mrtr(*core.args, "call", "hang", "--timeout", f"{bound:g}")
        assert r.code == 7, r.stderr
        if not [m for m in core.calls() if m["params"]["name"] == "hang"]:
            return None
        assert r.stderr == f"mrtr: error: timed out after {describe_seconds(bound)} waiting for tools/call\n", r.stderr
        return True

    growing_bound(attempt, 3, what="a run whose tools/call reached the server")


def test_a_timeout_under_a_second_is_said_truthfully(mrtr, core: Target):
    """`--timeout 0.01`: whichever wait it ends (the era probe, the call), the message says
    the time allowed as it was, "10 ms", never "0s"."""
    r = mrtr(*core.args, "call", "hang", "--timeout", "0.01")
    assert r.code == 7, r.stderr
    assert "10 ms" in r.stderr and "0s" not in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr


def test_progress_notifications_do_not_reach_stdout(mrtr, core: Target):
    r = mrtr(*core.args, "call", "slow_progress", "steps:=3", "-v")
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "slow done"
    assert r.stderr.count("notifications/progress") == 3


def test_trace_file_has_every_message(mrtr, core: Target, tmp_path):
    trace = tmp_path / "t.jsonl"
    r = mrtr(*core.args, "call", "no_state", "-a", "name=Ada", "--trace", trace)
    assert r.code == 0, r.stderr
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    sent = [rec["message"] for rec in records if rec.get("dir") == "send"
            and rec["message"].get("method") != "server/discover"]  # the era probe
    received = [rec["message"] for rec in records if rec.get("dir") == "recv"]
    assert [m["method"] for m in sent if m["method"] != "tools/list"] == ["tools/call", "tools/call"]
    assert received[-1]["result"]["content"][0]["text"] == "requestState present: False"


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
    assert 'resultType "bogus"' in r.stderr
    assert r.stdout == ""


def test_a_task_result_goes_to_the_task_driver(mrtr, tmp_path):
    # tools/call always declares the tasks extension, so a task result is driven: the driver
    # asks tasks/get, which this server does not have (a server error, exit 4). A task result
    # for a request that did not declare the extension is tested in engine/test_mrtr.py.
    args, rec = raw(tmp_path, {"calls": {"t": [{"result": {"resultType": "task", "taskId": "x",
                                                           "status": "working"}}]}})
    r = mrtr(*args, "call", "t", "--protocol", "2026-07-28")
    assert r.code == 4, r.stderr
    assert "server error -32601: Method not found: tasks/get" in r.stderr
    assert "task x (working) stays on the server" in r.stderr
    assert [m.get("method") for m in read_records(rec) if m.get("method", "").startswith(("tools/c", "tasks/"))] == [
        "tools/call", "tasks/get"]


def test_input_required_without_requests_or_state_is_invalid(mrtr, tmp_path):
    args, _ = raw(tmp_path, {"calls": {"t": [{"result": {"resultType": "input_required"}}]}})
    r = mrtr(*args, "call", "t")
    assert r.code == 4
    assert "neither inputRequests nor requestState" in r.stderr


def test_input_required_that_asks_nothing_and_keeps_no_state_fails_at_once(mrtr, tmp_path):
    """`inputRequests: {}` without `requestState`: the retry would carry nothing the first
    request did not, so it is the server's malformed reply (basic/patterns/mrtr: at least one of
    the two): exit 4 after one request, one line. With a `requestState`, an empty
    `inputRequests` is a retry the server asks for: the state goes back and the call goes on."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "state").mkdir()
    args, rec = raw(tmp_path / "empty", {"calls": {"t": [
        {"result": {"resultType": "input_required", "inputRequests": {}}}]}})
    r = mrtr(*args, "call", "t")
    assert r.code == 4, r.stderr
    assert r.stderr.splitlines() == [
        "mrtr: error: the server's input_required result asks for nothing (inputRequests is empty) "
        "and has no requestState"], r.stderr
    assert [m.get("method") for m in read_records(rec)].count("tools/call") == 1
    args, rec = raw(tmp_path / "state", {"calls": {"t": [
        {"result": {"resultType": "input_required", "inputRequests": {}, "requestState": "s1"}},
        {"result": {"content": [{"type": "text", "text": "done"}], "resultType": "complete"}}]}})
    r = mrtr(*args, "call", "t")
    assert r.code == 0, r.stderr
    calls = [m for m in read_records(rec) if m.get("method") == "tools/call"]
    assert [c["params"].get("requestState") for c in calls] == [None, "s1"]


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


@pytest.mark.parametrize("given", [["-a", "a.n=x", "--no-input"], ["--no-input"]])
def test_a_form_field_whose_pattern_is_no_regular_expression_is_the_servers_fault(mrtr, tmp_path, given):
    """A server's `pattern` that `re` cannot compile is a malformed request (exit 4, one
    line naming the input and the field), whether or not an answer is given for it."""
    form = {"method": "elicitation/create", "params": {"mode": "form", "message": "n?", "requestedSchema": {
        "type": "object", "properties": {"n": {"type": "string", "pattern": "[a-"}}, "required": ["n"]}}}
    args, _ = raw(tmp_path, {"calls": {"t": [{"result": {"resultType": "input_required",
                                                        "inputRequests": {"a": form}, "requestState": "s"}}]}})
    r = mrtr(*args, "call", "t", *given)
    assert r.code == 4, (r.code, r.stderr)
    assert 'field "n": its pattern is no regular expression' in r.stderr, r.stderr
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("requests", [None, {}], ids=["no-inputRequests", "empty-inputRequests"])
def test_input_required_with_an_empty_request_state_fails_at_once(mrtr, tmp_path, requests):
    """`requestState: ""` with nothing asked: the state carries nothing, so the retry could
    not make progress (the same rule as an empty `inputRequests` without `requestState`):
    exit 4 after one request, one line; no load-shedding retries."""
    shown = {"resultType": "input_required", "requestState": ""}
    if requests is not None:
        shown["inputRequests"] = requests
    args, rec = raw(tmp_path, {"calls": {"t": [{"result": shown}] * 12}})
    r = mrtr(*args, "call", "t")
    assert r.code == 4, r.stderr
    asked = "no inputRequests" if requests is None else "inputRequests is empty"
    assert r.stderr.splitlines() == [
        f"mrtr: error: the server's input_required result asks for nothing ({asked}) "
        "and its requestState is empty"], r.stderr
    assert [m.get("method") for m in read_records(rec)].count("tools/call") == 1
