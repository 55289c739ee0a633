"""Signing in, end to end: `mrtr` against a real protected MCP server and its OAuth
authorization server (tests/servers/oauth_server.py), the browser step done by the stand-in
browser set as `BROWSER` (tests/oauth_browser.py), the terminal a real pseudo-terminal."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.auth_support import (
    OAUTH_BROWSER,
    authorize_params,
    finish,
    login_hint,
    run_mrtr,
    sign_in,
    spawn_mrtr,
    store_files,
)
from tests.conftest import url_args
from tests.support import SAFETY

pexpect = pytest.importorskip("pexpect")

sys.path.insert(0, str(OAUTH_BROWSER.parent))
from oauth_browser import follow  # noqa: E402

CONSENT = r"(?i)open the browser"
ENTER = "\r"


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@pytest.mark.pty
def test_first_call_at_a_terminal_signs_in_and_the_second_uses_the_stored_token(tmp_path, oauth_server, browser):
    server = oauth_server()
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "call", "echo", "text=hi", browser=browser)
    # which server asks, which issuer signs in, which scopes: before anything opens
    child.expect(re.escape(urlsplit(server.mcp_url).netloc))
    child.expect(re.escape(server.issuer))
    # the host a browser visits for the authorization URL, as a browser reads it
    child.expect(re.escape(f"sign-in page on host: {urlsplit(server.issuer).hostname}"))
    child.expect("mcp:read")
    child.expect(CONSENT)
    assert browser.opened() == []
    child.send("y" + ENTER)
    assert finish(child) == 0
    assert out.read_text().strip() == "echo: hi"

    # the browser was sent to the issuer's authorization endpoint, with PKCE S256, state and resource
    assert len(browser.opened()) == 1
    assert browser.opened()[0].startswith(server.issuer + "/authorize?")
    params = authorize_params(browser)
    assert params["code_challenge_method"] == "S256" and params["code_challenge"] and params["state"]
    assert params["resource"] == server.mcp_url
    assert params.get("scope", "").split() == ["mcp:read"]  # the challenge's scope (no offline_access: not listed)
    redirect = urlsplit(params["redirect_uri"])
    assert redirect.hostname == "127.0.0.1" and redirect.port
    last = browser.wait_finished()
    assert last["event"] == "done" and last["status"] == 200, last
    assert browser.visited()[-1].startswith(params["redirect_uri"] + "?")
    stats = server.stats()
    assert stats["grants"] == {"authorization_code": 1}
    assert stats["token_log"] and all(entry["resource"] == server.mcp_url for entry in stats["token_log"])
    # the request that got 401 was sent again, once, with the token; the call itself went once
    sent = [(r["method"], bool(r["authorization"])) for r in stats["mcp_requests"]]
    assert sent[0][1] is False and sent[1] == (sent[0][0], True), sent
    assert [r["authorization"] != "" for r in stats["mcp_requests"] if r["tool"] == "echo"] == [True]

    # the second call: the stored token, no prompt, no browser, no token request
    again = run_mrtr(tmp_path, *url_args(server.mcp_url), "call", "echo", "text=again", browser=browser)
    assert again.code == 0, again.stderr
    assert again.stdout.strip() == "echo: again"
    assert "sign in" not in again.stderr.lower()
    assert len(browser.opened()) == 1
    assert server.stats()["token_requests"] == 1


@pytest.mark.pty
def test_an_mrtr_call_goes_on_with_its_rounds_after_signing_in(tmp_path, oauth_server, browser):
    server = oauth_server()
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "call", "ask", browser=browser)
    child.expect(CONSENT)
    child.send("y" + ENTER)
    child.expect("Favourite colour")
    child.expect("(?i)color")
    child.send("teal" + ENTER)
    child.expect(r"(?i)send these answers\?")
    child.send(ENTER)
    assert finish(child) == 0
    assert out.read_text().strip() == "colour: teal"
    assert server.stats()["grants"] == {"authorization_code": 1}


@pytest.mark.parametrize("how", ["--no-input", "no-terminal"])
def test_without_a_person_no_token_exits_8_naming_the_login_command(tmp_path, oauth_server, browser, how):
    server = oauth_server()
    args = [*url_args(server.mcp_url), "call", "echo", "text=hi"] + (["--no-input"] if how == "--no-input" else [])
    run = run_mrtr(tmp_path, *args, browser=browser)
    assert run.code == 8, run.stderr
    assert run.stdout == ""
    assert login_hint(server.mcp_url) in run.stderr
    # "one line naming the command": the error line itself, nothing more
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert sum(login_hint(server.mcp_url) in line for line in run.stderr.splitlines()) == 1
    assert browser.opened() == []
    stats = server.stats()
    assert stats["authorizations"] == 0 and stats["token_requests"] == 0


@pytest.mark.pty
def test_no_input_at_a_terminal_still_exits_8_without_asking(tmp_path, oauth_server, browser):
    server = oauth_server()
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=hi",
                            browser=browser)
    child.expect(re.escape(login_hint(server.mcp_url)))
    assert finish(child) == 8
    assert browser.opened() == [] and out.read_text() == ""


def test_a_named_server_is_named_in_the_login_hint(tmp_path, oauth_server, browser):
    server = oauth_server()
    config = tmp_path / "servers.json"
    config.write_text('{"mcpServers": {"guarded": {"type": "http", "url": "%s"}}}' % server.mcp_url)
    run = run_mrtr(tmp_path, "--config", str(config), "-s", "guarded", "call", "echo", "text=hi", browser=browser)
    assert run.code == 8, run.stderr
    assert "auth login" in run.stderr and "-s guarded" in run.stderr
    assert browser.opened() == []


def test_the_printed_login_command_carries_the_options_it_needs_and_works(tmp_path, oauth_server, browser):
    import json
    import shlex

    secret = "bots-secret-" + "7" * 16
    server = oauth_server("--client-id", "bot", "--client-secret", secret)  # client_secret_basic
    config = tmp_path / "my servers.json"
    config.write_text(json.dumps({"mcpServers": {"w": {"type": "http", "url": server.mcp_url,
                                                         "oauth": {"clientId": "bot", "clientSecret": "env:BOTS"}}}}))
    run = run_mrtr(tmp_path, "--config", str(config), "--expand-env", "-s", "w", "--no-input", "call", "echo",
                   "text=hi", browser=browser, env={"BOTS": secret})
    assert run.code == 8, run.stderr
    command = run.stderr.split("run: ", 1)[1].splitlines()[0]
    words = shlex.split(command)
    assert words[0] == "mrtr" and "--expand-env" in words and str(config) in words, command
    login = run_mrtr(tmp_path, *words[1:], browser=browser, env={"BOTS": secret})
    assert login.code == 0, login.stderr
    again = run_mrtr(tmp_path, "--config", str(config), "--expand-env", "-s", "w", "--no-input", "call", "echo",
                     "text=hi", browser=browser, env={"BOTS": secret})
    assert again.code == 0 and again.stdout.strip() == "echo: hi", again.stderr


def test_a_pre_registered_client_prefers_client_secret_basic_when_the_server_lists_it(tmp_path, oauth_server,
                                                                                     browser):
    secret = "basic-secret-" + "8" * 16
    server = oauth_server("--client-id", "bot", "--client-secret", secret)  # registered as client_secret_basic
    import httpx2

    listed = httpx2.get(server.issuer + "/.well-known/oauth-authorization-server",
                       timeout=SAFETY).json()["token_endpoint_auth_methods_supported"]
    assert "client_secret_basic" in listed and "client_secret_post" in listed, listed
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "--client-id", "bot", "--client-secret-env", "BOTS",
                   "auth", "login", browser=browser, env={"BOTS": secret})
    assert run.code == 0, run.stderr


def test_invalid_client_says_auth_method_can_choose(tmp_path, oauth_server, browser):
    secret = "post-secret-" + "9" * 16
    server = oauth_server("--client-id", "bot", "--client-secret", secret, "--client-auth-method", "client_secret_post")
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "--client-id", "bot", "--client-secret-env", "BOTS",
                   "auth", "login", browser=browser, env={"BOTS": secret})
    assert run.code == 8 and "invalid_client" in run.stderr and "--auth-method" in run.stderr, run.stderr
    again = run_mrtr(tmp_path, *url_args(server.mcp_url), "--client-id", "bot", "--client-secret-env", "BOTS",
                     "auth", "login", "--auth-method", "client_secret_post", browser=browser, env={"BOTS": secret})
    assert again.code == 0, again.stderr


@pytest.mark.pty
def test_show_the_url_instead_of_opening_a_browser(tmp_path, oauth_server, browser):
    server = oauth_server()
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "call", "echo", "text=shown", browser=browser)
    child.expect(CONSENT)
    child.send("s" + ENTER)
    child.expect(re.escape(server.issuer) + r"/authorize\?\S+\s")
    url = child.after.strip()
    assert browser.opened() == []
    # the person opens it in a browser of their own: it redirects to mrtr's loopback listener
    result = follow(url)
    assert result["status"] == 200 and result["visited"][-1].startswith("http://127.0.0.1:")
    assert finish(child) == 0
    assert out.read_text().strip() == "echo: shown"
    assert browser.opened() == []


@pytest.mark.pty
def test_cancel_at_the_consent_prompt_opens_nothing_and_exits_8(tmp_path, oauth_server, browser):
    server = oauth_server()
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "call", "echo", "text=no", browser=browser)
    child.expect(CONSENT)
    child.send("n" + ENTER)
    assert finish(child) == 8
    assert out.read_text() == ""
    assert browser.opened() == [] and server.stats()["authorizations"] == 0
    (stored,) = store_files(tmp_path)  # the client registered before the prompt is kept, and no token
    assert "access_token" not in stored.read_text() and "client_id" in stored.read_text()


def start_paste_login(tmp_path, server, browser):
    """`auth login --no-browser` in a pty, up to its paste prompt: (child, the authorization
    URL it printed, that URL's redirect_uri)."""
    child, _ = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--no-browser", browser=browser)
    child.expect(re.escape(server.issuer) + r"/authorize\?\S+\s")
    url = child.after.strip()
    child.expect(r"(?i)paste")
    return child, url, dict(parse_qsl(urlsplit(url).query))["redirect_uri"]


@pytest.mark.pty
def test_login_no_browser_paste_flow(tmp_path, oauth_server, browser):
    server = oauth_server()
    child, url, redirect_uri = start_paste_login(tmp_path, server, browser)
    # the person signs in in a browser elsewhere; its address bar ends at the redirect URI
    result = follow(url, stop_at=redirect_uri)
    assert result["stopped"] and result["stopped"].startswith(redirect_uri + "?")
    child.send(result["stopped"] + ENTER)
    assert finish(child) == 0
    assert browser.opened() == []
    assert server.stats()["grants"] == {"authorization_code": 1}
    call = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=pasted")
    assert call.code == 0, call.stderr
    assert call.stdout.strip() == "echo: pasted"


@pytest.mark.pty
def test_a_pasted_url_with_the_wrong_state_is_refused(tmp_path, oauth_server, browser):
    server = oauth_server()
    child, url, redirect_uri = start_paste_login(tmp_path, server, browser)
    stopped = follow(url, stop_at=redirect_uri)["stopped"]
    forged = re.sub(r"state=[^&]+", "state=forged", stopped)
    child.send(forged + ENTER)
    status = finish(child)
    assert status == 8
    assert server.stats()["token_requests"] == 0


def test_auth_login_without_a_terminal_opens_the_browser_and_stores_the_sign_in(tmp_path, oauth_server, browser):
    server = oauth_server()
    run = sign_in(tmp_path, server, browser)
    assert run.stdout == ""
    assert server.stats()["grants"] == {"authorization_code": 1}
    call = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=ok")
    assert call.code == 0 and call.stdout.strip() == "echo: ok", call.stderr


def test_auth_login_scope_option_is_asked_for(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser, "--scope", "mcp:read", "--scope", "mcp:admin")
    assert set(authorize_params(browser)["scope"].split()) == {"mcp:read", "mcp:admin"}
    call = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "admin_tool")
    assert call.code == 0 and call.stdout.strip() == "admin ok", call.stderr


