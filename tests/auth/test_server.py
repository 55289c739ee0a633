"""The sign-in test infrastructure itself (tests/servers/oauth_server.py, tests/oauth_browser.py):
the authorization server and protected MCP server behave as the spec's servers do, driven here
by a plain OAuth client written with httpx2, so that a failure of an `mrtr` sign-in test points
at `mrtr`, not at the fixture."""

from __future__ import annotations

import base64
import hashlib
import secrets
import subprocess
import sys
from typing import Any

import httpx2

from tests.auth_support import OAUTH_BROWSER, OAuthServer

sys.path.insert(0, str(OAUTH_BROWSER.parent))
from oauth_browser import follow

from tests.support import SAFETY

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
REDIRECT = "http://127.0.0.1:9/cb"


def mcp_post(server: OAuthServer, token: str | None, body: dict[str, Any] = INIT) -> httpx2.Response:
    headers = dict(MCP_HEADERS)
    if token:
        headers["authorization"] = f"Bearer {token}"
    return httpx2.post(server.mcp_url, json=body, headers=headers, timeout=SAFETY)


def sign_in(server: OAuthServer, scope: str = "mcp:read", resource: str | None = None) -> dict[str, Any]:
    """Register (DCR), authorize with PKCE through the stand-in browser, exchange the code."""
    reg = httpx2.post(server.issuer + "/register", json={
        "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]}, timeout=SAFETY)
    assert reg.status_code == 201, reg.text
    client_id = reg.json()["client_id"]
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    state = secrets.token_urlsafe(16)
    url = str(httpx2.URL(server.issuer + "/authorize", params={
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "scope": scope,
        "state": state, "code_challenge": challenge, "code_challenge_method": "S256",
        "resource": resource or server.mcp_url}))
    result = follow(url, stop_at="http://127.0.0.1:9/")
    callback = httpx2.URL(result["stopped"])
    assert callback.params["state"] == state
    assert callback.params["iss"] == server.issuer
    token = httpx2.post(server.issuer + "/token", data={
        "grant_type": "authorization_code", "code": callback.params["code"], "redirect_uri": REDIRECT,
        "client_id": client_id, "code_verifier": verifier, "resource": resource or server.mcp_url}, timeout=SAFETY)
    assert token.status_code == 200, token.text
    return {"client_id": client_id, **token.json()}


def test_challenge_and_metadata(oauth_server: Any) -> None:
    server = oauth_server()
    r = mcp_post(server, None)
    assert r.status_code == 401
    challenge = r.headers["www-authenticate"]
    prm_url = server.mcp_url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    assert f'resource_metadata="{prm_url}"' in challenge and 'scope="mcp:read"' in challenge
    prm = httpx2.get(prm_url).json()
    assert prm["resource"] == server.mcp_url and prm["authorization_servers"] == [server.issuer]
    meta = httpx2.get(server.issuer + "/.well-known/oauth-authorization-server").json()
    assert meta["issuer"] == server.issuer and meta["code_challenge_methods_supported"] == ["S256"]
    assert meta["authorization_response_iss_parameter_supported"] is True


def test_code_flow_refresh_revoke_and_counter(oauth_server: Any) -> None:
    server = oauth_server("--token-lifetime", "600")
    tokens = sign_in(server)
    assert tokens["access_token"].startswith("mrtr-at-") and tokens["refresh_token"].startswith("mrtr-rt-")
    assert mcp_post(server, tokens["access_token"]).status_code == 200
    assert mcp_post(server, "mrtr-at-wrong").status_code == 401
    server.expire_tokens()
    assert mcp_post(server, tokens["access_token"]).status_code == 401
    refreshed = httpx2.post(server.issuer + "/token", data={
        "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": tokens["client_id"],
        "resource": server.mcp_url}).json()
    assert mcp_post(server, refreshed["access_token"]).status_code == 200
    stats = server.stats()
    assert stats["grants"] == {"authorization_code": 1, "refresh_token": 1} and stats["token_requests"] == 2
    assert stats["token_log"][1]["resource"] == server.mcp_url
    r = httpx2.post(server.issuer + "/revoke", data={"token": refreshed["access_token"],
                                                     "client_id": tokens["client_id"]})
    assert r.status_code == 200
    assert server.stats()["revoked"] == [refreshed["access_token"]]
    assert mcp_post(server, refreshed["access_token"]).status_code == 401


def test_token_for_another_resource_is_refused(oauth_server: Any) -> None:
    """Tokens are bound to the RFC 8707 resource they were asked for."""
    server = oauth_server()
    other = sign_in(server, resource="http://127.0.0.1:9/mcp")["access_token"]
    assert mcp_post(server, other).status_code == 401


def test_registered_client_secret_is_reported(oauth_server: Any) -> None:
    server = oauth_server()
    reg = httpx2.post(server.issuer + "/register", json={"redirect_uris": [REDIRECT],
                                                        "token_endpoint_auth_method": "client_secret_post"})
    assert reg.status_code == 201, reg.text
    assert reg.json()["client_secret"] in server.stats()["client_secrets"]


def test_step_up_tool_needs_higher_scope(oauth_server: Any) -> None:
    server = oauth_server()
    token = sign_in(server)["access_token"]
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "admin_tool", "arguments": {}}}
    r = mcp_post(server, token, call)
    assert r.status_code == 403
    assert 'error="insufficient_scope"' in r.headers["www-authenticate"]
    assert 'scope="mcp:admin"' in r.headers["www-authenticate"]
    wide = sign_in(server, "mcp:read mcp:admin")["access_token"]
    assert mcp_post(server, wide, call).status_code != 403


