"""A client registration over its life: registered for the scopes mrtr will ask for (so a
later `--scope` or step-up is no dead end on servers that register a client for their
default scopes only), and dropped at once when the authorization server no longer knows it
(after a restart: `invalid_client` at the refresh, an error page at the sign-in), so that
the next sign-in registers again (docs/oauth.md "Client registration").

Against tests/servers/oauth_server.py: the MCP Python SDK's authorization server routes
(`create_auth_routes`, its registration handler) with an in-memory store; `/_test/forget`
makes it forget every registered client and token, as a restart does.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2

from tests.auth_support import login_hint, run_mrtr, sign_in, store_files
from tests.conftest import url_args
from tests.support import SAFETY

WAIT = {"MRTR_AUTH_WAIT": "8"}  # a sign-in page that never comes back fails in seconds


def forget(server: Any) -> None:
    """The authorization server forgets every registered client and token (a restart)."""
    httpx2.post(server.issuer + "/_test/forget", timeout=SAFETY).raise_for_status()


def stored_client(tmp_path: Any) -> dict[str, Any] | None:
    doc = json.loads(store_files(tmp_path)[0].read_text())
    entry = next(iter(doc["issuers"].values()))
    return entry.get("client")


def no_secrets(server: Any, *runs: Any) -> None:
    for run in runs:
        for secret in server.secrets():
            assert secret not in run.stdout + run.stderr


def test_registration_asks_for_the_scopes_so_a_later_scope_is_no_dead_end(tmp_path, oauth_server, browser):
    server = oauth_server("--default-scopes", "mcp:read")  # registered without scope: mcp:read only
    first = sign_in(tmp_path, server, browser)
    registered = server.stats()["registered"]
    assert len(registered) == 1 and set(registered[0]["scope"].split()) >= {"mcp:read", "mcp:admin"}
    more = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--scope", "mcp:admin", browser=browser)
    assert more.code == 0, more.stderr
    who = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "admin_tool")  # needs mcp:admin
    assert who.code == 0, who.stderr
    assert server.stats()["registrations"] == 1
    no_secrets(server, first, more, who)


def test_a_registration_without_a_needed_scope_is_made_again(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    path = store_files(tmp_path)[0]
    doc = json.loads(path.read_text())
    for entry in doc["issuers"].values():  # as an older registration for mcp:read only
        entry["client"]["scope"] = "mcp:read"
    path.write_text(json.dumps(doc))
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--scope", "mcp:admin", browser=browser)
    assert run.code == 0, run.stderr
    assert "does not cover the scope mcp:admin; registering again" in run.stderr
    assert server.stats()["registrations"] == 2


def test_a_forgotten_registration_is_dropped_at_the_refresh_and_made_again_at_the_next_sign_in(
        tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    forget(server)
    call = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=hi", env=WAIT)
    assert call.code == 8, call.stderr
    assert "does not accept mrtr's registration" in call.stderr and "invalid_client" in call.stderr
    assert f"run: {login_hint(server.mcp_url)}" in call.stderr
    assert stored_client(tmp_path) is None
    status = run_mrtr(tmp_path, "auth", "status")  # the dropped registration is said as such
    assert status.code == 0, status.stderr
    assert "none (dropped; the next sign-in registers again)" in status.stdout, status.stdout
    assert "None" not in status.stdout and "signed out" in status.stdout, status.stdout
    login = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", browser=browser, env=WAIT)
    assert login.code == 0, login.stderr
    assert server.stats()["registrations"] == 2
    again = run_mrtr(tmp_path, *url_args(server.mcp_url), "call", "echo", "text=back")
    assert again.code == 0 and "back" in again.stdout, again.stderr
    no_secrets(server, call, login, again)


def test_a_sign_in_that_never_comes_back_on_a_reused_registration_says_what_to_run(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    forget(server)
    path = store_files(tmp_path)[0]
    doc = json.loads(path.read_text())
    for entry in doc["issuers"].values():  # no tokens to refresh: the next sign-in reuses the client
        entry.pop("tokens", None)
    path.write_text(json.dumps(doc))
    # the server shows an "unknown client" page and never redirects back
    stuck = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", browser=browser, env=WAIT)
    assert stuck.code == 8, stuck.stderr
    assert "no sign-in response within 8 s" in stuck.stderr
    assert f"run {login_hint(server.mcp_url)} to register again" in stuck.stderr
    assert stored_client(tmp_path) is None
    login = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", browser=browser, env=WAIT)
    assert login.code == 0, login.stderr
    assert server.stats()["registrations"] == 2


def test_a_registration_whose_secret_expired_is_not_used(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    path = store_files(tmp_path)[0]
    doc = json.loads(path.read_text())
    for entry in doc["issuers"].values():
        entry.pop("tokens", None)
        entry["client"]["client_secret_expires_at"] = 1_000_000  # 1970
    path.write_text(json.dumps(doc))
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", browser=browser, env=WAIT)
    assert run.code == 0, run.stderr
    assert "has expired (client_secret_expires_at); registering again" in run.stderr
    assert server.stats()["registrations"] == 2


def test_a_scope_the_server_does_not_offer_is_named_and_leaves_no_clients_behind(tmp_path, oauth_server, browser):
    server = oauth_server()  # offers mcp:read and mcp:admin; its error redirects carry no iss
    for _ in range(2):
        run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--scope", "mcp:write", browser=browser,
                       env=WAIT)
        assert run.code == 8, run.stderr
        assert "invalid_scope" in run.stderr and "registering again" not in run.stderr, run.stderr
    assert server.stats()["registrations"] == 1
