"""Agent identity, end to end against tests/servers/oauth_server.py (its DPoP and federation
parts: tests/servers/oauth_identity.py, which verify what mrtr sends):

- DPoP-bound tokens (RFC 9449): a proof at the token endpoint and on every request to the
  MCP server (signature, htm/htu/ath, a new jti each time), the nonces of both servers,
  refresh keeping the binding, the key kept 0600 with the tokens, never printed, gone with
  `auth logout`; `auth status` names the mechanism.
- The JWT bearer grant with a workload's JWT in a file that changes between runs.
- Enterprise-managed authorization: the ID-JAG token exchange, then the JWT bearer grant.
"""

from __future__ import annotations

import json
import os
import stat
import time
from typing import Any

import pytest

from tests.auth_support import ROOT, expire_stored_tokens, run_mrtr, sign_in, store_files
from tests.conftest import url_args
from tests.support import SAFETY, growing_bound, wait_for

jwt = pytest.importorskip("jwt")


def stored_entry(tmp_path) -> dict:
    (path,) = store_files(tmp_path)
    doc = json.loads(path.read_text())
    return doc["issuers"][doc["issuer"]]


def call(tmp_path, server, *args, env=None):
    return run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", *args, env=env)


def test_dpop_sign_in_binds_every_request_with_nonces(tmp_path, oauth_server, browser):
    server = oauth_server("--dpop", "--dpop-nonce")
    login = sign_in(tmp_path, server, browser)
    assert login.code == 0, login.stderr
    token_proofs = [p for p in server.stats()["dpop"] if p["where"] == "token"]
    # the first proof lacked the authorization server's nonce; the second carried it
    assert [p["error"] for p in token_proofs] == ["use_dpop_nonce", None], token_proofs
    assert token_proofs[1]["nonce"] and token_proofs[1]["htm"] == "POST"
    entry = stored_entry(tmp_path)
    assert entry["tokens"]["token_type"] == "DPoP"
    key = json.loads(entry["tokens"]["dpop_key"])
    (path,) = store_files(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600

    runs = [call(tmp_path, server, "echo", "text=one"), call(tmp_path, server, "echo", "text=two")]
    for run in runs:
        assert run.code == 0, run.stderr
    assert [r.stdout.strip() for r in runs] == ["echo: one", "echo: two"]
    mcp = [p for p in server.stats()["dpop"] if p["where"] == "mcp"]
    # each run met the MCP server's nonce once (the first request), then carried it
    assert [p["error"] for p in mcp if not p["ok"]] == ["use_dpop_nonce", "use_dpop_nonce"]
    good = [p for p in mcp if p["ok"]]
    assert good and all(p["htu"] == server.mcp_url and p["ath"] and p["nonce"] for p in good)
    jtis = [p["jti"] for p in server.stats()["dpop"]]
    assert len(jtis) == len(set(jtis))

    traced = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "-vv", "call", "echo", "text=3")
    assert traced.code == 0, traced.stderr
    assert "eyJ" not in traced.stderr  # neither the token nor a proof (JWTs) is shown
    runs.append(traced)
    status = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "status")
    assert status.code == 0, status.stderr
    assert "authorization code, DPoP" in status.stdout
    for run in [login, *runs, status]:
        assert key["d"] not in run.stdout + run.stderr
    assert key["d"] not in status.stdout
    logout = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "logout")
    assert logout.code == 0, logout.stderr
    assert store_files(tmp_path) == []


def test_dpop_refresh_keeps_the_binding(tmp_path, oauth_server, browser):
    server = oauth_server("--dpop")
    assert sign_in(tmp_path, server, browser).code == 0
    before = stored_entry(tmp_path)["tokens"]
    expire_stored_tokens(tmp_path)
    run = call(tmp_path, server, "echo", "text=after")
    assert run.code == 0, run.stderr
    assert server.stats()["grants"].get("refresh_token") == 1
    after = stored_entry(tmp_path)["tokens"]
    assert after["access_token"] != before["access_token"]
    assert after["token_type"] == "DPoP" and after["dpop_key"] == before["dpop_key"]
    refresh_proof = [p for p in server.stats()["dpop"] if p["where"] == "token"][-1]
    assert refresh_proof["ok"], refresh_proof


