"""Signing in without a terminal or a browser, and the sign-in in `--trace` (docs/oauth.md
"Without a browser or a terminal", "Tracing a sign-in").

- `auth login --no-browser` with stdin at end of input and no terminal fails at once (exit 8)
  instead of waiting MRTR_AUTH_WAIT for an address nobody can paste;
- a `BROWSER` that shows nothing (/bin/true) still leaves the sign-in URL on stderr, and at a
  terminal the redirected address can be pasted;
- `--trace FILE` and `-vv` get every authorization request and reply (metadata, registration,
  token, revocation), with no token, secret, code, verifier, assertion or Authorization value.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.auth_support import OAUTH_BROWSER, finish, run_mrtr, spawn_mrtr, store_files

sys.path.insert(0, str(OAUTH_BROWSER.parent))
from oauth_browser import follow

from tests.support import SAFETY

AUTHORIZE_URL = r"/authorize\?\S+"


def test_no_browser_without_a_terminal_fails_at_once(tmp_path, oauth_server):
    server = oauth_server()
    # stdin at end of input, no controlling terminal; MRTR_AUTH_WAIT far beyond the test's
    # safety bound, so a run that waited for a paste would fail the test on that bound
    run = run_mrtr(tmp_path, "--url", server.mcp_url, "auth", "login", "--no-browser",
                   env={"MRTR_AUTH_WAIT": "3000"}, timeout=SAFETY)
    assert run.code == 8, run.stderr
    assert "no terminal to paste it in" in run.stderr and "run the same command in a terminal" in run.stderr
    assert server.stats()["authorizations"] == 0 and server.stats()["token_requests"] == 0
    assert server.stats()["registrations"] == 0  # failed before anything was registered
    assert store_files(tmp_path) == []


def test_no_browser_that_can_start_without_a_terminal_fails_at_once(tmp_path, oauth_server):
    server = oauth_server()
    run = run_mrtr(tmp_path, "--url", server.mcp_url, "auth", "login", env={"MRTR_AUTH_WAIT": "3000",
                   "BROWSER": "/bin/false", "PATH": str(Path(sys.executable).parent)}, timeout=SAFETY)
    assert run.code == 8, run.stderr
    assert "no browser could be started" in run.stderr and "no terminal to paste it in" in run.stderr
    assert re.search(re.escape(server.issuer) + AUTHORIZE_URL, run.stderr)  # shown all the same


def test_a_browser_that_shows_nothing_still_leaves_the_url_on_stderr(tmp_path, oauth_server):
    server = oauth_server()
    run = run_mrtr(tmp_path, "--url", server.mcp_url, "auth", "login",
                   env={"BROWSER": "/bin/true", "MRTR_AUTH_WAIT": "2"})
    assert run.code == 8, run.stderr  # nobody came back: the wait ended
    [url] = re.findall(re.escape(server.issuer) + AUTHORIZE_URL, run.stderr)
    params = dict(parse_qsl(urlsplit(url).query))
    assert params["code_challenge_method"] == "S256" and params["state"]
    assert "code_verifier" not in params


@pytest.mark.pty
def test_a_browser_that_shows_nothing_at_a_terminal_lets_the_address_be_pasted(tmp_path, oauth_server):
    server = oauth_server()
    child, _ = spawn_mrtr(tmp_path, "--url", server.mcp_url, "auth", "login", env={"BROWSER": "/bin/true"})
    child.expect(re.escape(server.issuer) + AUTHORIZE_URL)
    url = child.after.strip()
    child.expect(r"(?i)paste")
    redirect_uri = dict(parse_qsl(urlsplit(url).query))["redirect_uri"]
    stopped = follow(url, stop_at=redirect_uri)["stopped"]
    assert stopped and stopped.startswith(redirect_uri + "?")
    child.send(stopped + "\r")
    assert finish(child) == 0
    assert server.stats()["grants"] == {"authorization_code": 1}


def _trace(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _secrets_sent_and_issued(server) -> list[str]:
    """Every token and client secret the server issued, and every code, verifier, assertion and
    Authorization header value it received."""
    found = list(server.secrets())
    for request in server.requests():
        if request["headers"].get("authorization"):
            value = request["headers"]["authorization"]
            found += [value, value.split(" ", 1)[-1]]
        form = dict(parse_qsl(request["body"])) if "=" in request["body"] and request["method"] == "POST" else {}
        found += [form[k] for k in ("code", "code_verifier", "client_assertion", "token", "refresh_token",
                                    "client_secret") if form.get(k)]
    return [s for s in found if len(s) >= 8]


def test_login_and_logout_exchanges_go_into_the_trace_redacted(tmp_path, oauth_server, browser):
    server = oauth_server()
    trace = tmp_path / "login.jsonl"
    login = run_mrtr(tmp_path, "--url", server.mcp_url, "auth", "login", "--trace", str(trace), "-vv", browser=browser)
    assert login.code == 0, login.stderr
    out = tmp_path / "logout.jsonl"
    logout = run_mrtr(tmp_path, "--url", server.mcp_url, "auth", "logout", "--trace", str(out), "-vv")
    assert logout.code == 0, logout.stderr
    records = _trace(trace) + _trace(out)
    assert {r["dir"] for r in records} == {"http-request", "http-response"}
    asked = [(r["http"]["method"], urlsplit(r["http"]["url"]).path) for r in records if r["dir"] == "http-request"]
    for wanted in [("GET", "/.well-known/oauth-protected-resource/mcp"), ("GET",
                                                                          "/.well-known/oauth-authorization-server"),
                   ("POST", "/register"), ("POST", "/token"), ("POST", "/revoke")]:
        assert wanted in asked, asked
    token_reply = next(r["http"] for r in records if r["dir"] == "http-response"
                       and r["http"]["url"].endswith("/token"))
    assert token_reply["status"] == 200 and token_reply["body"]["access_token"] == "***"
    token_request = next(r["http"] for r in records
                         if r["dir"] == "http-request" and r["http"]["url"].endswith("/token"))
    assert token_request["form"]["code"] == "***" and token_request["form"]["code_verifier"] == "***"
    secrets = _secrets_sent_and_issued(server)
    assert len(secrets) >= 5  # tokens, the client secret, the code, the verifier, Basic credentials
    everything = trace.read_text() + out.read_text() + login.stdout + login.stderr + logout.stdout + logout.stderr
    for secret in secrets:
        assert secret not in everything


def test_a_client_assertion_never_reaches_the_trace(tmp_path, oauth_server):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    private = tmp_path / "key.pem"
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    public = tmp_path / "pub.pem"
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    server = oauth_server("--client-id", "jwt-bot", "--client-credentials", "--client-auth-method",
                          "private_key_jwt", "--client-public-key", str(public))
    trace = tmp_path / "cc.jsonl"
    run = run_mrtr(tmp_path, "--url", server.mcp_url, "--trace", str(trace), "-vv", "auth", "login",
                   "--client-credentials", "--client-id", "jwt-bot", "--auth-method", "private_key_jwt",
                   "--private-key-file", str(private))
    assert run.code == 0, run.stderr
    token_request = next(r["http"] for r in _trace(trace) if r["dir"] == "http-request"
                         and r["http"]["url"].endswith("/token"))
    assert token_request["form"]["client_assertion"] == "***"
    secrets = _secrets_sent_and_issued(server)
    assert any(s.count(".") == 2 for s in secrets)  # the assertion (a JWT) was sent
    for secret in secrets:
        assert secret not in trace.read_text() + run.stdout + run.stderr
    assert "PRIVATE KEY" not in trace.read_text() + run.stderr
