"""Signing in against authorization servers that are slow, wrong or hostile: what a server
points at must be usable or the sign-in stops naming it; requests go only where the rules
allow (HTTPS, or plain HTTP to this machine; never link-local or cloud-metadata addresses);
what a token endpoint or registration endpoint issues is checked before it is stored; and
the hints say what works where they are printed (docs/oauth.md "When a server is wrong").

The servers are small HTTP servers of the tests' own on 127.0.0.1 (`JsonDocuments`); the
cases that name an address off this machine run in a loopback-only network namespace, so
that not even a failing run sends a packet anywhere else.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest

from mrtr_cli.errors import AuthError
from tests.auth_support import run_mrtr, store_files
from tests.conftest import ROOT
from tests.support import SAFETY, growing_bound

SECRET = "s3cret-" + "7" * 16




@pytest.fixture
def hang() -> Iterator[threading.Event]:
    """Released at teardown: a document whose answer waits on it never answers in the test."""
    release = threading.Event()
    yield release
    release.set()


def as_doc(issuer: str, **extra: Any) -> dict[str, Any]:
    return {"issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
            "registration_endpoint": issuer + "/register", "code_challenge_methods_supported": ["S256"], **extra}


def protected(scripted: Any, *, challenge: str | None = "Bearer", prm: bool = True) -> tuple[Any, Any]:
    """An MCP server answering 401 (with `challenge` as its WWW-Authenticate, None: none) and
    its authorization server; the resource metadata at the path-based well-known URL."""
    mcp, auth = scripted(), scripted()
    headers = {"WWW-Authenticate": challenge} if challenge else {}
    mcp.docs["/mcp"] = (401, {"error": "unauthorized"}, headers)
    if prm:
        mcp.docs["/.well-known/oauth-protected-resource/mcp"] = {"resource": mcp.url("/mcp"),
                                                                 "authorization_servers": [auth.url()]}
    auth.docs["/.well-known/oauth-authorization-server"] = as_doc(auth.url())
    return mcp, auth


def cc_login(tmp_path: Path, mcp: Any, *extra: str, env: dict[str, str] | None = None) -> Any:
    """`mrtr --url MCP auth login --client-credentials` with a client secret (nobody present)."""
    return run_mrtr(tmp_path, "--url", mcp.url("/mcp"), "auth", "login", "--client-credentials", "--client-id", "ci",
                    "--client-secret-env", "CI_SECRET", "--auth-method", "client_secret_post", *extra,
                    env={"CI_SECRET": SECRET, **(env or {})})


def timed_out_at(tmp_path: Path, mcp: Any, server: Any, path: str) -> Any:
    """A client-credentials login that `--timeout` ends while `server` holds its answer to
    `path` (it never answers): the run, exit 7. Start-up and the requests before count
    against --timeout, so the bound grows until a run's request for `path` arrived."""
    def attempt(bound: float) -> Any:
        before = len(server.fetched)
        run = cc_login(tmp_path, mcp, "--timeout", f"{bound:g}")
        assert run.code == 7, run.stderr
        return run if path in [p.split("?")[0] for p in server.fetched[before:]] else None

    return growing_bound(attempt, 5, what=f"a run that asked for {path}")


def error_line(run: Any) -> str:
    """The one `mrtr: error:` line of a run (no traceback, nothing on stdout)."""
    assert "Traceback" not in run.stderr and run.stdout == "", run.stderr
    lines = [line for line in run.stderr.splitlines() if line.startswith("mrtr: error:")]
    assert len(lines) == 1, run.stderr
    return lines[0]


def no_guessed_requests(mcp: Any) -> None:
    """Nothing was sent to the 2025-03-26 default endpoints at the MCP server's origin."""
    assert not [p for p in mcp.fetched if p.split("?")[0] in ("/token", "/register", "/authorize")], mcp.fetched