def test_a_stored_dpop_call_imports_only_the_proof_module(tmp_path, oauth_server, browser):
    from tests.auth.test_imports import imported_auth_modules

    server = oauth_server("--dpop")
    assert sign_in(tmp_path, server, browser).code == 0
    code, modules, stderr = imported_auth_modules(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo",
                                                  "text=x")
    assert code == 0, stderr[-2000:]
    assert set(modules) == {"mrtr_cli.auth", "mrtr_cli.auth.dpop"}


def test_no_dpop_option_keeps_bearer_tokens(tmp_path, oauth_server, browser):
    server = oauth_server("--dpop")
    assert sign_in(tmp_path, server, browser, "--no-dpop").code == 0
    assert stored_entry(tmp_path)["tokens"]["token_type"] == "Bearer"
    assert server.stats()["dpop"] == []
    assert call(tmp_path, server, "echo", "text=x").code == 0


def test_an_expired_dpop_bound_token_is_replaced_not_taken_for_a_bearer_only_server(tmp_path, oauth_server, browser):
    server = oauth_server("--dpop")
    assert sign_in(tmp_path, server, browser).code == 0
    server.expire_tokens()  # the resource now refuses the stored token (whatever its challenge says)
    run = call(tmp_path, server, "echo", "text=again")
    assert run.code == 0 and run.stdout.strip() == "echo: again", run.stderr
    assert "bearer tokens only" not in run.stderr
    status = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "status")
    assert "DPoP" in status.stdout, status.stdout


# ---------------------------------------------------------------------- federation
@pytest.fixture
def workload_key(tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    public = tmp_path / "trusted.pem"
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    return key, str(public)


def workload_jwt(key, audience: str, sub: str) -> str:
    now = int(time.time())
    return jwt.encode({"iss": "https://platform.example", "sub": sub, "aud": audience, "iat": now, "exp": now + 300,
                       "jti": f"{sub}-{now}"}, key, algorithm="ES256")


def test_jwt_bearer_grant_reads_the_assertion_file_again(tmp_path, oauth_server, browser, workload_key):
    key, public = workload_key
    server = oauth_server("--trust-key", public, "--required-scope", "")
    path = tmp_path / "token.jwt"
    path.write_text(workload_jwt(key, server.issuer, "pod-1") + "\n")
    env = {"MRTR_ASSERTION_FILE": str(path)}
    first = call(tmp_path, server, "echo", "text=wif", env=env)
    assert first.code == 0, first.stderr
    assert first.stdout.strip() == "echo: wif"
    # the platform rotates the file; the stored token expires; the next run presents the new JWT
    rotated = workload_jwt(key, server.issuer, "pod-2")
    path.write_text(rotated)
    expire_stored_tokens(tmp_path)
    second = call(tmp_path, server, "echo", "text=again", env=env)
    assert second.code == 0, second.stderr
    assert [a["sub"] for a in server.stats()["assertions"]] == ["pod-1", "pod-2"]
    assert server.stats()["authorizations"] == 0 and server.stats()["registrations"] == 0
    for run in (first, second):
        assert rotated not in run.stdout + run.stderr
    status = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "status")
    assert "JWT bearer, bearer" in status.stdout and rotated not in status.stdout


