"""`x-mcp-header` (2026-07-28 streamable-http): `Mcp-Param-{Name}` headers mirrored from
tool arguments, invalid annotations rejected, and a -32020 HeaderMismatch answered by
re-reading tools/list and retrying once. The SDK's HTTP server validates the
headers against its own tool schemas, so a successful call is the server's approval.

Also the standard request headers (`Mcp-Method`, `Mcp-Name`) and header value encoding."""

from __future__ import annotations

import json

import pytest
from mcp.shared.inbound import find_invalid_x_mcp_header, mcp_param_headers, validate_mcp_param_headers
from mcp.shared.inbound import x_mcp_header_map as sdk_header_map

from mrtr_cli.protocol.headers import (
    encode_header_value,
    invalid_x_mcp_header,
    param_headers,
    request_headers,
    x_mcp_header_map,
)
from tests.conftest import CATALOG_SERVER, read_records


def prop(t: str, header: object) -> dict:
    return {"type": t, "x-mcp-header": header}


SCHEMAS = [
    {"type": "object", "properties": {"a": prop("string", "Region")}},
    {"type": "object", "properties": {"a": prop("integer", "N"), "b": prop("boolean", "Flag")}},
    {"type": "object", "properties": {"o": {"type": "object", "properties": {"z": prop("string", "Zone")}}}},
    {"type": "object", "properties": {"a": prop("number", "W")}},  # number is not allowed
    {"type": "object", "properties": {"a": prop("object", "W")}},
    {"type": "object", "properties": {"a": {"type": ["string", "null"], "x-mcp-header": "A"}}},
    {"type": "object", "properties": {"a": prop("string", "")}},  # empty
    {"type": "object", "properties": {"a": prop("string", "Bad Name")}},  # not a token
    {"type": "object", "properties": {"a": prop("string", "Bad\r\nName")}},
    {"type": "object", "properties": {"a": prop("string", 7)}},
    {"type": "object", "properties": {"a": prop("string", "Dup"), "b": prop("string", "dup")}},  # case-insensitive
    {"type": "object", "properties": {"a": {"type": "array", "items": prop("string", "I")}}},  # through items
    {"type": "object", "properties": {"a": {"anyOf": [prop("string", "X")]}}},
    {"type": "object", "allOf": [{"properties": {"a": prop("string", "X")}}]},
    {"type": "object", "$defs": {"d": prop("string", "X")}, "properties": {"a": {"$ref": "#/$defs/d"}}},
    {"type": "object", "if": {"properties": {"a": prop("string", "X")}}},
    {"type": "object", "x-mcp-header": "Root"},
    {"type": "object", "properties": {"a": {"type": "string", "default": {"x-mcp-header": "not a schema"}}}},
    {"type": "object", "properties": {"a": prop("string", "ok!#$%&'*+-.^_`|~")}},
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_annotation_validity_agrees_with_the_sdk(schema):
    ours = invalid_x_mcp_header(schema)
    theirs = find_invalid_x_mcp_header(schema)
    assert (ours is None) == (theirs is None), (ours, theirs)
    if ours is None:
        assert x_mcp_header_map(schema) == sdk_header_map(schema)


@pytest.mark.parametrize("arguments", [
    {"a": "us-west1", "b": 5, "c": True},
    {"a": "Hello, 世界", "b": -12, "c": False},
    {"a": " padded ", "b": 2**53 - 1},
    {"a": "=?base64?SGk=?="},
    {"a": None, "c": True},
    {"o": {"z": "zone-1"}},
    {"o": "not an object"},
    {},
])
def test_headers_are_what_the_sdk_server_accepts(arguments):
    schema = {"type": "object", "properties": {
        "a": prop("string", "Region"), "b": prop("integer", "N"), "c": prop("boolean", "Dry-Run"),
        "o": {"type": "object", "properties": {"z": prop("string", "Zone")}}}}
    headers = param_headers(x_mcp_header_map(schema), arguments)
    assert headers == mcp_param_headers(sdk_header_map(schema), arguments)
    assert validate_mcp_param_headers(schema, arguments, {k.lower(): v for k, v in headers.items()}) is None


def test_null_and_absent_values_send_no_header():
    header_map = {("a",): "A", ("o", "z"): "Z"}
    assert param_headers(header_map, {"a": None}) == {}
    assert param_headers(header_map, {"o": {}}) == {}
    assert param_headers(header_map, {"a": "x", "o": {"z": 3}}) == {"Mcp-Param-A": "x", "Mcp-Param-Z": "3"}


# ---------------------------------------------------------------------- over HTTP
#: These tests are about 2026-07-28 headers, not about finding the era: the era is pinned.
#: With `--protocol auto` an HTTP server's `server/discover` answer has `--probe-timeout`
#: (2 s) from the send, and a loaded machine can take longer: mrtr then speaks 2025-11-25,
#: which mirrors no argument into a header (`{}` where the headers were expected).
MODERN = ("--protocol", "2026-07-28")

def test_param_headers_are_sent_and_accepted(mrtr, http_servers, tmp_path):
    record = tmp_path / "rec.jsonl"
    url = http_servers.start(CATALOG_SERVER, "--record", str(record))
    r = mrtr("--url", url, *MODERN, "call", "region_query", "region=us-west1", "priority=5", "dry=true",
             "target.zone=Zürich", "query=select 1")
    assert r.code == 0, r.stderr
    got = json.loads(r.stdout)
    assert got == {"mcp-param-region": "us-west1", "mcp-param-priority": "5", "mcp-param-dry-run": "true",
                   "mcp-param-zone": "=?base64?WsO8cmljaA==?="}
    r = mrtr("--url", url, *MODERN, "call", "region_query", "--args", '{"region": " eu ", "query": "q", "target": {}}')
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout) == {"mcp-param-region": "=?base64?IGV1IA==?="}
    calls = [m for m in read_records(record) if m.get("method") == "tools/call"]
    assert calls[-1]["_http"]["headers"]["mcp-name"] == "region_query"


