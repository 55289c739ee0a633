"""A damaged token store file (docs/oauth.md "A damaged token store"): never exit 70. A
command that needs the sign-in exits 8 with one line naming the file and the `auth logout`
that removes it; a call goes on without a token until the server asks for a sign-in;
`auth status` lists what it can read and names the damaged file; `auth logout` and
`auth logout --all` remove it. Reading it is bounded (size, nesting); a FIFO never blocks."""

from __future__ import annotations

import hashlib
import json
import os
import re

import pytest

from tests.auth_support import auth_dir, run_mrtr, sign_in, store_files
from tests.conftest import SERVERS, url_args
from tests.support import SAFETY

URL = "http://127.0.0.1:9/mcp"  # nothing listens: the commands below never need the server

DAMAGED = {
    "issuers-a-list": '{"version": 1, "issuer": "a", "issuers": [1, 2]}',
    "entry-a-string": '{"issuer": "a", "issuers": {"a": "signed in"}}',
    "tokens-a-number": '{"issuer": "a", "issuers": {"a": {"tokens": 5}}}',
    "expires-at-a-string": '{"issuer": "a", "issuers": {"a": {"tokens": {"access_token": "tok-1234", '
                           '"expires_at": "tomorrow"}}}}',
    "expires-at-huge": '{"issuer": "a", "issuers": {"a": {"tokens": {"access_token": "tok-1234", '
                       '"expires_at": 1e300}}}}',
    "redirect-uris-an-object": '{"issuer": "a", "issuers": {"a": {"client": {"client_id": "c", '
                               '"redirect_uris": {"x": 1}}}}}',
    "issuer-a-number": '{"issuer": 7, "issuers": {}}',
    "access-token-line-break": '{"issuer": "a", "issuers": {"a": {"tokens": {"access_token": "tok-1234\\nX: y"}}}}',
    "refresh-token-escape": '{"issuer": "a", "issuers": {"a": {"tokens": {"access_token": "tok-1234", '
                            '"refresh_token": "r\\u001b[31m"}}}}',
    "a-list": "[]",
    "nested-10000": "[" * 10000 + "]" * 10000,
    "not-json": "{\"issuers\": {",
    "nan": '{"issuers": {}, "version": NaN}',
    "not-utf8": b'{"issuers": {"\xff\xfe": {}}}',
    "huge": '{"issuers": {}, "pad": "' + "x" * (2 * 1024 * 1024) + '"}',
}


def token_file(tmp_path, url: str = URL) -> str:
    """The token store file mrtr uses for `url` in this test's state directory (created empty)."""
    from mrtr_cli.transport.http.authhook import canonical_resource

    key = hashlib.sha256(canonical_resource(url).encode()).hexdigest()[:32]
    auth_dir(tmp_path).mkdir(parents=True, exist_ok=True)
    return str(auth_dir(tmp_path) / f"{key}.json")