def test_dynamic_registration_asks_for_a_native_client(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    registered = server.stats()["registered"]
    assert len(registered) == 1
    assert registered[0].get("application_type") == "native"
    assert registered[0]["redirect_uris"]
    assert all(urlsplit(u).hostname == "127.0.0.1" for u in registered[0]["redirect_uris"])


def test_a_pre_registered_client_is_used_without_registering(tmp_path, oauth_server, browser):
    server = oauth_server("--client-id", "pre-1", "--client-secret", "pre-secret-value", "--no-dcr",
                          "--client-auth-method", "client_secret_post")
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--client-id", "pre-1",
                   "--client-secret-env", "PRE_SECRET", "--auth-method", "client_secret_post", browser=browser,
                   env={"PRE_SECRET": "pre-secret-value"})
    assert run.code == 0, run.stderr
    stats = server.stats()
    assert stats["registrations"] == 0
    assert stats["token_log"][0]["client_id"] == "pre-1"
    assert "pre-secret-value" not in run.stderr + run.stdout


def test_no_client_identity_is_a_clear_error(tmp_path, oauth_server, browser):
    server = oauth_server("--no-dcr")
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", browser=browser)
    assert run.code == 8, run.stderr
    assert "--client-id" in run.stderr
    assert "Traceback" not in run.stderr
    assert browser.opened() == []