# ---------------------------------------------------------------------- metadata a server named
@pytest.mark.parametrize(("answer", "says"), [
    ((200, b"<html><body>sign in</body></html>"), "is not JSON"),
    ((200, b"[1, 2]"), "holds JSON that is not an object"),
    ((200, {"resource": "x"}), "names no authorization_servers"),
    ((302, b"", {"Location": "https://elsewhere.example/prm"}), "redirects (HTTP 302 to https://elsewhere.example/prm)"),
    ((503, {"error": "down"}), "answered HTTP 503"),
], ids=["html", "array", "no-servers", "redirect", "5xx"])
def test_an_unusable_resource_metadata_document_the_challenge_names_is_an_error_naming_it(
        scripted, tmp_path, answer, says):
    mcp, _auth = protected(scripted)
    mcp.docs["/mcp"] = (401, {}, {"WWW-Authenticate": f'Bearer resource_metadata="{mcp.url("/prm")}"'})
    mcp.docs["/prm"] = answer
    run = cc_login(tmp_path, mcp)
    assert run.code == 8, run.stderr
    line = error_line(run)
    assert f"the protected resource metadata at {mcp.url('/prm')}" in line and says in line, line
    no_guessed_requests(mcp)
    assert SECRET not in run.stderr


def test_an_unusable_document_at_a_well_known_url_is_an_error_not_a_2025_03_26_server(scripted, tmp_path):
    mcp, _auth = protected(scripted, prm=False)
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        mcp.docs[path] = (200, b"<!doctype html><title>app</title>")  # a web app's catch-all page
    run = cc_login(tmp_path, mcp)
    assert run.code == 8, run.stderr
    assert (f"the protected resource metadata at {mcp.url('/.well-known/oauth-protected-resource/mcp')} is not JSON"
            in error_line(run))
    no_guessed_requests(mcp)


def test_a_resource_metadata_url_that_does_not_answer_is_a_timeout_naming_it(scripted, tmp_path, hang):
    mcp, _auth = protected(scripted)
    mcp.docs["/mcp"] = (401, {}, {"WWW-Authenticate": f'Bearer resource_metadata="{mcp.url("/prm")}"'})
    mcp.docs["/prm"] = lambda _server: (hang.wait(), (200, {}))[1]
    run = timed_out_at(tmp_path, mcp, mcp, "/prm")
    assert f"the protected resource metadata at {mcp.url('/prm')} did not answer in time" in error_line(run)
    no_guessed_requests(mcp)


def test_authorization_server_metadata_that_does_not_answer_is_a_timeout_naming_it(scripted, tmp_path, hang):
    mcp, auth = protected(scripted)
    auth.docs["/.well-known/oauth-authorization-server"] = lambda _server: (hang.wait(), (200, {}))[1]
    run = timed_out_at(tmp_path, mcp, auth, "/.well-known/oauth-authorization-server")
    assert (f"the authorization server metadata at {auth.url('/.well-known/oauth-authorization-server')} "
            "did not answer in time") in error_line(run)


def test_the_2025_03_26_defaults_never_get_a_configured_client_secret(scripted, tmp_path):
    mcp = scripted()
    mcp.docs["/mcp"] = (401, {}, {"WWW-Authenticate": "Bearer"})  # no metadata anywhere
    mcp.docs["/token"] = {"access_token": "would-be-stolen", "token_type": "Bearer"}
    run = cc_login(tmp_path, mcp)
    assert run.code == 8, run.stderr
    line = error_line(run)
    assert "does not send a client secret or key to an endpoint it guessed" in line, line
    no_guessed_requests(mcp)


