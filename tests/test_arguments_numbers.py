"""Numbers JSON does not have (tester's finding 2) and numeric options (finding 5): NaN,
Infinity and overflowing numbers are refused wherever the user types JSON (exit 2) or a
server sends it (exit 4), never sent, and never crash the task loop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mrtr_cli.tasks.driver import MAX_POLL_MS, poll_delay
from tests.conftest import SERVERS, read_records, stdio_cmd

OK = {"result": {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}}


def raw(tmp_path: Path, script: dict) -> tuple[list[str], Path]:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))  # Python writes float("nan") as NaN: a server that sends it
    rec = tmp_path / "raw-record.jsonl"
    return ["--stdio", stdio_cmd(SERVERS / "raw_server.py", str(path), "--record", str(rec))], rec


@pytest.mark.parametrize(("args", "named"), [
    (["x:=NaN"], "argument 'x:=...'"),
    (["x:=[1, -Infinity]"], "argument 'x:=...'"),
    (["x:=1e400"], "argument 'x:=...'"),
    (["--args", '{"x": Infinity}'], "--args"),
    (["-a", "n:=NaN"], "-a n:=..."),
])
def test_non_finite_user_json_is_a_usage_error(mrtr_here, tmp_path, args, named):
    command, rec = raw(tmp_path, {"calls": {"t": [OK]}})
    r = mrtr_here(*command, "call", "t", *args)
    assert r.code == 2, r.stderr
    overflow = "1e400" in " ".join(args)
    assert named in r.stderr
    assert ("the number 1e400 is out of range" if overflow else "not a finite number") in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not [m for m in read_records(rec) if m.get("method") == "tools/call"]


def test_non_finite_number_in_an_answer_file_names_the_file(mrtr, tmp_path):
    command, _ = raw(tmp_path, {"calls": {"t": [OK]}})
    answers = tmp_path / "answers.json"
    answers.write_text('{"fields": {"n": NaN}}')
    r = mrtr(*command, "call", "t", "--answers", str(answers))
    assert r.code == 2, r.stderr
    assert "answers.json is not valid JSON: line 1 column 18: NaN is not a finite number" in r.stderr


@pytest.mark.parametrize(("written", "shown"), [
    ("1e400", "1e400"), ("-1E999", "-1E999"), ("1" * 60 + "e400", "1" * 39 + "…"),
])
def test_an_overflowing_number_in_an_answer_file_is_out_of_range_as_written(mrtr_here, tmp_path, written, shown):
    # The user wrote 1e400, never Infinity: the message quotes what they wrote, cut.
    command, rec = raw(tmp_path, {"calls": {"t": [OK]}})
    answers = tmp_path / "answers.json"
    answers.write_text('{"fields": {"count": %s}}' % written)
    r = mrtr_here(*command, "call", "t", "--answers", str(answers))
    assert r.code == 2, r.stderr
    assert (f"answers.json is not valid JSON: line 1 column 22: the number {shown} is out of range "
            "(beyond what a 64-bit float holds)") in r.stderr, r.stderr
    assert "Infinity" not in r.stderr and "finite" not in r.stderr


@pytest.mark.parametrize(("text", "named"), [("null", "null"), ("[1]", "an array"), ('"a"', "a string"),
                                             ("7", "an integer"), ("true", "a boolean")])
def test_an_answer_file_that_is_no_object_names_its_json_type(mrtr_here, tmp_path, text, named):
    command, _ = raw(tmp_path, {"calls": {"t": [OK]}})
    answers = tmp_path / "answers.json"
    answers.write_text(text)
    r = mrtr_here(*command, "call", "t", "--answers", str(answers))
    assert r.code == 2, r.stderr
    assert r.stderr.strip().endswith(f"answers.json: an answer file must be a JSON object, not {named}"), r.stderr


def test_a_server_result_with_nan_is_a_protocol_error(mrtr, tmp_path):
    command, _ = raw(tmp_path, {"calls": {"t": [
        {"result": {"resultType": "complete", "content": [], "structuredContent": {"v": float("nan")}}}]}})
    r = mrtr(*command, "call", "t", "--json")
    assert r.code == 4, r.stderr
    assert r.stdout == ""
    assert "the server sent NaN, which is not a JSON number" in r.stderr


def test_a_task_with_infinite_poll_interval_is_a_protocol_error_not_a_crash(mrtr, tmp_path):
    command, _ = raw(tmp_path, {"calls": {"t": [{"result": {
        "resultType": "task", "taskId": "x", "status": "working", "pollIntervalMs": float("inf")}}]}})
    r = mrtr(*command, "call", "t")
    assert r.code == 4, r.stderr
    assert "Infinity, which is not a JSON number" in r.stderr


def test_poll_interval_is_clamped():
    assert poll_delay(10**300) <= MAX_POLL_MS / 1000 + 1
    assert poll_delay(0) >= 0.1


# ---------------------------------------------------------------------- numeric options (finding 5)
@pytest.mark.parametrize("option", ["--timeout", "--max-timeout", "--probe-timeout", "--sampling-timeout",
                                    "--task-ttl"])
@pytest.mark.parametrize("value", ["nan", "inf", "1e400", "0", "-5", "1e20", "soon"])
def test_duration_options_refuse_what_is_not_a_sane_number_of_seconds(mrtr_here, tmp_path, option, value):
    command, rec = raw(tmp_path, {"calls": {"t": [OK]}})
    r = mrtr_here(*command, "call", "t", option, value)
    assert r.code == 2, (r.code, r.stderr)
    assert option in r.stderr and "Traceback" not in r.stderr
    assert read_records(rec) == []


def test_a_tiny_task_ttl_is_not_sent_as_zero(mrtr, tmp_path):
    record = tmp_path / "record.jsonl"
    server = stdio_cmd(SERVERS / "legacy_task_server.py", "--record", str(record))
    r = mrtr("--stdio", server, "call", "countdown", "polls:=1", "--task-ttl", "0.0001")
    assert r.code == 0, r.stderr
    call = [m for m in read_records(record) if m.get("method") == "tools/call"][0]
    assert call["params"]["task"] == {"ttl": 1}


def test_a_forms_4000_digit_bound_is_shown_short_in_the_error(mrtr, tmp_path):
    # The server's integers in the one error line: first digits and length, never 4000 digits
    # three times (docs/limits.md).
    big = 10**4000
    form = {"type": "object", "properties": {"c": {"type": "integer", "minimum": big, "maximum": big * 10}}}
    command, _ = raw(tmp_path, {"calls": {"t": [{"result": {
        "resultType": "input_required", "requestState": "s", "inputRequests": {"k": {
            "method": "elicitation/create", "params": {"mode": "form", "message": "m", "requestedSchema": form}}}}}]}})
    r = mrtr(*command, "call", "t", "-a", "c=1")
    assert r.code == 2, r.stderr
    assert "must be >= 100000…(4001 digits)" in r.stderr and "<= 100000…(4002 digits)" in r.stderr
    assert len(r.stderr) < 400, len(r.stderr)


@pytest.mark.parametrize(("result", "named"), [(None, "null"), ([1], "an array"), ("x", "a string")])
def test_a_server_result_that_is_no_object_names_its_json_type(mrtr, tmp_path, result, named):
    command, _ = raw(tmp_path, {"calls": {"t": [{"result": result}]}})
    r = mrtr(*command, "call", "t")
    assert r.code == 4, r.stderr
    assert f"the server's result is {named}, not an object" in r.stderr, r.stderr


def test_a_content_block_that_is_no_object_is_summarised_by_its_json_type():
    from mrtr_cli.render.output import summarise_block

    assert [summarise_block(b) for b in ([1], None, "s")] == ["[array]", "[null]", "[string]"]