def test_the_redirect_port_option_is_used(tmp_path, oauth_server, browser):
    from tests.listening import fixed_port

    server = oauth_server()
    port = fixed_port()
    sign_in(tmp_path, server, browser, "--redirect-port", str(port))
    assert urlsplit(authorize_params(browser)["redirect_uri"]).port == port


def test_a_callback_with_the_wrong_state_is_ignored_and_the_right_one_still_taken(tmp_path, oauth_server, browser):
    server = oauth_server()
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", browser=browser,
                   env={"OAUTH_BROWSER_FORGE_FIRST": "1"})
    assert run.code == 0, run.stderr
    forged = [e for e in browser.events() if e["event"] == "forged"]
    assert [e["status"] for e in forged] == [400]
    assert browser.wait_finished()["status"] == 200
    assert server.stats()["grants"] == {"authorization_code": 1}


def test_a_sign_in_that_never_comes_back_gives_up_with_exit_8(tmp_path, oauth_server, browser):
    server = oauth_server()
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", browser=browser,
                   env={"OAUTH_BROWSER_STOP_AT": "http://127.0.0.1", "MRTR_AUTH_WAIT": "2"})
    assert run.code == 8, run.stderr
    assert "Traceback" not in run.stderr
    assert browser.wait_finished()["event"] == "stopped"
    assert server.stats()["token_requests"] == 0


