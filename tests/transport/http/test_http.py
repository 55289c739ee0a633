"""Streamable HTTP (2026-07-28 `basic/transports/streamable-http`): the request headers,
SSE responses with notifications before the result, JSON-RPC errors in 4xx bodies, an
unreachable URL, and the SSE parser itself."""

from __future__ import annotations

import json

from mrtr_cli.transport.http.sse.events import parse_sse
from tests.conftest import SERVERS, read_records, url_args


def test_unreachable_url_exits_3(mrtr):
    r = mrtr("--url", "http://127.0.0.1:9/mcp", "call", "t")
    assert r.code == 3
    assert "cannot connect" in r.stderr


def test_http_headers_and_base64_name(mrtr, http_servers, tmp_path):
    record = tmp_path / "http.jsonl"
    url = http_servers.start(SERVERS / "core_server.py", "--record", str(record))
    r = mrtr(*url_args(url), "-H", "X-Trace: abc", "call", "no_state", "-a", "name=Ada")
    assert r.code == 0, r.stderr
    r = mrtr(*url_args(url), "call", "ünïcode tool")
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
    r = mrtr(*url_args(url), "call", "slow_progress", "steps:=4", "-v")
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "slow done"
    assert r.stderr.count("notifications/progress") == 4


def test_json_rpc_error_in_a_4xx_body_is_read(mrtr, http_servers):
    # The SDK answers -32021 with HTTP 400 and a JSON-RPC error body.
    url = http_servers.start(SERVERS / "core_server.py")
    r = mrtr(*url_args(url), "call", "needs_sampling", "--json", "-vv")
    assert r.code == 4
    assert "<- HTTP 400" in r.stderr
    err = json.loads(r.stderr.strip().splitlines()[-1])["error"]
    assert err["code"] == -32021


def test_sse_parser_joins_data_lines_skips_comments_and_keeps_the_last_event_id():
    lines = [": keep-alive", "event: message", "data: {\"a\":", "data: 1}", "", "id: 7", "data: x", "",
             "data: tail"]
    events = list(parse_sse(lines))
    assert [(e.event, e.data, e.id) for e in events] == [  # "tail" has no blank line: not an event
        ("message", '{"a":\n1}', None), ("message", "x", "7")]


def test_sse_parser_on_raw_bytes_split_anywhere():
    from mrtr_cli.transport.http.sse.events import SseCursor, parse_sse_bytes

    raw = b"event: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n: ping\nid: 7\rdata: x\r\rdata:tail \xe2\x98\x83\r\n\r"
    want = [("message", '{"a":\n1}', None), ("message", "x", "7"), ("message", "tail \u2603", "7")]
    for size in range(1, len(raw) + 1):  # every way of cutting the stream into chunks
        chunks = [raw[i:i + size] for i in range(0, len(raw), size)]
        cursor = SseCursor()
        assert [(e.event, e.data, e.id) for e in parse_sse_bytes(chunks, cursor)] == want, size
        assert not cursor.cut
    for end in (b"data: x", b"data: x\n", b"data: x\r\n", b"data: x\ndata: y\n"):  # no blank line: cut
        cursor = SseCursor()
        assert list(parse_sse_bytes([b"data: a\n\n" + end], cursor))[-1].data == "a"
        assert cursor.cut, end


def test_sse_retry_is_read_as_a_bounded_number():
    """A `retry` over the 30 s mrtr waits, of any length, reads as just over it (what
    `_resume` refuses at once), so no wait computed from it can overflow."""
    from mrtr_cli.transport.http.sse.events import MAX_RETRY_MS, SseCursor, parse_sse_bytes

    over = MAX_RETRY_MS + 1
    for value, want in [(b"300", 300), (b"30000", 30000), (b"0000000000000000000000300", 300), (b"30001", over),
                        (b"3600000", over), (b"99999999999999999999", over), (b"9" * 5000, over),
                        (b"-5", None), (b"1.5", None), (b"", None)]:
        cursor = SseCursor()
        list(parse_sse_bytes([b"id: 1\nretry: " + value + b"\ndata: x\n\n"], cursor))
        assert cursor.retry_ms == want, value


def test_an_event_of_many_empty_data_lines_holds_no_more_memory_than_its_limit():
    # "data:" lines with nothing after them count one byte each toward the limit; what is
    # held for them must be as small (not an object per line, about 60 times the count).
    import tracemalloc

    import pytest

    from mrtr_cli.errors import MrtrError
    from mrtr_cli.transport.http.sse.events import parse_sse_bytes

    limit = 1024 * 1024
    chunks = (b"data:\n" * 4096 for _ in range(limit // 4096 + 2))  # past the limit, one event
    tracemalloc.start()
    try:
        with pytest.raises(MrtrError) as caught:
            for _ in parse_sse_bytes(chunks, None, max_event=limit):
                pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "limit" in caught.value.message
    assert peak < 8 * limit, peak