def test_a_null_optional_argument_is_sent_without_its_header(mrtr, http_servers, tmp_path):
    # `dry` is an optional boolean: null means "not provided", so it passes the argument
    # check, is sent as given, and gets no Mcp-Param-Dry-Run header. A null for a required
    # argument is still refused before anything is sent.
    record = tmp_path / "rec.jsonl"
    url = http_servers.start(CATALOG_SERVER, "--record", str(record))
    r = mrtr("--url", url, *MODERN, "call", "region_query", "--args", '{"region": "eu", "query": "q", "dry": null}')
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout) == {"mcp-param-region": "eu"}
    calls = [m for m in read_records(record) if m.get("method") == "tools/call"]
    assert calls[-1]["params"]["arguments"] == {"region": "eu", "query": "q", "dry": None}
    r = mrtr("--url", url, *MODERN, "call", "region_query", "--args", '{"region": null, "query": "q"}')
    assert r.code == 2 and "argument region: expected string, got null" in r.stderr
    assert len([m for m in read_records(record) if m.get("method") == "tools/call"]) == 1


def test_header_mismatch_refreshes_the_tool_list_and_retries_once(mrtr, http_servers, tmp_path):
    flag = tmp_path / "annotated"
    record = tmp_path / "rec.jsonl"
    url = http_servers.start(CATALOG_SERVER, "--record", str(record), "--header-flag", str(flag),
                             "--ttl", "600000", "--scope", "public")
    r = mrtr("--url", url, *MODERN, "tools", "region_query")  # cached, fresh for 10 minutes, no annotations yet
    assert r.code == 0 and "Mcp-Param" not in r.stdout
    flag.write_text("")  # the server now annotates region, and checks the header
    record.write_text("")
    r = mrtr("--url", url, *MODERN, "call", "region_query", "region=eu", "query=q", "-v")
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout) == {"mcp-param-region": "eu"}
    assert "-32020" in r.stderr and "retrying" in r.stderr
    methods = [(m["method"], m["_http"]["headers"].get("mcp-param-region")) for m in read_records(record)]
    assert methods[0] == ("tools/call", None)  # from the cached list: no header
    assert ("tools/list", None) in methods[1:-1]  # refreshed
    assert methods[-1] == ("tools/call", "eu")  # retried once, with the header


def test_a_persistent_mismatch_is_reported_not_looped(mrtr, http_servers, tmp_path):
    # The server checks Mcp-Param-Region but never lists the annotation: after one refresh
    # that changes nothing, the -32020 is reported (exit 4) with the server's message.
    flag = tmp_path / "never"
    record = tmp_path / "rec.jsonl"
    url = http_servers.start(CATALOG_SERVER, "--record", str(record), "--header-flag", str(flag),
                             "--strict-headers")
    r = mrtr("--url", url, *MODERN, "call", "region_query", "region=eu", "query=q")
    assert r.code == 4
    assert "server error -32020" in r.stderr and "Mcp-Param-Region" in r.stderr
    methods = [m["method"] for m in read_records(record)]
    assert methods.count("tools/call") == 1


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
def test_header_values_that_are_not_plain_safe_ascii_are_base64_encoded(value, encoded):
    assert encode_header_value(value) == encoded


def test_request_headers_name_per_method():
    assert request_headers("tools/call", {"name": "x"}, "2026-07-28") == {
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "x"}
    assert request_headers("resources/read", {"uri": "file:///a b"}, "v")["Mcp-Name"] == "file:///a b"
    assert "Mcp-Name" not in request_headers("tools/list", {}, "v")