@pytest.mark.pty
def test_ctrl_c_while_waiting_for_the_browser_exits_130(tmp_path, oauth_server, browser):
    server = oauth_server()
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "call", "echo", "text=x", browser=browser,
                            env={"OAUTH_BROWSER_STOP_AT": "http://127.0.0.1"})
    child.expect(CONSENT)
    child.send("y" + ENTER)
    assert browser.wait_finished()["event"] == "stopped"
    child.sendintr()
    assert finish(child) == 130
    assert out.read_text() == ""
    assert server.stats()["token_requests"] == 0


def test_without_a_challenge_scope_the_metadata_scopes_are_asked_for(tmp_path, oauth_server, browser):
    server = oauth_server("--no-challenge-scope")
    sign_in(tmp_path, server, browser)
    assert authorize_params(browser)["scope"].split() == ["mcp:read", "mcp:admin"]


def test_a_batch_without_a_token_exits_8_and_opens_nothing(tmp_path, oauth_server, browser):
    server = oauth_server()
    lines = "".join('{"id": %d, "call": "echo", "arguments": {"text": "x"}}\n' % i for i in range(3))
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "batch", "-", input=lines, browser=browser)
    assert run.code == 8, run.stderr
    assert login_hint(server.mcp_url) in run.stderr
    assert browser.opened() == [] and server.stats()["authorizations"] == 0


def test_login_and_calls_by_server_name(tmp_path, oauth_server, browser):
    server = oauth_server()
    config = tmp_path / "servers.json"
    config.write_text('{"mcpServers": {"guarded": {"type": "http", "url": "%s"}}}' % server.mcp_url)
    login = run_mrtr(tmp_path, "--config", str(config), "-s", "guarded", "auth", "login", browser=browser)
    assert login.code == 0, login.stderr
    call = run_mrtr(tmp_path, "--config", str(config), "-s", "guarded", "--no-input", "call", "echo", "text=n")
    assert call.code == 0 and call.stdout.strip() == "echo: n", call.stderr
    # the same sign-in serves the URL itself
    by_url = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=u")
    assert by_url.code == 0, by_url.stderr
    assert server.stats()["token_requests"] == 1


