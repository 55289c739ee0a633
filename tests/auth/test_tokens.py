"""Stored sign-ins, end to end against tests/servers/oauth_server.py: silent refresh,
one refresh for concurrent processes, a private token store, and `auth status`, `auth logout`,
`auth token`."""

from __future__ import annotations

import contextlib
import json
import re
import select
import socket
import stat
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.auth_support import (
    PY,
    ROOT,
    auth_dir,
    expire_stored_tokens,
    finish,
    login_hint,
    mrtr_env,
    run_mrtr,
    sign_in,
    spawn_mrtr,
    store_files,
)
from tests.conftest import url_args
from tests.support import SAFETY, growing_bound


def call(tmp_path, server, *args, **kw):
    return run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", *args, **kw)


def stored_access_tokens(tmp_path) -> list[str]:
    out = []
    for path in store_files(tmp_path):
        doc = json.loads(path.read_text())
        out += [e["tokens"]["access_token"] for e in doc.get("issuers", {}).values()
                if (e.get("tokens") or {}).get("access_token")]
    return out


# ---------------------------------------------------------------------- refresh
def test_an_expired_token_is_refreshed_silently(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    first = stored_access_tokens(tmp_path)
    assert expire_stored_tokens(tmp_path) == 1
    run = call(tmp_path, server, "echo", "text=later", browser=browser)
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "echo: later"
    assert run.stderr == ""
    stats = server.stats()
    assert stats["grants"] == {"authorization_code": 1, "refresh_token": 1}
    assert stats["token_log"][-1]["resource"] == server.mcp_url
    assert len(browser.opened()) == 1
    assert stored_access_tokens(tmp_path) != first
    assert stored_access_tokens(tmp_path)[0] == stats["access_tokens"][-1]


def test_a_token_the_server_no_longer_takes_is_refreshed_silently(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    server.expire_tokens()  # mrtr still thinks it valid: the server's 401 says otherwise
    run = call(tmp_path, server, "echo", "text=again", browser=browser)
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "echo: again"
    assert server.stats()["grants"] == {"authorization_code": 1, "refresh_token": 1}
    assert len(browser.opened()) == 1


@pytest.mark.parametrize("why", ["refresh token refused", "no refresh token"])
def test_a_token_that_cannot_be_renewed_without_a_terminal_exits_8(tmp_path, oauth_server, browser, why):
    server = oauth_server(*(["--no-refresh"] if why == "no refresh token" else []))
    sign_in(tmp_path, server, browser)
    expire_stored_tokens(tmp_path)
    server.drop_refresh_tokens()
    server.expire_tokens()
    run = call(tmp_path, server, "echo", "text=x", browser=browser)
    assert run.code == 8, run.stderr
    assert login_hint(server.mcp_url) in run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""
    assert len(browser.opened()) == 1


@pytest.mark.pty
def test_a_refresh_that_fails_at_a_terminal_signs_in_again(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    expire_stored_tokens(tmp_path)
    server.drop_refresh_tokens()
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "call", "echo", "text=back", browser=browser)
    child.expect(r"(?i)open the browser")
    child.send("y\r")
    assert finish(child) == 0
    assert out.read_text().strip() == "echo: back"
    assert server.stats()["grants"]["authorization_code"] == 2
    assert len(browser.opened()) == 2


def test_concurrent_processes_refresh_once(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    expire_stored_tokens(tmp_path)
    env = mrtr_env(tmp_path, browser)
    procs = [subprocess.Popen([PY, "-m", "mrtr_cli", *url_args(server.mcp_url), "--no-input", "call", "echo",
                               f"text=p{i}"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT) for i in range(4)]
    results = [p.communicate(timeout=SAFETY) + (p.returncode,) for p in procs]
    for i, (out, err, code) in enumerate(results):
        assert code == 0, err
        assert out.strip() == f"echo: p{i}"
    grants = server.stats()["grants"]
    assert grants.get("refresh_token") == 1, grants
    assert grants["authorization_code"] == 1


def test_a_batch_with_16_lines_in_flight_refreshes_once(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    expire_stored_tokens(tmp_path)
    lines = "".join(json.dumps({"id": i, "call": "echo", "arguments": {"text": f"b{i}"}}) + "\n" for i in range(16))
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "batch", "-", "-j", "16", input=lines, browser=browser)
    assert run.code == 0, run.stderr
    records = [json.loads(line) for line in run.stdout.splitlines()]
    assert [r["exitCode"] for r in records] == [0] * 16
    assert server.stats()["grants"].get("refresh_token") == 1


# ---------------------------------------------------------------------- the store
def test_the_token_store_is_private(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    d = auth_dir(tmp_path)
    assert stat.S_IMODE(d.stat().st_mode) == 0o700
    files = [p for p in d.rglob("*") if p.is_file()]
    assert store_files(tmp_path), "no token file written"
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    # and a refresh (a rewrite) keeps it so
    expire_stored_tokens(tmp_path)
    assert call(tmp_path, server, "echo", "text=r", browser=browser).code == 0
    for path in [p for p in d.rglob("*") if p.is_file()]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE(d.stat().st_mode) == 0o700


def test_a_stored_token_is_keyed_by_issuer_and_resource(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    [path] = store_files(tmp_path)
    doc = json.loads(path.read_text())
    assert doc["resource"] == server.mcp_url
    assert list(doc["issuers"]) == [server.issuer]


# ---------------------------------------------------------------------- auth status / logout / token
def no_secret_in(text: str, server) -> None:
    for value in server.secrets():
        assert value not in text


def test_auth_status_shows_the_sign_in_but_no_token(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    client_id = server.stats()["registered"][0]["client_id"]
    text = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "status")
    assert text.code == 0, text.stderr
    for expected in (server.mcp_url, server.issuer, client_id, "mcp:read"):
        assert expected in text.stdout
    no_secret_in(text.stdout + text.stderr, server)
    # One `key: value` block, as `gh auth status` shows it: every value whole on its line.
    lines = text.stdout.splitlines()
    assert lines[0] == server.mcp_url
    fields = dict(line.strip().split(": ", 1) for line in lines[1:])
    assert list(fields) == ["issuer", "client", "mechanism", "scopes", "token", "refresh"]
    assert fields["issuer"] == server.issuer and fields["client"].split()[0] == client_id
    assert re.fullmatch(r"valid until \S+", fields["token"]) and fields["refresh"] == "yes"
    assert all(line.startswith("  ") for line in lines[1:])
    as_json = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "status", "--json")
    assert as_json.code == 0, as_json.stderr
    doc = json.loads(as_json.stdout)
    flat = json.dumps(doc)
    for expected in (server.mcp_url, server.issuer, client_id, "mcp:read"):
        assert expected in flat
    assert doc[0]["refreshToken"] is True and doc[0]["expired"] is False and doc[0]["expiresAt"], doc
    no_secret_in(as_json.stdout + as_json.stderr, server)
    every = run_mrtr(tmp_path, "auth", "status", "--json")
    assert every.code == 0, every.stderr
    assert server.mcp_url in every.stdout
    no_secret_in(every.stdout, server)


def test_auth_status_without_a_sign_in_says_so(tmp_path, oauth_server):
    server = oauth_server()
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "status")
    assert run.code == 8, run.stderr  # for a server named: not signed in there
    assert run.stderr == "mrtr: no stored sign-ins for this server\n"
    assert run.stdout == ""
    every = run_mrtr(tmp_path, "auth", "status")
    assert every.code == 0, every.stderr  # no server named: nothing stored is not a failure
    assert every.stderr == "mrtr: no stored sign-ins\n"


def test_auth_logout_revokes_at_the_server_and_forgets(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    held = server.stats()
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "logout")
    assert run.code == 0, run.stderr
    no_secret_in(run.stdout + run.stderr, server)
    stats = server.stats()
    assert stats["revoke_log"], "no revocation request reached the server"
    assert len(held["refresh_tokens"]) == 1 and stats["revoked"] == held["refresh_tokens"]  # the grant, with its access
    assert server.mcp_status(held["access_tokens"][-1]) == 401
    assert stored_access_tokens(tmp_path) == []
    after = call(tmp_path, server, "echo", "text=x", browser=browser)
    assert after.code == 8 and login_hint(server.mcp_url) in after.stderr


def test_auth_logout_all(tmp_path, oauth_server, browser):
    one, two = oauth_server(), oauth_server()
    sign_in(tmp_path, one, browser)
    sign_in(tmp_path, two, browser)
    run = run_mrtr(tmp_path, "auth", "logout", "--all")
    assert run.code == 0, run.stderr
    assert one.stats()["revoke_log"] and two.stats()["revoke_log"]
    assert stored_access_tokens(tmp_path) == []
    for server in (one, two):
        assert call(tmp_path, server, "echo", "text=x").code == 8


def test_auth_logout_without_revocation_endpoint_still_forgets(tmp_path, oauth_server, browser):
    server = oauth_server("--no-revocation")
    sign_in(tmp_path, server, browser)
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "logout")
    assert run.code == 0, run.stderr
    assert stored_access_tokens(tmp_path) == []


def test_auth_token_prints_a_valid_access_token(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "token")
    assert run.code == 0, run.stderr
    token = run.stdout.strip()
    assert run.stdout == token + "\n"
    assert token in server.stats()["access_tokens"]
    assert server.mcp_status(token) == 200
    no_secret_in(run.stderr, server)
    # an expired one is refreshed first
    expire_stored_tokens(tmp_path)
    again = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "token")
    assert again.code == 0, again.stderr
    fresh = again.stdout.strip()
    assert fresh != token and server.mcp_status(fresh) == 200
    assert server.stats()["grants"]["refresh_token"] == 1


def test_auth_token_without_a_sign_in_exits_8(tmp_path, oauth_server, browser):
    server = oauth_server()
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "token", browser=browser)
    assert run.code == 8, run.stderr
    assert run.stdout == ""
    assert browser.opened() == []


def test_the_private_list_cache_is_kept_per_sign_in(tmp_path, oauth_server, browser):
    """docs/commands.md (listing): a `private` tool list is kept per authorization context. A sign-in
    is one: another client signed in to the same server must not share the first one's list."""
    from tests.auth_support import state_dir

    server = oauth_server("--public-client", "first-client", "--public-client", "second-client")
    for client in ("first-client", "second-client"):
        login = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--client-id", client, browser=browser)
        assert login.code == 0, login.stderr
        assert call(tmp_path, server, "echo", "text=c").code == 0
        assert run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "logout").code == 0
    private = sorted(p.name for p in (state_dir(tmp_path) / "cache").rglob("tools_list.private-*.json"))
    assert len(private) == 2, private


