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


# ---------------------------------------------------------------------- what a person is shown
PICKY = Path(__file__).parent / "servers" / "picky_server.py"


@pytest.fixture(scope="module", params=["stdio", "http"])
def picky(request, http_servers) -> list[str]:
    """The picky server (tests/servers/picky_server.py) over stdio or HTTP."""
    if request.param == "stdio":
        return ["--stdio", stdio_cmd(PICKY)]
    return ["--url", http_servers.start(PICKY)]


@pytest.mark.parametrize("how", ["flag", "fields", "inputResponses"])
def test_a_rejected_one_off_answer_is_used_once_then_exit_5_explains(mrtr, picky, tmp_path, how):
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"fields": {"code": "wrong"}} if how == "fields" else
                                  {"inputResponses": {"code": {"action": "accept", "content": {"code": "wrong"}}}}))
    given = ["-a", "code=wrong"] if how == "flag" else ["--answers", answers]
    source = {"flag": "-a code=wrong", "fields": "fields.code", "inputResponses": "inputResponses.code"}[how]
    r = mrtr(*picky, "--trace", tmp_path / "t.jsonl", "call", "pick", *given, "--max-rounds", "1000")
    assert_sane(r, code=5, secret=None)
    doc = r.json()
    assert doc["missing"] == ["code"]
    assert source in doc["explanation"] and "'code'" in doc["explanation"]
    assert "'wrong' is wrong, try again" in doc["explanation"]
    assert doc["rejected"]["code"]["message"] == "'wrong' is wrong, try again"
    assert doc["answersTemplate"]["inputResponses"]["code"]["content"] == {"code": "wrong"}  # filled with it
    assert "'wrong' is wrong, try again" in r.stderr and "max-rounds" not in r.stderr
    sent = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    calls = [x for x in sent if x.get("dir") == "send" and (x.get("message") or {}).get("method") == "tools/call"]
    assert len(calls) == 2  # the first request and one retry carrying the answer, never again


def test_a_list_in_an_answer_file_still_answers_one_round_per_entry(mrtr, picky, tmp_path):
    answers = tmp_path / "a.json"
    entry = lambda code: {"action": "accept", "content": {"code": code}}  # noqa: E731
    answers.write_text(json.dumps({"inputResponses": {"code": [entry("one"), entry("two"), entry("right")]}}))
    r = mrtr(*picky, "call", "pick", "--answers", answers)
    assert_sane(r, code=0, secret=None)
    assert r.stdout.strip() == "picked right"


@pytest.mark.parametrize("url", [5, None, ["https://a.example/"], {"href": "https://a.example/"}, "absent"])
def test_a_url_request_without_a_string_url_is_an_invalid_request(mrtr, picky, url):
    args = {} if url == "absent" else {"url": url}
    r = mrtr(*picky, "call", "visit", "--args", json.dumps(args))
    assert_sane(r, code=4, secret=None)
    assert "params.url" in r.stderr and r.stdout == ""


@pytest.mark.parametrize(("url", "host"), [
    ("https://evil.example\\@good.com/", "evil.example"),
    ("https://good.com\t.evil.example/", "good.com.evil.example"),
    ("https://good.com%2eevil.example/", "good.com.evil.example"),
    ("https://user:pw@good.com/", "good.com"),
    ("javascript:alert(1)", "(none)"),
])
def test_without_a_terminal_the_url_is_listed_with_the_browsers_host(mrtr, picky, url, host):
    r = mrtr(*picky, "call", "visit", "--args", json.dumps({"url": url}))
    assert_sane(r, code=5, secret=None)
    assert f"a browser would go to host: {host}" in r.stderr
    assert "will not open it" in r.stderr
