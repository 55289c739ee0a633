"""The era cache cannot be poisoned (tester's finding 1): a probe that got no answer is a
guess, not a verdict; a server that changed era is noticed; a pinned modern run and
MRTR_NO_CACHE behave as documented."""

from __future__ import annotations

import json
import time

from mrtr_cli.config.target import parse_stdio
from mrtr_cli.protocol.era.cache import EraCache, server_key
from tests.conftest import SERVERS, stdio_cmd, url_args

DUAL = SERVERS / "dual_server.py"
LEGACY = SERVERS / "legacy_server.py"
RAW = SERVERS / "raw_server.py"
OK = {"result": {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}}


def cache_of(tmp_path) -> EraCache:
    return EraCache(str(tmp_path / "state" / "mrtr" / "eras.json"))


def test_http_probe_timeout_is_not_cached_as_legacy(mrtr, http_servers, tmp_path):
    # A modern (dual-era) server slow on its first request: the probe times out and the
    # handshake works, so this run is legacy, and says so; the next run probes again.
    url = http_servers.start(DUAL, "--slow-first", "2")
    r = mrtr("--url", url, "--probe-timeout", "0.5", "call", "echo", "text=hi", "-v")
    assert r.code == 0, r.stderr
    assert ("mrtr: note: server/discover: no answer within 500 ms: speaking MCP 2025-11-25 (legacy) this time"
            in r.stderr)
    assert cache_of(tmp_path).get(server_key(url=url)) is None
    # (a probe time no busy machine needs: the server's answer, not its speed, decides)
    r = mrtr("--url", url, "--probe-timeout", "60", "call", "echo", "text=hi", "-v")
    assert r.code == 0, r.stderr
    assert "known from the era cache" not in r.stderr
    assert "speaking MCP 2026-07-28 (modern)" in r.stderr


def test_a_silent_stdio_guess_is_cached_for_a_while_only(mrtr, tmp_path):
    command = stdio_cmd(LEGACY, "--silent-discover")
    key = server_key(command=parse_stdio(command))
    cache = cache_of(tmp_path)
    # A probe timeout shorter than the default proves nothing: not cached.
    r = mrtr("--stdio", command, "--probe-timeout", "0.3", "call", "echo", "text=hi")
    assert r.code == 0, r.stderr
    assert cache.get(key) is None
    # The default probe time: cached as a guess, with its time.
    r = mrtr("--stdio", command, "call", "echo", "text=hi")
    assert r.code == 0, r.stderr
    entry = cache.get(key)
    assert entry["era"] == "legacy" and entry["source"] == "timeout"
    assert abs(entry["checkedAt"] - time.time()) < 60
    r = mrtr("--stdio", command, "call", "echo", "text=hi", "-v")
    assert "known from the era cache" in r.stderr
    # An old guess has expired: the server is probed again.
    with open(cache.path) as fh:
        doc = json.loads(fh.read())
    doc["servers"][key]["checkedAt"] -= 2 * 3600
    with open(cache.path, "w") as fh:
        fh.write(json.dumps(doc))
    assert cache.get(key) is None
    r = mrtr("--stdio", command, "call", "echo", "text=hi", "-v")
    assert r.code == 0, r.stderr
    assert "known from the era cache" not in r.stderr and "server/discover: no answer within 2 s" in r.stderr


def test_a_cached_legacy_server_that_turned_modern_is_retried_modern(mrtr, tmp_path):
    # The server accepts initialize but answers handshake-era calls with -32021.
    script = tmp_path / "script.json"
    script.write_text(json.dumps({
        "initialize": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                       "serverInfo": {"name": "upgraded", "version": "2"}},
        "requireModern": {"code": -32021, "message": "Missing required client capability",
                          "data": {"requiredCapabilities": {}}},
        "calls": {"t": [OK]}}))
    command = stdio_cmd(RAW, str(script))
    key = server_key(command=parse_stdio(command))
    cache = cache_of(tmp_path)
    cache.put(key, "legacy", "2025-11-25")
    r = mrtr("--stdio", command, "call", "t")
    assert r.code == 0, r.stderr
    assert r.stdout == "ok\n"
    assert "only a 2026-07-28 server sends" in r.stderr and "trying again" in r.stderr
    assert cache.get(key)["era"] == "modern"


def test_a_pinned_modern_run_updates_the_cache(mrtr, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"calls": {"t": [OK]}}))
    command = stdio_cmd(RAW, str(script))
    key = server_key(command=parse_stdio(command))
    cache = cache_of(tmp_path)
    cache.put(key, "legacy", "2025-11-25")
    r = mrtr("--stdio", command, "--protocol", "2026-07-28", "call", "t")
    assert r.code == 0, r.stderr
    assert cache.get(key)["era"] == "modern"


def test_mrtr_no_cache_keeps_no_era(mrtr, tmp_path):
    r = mrtr("--stdio", stdio_cmd(LEGACY), "call", "echo", "text=hi", env={"MRTR_NO_CACHE": "1"})
    assert r.code == 0, r.stderr
    assert not (tmp_path / "state" / "mrtr" / "eras.json").exists()


def test_http_500_on_the_probe_hints_at_the_older_protocol(mrtr, http_servers):
    url = http_servers.start(DUAL, "--fail", "server/discover")
    r = mrtr(*url_args(url), "call", "echo", "text=hi")
    assert r.code == 3, r.stderr
    assert "HTTP 500" in r.stderr and "try --protocol 2025-11-25" in r.stderr
    r = mrtr("--url", url, "--protocol", "2025-11-25", "call", "echo", "text=hi")
    assert r.code == 0, r.stderr


def test_http_500_on_a_pinned_initialize_hints_at_the_modern_protocol(mrtr, http_servers):
    url = http_servers.start(DUAL, "--fail", "initialize")
    r = mrtr("--url", url, "--protocol", "2025-11-25", "call", "echo", "text=hi")
    assert r.code == 3, r.stderr
    assert "HTTP 500" in r.stderr and "try --protocol 2026-07-28" in r.stderr


def test_unanswered_url_elicitation_required_does_not_claim_a_cancel_answer(mrtr):
    # -32042 asks nothing of the client: nothing was answered 'cancel' (tester's finding 9).
    r = mrtr("--stdio", stdio_cmd(LEGACY, "--version", "2025-11-25"), "call", "needs_link", "--no-input")
    assert r.code == 5, r.stderr
    assert "answered 'cancel'" not in r.stderr and "answered 'cancel'" not in r.json()["note"]
    assert "the server's -32042 error ended the call, nothing was answered" in r.stderr