def test_the_keyring_store_falls_back_to_the_file_store_with_a_note_where_there_is_no_keychain(
        tmp_path, oauth_server, browser):
    server = oauth_server()
    env = {"MRTR_TOKEN_STORE": "keyring", "DBUS_SESSION_BUS_ADDRESS": "", "PYTHON_KEYRING_BACKEND":
           "keyring.backends.fail.Keyring"}
    login = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", browser=browser, env=env)
    assert login.code == 0, login.stderr
    assert "mrtr: note: no OS keychain is available (MRTR_TOKEN_STORE=keyring); tokens are kept in the file store" \
           in login.stderr.splitlines(), login.stderr
    assert store_files(tmp_path)
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=k", env=env)
    assert run.code == 0 and run.stdout.strip() == "echo: k", run.stderr


# ---------------------------------------------------------------------- another authorization server
def test_a_resource_that_moves_to_another_authorization_server_gets_a_new_registration(
        tmp_path, oauth_server, browser):
    """Clients and tokens are kept per issuer: when the resource's metadata names a new
    authorization server, `mrtr` registers there and never sends it the first one's client or
    tokens; the first sign-in is not used any more."""
    server = oauth_server("--second-as")
    sign_in(tmp_path, server, browser)
    first = server.stats()
    first_client = first["registered"][0]["client_id"]
    server.switch_as()
    # no terminal: the new server needs a sign-in, so exit 8; nothing of the first one is sent to it
    run = call(tmp_path, server, "echo", "text=moved", browser=browser)
    assert run.code == 8, run.stderr
    assert login_hint(server.mcp_url) in run.stderr
    assert server.stats()["grants"] == {"authorization_code": 1}  # no refresh at the first one either
    second = server.stats(server.issuer2)
    assert second["token_log"] == []  # nothing of the first sign-in (client, tokens) was sent to it
    # signing in again registers at the new server and works
    sign_in(tmp_path, server, browser)
    second = server.stats(server.issuer2)
    assert second["registrations"] == 1 and second["registered"][0]["client_id"] != first_client
    assert second["grants"] == {"authorization_code": 1}
    assert second["token_log"] and all(e["client_id"] != first_client for e in second["token_log"])
    again = call(tmp_path, server, "echo", "text=moved")
    assert again.code == 0 and again.stdout.strip() == "echo: moved", again.stderr
    sent_to_second = json.dumps([r for r in server.requests()
                                 if r["headers"].get("host", "").endswith(server.issuer2.rsplit(":", 1)[1])])
    for value in first["access_tokens"] + first["refresh_tokens"] + [first_client]:
        assert value not in sent_to_second
    [path] = store_files(tmp_path)
    assert json.loads(path.read_text())["issuer"] == server.issuer2