# ---------------------------------------------------------------------- where requests may go
def test_server_given_urls_follow_one_rule_before_anything_is_sent():
    from mrtr_cli.auth.urls import allowed_url

    refused = {
        "http://169.254.169.254/latest/meta-data": "link-local or cloud-metadata",
        "https://169.254.169.254/": "link-local or cloud-metadata",
        "http://[fe80::1]/x": "link-local or cloud-metadata",
        "http://[::ffff:169.254.169.254]/": "link-local or cloud-metadata",
        "https://metadata.google.internal/computeMetadata/v1/": "link-local or cloud-metadata",
        "http://[fd00:ec2::254]/": "link-local or cloud-metadata",
        "http://0.0.0.0:80/": "link-local or cloud-metadata",
        "http://evil.example/as": "plain HTTP to another machine",
        "http://10.0.0.8/as": "plain HTTP to another machine",
    }
    for url, rule in refused.items():
        with pytest.raises(AuthError, match=rule):
            allowed_url(url, "the protected resource metadata's authorization_servers")
    for url in ("https://auth.example/tenant", "http://127.0.0.1:8004", "http://127.9.9.9:1/x", "http://localhost:9/",
                "http://[::1]:80/"):
        assert allowed_url(url, "x") == url
    # plain HTTP to the origin the user chose (--url http://...) is the user's choice
    assert allowed_url("http://mcp.lan:8000/prm", "x", same_origin_as="http://mcp.lan:8000/mcp")
    with pytest.raises(AuthError, match="plain HTTP"):
        allowed_url("http://mcp.lan:8001/prm", "x", same_origin_as="http://mcp.lan:8000/mcp")


def _netns_available() -> bool:
    if not shutil.which("unshare") or not shutil.which("ip"):
        return False
    try:
        return subprocess.run(["unshare", "-n", "-m", "sh", "-c",
                               "ip link set lo up && mount --bind /etc/hosts /etc/hosts"],
                              capture_output=True, timeout=SAFETY).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


#: Runs in a loopback-only network namespace: serves the metadata named in argv[1] (a JSON
#: object of path -> document for an MCP server whose 401 challenge may name `{mcp}` URLs),
#: runs `mrtr auth login --client-credentials` against it and prints its exit code, stderr and
#: the paths the server was asked for, as JSON.
_IN_NAMESPACE = r"""
import json, os, subprocess, sys
sys.path.insert(0, os.getcwd())
from tests.auth_support import JsonDocuments
spec = json.loads(sys.argv[1])
mcp = JsonDocuments()
fill = lambda v: json.loads(json.dumps(v).replace("{mcp}", mcp.url()))
mcp.docs["/mcp"] = (401, {}, {"WWW-Authenticate": fill(spec["challenge"])})
for path, doc in spec["docs"].items():
    mcp.docs[path] = fill(doc)
env = dict(os.environ, CI_SECRET="s3cret-" + "7" * 16)
run = subprocess.run([sys.executable, "-m", "mrtr_cli", "--url", mcp.url("/mcp"), "auth", "login",
                      "--client-credentials", "--client-id", "ci", "--client-secret-env", "CI_SECRET",
                      "--timeout", "60"], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
print(json.dumps({"code": run.returncode, "stderr": run.stderr, "fetched": mcp.fetched}))
mcp.stop()
"""


@pytest.mark.skipif(not _netns_available(),
                    reason="needs unshare -n -m (a loopback-only network namespace with its own /etc/hosts)")
