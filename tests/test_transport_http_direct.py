"""The direct lane of the HTTP transport (transport/http/direct.py): POSTs to the URL the
user gave go over plain `http.client` connections, and what a response asks for beyond a
plain answer (cookies to keep, a compressed body) is handed to httpx2, as before.

The servers are the tests' own (`Answering`, tests/http_doubles.py): a 2026-07-28 server in
a few lines, answering `server/discover`, `tools/list` and `tools/call`.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.bounds import SAFETY
from tests.conftest import PY, ROOT, clean_env
from tests.http_doubles import Answer, Answering, Seen, started  # noqa: F401 (a fixture)

#: A proxy variable of the machine would send the runs through httpx2: none here.
NO_PROXY_VARIABLES = {name: "" for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                                            "all_proxy")}
MODULE = re.compile(r"\|\s*([\w.]+)\s*$", re.M)


def modern(extra_headers: dict[str, str] | None = None, *, gzip_calls: bool = False):
    """An answer function for `Answering`: a 2026-07-28 server with one tool, `echo`, whose
    result is the `Cookie` header its request carried (or "no cookie")."""

    def answer(seen: Seen) -> Answer:
        msg = json.loads(seen.body)
        if "id" not in msg:
            return 202, {}, b""
        method = msg["method"]
        result: dict[str, Any]
        if method == "server/discover":
            result = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                      "ttlMs": 0}
        elif method == "tools/list":
            result = {"resultType": "complete", "ttlMs": 0,
                      "tools": [{"name": "echo", "inputSchema": {"type": "object", "properties": {}}}]}
        else:
            cookie = {k.lower(): v for k, v in seen.headers.items()}.get("cookie", "no cookie")
            result = {"resultType": "complete", "content": [{"type": "text", "text": cookie}], "isError": False}
        body = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode()
        headers = {"Content-Type": "application/json", **(extra_headers or {})}
        if gzip_calls and method == "tools/call":
            body = gzip.compress(body)
            headers["Content-Encoding"] = "gzip"
        return 200, headers, body

    return answer


@pytest.fixture
def server(started):  # noqa: F811 - the fixture
    return lambda answer: started(Answering, answer)


def test_a_cookie_the_server_sets_goes_back_on_the_next_requests(mrtr, server):
    srv = server(modern({"Set-Cookie": "sid=abc123; Path=/"}))
    r = mrtr("--url", srv.url(), "call", "echo", env=NO_PROXY_VARIABLES)
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "sid=abc123"
    sent = [{k.lower(): v for k, v in seen.headers.items()}.get("cookie") for seen in srv.seen]
    assert sent[0] is None and sent[1:] and all(c == "sid=abc123" for c in sent[1:]), sent


def test_a_compressed_answer_is_decoded(mrtr, server):
    srv = server(modern(gzip_calls=True))
    r = mrtr("--url", srv.url(), "call", "echo", env=NO_PROXY_VARIABLES)
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "no cookie"


def test_the_requests_name_mrtr_and_carry_the_users_headers(mrtr, server):
    srv = server(modern())
    r = mrtr("--url", srv.url(), "-H", "X-Team: blue", "-H", "User-Agent: mine/1", "call", "echo",
             env=NO_PROXY_VARIABLES)
    assert r.code == 0, r.stderr
    for seen in srv.seen:
        headers = {k.lower(): v for k, v in seen.headers.items()}
        assert headers["x-team"] == "blue" and headers["user-agent"] == "mine/1", headers
    r = mrtr("--url", srv.url(), "call", "echo", env=NO_PROXY_VARIABLES)
    assert {k.lower(): v for k, v in srv.seen[-1].headers.items()}["user-agent"].startswith("mrtr/")


def imported(tmp_path: Path, *args: str, input: str = "",
             **env: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run `mrtr ARGS` with `-X importtime`: the run, and the names of the modules it imported."""
    proc = subprocess.run([PY, "-X", "importtime", "-m", "mrtr_cli", *args], capture_output=True, text=True,
                          input=input, env=clean_env(tmp_path, {**NO_PROXY_VARIABLES, **env}), cwd=ROOT,
                          timeout=SAFETY)
    return proc, set(MODULE.findall(proc.stderr))


def test_a_call_and_a_batch_over_plain_http_import_no_httpx2(tmp_path, server):
    srv = server(modern())
    proc, modules = imported(tmp_path, "--url", srv.url(), "call", "echo")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "mrtr_cli.transport.http.direct" in modules  # the import trace is there
    assert not {m for m in modules if m.split(".")[0] in ("httpx2", "httpcore2", "h11")}
    lines = "".join(json.dumps({"call": "echo", "arguments": {}}) + "\n" for _ in range(5))
    proc, modules = imported(tmp_path, "--url", srv.url(), "batch", "-", "-j", "2", input=lines)
    assert proc.returncode == 0 and proc.stdout.count('"exitCode": 0') == 5, proc.stderr[-2000:]
    assert "httpx2" not in modules


def test_with_a_proxy_variable_httpx2_decides(tmp_path, server):
    """The check above can fail: a proxy variable (here one NO_PROXY exempts this server
    from) makes the run build its httpx2 client at once, which decides where requests go."""
    srv = server(modern())
    proc, modules = imported(tmp_path, "--url", srv.url(), "call", "echo", HTTP_PROXY="http://127.0.0.1:9",
                             NO_PROXY="127.0.0.1")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "httpx2" in modules