@pytest.mark.pty
def test_at_a_terminal_a_moved_resource_signs_in_at_the_new_authorization_server(tmp_path, oauth_server, browser):
    server = oauth_server("--second-as")
    sign_in(tmp_path, server, browser)
    server.switch_as()
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "call", "echo", "text=new", browser=browser)
    child.expect(re.escape(server.issuer2))
    child.expect(r"(?i)open the browser")
    child.send("y\r")
    assert finish(child) == 0
    assert out.read_text().strip() == "echo: new"
    assert server.stats(server.issuer2)["grants"] == {"authorization_code": 1}
    assert browser.opened()[-1].startswith(server.issuer2 + "/authorize?")


def test_auth_logout_of_one_target_keeps_the_others(tmp_path, oauth_server, browser):
    one, two = oauth_server(), oauth_server()
    sign_in(tmp_path, one, browser)
    sign_in(tmp_path, two, browser)
    assert run_mrtr(tmp_path, *url_args(one.mcp_url), "auth", "logout").code == 0
    assert one.stats()["revoke_log"] and not two.stats()["revoke_log"]
    assert call(tmp_path, one, "echo", "text=x").code == 8
    kept = call(tmp_path, two, "echo", "text=kept")
    assert kept.code == 0 and kept.stdout.strip() == "echo: kept", kept.stderr