def test_an_expired_jwt_bearer_token_without_the_jwt_names_the_assertion_settings(tmp_path, oauth_server,
                                                                                   workload_key):
    """A token of the JWT bearer grant that expires in a run that has no workload JWT: the
    hint names how to give it (the variable, or `auth login --assertion-file`), never a
    browser sign-in; and what it names works as printed."""
    key, public = workload_key
    server = oauth_server("--trust-key", public, "--required-scope", "")
    path = tmp_path / "token.jwt"
    jwt_text = workload_jwt(key, server.issuer, "pod-1")
    path.write_text(jwt_text)
    assert call(tmp_path, server, "echo", "text=wif", env={"MRTR_ASSERTION_FILE": str(path)}).code == 0
    expire_stored_tokens(tmp_path)
    server.expire_tokens()
    for run in (call(tmp_path, server, "echo", "text=x"),
                run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "token")):
        assert run.code == 8, run.stderr
        assert "MRTR_ASSERTION_FILE=PATH" in run.stderr, run.stderr
        assert f"mrtr --url {server.mcp_url} auth login --assertion-file PATH" in run.stderr, run.stderr
        assert "run: mrtr" not in run.stderr and jwt_text not in run.stderr
    # both ways it names work as printed
    again = call(tmp_path, server, "echo", "text=again", env={"MRTR_ASSERTION_FILE": str(path)})
    assert again.code == 0 and again.stdout.strip() == "echo: again", again.stderr
    expire_stored_tokens(tmp_path)
    login = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--assertion-file", str(path))
    assert login.code == 0, login.stderr
    assert server.stats()["authorizations"] == 0  # never a browser


def test_jwt_bearer_with_dpop(tmp_path, oauth_server, workload_key):
    key, public = workload_key
    server = oauth_server("--trust-key", public, "--required-scope", "", "--dpop", "--dpop-nonce")
    path = tmp_path / "token.jwt"
    path.write_text(workload_jwt(key, server.issuer, "pod-1"))
    run = call(tmp_path, server, "echo", "text=bound", env={"MRTR_ASSERTION_FILE": str(path)})
    assert run.code == 0, run.stderr
    assert stored_entry(tmp_path)["tokens"]["token_type"] == "DPoP"


def test_refused_assertion_is_not_retried(tmp_path, oauth_server, workload_key):
    key, public = workload_key
    server = oauth_server("--trust-key", public, "--required-scope", "")
    path = tmp_path / "token.jwt"
    path.write_text(workload_jwt(key, "https://elsewhere.example", "pod-1"))  # wrong audience
    run = call(tmp_path, server, "echo", "text=x", env={"MRTR_ASSERTION_FILE": str(path)})
    assert run.code == 8, run.stderr
    assert "invalid_grant" in run.stderr
    assert server.stats()["grants"] == {"urn:ietf:params:oauth:grant-type:jwt-bearer": 1}


def test_id_jag_exchange_then_jwt_bearer(tmp_path, oauth_server, browser, workload_key):
    key, public = workload_key
    server = oauth_server("--trust-key", public, "--required-scope", "", "--client-id", "agent",
                          "--client-secret", "agent-secret-" + "7" * 16)
    id_token = tmp_path / "id.jwt"
    id_token.write_text(workload_jwt(key, "mrtr-at-idp", "alice@example.com"))
    login = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--id-token-file", str(id_token),
                     "--idp-token-endpoint", server.issuer + "/idp/token", "--client-id", "agent",
                     "--client-secret-env", "AGENT_SECRET", browser=browser,
                     env={"AGENT_SECRET": "agent-secret-" + "7" * 16})
    assert login.code == 0, login.stderr
    assert browser.opened() == []
    stats = server.stats()
    (exchange,) = stats["exchanges"]
    assert exchange["audience"] == server.issuer and exchange["resource"] == server.mcp_url
    (grant,) = stats["assertions"]
    assert grant["id_jag"] and grant["sub"] == "alice@example.com" and grant["client_id"] == "agent"
    run = call(tmp_path, server, "echo", "text=enterprise")
    assert run.code == 0 and run.stdout.strip() == "echo: enterprise", run.stderr
    status = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "status")
    assert "ID-JAG + JWT bearer, bearer" in status.stdout


