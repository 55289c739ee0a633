"""Unit tests of the pure parts of era negotiation and legacy sessions (issue 5)."""

from __future__ import annotations

import json

import pytest

from mrtr_cli.errors import ProtocolError, UsageError
from mrtr_cli.protocol.era import EraCache, classify_response, parse_protocol, server_key
from mrtr_cli.protocol.legacy import declared_capabilities
from mrtr_cli.render.listing import describe_discover


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
])
def test_probe_classification(response, era, version):
    verdict = classify_response(response)
    assert (verdict.era, verdict.version) == (era, version)


def test_probe_with_no_common_version_is_an_error():
    with pytest.raises(ProtocolError, match="2099-01-01"):
        classify_response({"result": {"supportedVersions": ["2099-01-01"], "capabilities": {}}})


def test_parse_protocol():
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