def write(path: str, content: str | bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(content.encode() if isinstance(content, str) else content)
    os.chmod(path, 0o600)


def one_line_naming(stderr: str, path: str, fix: str) -> None:
    lines = [line for line in stderr.splitlines() if "damaged" in line]
    assert len(lines) == 1, stderr
    assert path in lines[0] and fix in lines[0], stderr
    assert "Traceback" not in stderr and "internal error" not in stderr


@pytest.mark.parametrize("content", DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_file_is_exit_8_naming_it_and_auth_logout_removes_it(tmp_path, content):
    path = token_file(tmp_path)
    write(path, content)
    fix = f"mrtr --url {URL} auth logout"
    token = run_mrtr(tmp_path, "--url", URL, "auth", "token")
    assert token.code == 8, token.stderr
    assert token.stdout == ""
    one_line_naming(token.stderr, path, fix)
    status = run_mrtr(tmp_path, "--url", URL, "auth", "status")
    assert status.code == 8, status.stderr
    one_line_naming(status.stderr, path, fix)
    login = run_mrtr(tmp_path, "--url", URL, "auth", "login")
    assert login.code == 8, login.stderr
    one_line_naming(login.stderr, path, fix)
    logout = run_mrtr(tmp_path, "--url", URL, "auth", "logout")
    assert logout.code == 0, logout.stderr
    assert re.search(r"removed the damaged token store file .*nothing in it could be revoked", logout.stderr)
    assert not os.path.exists(path)
    assert "tok-1234" not in token.stderr + status.stderr + logout.stderr


def test_a_fifo_in_place_of_the_file_is_refused_at_once_and_removed(tmp_path):
    path = token_file(tmp_path)
    os.mkfifo(path)  # no writer: opening it for reading must not block
    token = run_mrtr(tmp_path, "--url", URL, "auth", "token", timeout=SAFETY)
    assert token.code == 8, token.stderr
    assert "not a regular file" in token.stderr
    one_line_naming(token.stderr, path, f"mrtr --url {URL} auth logout")
    everything = run_mrtr(tmp_path, "auth", "logout", "--all", timeout=SAFETY)
    assert everything.code == 0, everything.stderr
    assert not os.path.exists(path)


def test_a_call_goes_on_without_a_token_where_none_is_needed(tmp_path, http_servers):
    url = http_servers.start(SERVERS / "core_server.py")
    path = token_file(tmp_path, url)
    write(path, DAMAGED["issuers-a-list"])
    run = run_mrtr(tmp_path, *url_args(url), "--no-input", "tools")
    assert run.code == 0, run.stderr
    assert "typed" in run.stdout
    one_line_naming(run.stderr, path, f"mrtr --url {url} auth logout")
    assert "going on without a sign-in" in run.stderr


def test_a_call_the_server_refuses_without_a_sign_in_stops_with_exit_8(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    [path] = store_files(tmp_path)
    doc = json.loads(path.read_text())
    doc["issuers"][doc["issuer"]]["tokens"]["expires_at"] = "soon"
    write(str(path), json.dumps(doc))
    token = doc["issuers"][doc["issuer"]]["tokens"]["access_token"]
    for args in (["--no-input"], []):  # nobody to sign in / `call` that could sign in: neither overwrites it
        run = run_mrtr(tmp_path, *url_args(server.mcp_url), *args, "call", "echo", "text=x", browser=browser)
        assert run.code == 8, run.stderr
        assert run.stdout == ""
        assert str(path) in run.stderr and f"mrtr --url {server.mcp_url} auth logout" in run.stderr
        assert token not in run.stderr
    assert len(browser.opened()) == 1  # only the first sign-in
    assert json.loads(path.read_text())["issuers"][doc["issuer"]]["tokens"]["expires_at"] == "soon"


def test_status_lists_what_it_can_read_and_logout_all_removes_everything(tmp_path, oauth_server, browser):
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    [good] = store_files(tmp_path)
    bad = token_file(tmp_path)
    write(bad, DAMAGED["entry-a-string"])
    status = run_mrtr(tmp_path, "auth", "status")
    assert status.code == 8, status.stderr
    assert server.mcp_url in status.stdout and server.issuer in status.stdout
    one_line_naming(status.stderr, bad, f"rm {bad}")
    as_json = run_mrtr(tmp_path, "auth", "status", "--json")
    assert as_json.code == 8
    assert [row["resource"] for row in json.loads(as_json.stdout)] == [server.mcp_url]
    logout = run_mrtr(tmp_path, "auth", "logout", "--all")
    assert logout.code == 0, logout.stderr
    assert "signed out of 2 server(s)" in logout.stderr
    assert not good.exists() and not os.path.exists(bad)
    stats = server.stats()  # the readable sign-in's refresh token was still revoked
    assert len(stats["refresh_tokens"]) == 1 and stats["revoked"] == stats["refresh_tokens"]
    assert server.secrets()
    for secret in server.secrets():
        assert secret not in status.stdout + status.stderr + as_json.stdout + logout.stderr