@pytest.mark.parametrize(("challenge", "docs", "says"), [
    ('Bearer resource_metadata="http://169.254.169.254/latest/meta-data"', {},
     "the WWW-Authenticate challenge's resource_metadata http://169.254.169.254/latest/meta-data is a link-local"),
    ('Bearer resource_metadata="http://evil.example/prm"', {},
     "the WWW-Authenticate challenge's resource_metadata http://evil.example/prm is plain HTTP to another machine"),
    ("Bearer", {"/.well-known/oauth-protected-resource/mcp": {"resource": "{mcp}/mcp",
                                                             "authorization_servers": ["http://169.254.169.254/as"]}},
     "authorization_servers http://169.254.169.254/as is a link-local"),
    ("Bearer", {"/.well-known/oauth-protected-resource/mcp": {"resource": "{mcp}/mcp",
                                                             "authorization_servers": ["http://evil.example/as"]}},
     "authorization_servers http://evil.example/as is plain HTTP to another machine"),
    ("Bearer", {"/.well-known/oauth-protected-resource/mcp": {"resource": "{mcp}/mcp",
                                                              "authorization_servers": ["{mcp}"]},
                "/.well-known/oauth-authorization-server": {
                    "issuer": "{mcp}", "token_endpoint": "http://169.254.169.254/token",
                    "authorization_endpoint": "{mcp}/authorize", "code_challenge_methods_supported": ["S256"]}},
     "token_endpoint http://169.254.169.254/token is a link-local"),
    ("Bearer", {"/.well-known/oauth-protected-resource/mcp": {"resource": "{mcp}/mcp",
                                                              "authorization_servers": ["{mcp}"]},
                "/.well-known/oauth-authorization-server": {
                    "issuer": "{mcp}", "token_endpoint": "https://sneaky.test:8443/t",
                    "authorization_endpoint": "{mcp}/authorize", "code_challenge_methods_supported": ["S256"]}},
     "the token endpoint https://sneaky.test:8443/t resolves to 169.254.169.254"),
], ids=["challenge-link-local", "challenge-plain-http", "as-link-local", "as-plain-http", "token-endpoint",
        "name-resolving-to-link-local"])
def test_no_request_goes_where_the_rules_refuse(tmp_path, challenge, docs, says):
    from tests.conftest import clean_env

    spec = json.dumps({"challenge": challenge, "docs": docs})
    hosts = tmp_path / "hosts"  # inside the namespace only: a name that points at cloud metadata
    hosts.write_text("127.0.0.1 localhost\n169.254.169.254 sneaky.test\n")
    script = "ip link set lo up && mount --bind \"$3\" /etc/hosts && exec \"$0\" -c \"$1\" \"$2\""
    proc = subprocess.run(["unshare", "-n", "-m", "sh", "-c", script, sys.executable, _IN_NAMESPACE, spec, str(hosts)],
                          capture_output=True, text=True, cwd=ROOT, env=clean_env(tmp_path), timeout=SAFETY)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["code"] == 8, got["stderr"]
    assert says in got["stderr"], got["stderr"]
    assert "Traceback" not in got["stderr"]
    assert "/token" not in got["fetched"] and "/register" not in got["fetched"]


# ---------------------------------------------------------------------- what a token endpoint issues
@pytest.mark.parametrize(("member", "value"), [
    ("access_token", "abc\r\nX-Injected: 1"),
    ("access_token", "abc\x1b]0;owned\x07def"),
    ("access_token", "tok en-with-space"),
    ("access_token", "A" * 100_000),
    ("refresh_token", "r\nx"),
    ("access_token", 42),
], ids=["line-break", "escape", "space", "too-long", "refresh-line-break", "number"])
def test_a_token_that_cannot_be_sent_safely_is_refused_and_nothing_is_stored(scripted, tmp_path, member, value):
    mcp, auth = protected(scripted)
    reply = {"access_token": "good-token-1234", "token_type": "Bearer", "refresh_token": "good-refresh-1234"}
    reply[member] = value
    auth.docs["/token"] = reply
    run = cc_login(tmp_path, mcp)
    assert run.code == 8, run.stderr
    line = error_line(run)
    assert f"the token response's {member}" in line, line
    assert store_files(tmp_path) == []
    if isinstance(value, str):
        assert value not in run.stderr and value[:3] + value[3:10] not in run.stderr
    status = run_mrtr(tmp_path, "auth", "status")
    assert "good-token" not in status.stdout + status.stderr


def test_a_redirect_port_out_of_range_from_the_environment_is_named_by_its_variable(tmp_path):
    run = run_mrtr(tmp_path, "--url", "http://127.0.0.1:9/mcp", "auth", "login", env={"MRTR_REDIRECT_PORT": "99999"})
    assert run.code == 2, run.stderr
    assert "MRTR_REDIRECT_PORT=99999: expected a port number (0-65535)" in error_line(run)


