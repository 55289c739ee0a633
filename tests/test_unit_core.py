"""Unit tests of pure functions: sanitising, header encoding, SSE parsing, argument and
form-field typing."""

from __future__ import annotations

import json

import pytest

from mrtr_cli.errors import UsageError
from mrtr_cli.protocol.headers import encode_header_value, request_headers
from mrtr_cli.render.sanitize import dumps_safe, sanitize
from mrtr_cli.responders.answers import parse_answer_document, parse_flag
from mrtr_cli.schema.arguments import build_arguments, parse_item
from mrtr_cli.schema.elicit import form_fields, validate_content
from mrtr_cli.transport.sse import parse_sse


def test_sanitize_makes_escapes_and_overwrites_visible():
    evil = "ok\x1b[2J\x1b]0;title\x07\rFAKE\u202egnp.exe\x9b31m"
    out = sanitize(evil)
    assert "\x1b" not in out and "\r" not in out and "\u202e" not in out and "\x9b" not in out
    assert out == "ok\\x1b[2J\\x1b]0;title\\x07\\rFAKE\\u202egnp.exe\\x9b31m"
    assert sanitize("line1\n\tline2") == "line1\n\tline2"
    assert sanitize("a\nb", single_line=True) == "a\\nb"


def test_dumps_safe_is_lossless_and_inert():
    value = {"t": "x\x1b[31m\u009b\u202eé☃"}
    text = dumps_safe(value)
    assert json.loads(text) == value
    assert "\x1b" not in text and "\u009b" not in text and "\u202e" not in text
    assert "é☃" in text


@pytest.mark.parametrize(("value", "encoded"), [
    ("get_weather", "get_weather"),
    ("has inner space", "has inner space"),
    (" leading", "=?base64?IGxlYWRpbmc=?="),
    ("trailing ", "=?base64?dHJhaWxpbmcg?="),
    ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
    ("=?base64?abc?=", "=?base64?PT9iYXNlNjQ/YWJjPz0=?="),
    ("line\nbreak", "=?base64?bGluZQpicmVhaw==?="),
    (42, "42"),
    (True, "true"),
    ("", "=?base64??="),
])
def test_header_value_encoding(value, encoded):
    assert encode_header_value(value) == encoded


def test_request_headers_name_per_method():
    assert request_headers("tools/call", {"name": "x"}, "2026-07-28") == {
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "x"}
    assert request_headers("resources/read", {"uri": "file:///a b"}, "v")["Mcp-Name"] == "file:///a b"
    assert "Mcp-Name" not in request_headers("tools/list", {}, "v")


def test_sse_parser():
    lines = [": keep-alive", "event: message", "data: {\"a\":", "data: 1}", "", "id: 7", "data: x", "",
             "data: tail"]
    events = list(parse_sse(lines))
    assert [(e.event, e.data, e.id) for e in events] == [
        ("message", '{"a":\n1}', None), ("message", "x", "7"), ("message", "tail", "7")]


def test_arguments_typed_by_schema():
    schema = {"type": "object", "properties": {
        "zip": {"type": "string"}, "n": {"type": "integer"}, "big": {"type": "integer"},
        "x": {"type": "number"}, "ok": {"type": "boolean"}, "tags": {"type": "array", "items": {"type": "string"}},
        "opt": {"type": ["integer", "null"]},
        "address": {"type": "object", "properties": {"city": {"type": "string"}, "floor": {"type": "integer"}}},
    }}
    items = [parse_item(t, lambda p: "") for t in [
        "zip=02134", "n=7", "big=123456789012345678901234567890", "x=1.5", "ok=true", "tags=a", "tags=b",
        "opt=null", "address.city=Paris", "address.floor=3", "raw:=[1,2]", "free=text"]]
    args = build_arguments(items, None, schema)
    assert args == {"zip": "02134", "n": 7, "big": 123456789012345678901234567890, "x": 1.5, "ok": True,
                    "tags": ["a", "b"], "opt": None, "address": {"city": "Paris", "floor": 3}, "raw": [1, 2],
                    "free": "text"}


