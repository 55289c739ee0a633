"""Hostile and careless user input (issue 14, the user's side): secrets in every header
source, bad files and streams, arguments that conflict or cannot be typed, output that
cannot be written. Every case asserts its documented exit code, no traceback, and that
no secret from the run appears in any output or file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import CATALOG_SERVER, EXAMPLE_SERVER, stdio_cmd

SECRET = "s3cretT0ken"


def assert_sane(r, *, code: int, secret: str | None = SECRET, files: tuple[Path, ...] = ()) -> None:
    """`r` ended with `code`, printed no traceback, and no output or file holds `secret`."""
    assert r.code == code, (r.code, r.stdout[-2000:], r.stderr[-2000:])
    assert "Traceback" not in r.stderr
    assert "internal error" not in r.stderr
    if secret:
        assert secret not in r.stdout and secret not in r.stderr
        for f in files:
            if f.exists():
                assert secret not in f.read_text(errors="replace")


@pytest.fixture(scope="module")
def guarded(http_servers) -> str:
    """A catalog server over HTTP that wants `Authorization: Bearer SECRET`."""
    return http_servers.start(CATALOG_SERVER, "--require-token", SECRET)


# ---------------------------------------------------------------------- secrets
BAD_VALUES = {"newline": SECRET + "\n", "cr": SECRET + "\r", "nul": SECRET + "\x00x", "ctl": SECRET + "\x01x",
              "del": SECRET + "\x7fx", "trailing space": SECRET + " ", "non-ascii": SECRET + "é"}


@pytest.mark.parametrize("bad", list(BAD_VALUES))
@pytest.mark.parametrize("how", ["bearer-env", "header-env", "header-file", "header", "config"])
def test_a_header_value_that_cannot_be_sent_is_refused_by_its_source_never_shown(mrtr, guarded, tmp_path, how, bad):
    value = BAD_VALUES[bad]
    if how == "header" and (any(c in value for c in "\r\n\x00") or value.endswith(" ")):
        pytest.skip("an argument cannot hold NUL; -H refuses line breaks as it parses and strips spaces")
    if how.endswith("env") and "\x00" in value:
        pytest.skip("an environment variable cannot hold NUL")
    token_file = tmp_path / "token"
    # file: drops trailing line breaks only: put one inside.
    token_file.write_bytes(value.encode() + (b"x" if value.endswith(("\n", "\r")) else b""))
    (tmp_path / "c.json").write_text(json.dumps({"mcpServers": {"g": {"url": guarded, "headers": {"X-Plain": value}}}}))
    target = ["-s", "g", "--config", str(tmp_path / "c.json")] if how == "config" else ["--url", guarded]
    args = {"bearer-env": ["--bearer-token-env", "TOK"],
            "header-env": ["-H", "Authorization: Bearer env:TOK"],
            "header-file": ["-H", f"Authorization: Bearer file:{token_file}"],
            "header": ["-H", f"Authorization: Bearer {value}"],
            "config": []}[how]
    trace = tmp_path / "t.jsonl"
    r = mrtr(*target, *args, "--trace", trace, "-vv", "tools", env={"TOK": value} if how.endswith("env") else None)
    assert_sane(r, code=2, files=(trace,))
    named = {"bearer-env": "--bearer-token-env TOK", "header-env": "-H Authorization",
             "header-file": "-H Authorization", "header": "-H Authorization", "config": "header X-Plain"}[how]
    assert named in r.stderr, r.stderr
    assert not (trace.exists() and "http-request" in trace.read_text())  # nothing was sent


def test_config_header_values_are_secrets_whatever_their_name(mrtr, guarded, tmp_path):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"mcpServers": {"g": {"url": guarded, "headers": {
        "X-Plain": f"plain-{SECRET}", "Authorization": f"Bearer {SECRET}"}}}}))
    trace = tmp_path / "t.jsonl"
    r = mrtr("-s", "g", "--config", cfg, "-vv", "--trace", trace, "call", "whoami")
    assert r.code == 0, r.stderr
    assert "X-Plain: ***" in r.stderr  # -vv shows the header, not its value
    assert f"plain-{SECRET}" not in r.stderr and f"plain-{SECRET}" not in trace.read_text()