@pytest.mark.parametrize("url", ["http://clients.example/mrtr.json", "https://clients.example/", "https://[::1/x"],
                         ids=["not-https", "no-path", "unparsable"])
def test_a_client_metadata_url_from_the_environment_that_cannot_be_one_is_named_by_its_variable(tmp_path, url):
    run = run_mrtr(tmp_path, "--url", "http://127.0.0.1:9/mcp", "auth", "login", env={"MRTR_CLIENT_METADATA_URL": url})
    assert run.code == 2, run.stderr
    assert error_line(run).startswith(f"mrtr: error: MRTR_CLIENT_METADATA_URL {url}: a Client ID Metadata Document URL")


@pytest.mark.parametrize("expires_in", [b"1" + b"0" * 400, b"-5", b'"soon"', b"1e300", b"1e400", b"true"],
                         ids=["huge-integer", "negative", "string", "huge-float", "beyond-a-float", "bool"])
def test_an_expiry_that_makes_no_sense_is_unknown_expiry(scripted, tmp_path, expires_in):
    mcp, auth = protected(scripted)
    auth.docs["/token"] = b'{"access_token": "tok-12345", "token_type": "Bearer", "expires_in": ' + expires_in + b"}"
    run = cc_login(tmp_path, mcp)
    assert run.code == 0, run.stderr
    stored = json.loads(store_files(tmp_path)[0].read_text())
    tokens = next(iter(stored["issuers"].values()))["tokens"]
    assert "expires_at" not in tokens
    assert run_mrtr(tmp_path, "auth", "status").code == 0


# ---------------------------------------------------------------------- registration replies
@pytest.mark.parametrize("client_id", [42, "", None, "a\nb", ["x"]], ids=["number", "empty", "null", "newline", "list"])
def test_a_registration_reply_without_a_usable_client_id_is_refused_naming_it(scripted, client_id):
    import httpx2

    from mrtr_cli.auth.discovery import AuthServer
    from mrtr_cli.auth.registration import register

    auth = scripted()
    auth.docs["/register"] = (201, {"client_id": client_id, "token_endpoint_auth_method": "none"})
    server = AuthServer(issuer=auth.url(), metadata=as_doc(auth.url()), resource="http://127.0.0.1:9/mcp")
    with httpx2.Client() as http, pytest.raises(AuthError, match="the registration response's client_id is not"):
        register(http, server, "http://127.0.0.1:5555/callback", ["mcp:read"])


def test_registration_asks_for_the_scopes_and_asks_again_with_fewer_when_refused(scripted):
    import httpx2

    from mrtr_cli.auth.discovery import AuthServer
    from mrtr_cli.auth.registration import register

    auth = scripted()
    bodies: list[dict[str, Any]] = []

    def answer(server: Any) -> tuple[int, dict[str, Any]]:
        bodies.append(json.loads(server.last_body))
        if set(bodies[-1].get("scope", "").split()) - {"openid", "mcp:read"}:
            return 400, {"error": "invalid_client_metadata", "error_description": "unknown scope"}
        return 201, {**bodies[-1], "client_id": "c-1", "token_endpoint_auth_method": "none"}

    auth.docs["/register"] = answer
    server = AuthServer(issuer=auth.url(), metadata=as_doc(auth.url(), scopes_supported=["openid", "mcp:read"]),
                        resource="http://127.0.0.1:9/mcp",
                        resource_metadata={"scopes_supported": ["mcp:read", "mcp:extra"]})
    with httpx2.Client() as http:
        client = register(http, server, "http://127.0.0.1:5555/callback", ["mcp:read", "mcp:write"])
    assert [b.get("scope") for b in bodies] == ["mcp:read mcp:write mcp:extra", "mcp:read"]
    assert client["client_id"] == "c-1" and client["scope"] == "mcp:read"