@pytest.mark.pty
def test_a_batch_at_a_terminal_signs_in_once_and_continues_its_lines(tmp_path, oauth_server, browser):
    import json

    server = oauth_server()
    lines = tmp_path / "lines.jsonl"
    lines.write_text("".join(json.dumps({"id": i, "call": "echo", "arguments": {"text": f"b{i}"}}) + "\n"
                             for i in range(3)))
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "batch", str(lines), "-j", "3", browser=browser)
    child.expect(CONSENT)
    child.send("y" + ENTER)
    assert finish(child) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["exitCode"], r["result"]["content"][0]["text"]) for r in records] == [
        (0, 0, "echo: b0"), (1, 0, "echo: b1"), (2, 0, "echo: b2")]
    assert server.stats()["grants"] == {"authorization_code": 1} and len(browser.opened()) == 1


@pytest.mark.pty
def test_server_text_in_the_consent_prompt_is_sanitized(tmp_path, oauth_server, browser):
    from pathlib import Path

    server = oauth_server("--no-challenge-scope", "--scopes", "mcp:read \x1b]0;pwned\x07 \x1b[2Jwiped")
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "call", "echo", "text=x", browser=browser)
    child.expect(CONSENT)
    child.send("n" + ENTER)
    assert finish(child) == 8
    shown = Path(child.logfile_read.name).read_text()
    assert "mcp:read" in shown
    assert "\x1b]0;pwned" not in shown and "\x1b[2J" not in shown
    assert browser.opened() == []


def test_the_loopback_path_is_unguessable_and_the_page_says_the_tab_may_close(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "logout")
    sign_in(tmp_path, server, browser)
    paths = [urlsplit(authorize_params(browser, n)["redirect_uri"]).path for n in (0, 1)]
    assert paths[0] != paths[1]
    assert all(len(p.strip("/").split("/")[-1]) >= 16 for p in paths), paths
    assert "close" in browser.finished()[0]["body"].lower()


def test_a_pre_registered_secret_from_a_file(tmp_path, oauth_server, browser):
    server = oauth_server("--client-id", "pre-2", "--client-secret", "file-secret-value-123", "--no-dcr",
                          "--client-auth-method", "client_secret_basic")
    secret_file = tmp_path / "secret.txt"
    secret_file.write_text("file-secret-value-123\n")
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--client-id", "pre-2",
                   "--client-secret-file", str(secret_file), "--auth-method", "client_secret_basic", browser=browser)
    assert run.code == 0, run.stderr
    stats = server.stats()
    assert stats["registrations"] == 0 and stats["token_log"][0]["auth_method"] == "client_secret_basic"
    assert "file-secret-value-123" not in run.stderr


def test_oauth_settings_from_a_config_entry(tmp_path, oauth_server, browser):
    from tests.listening import fixed_port

    server = oauth_server("--client-id", "cfg-client", "--no-dcr")
    port = fixed_port()
    config = tmp_path / "mcp.json"
    config.write_text('{"mcpServers": {"cfg": {"type": "http", "url": "%s", "oauth": {"clientId": "cfg-client", '
                      '"scopes": ["mcp:read", "mcp:admin"], "redirectPort": %d}}}}' % (server.mcp_url, port))
    run = run_mrtr(tmp_path, "--config", str(config), "-s", "cfg", "auth", "login", browser=browser)
    assert run.code == 0, run.stderr
    params = authorize_params(browser)
    assert params["client_id"] == "cfg-client"
    assert set(params["scope"].split()) == {"mcp:read", "mcp:admin"}
    assert urlsplit(params["redirect_uri"]).port == port
    assert server.stats()["registrations"] == 0


def cimd(https_documents):
    url = https_documents.url("/mrtr-client.json")
    https_documents.docs["/mrtr-client.json"] = {
        "client_id": url, "client_name": "mrtr test", "redirect_uris": ["http://127.0.0.1/callback"],
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
        "token_endpoint_auth_method": "none"}
    return url


