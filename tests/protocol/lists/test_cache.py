"""The tool-list cache (2026-07-28 server/utilities/caching): `ttlMs` decides
freshness, `private` lists are kept per authorization context without storing the
secret, and a stale or wrong cached list is re-fetched rather than trusted."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from tests.conftest import CATALOG_SERVER, read_records, stdio_cmd, url_args


def list_walks(record: Path) -> int:
    """How many times tools/list was walked from the first page."""
    return sum(1 for m in read_records(record)
               if m.get("method") == "tools/list" and "cursor" not in (m.get("params") or {}))


def cache_files(tmp_path: Path) -> list[Path]:
    root = tmp_path / "state" / "mrtr" / "cache"
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def test_a_fresh_list_is_reused_and_a_zero_ttl_is_not(mrtr, tmp_path):
    record = tmp_path / "rec.jsonl"
    fresh = ["--stdio", stdio_cmd(CATALOG_SERVER, "--record", str(record), "--ttl", "600000", "--scope", "public")]
    for _ in range(3):
        assert mrtr(*fresh, "call", "echo_args", "zip=1").code == 0
    assert list_walks(record) == 1
    record.write_text("")
    stale = ["--stdio", stdio_cmd(CATALOG_SERVER, "--record", str(record))]  # ttlMs 0
    for _ in range(2):
        assert mrtr(*stale, "call", "echo_args", "zip=1").code == 0
    assert list_walks(record) == 2
    record.write_text("")
    assert mrtr(*fresh, "call", "echo_args", "zip=1", env={"MRTR_NO_CACHE": "1"}).code == 0
    assert list_walks(record) == 1


def test_mrtr_tools_always_fetches_and_refreshes_the_cache(mrtr, tmp_path):
    record = tmp_path / "rec.jsonl"
    target = ["--stdio", stdio_cmd(CATALOG_SERVER, "--record", str(record), "--ttl", "600000", "--scope", "public")]
    assert mrtr(*target, "tools").code == 0
    assert mrtr(*target, "tools").code == 0
    assert list_walks(record) == 2
    assert mrtr(*target, "call", "t01").code == 0
    assert list_walks(record) == 2


def _edit_cached_tools(tmp_path: Path, edit) -> None:
    (path,) = [p for p in cache_files(tmp_path) if p.name.startswith("tools_list")]
    doc = json.loads(path.read_text())
    for page in doc["pages"]:
        page["tools"] = [t for t in (edit(t) for t in page["tools"]) if t is not None]
    path.write_text(json.dumps(doc))


def test_a_cached_list_without_the_tool_is_fetched_again(mrtr, tmp_path):
    record = tmp_path / "rec.jsonl"
    target = ["--stdio", stdio_cmd(CATALOG_SERVER, "--record", str(record), "--ttl", "600000", "--scope", "public")]
    assert mrtr(*target, "tools").code == 0
    _edit_cached_tools(tmp_path, lambda t: None if t["name"] == "whoami" else t)  # as if whoami were new
    record.write_text("")
    r = mrtr(*target, "call", "whoami")
    assert r.code == 0, r.stderr
    assert list_walks(record) == 1


def test_a_cached_schema_that_rejects_the_arguments_is_fetched_again(mrtr, tmp_path):
    record = tmp_path / "rec.jsonl"
    target = ["--stdio", stdio_cmd(CATALOG_SERVER, "--record", str(record), "--ttl", "600000", "--scope", "public")]
    assert mrtr(*target, "tools").code == 0

    def stricter(tool):
        if tool["name"] == "echo_args":
            tool["inputSchema"]["required"] = ["zip", "ghost"]
        return tool

    _edit_cached_tools(tmp_path, stricter)
    record.write_text("")
    r = mrtr(*target, "call", "echo_args", "zip=1", "-v")
    assert r.code == 0, r.stderr
    assert "fetching it again" in r.stderr
    assert list_walks(record) == 1
    # A real violation still fails, after the one re-fetch, and sends nothing.
    record.write_text("")
    r = mrtr(*target, "call", "echo_args", "count=1")
    assert r.code == 2 and "missing required argument zip" in r.stderr
    assert [m["method"] for m in read_records(record)] == ["tools/list"] * 5


def test_private_lists_are_per_token_and_the_token_is_never_stored(mrtr, http_servers, tmp_path):
    record = tmp_path / "rec.jsonl"
    url = http_servers.start(CATALOG_SERVER, "--record", str(record), "--ttl", "600000", "--scope", "private")

    def call(token: str) -> None:
        r = mrtr(*url_args(url), "-H", f"Authorization: Bearer {token}", "call", "t01")
        assert r.code == 0, r.stderr

    call("tokenAAAA")
    call("tokenAAAA")
    assert list_walks(record) == 1
    call("tokenBBBB")  # another authorization context: its own list
    assert list_walks(record) == 2
    call("tokenAAAA")
    assert list_walks(record) == 2
    files = cache_files(tmp_path)
    assert len([f for f in files if ".private-" in f.name]) == 2
    for f in files:
        assert "token" not in f.name
        assert b"tokenAAAA" not in f.read_bytes() and b"tokenBBBB" not in f.read_bytes()
        assert stat.S_IMODE(os.stat(f).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(files[0].parent).st_mode) == 0o700


def test_public_lists_are_shared_across_tokens(mrtr, http_servers, tmp_path):
    record = tmp_path / "rec.jsonl"
    url = http_servers.start(CATALOG_SERVER, "--record", str(record), "--ttl", "600000", "--scope", "public")
    for token in ("tokenAAAA", "tokenBBBB"):
        assert mrtr(*url_args(url), "-H", f"Authorization: Bearer {token}", "call", "t01").code == 0
    assert list_walks(record) == 1


def test_an_unwritable_state_directory_only_costs_round_trips(mrtr, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    record = tmp_path / "rec.jsonl"
    target = ["--stdio", stdio_cmd(CATALOG_SERVER, "--record", str(record), "--ttl", "600000", "--scope", "public")]
    r = mrtr(*target, "call", "t01", env={"MRTR_STATE_DIR": str(blocker)})
    assert r.code == 0, r.stderr
    assert r.stderr == ""