# ---------------------------------------------------------------------- secrets the server hands back
def parts_shown(text: str, secret: str, size: int = 6) -> list[str]:
    """The pieces of `size` characters of `secret` that `text` shows."""
    return [secret[i:i + size] for i in range(len(secret) - size + 1) if secret[i:i + size] in text]


ECHO_BREAKS = {"colour": "\x1b[0m", "hyperlink": "\x1b]8;;https://x.example/\x07", "bell": "\x07",
               "zero-width": "\u200b", "bidi": "\u202e", "wrapped": "\n  "}


@pytest.mark.parametrize("json_mode", [False, True], ids=["text", "json"])
@pytest.mark.parametrize("brk", ECHO_BREAKS.values(), ids=ECHO_BREAKS.keys())
def test_a_client_secret_echoed_cut_in_two_by_an_escape_is_never_shown(scripted, tmp_path, brk, json_mode):
    mcp, auth = protected(scripted)
    auth.docs["/token"] = (400, {"error": "invalid_request",
                                 "error_description": f"unknown client secret {SECRET[:9]}{brk}{SECRET[9:]} for ci"})
    run = cc_login(tmp_path, mcp, *(["--json"] if json_mode else []))
    assert run.code == 8, run.stderr
    assert "invalid_request" in run.stderr and "***" in run.stderr, run.stderr
    assert not parts_shown(run.stderr, SECRET) and not parts_shown(run.stdout, SECRET), run.stderr
    if json_mode:
        assert json.loads(run.stderr.strip().splitlines()[-1])["error"]["exitCode"] == 8


ISSUED = "tkn-4J8qW2" + "4" * 12


@pytest.mark.parametrize(("scope", "secret"), [
    ("mcp:read " + SECRET, SECRET),
    ("mcp:read x" + SECRET[:5] + "\u200b" + SECRET[5:], SECRET),
    ("mcp:read " + ISSUED, ISSUED),
], ids=["client-secret", "client-secret-cut-in-two", "the-access-token-itself"])
def test_a_scope_holding_a_secret_of_the_run_is_refused_and_nothing_is_stored(scripted, tmp_path, scope, secret):
    mcp, auth = protected(scripted)
    auth.docs["/token"] = {"access_token": ISSUED, "token_type": "Bearer", "scope": scope}
    run = cc_login(tmp_path, mcp)
    assert run.code == 8, run.stderr
    assert "the token response's scope holds a secret of this run" in error_line(run)
    assert store_files(tmp_path) == []
    status = run_mrtr(tmp_path, "auth", "status")
    for text in (run.stderr, status.stdout, status.stderr):
        assert not parts_shown(text, secret) and not parts_shown(text, ISSUED), text


def test_the_users_own_url_with_its_credentials_is_no_value_the_server_handed_back(scripted, tmp_path):
    mcp, auth = protected(scripted)
    url = mcp.url("/mcp") + "?api_key=key-" + "6" * 16
    mcp.docs["/.well-known/oauth-protected-resource/mcp"] = {"resource": url, "authorization_servers": [auth.url()]}
    auth.docs["/token"] = {"access_token": ISSUED, "token_type": "Bearer", "scope": "mcp:read"}
    run = run_mrtr(tmp_path, "--url", url, "auth", "login", "--client-credentials", "--client-id", "ci",
                   "--client-secret-env", "CI_SECRET", env={"CI_SECRET": SECRET})
    assert run.code == 0, run.stderr
    status = run_mrtr(tmp_path, "auth", "status")
    assert "api_key=***" in status.stdout and "6" * 16 not in status.stdout + run.stderr, status.stdout