def test_a_short_lived_token_is_used_while_fresh(tmp_path, oauth_server, browser):
    # 20 s: inside the old fixed 30 s margin (never used: "sign in again" forever), well
    # outside the proportional one (2 s), however slow this machine starts mrtr.
    server = oauth_server("--token-lifetime", "20", "--no-refresh")
    sign_in(tmp_path, server, browser)
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=short", browser=browser)
    assert run.code == 0 and run.stdout.strip() == "echo: short", run.stderr
    assert server.stats()["authorizations"] == 1


def test_the_expiry_margin_is_proportional_to_the_lifetime():
    from mrtr_cli.transport.http.authhook import nearly_expired

    assert not nearly_expired({"obtained_at": 1000, "expires_at": 1002}, now=1001)
    assert nearly_expired({"obtained_at": 1000, "expires_at": 1002}, now=1001.9)
    assert nearly_expired({"obtained_at": 1000, "expires_at": 4600}, now=4571)  # 30 s at most
    assert not nearly_expired({"obtained_at": 1000, "expires_at": 4600}, now=4569)
    assert nearly_expired({"expires_at": 1020}, now=995)  # no obtained_at: 30 s
    assert not nearly_expired({}, now=1e12)


@contextlib.contextmanager
def silent_token_endpoint(tmp_path) -> Iterator[tuple[socket.socket, str]]:
    """The stored tokens expired, their token endpoint a socket that accepts connections
    (its backlog) and never answers: yields (that socket, the endpoint's URL)."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    endpoint = f"http://127.0.0.1:{silent.getsockname()[1]}/token"
    try:
        for path in store_files(tmp_path):
            doc = json.loads(path.read_text(encoding="utf-8"))
            for entry in doc["issuers"].values():
                entry["tokens"]["expires_at"] = 1
                entry.setdefault("endpoints", {})["token_endpoint"] = endpoint
            path.write_text(json.dumps(doc), encoding="utf-8")
        yield silent, endpoint
    finally:
        silent.close()


def test_a_refresh_slower_than_the_era_probe_is_not_the_servers_silence(tmp_path, oauth_server, browser):
    # The probe's own short limit runs out while the request still waits for its token:
    # that time says nothing of the server's era, so mrtr waits for the refresh, whose
    # failure (bounded by --timeout) is the run's error.
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    with silent_token_endpoint(tmp_path) as (silent, endpoint):
        def attempt(bound: float) -> Any:
            run = run_mrtr(tmp_path, "--url", server.mcp_url, "-v", "call", "echo", "text=x", "--probe-timeout", "0.05",
                           "--timeout", f"{bound:g}", browser=browser, timeout=SAFETY)
            assert run.code == 7, run.stderr
            assert "no answer within" not in run.stderr and "initialize" not in run.stderr, run.stderr
            return run if select.select([silent], [], [], 0)[0] else None

        run = growing_bound(attempt, 2, what="a run whose refresh reached the token endpoint")
    assert f"the token endpoint {endpoint} did not answer in time" in run.stderr
    assert "era probe" not in run.stderr.split("mrtr: error:")[-1]


def test_a_silent_refresh_is_bound_by_timeout_and_names_the_token_endpoint(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    with silent_token_endpoint(tmp_path) as (silent, endpoint):
        # The endpoint never answers: --timeout ends the refresh. Start-up and the requests
        # before it count against --timeout: the bound grows until a run's refresh reached
        # the endpoint (a connection waits in its backlog).
        def attempt(bound: float) -> Any:
            run = run_mrtr(tmp_path, *url_args(server.mcp_url), "call", "echo", "text=x", "--timeout", f"{bound:g}",
                           browser=browser, timeout=SAFETY)
            assert run.code == 7, run.stderr
            return run if select.select([silent], [], [], 0)[0] else None

        run = growing_bound(attempt, 3, what="a run whose refresh reached the token endpoint")
    assert endpoint in run.stderr and "Traceback" not in run.stderr