def test_assertion_command_and_its_failure(tmp_path, oauth_server, workload_key):
    key, public = workload_key
    server = oauth_server("--trust-key", public, "--required-scope", "")
    path = tmp_path / "token.jwt"
    path.write_text(workload_jwt(key, server.issuer, "from-command"))
    login = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--assertion-command", f"cat {path}")
    assert login.code == 0, login.stderr
    assert [a["sub"] for a in server.stats()["assertions"]] == ["from-command"]
    failed = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--assertion-command", "false")
    assert failed.code == 8, failed.stderr
    assert "--assertion-command: the command exited with 1" in failed.stderr
    not_jwt = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--assertion-env", "NOT_A_JWT",
                       env={"NOT_A_JWT": "hello secret"})
    # A variable (or a file) the user named that holds no JWT is bad input; a command's output
    # is its identity provider's answer.
    assert not_jwt.code == 2 and "is not a JWT" in not_jwt.stderr and "hello secret" not in not_jwt.stderr
    says_no = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--assertion-command", "echo hello secret")
    assert says_no.code == 8 and "is not a JWT" in says_no.stderr and "hello secret" not in says_no.stderr
    # A byte order mark at the start of a file (some editors write one) is not part of the JWT.
    path.write_bytes(b"\xef\xbb\xbf" + workload_jwt(key, server.issuer, "with-bom").encode() + b"\r\n")
    bom = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--assertion-file", str(path))
    assert bom.code == 0, bom.stderr
    assert [a["sub"] for a in server.stats()["assertions"]][-1] == "with-bom"


@pytest.mark.parametrize("args, env, message", [
    (["--assertion-file", "a.jwt", "--assertion-env", "X"], {}, "give one of --assertion-file, -env and -command"),
    (["--assertion-file", "a.jwt", "--id-token-file", "b.jwt"], {}, "not both"),
    (["--id-token-file", "b.jwt"], {}, "needs the identity provider's token endpoint"),
    ([], {"MRTR_OAUTH_GRANT": "jwt_bearer"}, "the JWT bearer grant needs the workload's JWT"),
    ([], {"MRTR_OAUTH_DPOP": "maybe"}, "MRTR_OAUTH_DPOP: expected 1 or 0"),
    (["--assertion-command", ""], {}, "an empty value names no command"),
    (["--id-token-file", " "], {}, "an empty value names no file"),
])
def test_identity_settings_that_cannot_work_are_usage_errors(tmp_path, args, env, message):
    run = run_mrtr(tmp_path, "--url", "http://127.0.0.1:9/mcp", "auth", "login", *args, env=env)
    assert run.code == 2, run.stderr
    assert message in run.stderr


def test_a_project_config_runs_no_assertion_command(tmp_path):
    from mrtr_cli.config.oauth import from_config_entry
    from mrtr_cli.errors import UsageError

    entry = {"oauth": {"assertionCommand": "print-token", "dpop": True}}
    with pytest.raises(UsageError, match="assertionCommand is not read from a project-directory config"):
        from_config_entry(entry, where="mcp.json", allowed=False, expand=lambda v: v)
    s = from_config_entry(entry, where="mcp.json", allowed=True, expand=lambda v: v)
    assert s.grant == "jwt_bearer" and s.dpop is True and s.assertion.kind == "command"


def test_dpop_key_in_the_keychain(tmp_path, oauth_server, browser):
    pytest.importorskip("keyring")
    keychain = tmp_path / "keychain.json"
    env = {"MRTR_TOKEN_STORE": "keyring", "PYTHON_KEYRING_BACKEND": "tests.file_keyring.FileKeyring",
           "MRTR_TEST_KEYRING_FILE": str(keychain), "PYTHONPATH": str(ROOT)}
    server = oauth_server("--dpop")
    login = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", browser=browser, env=env)
    assert login.code == 0, login.stderr
    tokens = stored_entry(tmp_path)["tokens"]
    assert tokens["token_type"] == "DPoP" and tokens["dpop_key"] == {"keyring": True}
    assert any(name.endswith("tokens.dpop_key") for name in json.loads(keychain.read_text()))
    run = call(tmp_path, server, "echo", "text=kept", env=env)
    assert run.code == 0 and run.stdout.strip() == "echo: kept", run.stderr
    assert run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "logout", env=env).code == 0
    assert not any("dpop_key" in name for name in json.loads(keychain.read_text()))


FLOOD_COMMAND = ROOT / "tests" / "servers" / "flood_command.py"