def test_auth_status_never_shows_a_stored_token_in_another_value(scripted, tmp_path):
    """A value stored before it was checked (an older mrtr, an edited file) that holds the
    entry's own token, or a resource URL with its credentials, is shown redacted."""
    mcp, auth = protected(scripted)
    auth.docs["/token"] = {"access_token": ISSUED, "token_type": "Bearer", "scope": "mcp:read",
                           "refresh_token": "rfr-8Yv3" + "5" * 20}
    assert cc_login(tmp_path, mcp).code == 0
    path = store_files(tmp_path)[0]
    doc = json.loads(path.read_text())
    entry = next(iter(doc["issuers"].values()))
    entry["tokens"]["scope"] = f"mcp:read {ISSUED[:8]}\x1b[0m{ISSUED[8:]} rfr-8Yv3{'5' * 20}"
    doc["resource"] = doc["resource"] + "?api_key=key-" + "6" * 16
    path.write_text(json.dumps(doc))
    for extra in ([], ["--json"]):
        status = run_mrtr(tmp_path, "auth", "status", *extra)
        assert status.code == 0, status.stderr
        assert "mcp:read" in status.stdout and "api_key=***" in status.stdout, status.stdout
        for secret in (ISSUED, "rfr-8Yv3" + "5" * 20, "key-" + "6" * 16):
            assert not parts_shown(status.stdout + status.stderr, secret), status.stdout


def test_an_issued_token_type_holding_the_id_token_is_never_shown(scripted, tmp_path):
    mcp, auth = protected(scripted)
    idp = scripted()
    id_token = "eyJhbGciOiJub25lIn0." + "eyJzdWIiOiJhbGljZSJ9" * 20 + "." + "c2lnbmF0dXJl" * 5
    idp.docs["/token"] = {"access_token": "x.y.z", "token_type": "N_A", "issued_token_type": id_token}
    run = run_mrtr(tmp_path, "--url", mcp.url("/mcp"), "auth", "login", "--id-token-env", "IDT",
                   "--idp-token-endpoint", idp.url("/token"), env={"IDT": id_token})
    assert run.code == 8, run.stderr
    assert "without an ID-JAG" in error_line(run)
    assert not parts_shown(run.stderr, id_token, 12), run.stderr


# ---------------------------------------------------------------------- hints that can work
def test_a_401_without_an_oauth_challenge_or_metadata_names_the_header_options(scripted, tmp_path):
    mcp, _auth = protected(scripted, challenge=None, prm=False)
    run = run_mrtr(tmp_path, "--url", mcp.url("/mcp"), "--no-input", "call", "echo", "text=x")
    assert run.code == 8, run.stderr
    line = error_line(run)
    assert "refused the request (HTTP 401) without an OAuth challenge" in line and "auth login" not in line, line
    assert "-H 'NAME: VALUE'" in run.stderr and "--bearer-token-env" in run.stderr
    login = run_mrtr(tmp_path, "--url", mcp.url("/mcp"), "auth", "login")
    assert login.code == 8 and "without an OAuth challenge" in error_line(login)
    no_guessed_requests(mcp)


def test_a_bearer_challenge_without_any_metadata_names_the_token_options_that_work(scripted, tmp_path):
    """Nothing to sign in to (no metadata anywhere, nothing at the 2025-03-26 default
    endpoints): no `auth login` is named, but the options that send a token; and the
    token given as named reaches the server, with no sign-in tried."""
    mcp, _auth = protected(scripted, challenge='Bearer realm="api"', prm=False)
    run = run_mrtr(tmp_path, "--url", mcp.url("/mcp"), "--no-input", "call", "echo", "text=x")
    assert run.code == 8, run.stderr
    line = error_line(run)
    assert "asks for a bearer token (HTTP 401) and publishes no authorization metadata" in line, line
    assert "auth login" not in run.stderr and "--bearer-token-env VAR" in run.stderr and "-H 'Authorization: Bearer" \
        in run.stderr, run.stderr
    login = run_mrtr(tmp_path, "--url", mcp.url("/mcp"), "auth", "login")  # tried anyway: it says the same
    assert login.code == 8, login.stderr
    assert "no sign-in mrtr can run there" in error_line(login) and "--bearer-token-env VAR" in login.stderr
    assert "register a client there yourself" not in login.stderr
    mcp.fetched.clear()
    given = run_mrtr(tmp_path, "--url", mcp.url("/mcp"), "--bearer-token-env", "TOKEN", "--no-input", "call", "echo",
                     "text=x", env={"TOKEN": "tok-" + "8" * 16})
    assert given.code == 8 and "tok-" + "8" * 16 not in given.stderr, given.stderr
    assert mcp.last_headers.get("Authorization") == "Bearer tok-" + "8" * 16  # the token went, as named
    assert not [p for p in mcp.fetched if "well-known" in p], mcp.fetched  # and no sign-in was tried


