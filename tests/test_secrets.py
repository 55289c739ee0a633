"""Secrets never reach diagnostics (issue 7): with `-H "Authorization: Bearer s3cret"`,
`-vv` and `--trace`, the string `s3cret` appears nowhere in stderr or in the trace, not
in HTTP header traces, not in a 401 error whose challenge echoes the token, not in a
pending document, not in a usage error about a mistyped header."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CATALOG_SERVER, EXAMPLE_SERVER

SECRET = "s3cret"


@pytest.fixture(scope="module")
def guarded(http_servers) -> str:
    """A catalog server that wants `Authorization: Bearer s3cret` (and echoes what it got)."""
    return http_servers.start(CATALOG_SERVER, "--require-token", SECRET)


def assert_clean(r, trace: Path | None = None) -> None:
    assert SECRET not in r.stderr, r.stderr
    if trace is not None:
        text = trace.read_text()
        assert text, "the trace is empty"
        assert SECRET not in text


@pytest.mark.parametrize("how", ["header", "bearer-env", "header-env"])
def test_a_traced_run_never_shows_the_token(mrtr, guarded, tmp_path, how):
    trace = tmp_path / "t.jsonl"
    auth = {"header": ["-H", f"Authorization: Bearer {SECRET}"],
            "bearer-env": ["--bearer-token-env", "TOKEN"],
            "header-env": ["-H", "Authorization: Bearer env:TOKEN"]}[how]
    r = mrtr("--url", guarded, *auth, "-vv", "--trace", trace, "call", "whoami", env={"TOKEN": SECRET})
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == f"you sent: Bearer {SECRET}"  # the server's own result is printed as sent
    assert "-> HTTP POST" in r.stderr and "Authorization: ***" in r.stderr  # -vv header traces
    assert '"dir": "http-request"' in trace.read_text()
    assert_clean(r, trace)
    for command in (["tools"], ["discover"], ["tools", "whoami", "--json"]):
        r = mrtr("--url", guarded, *auth, "-vv", "--trace", trace, *command, env={"TOKEN": SECRET})
        assert r.code == 0, r.stderr
        assert_clean(r, trace)


def test_a_401_that_echoes_the_token_is_redacted(mrtr, http_servers, tmp_path):
    url = http_servers.start(CATALOG_SERVER, "--require-token", "something-else")
    trace = tmp_path / "t.jsonl"
    r = mrtr("--url", url, "-H", f"Authorization: Bearer {SECRET}", "-vv", "--trace", trace, "call", "whoami")
    assert r.code == 8
    assert "HTTP 401: authentication required" in r.stderr
    assert "WWW-Authenticate" in r.stderr and "***" in r.stderr  # the challenge is shown, the token is not
    assert_clean(r, trace)
    r = mrtr("--url", url, "-H", f"Authorization: Bearer {SECRET}", "--json", "tools")
    assert r.code == 8
    assert json.loads(r.stderr.strip().splitlines()[-1])["error"]["exitCode"] == 8
    assert_clean(r)


def test_pending_documents_hold_no_secrets(mrtr, http_servers, tmp_path):
    url = http_servers.start(EXAMPLE_SERVER)
    trace = tmp_path / "t.jsonl"
    r = mrtr("--url", url, "-H", f"Authorization: Bearer {SECRET}", "-H", f"X-Api-Key: key-{SECRET}", "-vv",
             "--trace", trace, "--no-input", "call", "update_work_item", "workItemId=4522", "state=Resolved")
    assert r.code == 5, r.stderr
    assert r.json()["target"] == {"url": url}
    assert SECRET not in r.stdout
    assert_clean(r, trace)


def test_a_mistyped_header_is_not_echoed(mrtr):
    r = mrtr("--url", "http://127.0.0.1:9/mcp", "-H", f"Authorization Bearer {SECRET}", "tools")
    assert r.code == 2
    assert "expected \"Name: value\"" in r.stderr and "'Authorization'" in r.stderr
    assert_clean(r)