def flood_command(pids, stream: str, size: int) -> str:
    """tests/servers/flood_command.py as a command line: prints `size` bytes on `stream`,
    then never exits; its pid and its child's are written to `pids` first."""
    import shlex
    import sys

    return shlex.join([sys.executable, str(FLOOD_COMMAND), str(pids), stream, str(size)])


def group_ended(pids) -> None:
    """The command whose pids `pids` holds, and the child it started in its group, are gone."""
    from tests.support import running

    for pid in map(int, pids.read_text().split()):
        wait_for(lambda pid=pid: not running(pid), what=f"process {pid} of the command's group to end")


@pytest.mark.parametrize("setting", ["--assertion-command", "MRTR_ASSERTION_COMMAND", "--id-token-command",
                                     "MRTR_ID_TOKEN_COMMAND"])
def test_a_command_printing_without_end_is_read_only_to_the_limit_and_its_group_ended(
        tmp_path, oauth_server, workload_key, setting):
    _key, public = workload_key
    secret = "agent-secret-" + "7" * 16
    server = oauth_server("--trust-key", public, "--required-scope", "", "--client-id", "agent",
                          "--client-secret", secret)
    pids = tmp_path / "pids"
    # 16 MiB and then no end: a reader that waits for the end of the output waits for ever
    # (until the command's 30 s); one that reads it all first holds it all.
    command = flood_command(pids, "stdout", 16 << 20)
    args, env = ([setting, command], {}) if setting.startswith("-") else ([], {setting: command})
    if "id-token" in setting.lower().replace("_", "-"):
        args += ["--idp-token-endpoint", server.issuer + "/idp/token", "--client-id", "agent",
                 "--client-secret-env", "AGENT_SECRET"]
        env["AGENT_SECRET"] = secret
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", *args, env=env)
    assert run.code == 8, run.stderr
    assert run.stderr.startswith(f"mrtr: error: {setting}: the command printed more than 64 KiB"), run.stderr
    assert "mrtr stopped reading and ended it" in run.stderr
    group_ended(pids)
    for text in (run.stdout, run.stderr):
        assert "FLOOD-b1f0c7e2" not in text and secret not in text and "Traceback" not in text
    assert server.stats()["grants"] == {}  # nothing was sent


def test_an_assertion_file_or_command_follows_the_rules_of_every_user_file_and_the_run_timeout(
        tmp_path, oauth_server, workload_key):
    _key, public = workload_key
    server = oauth_server("--trust-key", public, "--required-scope", "")
    fifo = tmp_path / "token.fifo"
    os.mkfifo(fifo)  # no writer: reading it would block for ever
    for args, env in ((["--assertion-file", str(fifo)], {}), ([], {"MRTR_ASSERTION_FILE": str(fifo)}),
                      (["--assertion-file", "/dev/zero"], {})):
        run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", *args, env=env, timeout=SAFETY)
        assert run.code == 2, (args, env, run.stderr)
        assert "not a regular file" in run.stderr and (args[:1] or list(env))[0] in run.stderr
    pidfile = tmp_path / "child.pid"

    # The command never ends by itself; start-up and discovery count against --timeout, so
    # the bound grows until a run had started the command (it wrote its child's pid).
    def attempt(bound: float) -> Any:
        run = run_mrtr(tmp_path, *url_args(server.mcp_url), "--timeout", f"{bound:g}", "auth", "login",
                       "--assertion-command", f"sh -c 'sleep 3600 & echo $! > {pidfile}; sleep 3600'", timeout=SAFETY)
        assert run.code == 7, run.stderr
        return run if pidfile.exists() else None

    slow = growing_bound(attempt, 5, what="a run that started the assertion command")
    assert "--assertion-command: the command did not finish within --timeout" in slow.stderr
    child = int(pidfile.read_text())  # the command's own child ends with it (its process group)

    def gone() -> bool:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return True
        return open(f"/proc/{child}/stat").read().split()[2] == "Z"  # a zombie waiting for its reaper

    wait_for(gone, 60, "the assertion command's child to end")
    fifo_hint = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--assertion-file", str(fifo))
    assert "give a regular file" in fifo_hint.stderr and "stdin" not in fifo_hint.stderr
