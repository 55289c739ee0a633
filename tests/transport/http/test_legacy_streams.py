"""Legacy (2025-11-25) Streamable HTTP streams, against a hand-written raw server
(tests/servers/resume_server.py): a server request sent on the standalone GET stream is
answered, and a response stream the server closes before the final response is resumed
with GET and `Last-Event-ID` after the server's `retry` delay (SEP-1699). Both are
checked by the official conformance suite too (`elicitation-sep1034-client-defaults`,
`sse-retry`; see scripts/conformance)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import SERVERS
from tests.support import SAFETY

RESUME_SERVER = SERVERS / "resume_server.py"


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_server_request_on_the_get_stream_is_answered(mrtr, http_servers, tmp_path):
    record = tmp_path / "rec.jsonl"
    url = http_servers.start(RESUME_SERVER, "--record", str(record))
    r = mrtr("--url", url, "--protocol", "2025-11-25", "call", "ask_on_get", "-a", "name=Ada", timeout=SAFETY)
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout) == {"name": "Ada"}
    got = records(record)
    assert any(e.get("method") == "GET" and "last-event-id" not in e["headers"] for e in got)
    answer = [json.loads(e["body"]) for e in got if e.get("method") == "POST" and '"srv-1"' in e["body"]]
    assert answer == [{"jsonrpc": "2.0", "id": "srv-1", "result": {"action": "accept", "content": {"name": "Ada"}}}]


def test_a_broken_notification_on_the_get_stream_is_dropped_and_the_stream_goes_on(mrtr, http_servers):
    url = http_servers.start(RESUME_SERVER)
    r = mrtr("--url", url, "--protocol", "2025-11-25", "call", "nan_then_ask_on_get", "-a", "name=Ada", timeout=SAFETY)
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout) == {"name": "Ada"}


def test_a_response_stream_closed_early_is_resumed_after_the_retry_delay(mrtr, http_servers, tmp_path):
    record = tmp_path / "rec.jsonl"
    url = http_servers.start(RESUME_SERVER, "--record", str(record))
    r = mrtr("--url", url, "--protocol", "2025-11-25", "call", "resume", timeout=SAFETY)
    assert r.code == 0, r.stderr
    assert "resumed ok" in r.stdout
    got = records(record)
    closed = next(e["t"] for e in got if e.get("closed") == "p1")
    resumed = [e for e in got if e.get("method") == "GET" and e["headers"].get("last-event-id") == "p1"]
    assert len(resumed) == 1
    assert resumed[0]["t"] - closed >= 0.28  # the server asked for retry: 300 (ms)
    assert resumed[0]["headers"]["mcp-session-id"] == "resume-session-1"
    assert resumed[0]["headers"]["accept"] == "text/event-stream"


def test_a_stream_the_server_will_not_resume_is_a_broken_stream(mrtr, http_servers, tmp_path):
    url = http_servers.start(RESUME_SERVER)
    r = mrtr("--url", url, "--protocol", "2025-11-25", "call", "resume_refused", timeout=SAFETY)
    assert r.code == 3
    assert "ended before the final response" in r.stderr
