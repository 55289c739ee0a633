"""Step-up on 403 `insufficient_scope`, and where tokens and secrets go: to the
resource only (never another origin, redirects included), and into no output, trace, error,
pending document, batch record or cache file."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.auth_support import (
    authorize_params,
    finish,
    run_mrtr,
    sign_in,
    spawn_mrtr,
    state_dir,
)
from tests.conftest import url_args
from tests.support import SAFETY

CONSENT = r"(?i)open the browser"


# ---------------------------------------------------------------------- step-up
@pytest.mark.pty
def test_step_up_asks_for_the_union_of_scopes_and_retries(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    assert authorize_params(browser)["scope"].split() == ["mcp:read"]
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "call", "admin_tool", browser=browser)
    child.expect("mcp:admin")
    child.expect(CONSENT)
    child.send("y\r")
    assert finish(child) == 0
    assert out.read_text().strip() == "admin ok"
    assert len(browser.opened()) == 2
    assert set(authorize_params(browser, -1)["scope"].split()) == {"mcp:read", "mcp:admin"}
    # the wider token serves both kinds of call afterwards, with no prompt
    for tool, expected in (("echo", "echo: x"), ("admin_tool", "admin ok")):
        run = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", tool, *(
            ["text=x"] if tool == "echo" else []))
        assert run.code == 0 and run.stdout.strip() == expected, run.stderr


def test_step_up_without_a_terminal_exits_8_naming_the_scope(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "admin_tool", browser=browser)
    assert run.code == 8, run.stderr
    assert "mcp:admin" in run.stderr
    assert "auth login" in run.stderr
    assert len(browser.opened()) == 1


@pytest.mark.pty
def test_a_step_up_that_never_succeeds_stops_after_a_few_tries(tmp_path, oauth_server, browser):
    server = oauth_server("--withhold-scope", "mcp:admin")
    sign_in(tmp_path, server, browser)
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "call", "admin_tool", browser=browser)
    import pexpect

    asked = 0
    while child.expect([CONSENT, pexpect.EOF], timeout=SAFETY) == 0:
        asked += 1
        assert asked <= 5, "step-up is not bounded"
        child.send("y\r")
    child.close()
    assert child.exitstatus == 8
    assert asked == 3  # the step-up limit (MAX_STEP_UPS in mrtr_cli/auth/client.py)
    assert "mcp:admin" in Path(child.logfile_read.name).read_text()
    assert out.read_text() == ""


# ---------------------------------------------------------------------- origins
class Recorder(BaseHTTPRequestHandler):
    seen: list[dict[str, str]] = []

    def do_POST(self) -> None:
        type(self).seen.append({k.lower(): v for k, v in self.headers.items()})
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST  # noqa: N815

    def log_message(self, *args: object) -> None:
        pass


def test_the_token_goes_to_no_other_origin(tmp_path, oauth_server, browser):
    class Other(Recorder):
        seen: list[dict[str, str]] = []

    other = ThreadingHTTPServer(("127.0.0.1", 0), Other)
    threading.Thread(target=other.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        server = oauth_server("--hop-to", f"http://localhost:{other.server_address[1]}/mcp")
        sign_in(tmp_path, server, browser)
        assert run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=a").code == 0
        run = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "hop")
        assert run.code == 3, run.stderr  # the other origin answers 404: not an MCP endpoint
        assert Other.seen, "the redirect was not followed"
    finally:
        other.shutdown()
    tokens = server.stats()["access_tokens"]
    for headers in Other.seen:
        assert "authorization" not in headers, headers
        assert not any(t in json.dumps(headers) for t in tokens)
    # the authorization server's origin never gets the access token as a bearer credential
    as_port = server.issuer.rsplit(":", 1)[1]
    for request in server.requests():
        if request["headers"].get("host", "").endswith(":" + as_port):
            assert not request["headers"].get("authorization", "").lower().startswith("bearer"), request
    # and every MCP request after sign-in carried it
    signed = [r for r in server.stats()["mcp_requests"] if r["authorization"]]
    assert signed and all(r["authorization"].split()[1] in tokens for r in signed)


# ---------------------------------------------------------------------- no secret in any output
def every_file_under(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


@pytest.mark.pty
def test_no_token_or_client_secret_in_any_output_of_a_signed_in_run(tmp_path, oauth_server, browser):
    secret = "cs-" + "7" * 24
    server = oauth_server("--client-id", "confidential-1", "--client-secret", secret,
                          "--client-auth-method", "client_secret_post")
    # the server lists both methods but this client may use only post: say so
    env = {"MRTR_CLIENT_ID": "confidential-1", "MRTR_CLIENT_SECRET": secret,
           "MRTR_OAUTH_AUTH_METHOD": "client_secret_post"}
    outputs: dict[str, str] = {}
    trace = tmp_path / "trace.jsonl"
    # the signing-in run itself, at a terminal, traced
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "-vv", "--trace", str(trace),
                            "call", "echo", "text=one", browser=browser, env=env)
    child.expect(CONSENT)
    child.send("y\r")
    assert finish(child) == 0, Path(child.logfile_read.name).read_text()
    outputs["signing-in terminal"] = Path(child.logfile_read.name).read_text()
    outputs["signing-in stdout"] = out.read_text()
    outputs["signing-in trace"] = trace.read_text()
    assert "http-request" in outputs["signing-in trace"]

    def record(name: str, *args: str, input: str = "", with_browser: bool = False) -> None:
        t = tmp_path / f"trace-{len(outputs)}.jsonl"
        run = run_mrtr(tmp_path, *url_args(server.mcp_url), "-vv", "--trace", str(t), *args, env=env, input=input,
                       browser=browser if with_browser else None)
        outputs[name + " stdout"], outputs[name + " stderr"] = run.stdout, run.stderr
        outputs[name + " trace"] = t.read_text() if t.exists() else ""
        assert "Traceback" not in run.stderr

    record("call", "--no-input", "call", "echo", "text=two")
    assert "   Authorization: ***\n" in outputs["call stderr"]  # the header as sent, masked
    record("pending", "--no-input", "call", "ask")  # exit 5: a pending document on stdout
    assert json.loads(outputs["pending stdout"])
    record("error", "--no-input", "call", "no_such_tool")
    record("tools", "tools", "--json")
    record("batch", "batch", "-", input=json.dumps({"id": 1, "call": "ask"}) + "\n" +
           json.dumps({"id": 2, "call": "echo", "arguments": {"text": "b"}}) + "\n")
    record("status", "auth", "status", "--json")
    record("step-up refused", "--no-input", "call", "admin_tool")
    record("json error", "--no-input", "--json", "call", "admin_tool")
    record("json pending", "--no-input", "--json", "call", "ask")
    # revocation sends the tokens to the server: not to the trace; then an explicit sign-in, traced
    record("logout", "auth", "logout")
    assert server.stats()["revoke_log"]
    record("login", "auth", "login", with_browser=True)
    record("after login", "--no-input", "call", "echo", "text=three")
    assert outputs["after login stdout"].strip() == "echo: three"
    # mrtr's files under the state directory, the token store aside
    store = state_dir(tmp_path) / "auth"
    for path in every_file_under(state_dir(tmp_path)):
        if store not in path.parents:
            outputs[f"file {path.relative_to(tmp_path)}"] = path.read_text(errors="replace")
    assert any(name.startswith("file ") for name in outputs), "no state files to check"

    values = server.secrets()
    assert secret in values and len(values) >= 3
    for name, text in outputs.items():
        for value in values:
            assert value not in text, f"{value[:12]}... appears in {name}"
        assert not re.search(r"mrtr-(at|rt)-[0-9a-f]{8}", text), name


def test_the_token_store_holds_the_tokens_it_is_for(tmp_path, oauth_server, browser):
    """The grep above is not vacuous: the tokens are real and are where they belong."""
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    stored = "".join(p.read_text() for p in every_file_under(state_dir(tmp_path) / "auth"))
    assert server.stats()["access_tokens"][-1] in stored
