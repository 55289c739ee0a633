"""Era detection and the legacy (2025-11-25 and earlier) protocol on the wire:
the probe and its timeout, the era cache, the handshake, legacy Streamable HTTP sessions,
server-initiated requests, URL elicitation and -32042, legacy results and errors.

Also the pure parts: the probe's verdicts, `--protocol` values, declared capabilities per
version, the era cache file and server keys."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from mcp_types.methods import validate_client_notification, validate_client_request, validate_client_result

from mrtr_cli.errors import ProtocolError, UsageError
from mrtr_cli.protocol.era.cache import EraCache, server_key
from mrtr_cli.protocol.era.opener import parse_protocol
from mrtr_cli.protocol.era.verdict import classify_response
from mrtr_cli.protocol.legacy import declared_capabilities
from mrtr_cli.render.listing import describe_discover
from tests.conftest import PY, SERVERS, read_records, stdio_cmd, url_args
from tests.support import SAFETY

DUAL = SERVERS / "dual_server.py"
LEGACY = SERVERS / "legacy_server.py"
META = "io.modelcontextprotocol/"


def legacy(record: Path | None = None, *extra: str) -> list[str]:
    args = [*extra] + (["--record", str(record)] if record else [])
    return ["--stdio", stdio_cmd(LEGACY, *args)]


def raw_records(path: Path) -> list[dict]:
    """Every recorded HTTP request (method, headers, body), bodies or not (DELETE, GET)."""
    return [json.loads(line) for line in path.read_text().splitlines()]


# ---------------------------------------------------------------------- probing and the cache
def test_silent_legacy_server_is_detected_within_the_probe_timeout(mrtr, tmp_path):
    record = tmp_path / "rec.jsonl"
    args = legacy(record, "--silent-discover")
    r = mrtr(*args, "call", "echo", "text=hi", "-v")
    assert r.code == 0, r.stderr
    assert r.stdout == "hi\n"
    assert "server/discover: no answer within 2 s -> legacy" in r.stderr
    assert [m["method"] for m in read_records(record, probe=True) if "id" in m][:2] == ["server/discover", "initialize"]
    # Detected after the default probe timeout (2 s, as the message says), not after the
    # 60 s a modern probe may wait: measured where it runs, from the probe's arrival to
    # initialize's, by the server (a server slow to read its first line only shortens
    # that); the rest is room for a loaded machine to react.
    arrived = {json.loads(rec["raw"])["method"]: rec["at"]
               for rec in map(json.loads, record.read_text().splitlines()) if "method" in json.loads(rec["raw"])}
    assert arrived["initialize"] - arrived["server/discover"] < 30, arrived
    # The era cache: the second run sends initialize at once, no probe, no wait.
    record.write_text("")
    r = mrtr(*args, "call", "echo", "text=again", "-v")
    assert r.code == 0, r.stderr
    assert "known from the era cache" in r.stderr
    assert [m["method"] for m in read_records(record, probe=True) if "id" in m][0] == "initialize"


def test_probe_timeout_is_configurable(mrtr, tmp_path):
    r = mrtr(*legacy(None, "--silent-discover"), "--probe-timeout", "0.3", "call", "echo", "text=hi", "-v")
    assert r.code == 0, r.stderr
    assert "no answer within 300 ms" in r.stderr
    r = mrtr(*legacy(None), "--probe-timeout", "0", "call", "echo", "text=hi")
    assert r.code == 2 and "--probe-timeout" in r.stderr


def test_modern_server_listing_only_handshake_versions_is_spoken_to_as_legacy(mrtr, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"rejectVersions": ["2026-07-28"], "supported": ["2025-06-18"]}))
    record = tmp_path / "rec.jsonl"
    r = mrtr("--stdio", stdio_cmd(SERVERS / "raw_server.py", str(script), "--record", str(record)), "call", "t", "-v")
    assert "listing only handshake versions -> legacy" in r.stderr
    # This raw server knows no initialize: a clear error naming both attempts, no guessing.
    assert r.code == 4
    assert "Method not found: initialize" in r.stderr and "--protocol" in r.stderr
    init = [m for m in read_records(record) if m.get("method") == "initialize"][0]
    assert init["params"]["protocolVersion"] == "2025-06-18"


def test_a_cached_legacy_guess_that_fails_is_probed_again(mrtr, tmp_path):
    from mrtr_cli.config.target import parse_stdio
    from mrtr_cli.protocol.era.cache import EraCache, server_key

    script = tmp_path / "script.json"
    script.write_text(json.dumps({"calls": {"t": [{"result": {"resultType": "complete",
                                                             "content": [{"type": "text", "text": "ok"}]}}]}}))
    command = ["--stdio", stdio_cmd(SERVERS / "raw_server.py", str(script))]
    key = server_key(command=parse_stdio(command[1]))
    cache = EraCache(str(tmp_path / "state" / "mrtr" / "eras.json"))
    cache.put(key, "legacy", "2025-11-25")  # a wrong guess for this (modern) server
    r = mrtr(*command, "call", "t", "-v")
    assert r.code == 0, r.stderr
    assert r.stdout == "ok\n"
    assert "the cached era (legacy) failed" in r.stderr
    assert cache.get(key)["era"] == "modern"


def test_modern_server_without_discover_is_still_modern(mrtr, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({
        "discoverError": {"code": -32601, "message": "Method not found"},
        "calls": {"t": [{"result": {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}}]}}))
    r = mrtr("--stdio", stdio_cmd(SERVERS / "raw_server.py", str(script)), "call", "t", "-v")
    assert r.code == 0, r.stderr
    assert "the server is modern after all" in r.stderr
    assert r.stdout == "ok\n"


def test_slow_starting_modern_server_is_not_mistaken_for_legacy(mrtr, tmp_path):
    # The server reads nothing for its first second (still starting), far beyond the probe
    # timeout: the probe timeout counts from when the server has read the probe, so mrtr
    # neither guesses legacy nor sends initialize, however slow the machine.
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"startDelay": 1.0, "calls": {"t": [
        {"result": {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}}]}}))
    record = tmp_path / "rec.jsonl"
    r = mrtr("--stdio", stdio_cmd(SERVERS / "raw_server.py", str(script), "--record", str(record)),
             "--probe-timeout", "0.3", "call", "t", "-v")
    assert r.code == 0, r.stderr
    assert r.stdout == "ok\n"
    assert "no answer within" not in r.stderr and "speaking MCP 2026-07-28 (modern)" in r.stderr
    assert "era probe: the server read server/discover" in r.stderr
    assert [m.get("method") for m in read_records(record, probe=True) if "id" in m] == ["server/discover", "tools/list",
                                                                                        "tools/call"]


def test_bad_protocol_value_is_a_usage_error(mrtr):
    r = mrtr(*legacy(None), "--protocol", "1999-01-01", "call", "echo")
    assert r.code == 2
    assert "auto, 2026-07-28, 2025-11-25, 2025-06-18" in r.stderr


# ---------------------------------------------------------------------- the handshake on stdio
def test_legacy_messages_validate_against_the_negotiated_version(mrtr, tmp_path):
    record = tmp_path / "rec.jsonl"
    r = mrtr(*legacy(record), "call", "book_table", "date=Mon", "-a", "partySize=2", "-a", "seating=outdoor")
    assert r.code == 0, r.stderr
    messages = read_records(record, probe=True)
    methods = [m.get("method") for m in messages]
    assert methods[:3] == ["server/discover", "initialize", "notifications/initialized"]
    init = messages[1]["params"]
    assert init["protocolVersion"] == "2025-11-25"  # the newest; the server answered 2025-06-18
    assert init["clientInfo"]["name"] == "mrtr"
    for msg in messages[1:]:
        params = msg.get("params")
        if "method" in msg and "id" in msg:
            validate_client_request(msg["method"], "2025-06-18", params)
            assert not any(k.startswith(META) for k in (params or {}).get("_meta", {})), msg
        elif "method" in msg:
            validate_client_notification(msg["method"], "2025-06-18", params)
        else:  # our answer to the server's elicitation/create
            validate_client_result("elicitation/create", "2025-06-18", msg["result"])
            assert msg["id"] == "s1"
            assert msg["result"] == {"action": "accept", "content": {"partySize": 2, "seating": "outdoor"}}


def test_pinned_older_version_is_offered(mrtr, tmp_path):
    record = tmp_path / "rec.jsonl"
    r = mrtr(*legacy(record), "--protocol", "2025-06-18", "call", "echo", "text=x")
    assert r.code == 0, r.stderr
    init = read_records(record)[0]
    assert init["method"] == "initialize"
    assert init["params"]["protocolVersion"] == "2025-06-18"
    # 2025-06-18 has no elicitation modes: plain `elicitation: {}`.
    assert init["params"]["capabilities"]["elicitation"] == {}


def test_discover_shows_both_eras(mrtr):
    r = mrtr(*legacy(None), "discover")
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines()[:2] == [
        "Era:           legacy (initialize handshake, MCP 2025-06-18)",
        "Server:        Legacy 2025-06-18 test server (legacy-test) 0.9",
    ]
    assert "  tools\n  resources\n  logging" in r.stdout
    assert "A hand-written server for mrtr's tests." in r.stdout
    r = mrtr(*legacy(None), "discover", "--json")
    doc = r.json()  # the InitializeResult as sent
    assert doc["protocolVersion"] == "2025-06-18" and doc["serverInfo"]["name"] == "legacy-test"
    r = mrtr("--stdio", stdio_cmd(DUAL), "discover")
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines()[:3] == [
        "Era:           modern (per-request metadata, MCP 2026-07-28)",
        "Server:        Dual-era test server (dual-test) 1.0.0",
        "Versions:      2026-07-28 (speaking 2026-07-28)",
    ]
    r = mrtr("--stdio", stdio_cmd(DUAL), "discover", "--json")
    assert r.json()["supportedVersions"] == ["2026-07-28"]  # the DiscoverResult as sent (from the probe)


# ---------------------------------------------------------------------- legacy Streamable HTTP
def test_http_session_id_on_every_request_and_deleted_at_exit(mrtr, http_servers, tmp_path):
    record = tmp_path / "http.jsonl"
    url = http_servers.start(DUAL, "--record", str(record))
    r = mrtr("--url", url, "--protocol", "2025-11-25", "call", "book_table", "date=Friday",
             "-a", "partySize=4", "-a", "seating=indoor", "-vv")
    assert r.code == 0, r.stderr
    records = raw_records(record)
    first, rest = records[0], records[1:]
    assert json.loads(first["body"])["method"] == "initialize"
    assert "mcp-session-id" not in first["headers"] and "mcp-protocol-version" not in first["headers"]
    session_ids = {rec["headers"].get("mcp-session-id") for rec in rest}
    assert len(session_ids) == 1 and None not in session_ids
    assert session_ids.pop() not in r.stderr  # never traced: the header as sent, and as the server answered it
    assert "   Mcp-Session-Id: ***" in r.stderr.splitlines() and "   mcp-session-id: ***" in r.stderr.splitlines()
    assert all(rec["headers"].get("mcp-protocol-version") == "2025-11-25" for rec in rest)
    bodies = [json.loads(rec["body"]) for rec in rest if rec["body"]]
    assert [b.get("method") for b in bodies][:1] == ["notifications/initialized"]
    assert any(b.get("result", {}).get("action") == "accept" for b in bodies)  # the elicitation answer POSTed
    assert records[-1]["method"] == "DELETE"
    assert any(rec["method"] == "GET" and rec["headers"]["accept"] == "text/event-stream" for rec in rest)


def test_http_auto_falls_back_on_a_non_modern_400_and_caches_it(mrtr, http_servers, tmp_path):
    record = tmp_path / "http.jsonl"
    url = http_servers.start(DUAL, "--legacy-only", "--record", str(record))
    r = mrtr(*url_args(url), "call", "echo", "text=hi", "-v")
    assert r.code == 0, r.stderr
    assert r.stdout.startswith("hi\n")
    assert "server/discover answered -32600 Bad Request: Missing session ID -> legacy" in r.stderr
    methods = [json.loads(rec["body"]).get("method") for rec in raw_records(record) if rec["body"]]
    assert methods[:2] == ["server/discover", "initialize"]
    record.write_text("")
    r = mrtr(*url_args(url), "call", "echo", "text=hi")
    assert r.code == 0, r.stderr
    methods = [json.loads(rec["body"]).get("method") for rec in raw_records(record) if rec["body"]]
    assert methods[0] == "initialize"


def test_http_auto_stays_modern_with_a_dual_era_server(mrtr, http_servers, tmp_path):
    record = tmp_path / "http.jsonl"
    url = http_servers.start(DUAL, "--record", str(record))
    r = mrtr(*url_args(url), "call", "echo", "text=hi")
    assert r.code == 0, r.stderr
    records = raw_records(record)
    assert [json.loads(rec["body"])["method"] for rec in records] == ["server/discover", "tools/list", "tools/call"]
    assert all(rec["headers"]["mcp-protocol-version"] == "2026-07-28" for rec in records)
    assert not any("mcp-session-id" in rec["headers"] for rec in records)


def test_http_404_on_a_session_reinitializes_and_resends(mrtr, http_servers, tmp_path):
    record = tmp_path / "http.jsonl"
    url = http_servers.start(DUAL, "--expire-first-call", "--record", str(record))
    r = mrtr("--url", url, "--protocol", "2025-11-25", "call", "echo", "text=hi", "-v")
    assert r.code == 0, r.stderr
    assert "initializing a new one" in r.stderr
    methods = [json.loads(rec["body"]).get("method") for rec in raw_records(record) if rec["body"]]
    assert methods.count("initialize") == 2 and methods.count("tools/call") == 2


# ---------------------------------------------------------------------- server-initiated requests
def test_roots_sampling_and_ping_requests(mrtr, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({
        "roots": [{"uri": tmp_path.as_uri(), "name": "project"}],
        "inputResponses": {"sampling-1": {"role": "assistant", "content": {"type": "text", "text": "Paris"},
                                          "model": "human"}}}))
    record = tmp_path / "rec.jsonl"
    for tool, expected in [("ask_roots", tmp_path.as_uri()), ("ask_sampling", "model said: Paris"),
                           ("ping_client", "ping answered: {}")]:
        r = mrtr(*legacy(record), "call", tool, "--answers", answers)
        assert r.code == 0, r.stderr
        assert r.stdout == expected + "\n"
    init = [m for m in read_records(record) if m.get("method") == "initialize"][0]
    assert set(init["params"]["capabilities"]) == {"elicitation", "sampling", "roots"}


def test_undeclared_roots_get_an_error_not_a_hang(mrtr):
    r = mrtr(*legacy(None), "call", "ask_roots", "--no-input")
    assert r.code == 0, r.stderr
    assert r.stdout == "roots error -32601\n"


def test_unanswerable_sampling_exits_5_after_the_call(mrtr, tmp_path):
    answers = tmp_path / "a.json"  # declares sampling (a sampling answer exists) but not for this key
    answers.write_text(json.dumps({"sampling-9": {"role": "assistant", "content": {"type": "text", "text": "x"},
                                                  "model": "human"}}))
    r = mrtr(*legacy(None), "call", "ask_sampling", "--answers", answers, "--no-input")
    assert r.code == 5, r.stderr
    doc = r.json()
    assert doc["missing"] == ["sampling-1"]
    assert doc["result"]["content"][0]["text"] == "sampling error -1"


def test_progress_and_logs_on_a_legacy_server(mrtr):
    r = mrtr(*legacy(None), "call", "slow", "steps:=3", "--log-level", "info", "-v")
    assert r.code == 0, r.stderr
    assert r.stdout == "slow done\n"
    assert r.stderr.count('"method": "notifications/progress"') == 3
    assert "logging/setLevel" in r.stderr
    assert "[server info] slow work done" in r.stderr


# ---------------------------------------------------------------------- URL elicitation (2025-11-25)
def test_url_elicitation_and_its_completion_notification(mrtr, tmp_path):
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"elicitation-1": {"action": "accept"}}))
    r = mrtr(*legacy(None, "--version", "2025-11-25"), "call", "visit_url", "--answers", answers)
    assert r.code == 0, r.stderr
    assert r.stdout == "url elicitation: accept\n"
    assert "https://example.com/connect?state=abc" in r.stderr
    assert "URL elicitation el-1 is complete" in r.stderr


def test_url_elicitation_required_error_is_shown_and_retried(mrtr, tmp_path):
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"elicitation-1": {"action": "accept"}}))
    record = tmp_path / "rec.jsonl"
    r = mrtr(*legacy(record, "--version", "2025-11-25"), "call", "needs_link", "--answers", answers)
    assert r.code == 0, r.stderr
    assert r.stdout == "linked and done\n"
    assert "https://example.com/link" in r.stderr
    calls = [m for m in read_records(record) if m.get("method") == "tools/call"]
    assert len(calls) == 2 and calls[0]["id"] != calls[1]["id"]


def test_url_elicitation_required_without_consent(mrtr, tmp_path):
    r = mrtr(*legacy(None, "--version", "2025-11-25"), "call", "needs_link", "--no-input")
    assert r.code == 5, r.stderr
    doc = r.json()
    assert doc["error"]["code"] == -32042
    assert doc["inputRequests"]["elicitation-1"]["params"]["url"] == "https://example.com/link"
    assert doc["answersTemplate"]["inputResponses"]["elicitation-1"] == {"action": "accept"}
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"elicitation-1": {"action": "decline"}}))
    r = mrtr(*legacy(None, "--version", "2025-11-25"), "call", "needs_link", "--answers", answers)
    assert r.code == 6
    assert "did not consent" in r.stderr


# ---------------------------------------------------------------------- legacy results
def test_object_structured_content_and_no_result_type_are_kept(mrtr):
    r = mrtr(*legacy(None), "call", "structured", "--json")
    assert r.code == 0, r.stderr
    assert r.json() == {"content": [{"type": "text", "text": "see structuredContent"}], "isError": False,
                        "structuredContent": {"count": 3, "ok": True}}


def test_resource_not_found_minus_32002(mrtr):
    r = mrtr(*legacy(None), "read", "legacy://hello")
    assert r.code == 0 and r.stdout == "hello from the past\n"
    r = mrtr(*legacy(None), "read", "legacy://missing", "--json")
    assert r.code == 4
    err = json.loads(r.stderr.strip().splitlines()[-1])["error"]
    assert err["code"] == -32002 and "legacy://missing" in err["hint"]


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_a_bad_answer_file_stops_the_run_and_answers_the_server(mrtr, http_servers, tmp_path, kind):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"fields": {"partySize": "many", "seating": "indoor"}}))
    record = tmp_path / "rec.jsonl"
    args = (legacy(record) if kind == "stdio"
            else ["--url", http_servers.start(DUAL, "--record", str(record)), "--protocol", "2025-11-25"])
    r = mrtr(*args, "call", "book_table", "date=Friday", "--answers", bad)
    assert r.code == 2
    assert "partySize" in r.stderr and "expected an integer" in r.stderr and str(bad) in r.stderr
    assert "Traceback" not in r.stderr
    # The server's question still got an answer (an error), and the call was cancelled.
    messages = read_records(record)
    assert any(m.get("error", {}).get("message") == "the client stopped before answering" for m in messages)
    assert any(m.get("method") == "notifications/cancelled" for m in messages)


# ---------------------------------------------------------------------- a third-party server
@pytest.mark.integration
def test_third_party_server_pinned_to_the_handshake(mrtr, tmp_path):
    """kubectl-mcp-server 2.0.0 (PyPI) confirms `exec_in_pod` with a server-initiated
    elicitation when spoken to as 2025-11-25 (skipped when the package is missing)."""
    pytest.importorskip("kubectl_mcp_tool", reason="kubectl-mcp-server is not installed")
    server = shlex.join([PY, "-m", "kubectl_mcp_tool.mcp_server", "--confirm-destructive", "--transport", "stdio"])
    call = ["-q", "--stdio", server, "--protocol", "2025-11-25",
            "call", "exec_in_pod", "pod_name=web-0", "command=ls", "namespace=default"]
    env = {"KUBECONFIG": "/nonexistent/kubeconfig"}  # "accept" never reaches a real cluster
    r = mrtr(*call, "--no-input", env=env, timeout=SAFETY)
    assert r.code == 5, r.stderr
    doc = r.json()
    assert doc["era"] == "legacy" and doc["missing"] == ["elicitation-1"]
    assert "Exec in pod 'web-0'" in doc["inputRequests"]["elicitation-1"]["params"]["message"]
    answers = tmp_path / "decline.json"
    answers.write_text(json.dumps({"elicitation-1": {"action": "decline"}}))
    r = mrtr(*call, "--answers", answers, env=env, timeout=SAFETY)
    assert r.code == 6, r.stderr


def error(code: int, data: object = None) -> dict:
    return {"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "m", **({"data": data} if data else {})}}


@pytest.mark.parametrize(("response", "era", "version"), [
    ({"result": {"supportedVersions": ["2026-07-28"], "capabilities": {}}}, "modern", "2026-07-28"),
    ({"result": {"supportedVersions": ["2025-11-25", "2025-06-18"], "capabilities": {}}}, "legacy", "2025-11-25"),
    (error(-32022, {"supported": ["2026-07-28"], "requested": "x"}), "modern", "2026-07-28"),
    (error(-32022, {"supported": ["2025-06-18"]}), "legacy", "2025-06-18"),
    (error(-32021), "modern", "2026-07-28"),
    (error(-32020), "modern", "2026-07-28"),
    # Anything else means legacy, whatever the code (never keyed to one code).
    (error(-32601), "legacy", None),
    (error(-32602), "legacy", None),
    (error(-32600), "legacy", None),
    (error(-32000), "legacy", None),
    (error(-32001), "legacy", None),  # a draft-era number, not a modern error
    ({"result": {}}, "legacy", None),
    ({"result": {"supportedVersions": "2026-07-28"}}, "legacy", None),
    # A DiscoverResult has `capabilities` (an object): without it, or with another shape,
    # the answer is not one, whatever versions it lists.
    ({"result": {"supportedVersions": ["2026-07-28"]}}, "legacy", None),
    ({"result": {"supportedVersions": ["2026-07-28"], "capabilities": None}}, "legacy", None),
    ({"result": {"supportedVersions": ["2026-07-28"], "capabilities": []}}, "legacy", None),
])
def test_the_probe_answer_decides_the_era_and_version(response, era, version):
    verdict = classify_response(response)
    assert (verdict.era, verdict.version) == (era, version)


def test_probe_with_no_common_version_is_an_error():
    with pytest.raises(ProtocolError, match="2099-01-01"):
        classify_response({"result": {"supportedVersions": ["2099-01-01"], "capabilities": {}}})


def test_protocol_option_names_an_era_and_version_or_is_a_usage_error():
    assert parse_protocol("auto") == ("auto", None)
    assert parse_protocol(None) == ("auto", None)
    assert parse_protocol("2026-07-28") == ("modern", "2026-07-28")
    assert parse_protocol("2024-11-05") == ("legacy", "2024-11-05")
    with pytest.raises(UsageError, match="expected one of auto, 2026-07-28, 2025-11-25"):
        parse_protocol("modern")


def test_declared_capabilities_follow_the_offered_version():
    caps = {"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}}, "roots": {},
            "extensions": {"io.modelcontextprotocol/tasks": {}}}
    assert declared_capabilities(caps, "2025-11-25") == {
        "elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}}, "roots": {}}
    assert declared_capabilities(caps, "2025-06-18") == {"elicitation": {}, "sampling": {}, "roots": {}}
    assert declared_capabilities(caps, "2025-03-26") == {"sampling": {}, "roots": {}}


def test_server_key_never_holds_the_secret():
    key = server_key(url="https://example.com/mcp?token=s3cr3t")
    assert "s3cr3t" not in key and len(key) == 32
    assert server_key(command=["srv", "--a"]) != server_key(command=["srv", "--b"])
    assert server_key(command=["srv"], cwd="/a") != server_key(command=["srv"], cwd="/b")


def test_era_cache_round_trip_and_broken_file(tmp_path):
    path = tmp_path / "eras.json"
    cache = EraCache(str(path))
    assert cache.get("k") is None
    cache.put("k", "legacy", "2025-06-18")
    assert cache.get("k")["era"] == "legacy"
    cache.forget("k")
    assert cache.get("k") is None
    path.write_text("{not json")
    assert EraCache(str(path)).get("k") is None
    EraCache(str(path)).put("k", "modern", "2026-07-28")
    assert json.loads(path.read_text())["servers"]["k"]["era"] == "modern"
    (tmp_path / "file").write_text("")  # a parent that is a file: the write fails quietly
    EraCache(str(tmp_path / "file" / "x.json")).put("k", "modern", None)
    assert EraCache(str(tmp_path / "file" / "x.json")).get("k") is None


def test_discover_text_for_a_legacy_server():
    text = describe_discover({
        "protocolVersion": "2025-11-25", "serverInfo": {"name": "n", "version": "1", "title": "T\x1b[31m"},
        "capabilities": {"tasks": {"list": {}}, "tools": {}}, "instructions": "line1\nline2"},
        "2025-11-25", era="legacy")
    lines = text.splitlines()
    assert lines[0] == "Era:           legacy (initialize handshake, MCP 2025-11-25)"
    assert lines[1].startswith("Server:        T\\x1b[31m (n) 1")
    assert "  tasks: list={}" in lines and "  tools" in lines
    assert lines[-2:] == ["  line1", "  line2"]