def test_client_credentials_basic_post_and_jwt(oauth_server: Any, tmp_path: Any) -> None:
    server = oauth_server("--client-id", "ci", "--client-secret", "ci-secret", "--client-credentials",
                          "--client-auth-method", "client_secret_basic")
    ok = httpx2.post(server.issuer + "/token", auth=("ci", "ci-secret"), data={
        "grant_type": "client_credentials", "resource": server.mcp_url, "scope": "mcp:read"})
    assert ok.status_code == 200 and mcp_post(server, ok.json()["access_token"]).status_code == 200
    bad = httpx2.post(server.issuer + "/token", auth=("ci", "nope"), data={"grant_type": "client_credentials"})
    assert bad.status_code == 401
    post = httpx2.post(server.issuer + "/token", data={"grant_type": "client_credentials", "client_id": "ci",
                                                       "client_secret": "ci-secret"})
    assert post.status_code == 401  # registered for client_secret_basic

    import jwt
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    pub = tmp_path / "pub.pem"
    pub.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo))
    server = oauth_server("--client-id", "bot", "--client-credentials", "--client-auth-method", "private_key_jwt",
                          "--client-public-key", str(pub))
    import time

    assertion = jwt.encode({"iss": "bot", "sub": "bot", "aud": server.issuer + "/token", "exp": int(time.time()) + 60,
                            "iat": int(time.time()), "jti": secrets.token_hex(8)}, key, algorithm="ES256")
    r = httpx2.post(server.issuer + "/token", data={
        "grant_type": "client_credentials", "client_assertion": assertion, "resource": server.mcp_url,
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"})
    assert r.status_code == 200, r.text
    assert mcp_post(server, r.json()["access_token"]).status_code == 200


def test_browser_follows_to_the_loopback_callback(oauth_server: Any, browser: Any) -> None:
    """The stand-in browser, launched as `webbrowser` launches `BROWSER`, returns at once and
    follows the authorization URL through to the loopback redirect."""
    import http.server
    import threading

    hits: list[str] = []

    class Callback(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"you may close this tab")

        def log_message(self, *a: Any) -> None:
            pass

    listener = http.server.HTTPServer(("127.0.0.1", 0), Callback)
    threading.Thread(target=listener.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    server = oauth_server()
    redirect = f"http://127.0.0.1:{listener.server_port}/cb"
    client_id = httpx2.post(server.issuer + "/register", json={"redirect_uris": [redirect],
                                                              "token_endpoint_auth_method": "none"}).json()["client_id"]
    url = str(httpx2.URL(server.issuer + "/authorize", params={
        "response_type": "code", "client_id": client_id, "redirect_uri": redirect, "state": "s1",
        "code_challenge": "x" * 43, "code_challenge_method": "S256"}))
    code = subprocess.run([sys.executable, "-c", "import webbrowser, sys; sys.exit(not webbrowser.open(sys.argv[1]))",
                           url], env={**browser.env, "PATH": "/usr/bin:/bin"}, timeout=SAFETY).returncode
    assert code == 0
    last = browser.wait_finished()
    listener.shutdown()
    assert last["event"] == "done" and last["status"] == 200 and "close this tab" in last["body"]
    assert browser.opened() == [url]
    assert browser.visited()[-1].startswith(redirect + "?code=") and hits and "state=s1" in hits[0]


def test_the_resource_can_move_to_a_second_authorization_server(oauth_server: Any) -> None:
    server = oauth_server("--second-as")
    assert server.issuer2 and server.issuer2 != server.issuer
    first = sign_in(server)["access_token"]
    server.switch_as()
    prm = httpx2.get(server.mcp_url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")).json()
    assert prm["authorization_servers"] == [server.issuer2]
    assert mcp_post(server, first).status_code == 401
    meta = httpx2.get(server.issuer2 + "/.well-known/oauth-authorization-server").json()
    assert meta["issuer"] == server.issuer2
    assert server.stats(server.issuer2)["token_requests"] == 0