def test_single_item_array_and_errors():
    schema = {"type": "object", "properties": {"tags": {"type": "array"}, "n": {"type": "integer"}}}
    assert build_arguments([parse_item("tags=solo", str)], None, schema) == {"tags": ["solo"]}
    with pytest.raises(UsageError, match="not an integer"):
        build_arguments([parse_item("n=seven", str)], None, schema)
    with pytest.raises(UsageError):
        parse_item("novalue", str)
    with pytest.raises(UsageError, match="not valid JSON"):
        parse_item("a:={", str)


def test_form_fields_and_validation():
    schema = {"type": "object", "required": ["name", "level"], "properties": {
        "name": {"type": "string", "minLength": 2},
        "email": {"type": "string", "format": "email"},
        "level": {"type": "string", "oneOf": [{"const": "lo", "title": "Low"}, {"const": "hi", "title": "High"}]},
        "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
        "pick": {"type": "array", "items": {"enum": ["x", "y", "z"]}, "minItems": 1, "maxItems": 2},
        "when": {"type": "string", "format": "date"},
    }}
    fields = {f.name: f for f in form_fields(schema)}
    assert fields["level"].coerce("High") == "hi"
    assert fields["legacy"].coerce("beta") == "b"
    assert fields["pick"].coerce("x,z") == ["x", "z"]
    assert validate_content(schema, {"name": "Al", "level": "lo"}) == []
    problems = {p.field: p.message for p in validate_content(schema, {
        "name": "A", "email": "nope", "level": "Low", "pick": ["x", "y", "z"], "when": "2026-13-01"})}
    assert set(problems) == {"name", "email", "level", "pick", "when"}
    assert "at least 2" in problems["name"]
    assert "at most 2" in problems["pick"]
    assert validate_content(schema, {"level": "lo"})[0].field == "name"


def test_answer_documents_and_flags():
    bare = parse_answer_document({"k": {"action": "decline"}, "_help": 1}, "f.json")
    assert bare.input_responses == {"k": {"action": "decline"}}
    full = parse_answer_document({"fields": {"a": 1}, "roots": [], "inputResponses": {}}, "g.json")
    assert full.fields == {"a": 1} and full.roots == []
    with pytest.raises(UsageError, match="JSON object"):
        parse_answer_document([], "h.json")
    assert parse_flag("k.f=1").name == "k.f"
    assert parse_flag("f:=[1]").raw == [1]


def test_sse_parser_on_raw_bytes_split_anywhere():
    from mrtr_cli.transport.sse import parse_sse_bytes

    raw = b"event: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n: ping\nid: 7\rdata: x\r\rdata:tail \xe2\x98\x83"
    want = [("message", '{"a":\n1}', None), ("message", "x", "7"), ("message", "tail \u2603", "7")]
    for size in range(1, len(raw) + 1):  # every way of cutting the stream into chunks
        chunks = [raw[i:i + size] for i in range(0, len(raw), size)]
        assert [(e.event, e.data, e.id) for e in parse_sse_bytes(chunks)] == want, size


@pytest.mark.parametrize("argv", [["--json", "--bogus"], ["--json", "call"], ["call", "--json"]])
def test_usage_errors_found_by_the_parser_are_one_json_line_with_json(argv):
    import io

    from mrtr_cli.cli.main import run
    from mrtr_cli.env import Environment

    env = Environment(stdout=io.StringIO(), stderr=io.StringIO(), stdin=io.StringIO())
    assert run(argv, env) == 2
    lines = env.stderr.getvalue().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["error"]["exitCode"] == 2
    assert env.stdout.getvalue() == ""


def test_single_line_text_shows_invisible_spaces():
    assert sanitize("touch\u200b x\ufeff", single_line=True) == "touch\\u200b x\\ufeff"
    assert sanitize("ไทย\u200bคำ") == "ไทย\u200bคำ"  # between words in some scripts: kept in running text