def test_auth_logout_all_means_all_whatever_target_the_environment_names(scripted, tmp_path):
    mcp, auth = protected(scripted)
    auth.docs["/token"] = {"access_token": "tok-12345", "token_type": "Bearer"}
    assert cc_login(tmp_path, mcp).code == 0 and len(store_files(tmp_path)) == 1
    for variable in ("MRTR_URL", "MRTR_SERVER"):
        run = run_mrtr(tmp_path, "auth", "logout", "--all", env={variable: mcp.url("/mcp") if variable == "MRTR_URL"
                                                                  else "nowhere"})
        assert run.code == 0, run.stderr
        assert "signed out of" in run.stderr
    assert store_files(tmp_path) == []
    both = run_mrtr(tmp_path, "--url", mcp.url("/mcp"), "auth", "logout", "--all")
    assert both.code == 2 and "not both" in error_line(both)


@pytest.mark.parametrize("where", ["call", "login"])
def test_the_invalid_client_hint_names_what_works_where_it_is_printed(scripted, tmp_path, where):
    mcp, auth = protected(scripted)
    auth.docs["/token"] = (401, {"error": "invalid_client", "error_description": "bad secret"})
    env = {"MRTR_OAUTH_GRANT": "client_credentials", "MRTR_CLIENT_ID": "ci", "MRTR_CLIENT_SECRET": SECRET}
    if where == "call":
        run = run_mrtr(tmp_path, "--url", mcp.url("/mcp"), "--no-input", "call", "echo", "text=x", env=env)
    else:
        run = run_mrtr(tmp_path, "--url", mcp.url("/mcp"), "auth", "login", env=env)
    assert run.code == 8, run.stderr
    assert "invalid_client" in error_line(run)
    if where == "call":
        assert "MRTR_OAUTH_AUTH_METHOD=" in run.stderr and "--auth-method" not in run.stderr, run.stderr
    else:
        assert "run it again with --auth-method" in run.stderr, run.stderr
    assert SECRET not in run.stderr


def test_a_token_endpoint_echoing_the_request_shows_no_code_or_verifier(scripted, tmp_path, browser):
    mcp, auth = protected(scripted)
    auth.docs["/register"] = (201, {"client_id": "c-1", "token_endpoint_auth_method": "none",
                                    "redirect_uris": ["http://127.0.0.1/callback"]})
    sent: dict[str, str] = {}

    def authorize(server: Any) -> tuple[int, bytes, dict[str, str]]:
        q = dict(parse_qsl(server.last_query))
        sent["code"] = "the-code-" + "c" * 20
        return 302, b"", {"Location": f"{q['redirect_uri']}?code={sent['code']}&state={q['state']}"}

    def token(server: Any) -> tuple[int, dict[str, Any]]:
        form = dict(parse_qsl(server.last_body.decode()))
        sent["verifier"] = form["code_verifier"]
        return 400, {"error": "invalid_grant",
                     "error_description": f"code={form['code']} verifier={form['code_verifier']}"}

    auth.docs["/authorize"] = authorize
    auth.docs["/token"] = token
    run = run_mrtr(tmp_path, "-v", "--url", mcp.url("/mcp"), "auth", "login", browser=browser)
    assert run.code == 8, run.stderr
    assert "invalid_grant" in run.stderr and "code=***" in run.stderr, run.stderr
    assert sent["code"] not in run.stderr and sent["verifier"] not in run.stderr and "verifier=***" in run.stderr
    assert os.path.exists(browser.log)
