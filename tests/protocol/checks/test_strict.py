"""`--strict`: every server message is checked against the official schema of the
negotiated version and the protocol rules a schema cannot express. A deliberately broken
raw server breaks each rule once; correct SDK servers get no violation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_SERVER, SERVERS, HttpServers, Target, recording_target, stdio_cmd

GATED = SERVERS / "gated_server.py"
TEXT = [{"type": "text", "text": "done"}]
SAMPLING = {"method": "sampling/createMessage", "params": {
    "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}}


LISTS = {"ttlMs": 0, "cacheScope": "public"}
TOOLS = [{"name": "state_on_complete", "inputSchema": {"type": "object"}},
         {"name": "asks_sampling", "inputSchema": {"type": "object"}}]


@pytest.fixture
def broken(tmp_path: Path):
    """A raw stdio server breaking one rule per method or tool (`tools`: its tools/list tools)."""

    def make(tools: list[dict] = TOOLS) -> list[str]:
        script = tmp_path / "broken.json"
        script.write_text(json.dumps({
            "tools": tools,
            "calls": {
                "state_on_complete": [{"result": {"resultType": "complete", "content": TEXT, "requestState": "s1"}}],
                "asks_sampling": [{"result": {"resultType": "input_required", "inputRequests": {"draft": SAMPLING}}}],
            },
            "methods": {
                "prompts/list": [{"result": {"resultType": "input_required", "prompts": [], **LISTS}}],
                "resources/list": [
                    {"result": {"resultType": "complete", "resources": [], "nextCursor": "a", **LISTS}},
                    {"result": {"resultType": "complete", "resources": [], "nextCursor": "a", **LISTS}},
                ],
            },
        }))
        return ["--stdio", stdio_cmd(SERVERS / "raw_server.py", str(script))]

    return make


def strict_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("mrtr: strict: ")]


def test_a_schema_violation_is_one_line_and_the_result_is_still_printed(mrtr, broken):
    server = broken([{"name": "no_schema"}, *TOOLS])
    r = mrtr(*server, "tools", "--json", "--strict")
    assert r.code == 4, r.stderr
    assert [t["name"] for t in r.json()] == ["no_schema", "state_on_complete", "asks_sampling"]
    assert strict_lines(r.stderr) == [
        "mrtr: strict: tools/list $.result.tools[0]: schema ListToolsResult: 'inputSchema' is a required property"]
    # Without --strict the same list is an invalid response (docs/limits.md): exit 4, the
    # member named, nothing printed, and no lint lines.
    plain = mrtr(*server, "tools", "--json")
    assert plain.code == 4 and plain.stdout == "" and not strict_lines(plain.stderr)
    assert "inputSchema" in plain.stderr


def test_request_state_on_a_complete_result(mrtr, broken):
    r = mrtr(*broken(), "call", "state_on_complete", "--strict")
    assert r.code == 4, r.stderr
    assert "done" in r.stdout
    lines = strict_lines(r.stderr)
    assert len(lines) == 1 and lines[0].startswith("mrtr: strict: tools/call $.result.requestState: request-state:")


def test_a_result_type_the_request_does_not_allow(mrtr, broken):
    r = mrtr(*broken(), "prompts", "--json", "--strict")
    assert r.code == 4, r.stderr
    assert r.json() == []
    lines = strict_lines(r.stderr)
    assert len(lines) == 1
    assert lines[0].startswith('mrtr: strict: prompts/list $.result.resultType: result-type: "input_required"')


def test_an_input_request_for_an_undeclared_capability(mrtr, broken):
    r = mrtr(*broken(), "call", "asks_sampling", "--strict", "--no-input")
    assert r.code == 4, r.stderr
    lines = strict_lines(r.stderr)
    assert lines == ["mrtr: strict: tools/call $.result.inputRequests.draft: undeclared-capability: "
                     "an input request for sampling, which the request did not declare"]


def test_a_repeated_pagination_cursor(mrtr, broken):
    r = mrtr(*broken(), "resources", "--strict")
    assert r.code == 4, r.stderr
    lines = strict_lines(r.stderr)
    assert len(lines) == 1
    assert lines[0].startswith('mrtr: strict: resources/list $.result.nextCursor: repeated-cursor: the cursor "a"')


def test_batch_counts_violations_per_line(mrtr, broken, tmp_path):
    batch = tmp_path / "lines.jsonl"
    batch.write_text('{"id": "ok", "call": "asks_sampling"}\n{"id": "bad", "call": "state_on_complete"}\n'
                     '{"id": "typo", "cal": "x"}\n')
    r = mrtr(*broken(), "batch", str(batch), "--strict", "--no-input")
    records = {rec["id"]: rec for rec in map(json.loads, r.stdout.splitlines())}
    assert records["bad"]["strictViolations"] == 1 and records["bad"]["exitCode"] == 4
    assert records["ok"]["strictViolations"] == 1  # the input request for sampling
    assert records["typo"]["exitCode"] == 2 and not records["typo"].get("strictViolations")
    assert r.code == 4


# ---------------------------------------------------------------------- correct servers
@pytest.fixture(scope="module", params=["stdio", "http"])
def gated(request: pytest.FixtureRequest, http_servers: HttpServers,
          tmp_path_factory: pytest.TempPathFactory) -> Target:
    return recording_target(request.param, GATED, http_servers, tmp_path_factory)


@pytest.mark.parametrize("command", [
    ["discover"], ["tools"], ["prompts"], ["templates"], ["call", "echo", "text=hi"],
    ["prompt", "review", "language=python"], ["complete", "prompt", "review", "language=py"],
])
def test_a_correct_sdk_server_has_no_violation(mrtr, gated, command):
    r = mrtr(*gated.args, *command, "--strict")
    assert r.code == 0, r.stderr
    assert not strict_lines(r.stderr)


def test_mrtr_round_trips_of_an_sdk_server_have_no_violation(mrtr):
    r = mrtr("--stdio", stdio_cmd(EXAMPLE_SERVER), "call", "update_work_item", "workItemId=4522", "state=Resolved",
             "-a", "resolution=Fixed", "-a", "comment=ok", "--strict", "--no-input")
    assert r.code == 0, r.stderr
    assert not strict_lines(r.stderr)


def test_an_older_sdk_server_is_checked_against_its_schema(mrtr):
    r = mrtr("--stdio", stdio_cmd(SERVERS / "dual_server.py"), "--protocol", "2025-11-25", "tools", "--strict")
    assert r.code == 0, r.stderr
    assert not [line for line in r.stderr.splitlines() if line.startswith("mrtr: strict:")]


def test_a_task_of_the_tasks_extension_is_no_violation(mrtr):
    """`resultType: "task"` is allowed on a tools/call that declared the extension, and its
    schema (not part of the core schema) is not held against it."""
    r = mrtr("--stdio", stdio_cmd(SERVERS / "task_server.py"), "call", "ask_once", "-a", "name=Bo",
             "--strict", "--no-input")
    assert r.code == 0, r.stderr
    assert "hello Bo" in r.stdout
    assert not strict_lines(r.stderr)


def test_an_older_servers_request_for_an_undeclared_capability(mrtr):
    """A 2025-11-25 server asks with its own request; nothing declared sampling in initialize."""
    server = ["--stdio", stdio_cmd(SERVERS / "legacy_server.py", "--version", "2025-11-25")]
    r = mrtr(*server, "call", "ask_sampling", "--strict", "--no-input")
    assert r.code == 4, r.stderr
    assert strict_lines(r.stderr) == ["mrtr: strict: sampling/createMessage $: undeclared-capability: "
                                      "a request for sampling, which this client did not declare in initialize"]
    r = mrtr(*server, "call", "echo", "text=hi", "--strict")
    assert r.code == 0 and not strict_lines(r.stderr), r.stderr