def test_a_client_metadata_document_is_the_client_id_where_the_server_supports_it(
        tmp_path, oauth_server, browser, https_documents):
    server = oauth_server("--cimd")
    url = cimd(https_documents)
    sign_in(tmp_path, server, browser, "--client-metadata-url", url)
    assert authorize_params(browser)["client_id"] == url
    stats = server.stats()
    assert stats["registrations"] == 0 and stats["cimd_fetches"] == [url]
    assert stats["token_log"][0]["client_id"] == url
    call = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=cimd")
    assert call.code == 0 and call.stdout.strip() == "echo: cimd", call.stderr


def test_without_server_support_a_client_metadata_document_is_not_used(tmp_path, oauth_server, browser,
                                                                          https_documents):
    server = oauth_server()
    url = cimd(https_documents)
    sign_in(tmp_path, server, browser, "--client-metadata-url", url)
    assert authorize_params(browser)["client_id"] != url
    assert server.stats()["registrations"] == 1


def test_a_pre_registered_client_comes_before_a_client_metadata_document(tmp_path, oauth_server, browser,
                                                                         https_documents):
    server = oauth_server("--cimd", "--public-client", "pre-public")
    url = cimd(https_documents)
    sign_in(tmp_path, server, browser, "--client-id", "pre-public", "--client-metadata-url", url)
    assert authorize_params(browser)["client_id"] == "pre-public"
    assert server.stats()["cimd_fetches"] == [] and server.stats()["registrations"] == 0


@pytest.mark.pty
def test_signing_in_on_the_2025_11_25_handshake(tmp_path, oauth_server, browser):
    """The same sign-in when the first request is `initialize` (an older-era session)."""
    server = oauth_server()
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "--protocol", "2025-11-25", "call", "echo",
                            "text=old", browser=browser)
    child.expect(CONSENT)
    child.send("y" + ENTER)
    assert finish(child) == 0
    assert out.read_text().strip() == "echo: old"
    assert "initialize" in [r["method"] for r in server.stats()["mcp_requests"]]
    again = run_mrtr(tmp_path, *url_args(server.mcp_url), "--protocol", "2025-11-25", "--no-input", "call", "echo",
                     "text=again")
    assert again.code == 0 and again.stdout.strip() == "echo: again", again.stderr


@pytest.mark.pty
def test_when_no_browser_can_start_the_url_is_shown_and_the_redirect_can_be_pasted(tmp_path, oauth_server):
    server = oauth_server()
    # No `browser` fixture: BROWSER is /bin/false and PATH holds no browser, so nothing opens.
    child, out = spawn_mrtr(tmp_path, *url_args(server.mcp_url), "call", "echo", "text=pasted",
                            env={"PATH": str(Path(sys.executable).parent)})
    child.expect(CONSENT)
    child.send(ENTER)
    child.expect(r"(?i)browser could not be started")
    child.expect(re.escape(server.issuer) + r"/authorize\?\S+\s")
    url = child.after.strip()
    child.expect(r"(?i)paste")
    redirect_uri = dict(parse_qsl(urlsplit(url).query))["redirect_uri"]
    stopped = follow(url, stop_at=redirect_uri)["stopped"]
    assert stopped and stopped.startswith(redirect_uri + "?")
    child.send(stopped + ENTER)
    assert finish(child) == 0
    assert out.read_text().strip() == "echo: pasted"


def test_a_url_with_hidden_credentials_is_never_printed_as_a_command(tmp_path, oauth_server, browser):
    """`u:***@host` or `?api_key=***` cannot be pasted: the hint says how to give the URL
    (MRTR_URL) and the command that then works, never `--url` with the masked URL."""
    server = oauth_server()
    url = server.mcp_url + "?api_key=key-" + "7" * 16
    run = run_mrtr(tmp_path, *url_args(url), "--no-input", "call", "echo", "text=hi", browser=browser)
    assert run.code == 8, run.stderr
    assert "7" * 16 not in run.stderr
    assert "--url" not in run.stderr.replace("give --url", ""), run.stderr
    assert ("set MRTR_URL to the server's URL with its credentials (shown here as "
            f"{server.mcp_url}?api_key=***), then: mrtr auth login") in run.stderr, run.stderr
