"""CI without a person: the client credentials grant of the OAuth client credentials
extension (client_secret_basic, client_secret_post, private_key_jwt), from options, environment
variables or a server's config entry; no browser ever; an expired token is fetched again."""

from __future__ import annotations

import json

import pytest

from tests.auth_support import expire_stored_tokens, run_mrtr
from tests.conftest import url_args

SECRET = "ci-secret-" + "5" * 20


def ci_server(oauth_server, method: str = "client_secret_basic", *extra: str):
    return oauth_server("--client-id", "ci-bot", "--client-secret", SECRET, "--client-credentials",
                        "--client-auth-method", method, *extra)


def assert_cc(server, method: str, count: int = 1) -> None:
    stats = server.stats()
    assert stats["grants"] == {"client_credentials": count}, stats["grants"]
    assert stats["authorizations"] == 0
    assert len(stats["token_log"]) == count, stats["token_log"]
    assert all(e["auth_method"] == method and e["resource"] == server.mcp_url for e in stats["token_log"])


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_login_with_client_credentials_from_options(tmp_path, oauth_server, browser, method):
    server = ci_server(oauth_server, method)
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--client-credentials",
                   "--client-id", "ci-bot", "--client-secret-env", "CI_SECRET", "--auth-method", method,
                   browser=browser, env={"CI_SECRET": SECRET})
    assert run.code == 0, run.stderr
    assert SECRET not in run.stdout + run.stderr
    assert browser.opened() == []
    assert_cc(server, method)
    call = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=ci")
    assert call.code == 0 and call.stdout.strip() == "echo: ci", call.stderr


def test_client_credentials_from_the_environment_need_no_login(tmp_path, oauth_server, browser):
    server = ci_server(oauth_server, "client_secret_post")
    env = {"MRTR_OAUTH_GRANT": "client_credentials", "MRTR_CLIENT_ID": "ci-bot", "MRTR_CLIENT_SECRET": SECRET,
           "MRTR_OAUTH_AUTH_METHOD": "client_secret_post"}
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=env", browser=browser,
                   env=env)
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "echo: env"
    assert browser.opened() == []
    assert_cc(server, "client_secret_post")
    # the next run uses the stored token; an expired one is fetched again, silently
    assert run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=2", env=env).code == 0
    assert_cc(server, "client_secret_post", 1)
    expire_stored_tokens(tmp_path)
    again = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=3", env=env)
    assert again.code == 0 and again.stderr == "", again.stderr
    assert_cc(server, "client_secret_post", 2)


def test_client_credentials_from_a_config_entry(tmp_path, oauth_server, browser):
    server = ci_server(oauth_server, "client_secret_basic")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"ci": {
        "type": "http", "url": server.mcp_url,
        "oauth": {"clientId": "ci-bot", "clientSecret": "env:CI_SECRET", "grantType": "client_credentials",
                  "tokenEndpointAuthMethod": "client_secret_basic"}}}}))
    run = run_mrtr(tmp_path, "--config", str(config), "--expand-env", "-s", "ci", "--no-input", "call", "echo",
                   "text=cfg", browser=browser, env={"CI_SECRET": SECRET})
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "echo: cfg"
    assert_cc(server, "client_secret_basic")
    assert SECRET not in run.stderr


def test_a_project_config_secret_reference_is_not_expanded_without_expand_env(tmp_path, oauth_server):
    server = ci_server(oauth_server, "client_secret_basic")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"ci": {
        "type": "http", "url": server.mcp_url,
        "oauth": {"clientId": "ci-bot", "clientSecret": "env:CI_SECRET", "grantType": "client_credentials"}}}}))
    run = run_mrtr(tmp_path, "--config", str(config), "-s", "ci", "--no-input", "call", "echo", "text=cfg",
                   env={"CI_SECRET": SECRET})
    assert run.code == 2, run.stderr  # bad input: refused up front, naming --expand-env
    assert "--expand-env" in run.stderr and "Traceback" not in run.stderr
    assert server.stats()["token_requests"] == 0
    import base64

    basic = base64.b64encode(f"ci-bot:{SECRET}".encode()).decode()
    sent = json.dumps(server.requests())
    assert SECRET not in sent and basic not in sent, "the environment's secret was sent"


def test_private_key_jwt(tmp_path, oauth_server, browser):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    private = tmp_path / "key.pem"
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    private.chmod(0o600)
    public = tmp_path / "pub.pem"
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    server = oauth_server("--client-id", "jwt-bot", "--client-credentials", "--client-auth-method",
                          "private_key_jwt", "--client-public-key", str(public))
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--client-credentials", "--client-id",
                   "jwt-bot", "--auth-method", "private_key_jwt", "--private-key-file", str(private),
                   browser=browser)
    assert run.code == 0, run.stderr
    assert browser.opened() == []
    assert_cc(server, "private_key_jwt")
    assert "PRIVATE KEY" not in run.stderr
    call = run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=jwt")
    assert call.code == 0 and call.stdout.strip() == "echo: jwt", call.stderr


def test_a_wrong_client_secret_exits_8_without_showing_it(tmp_path, oauth_server, browser):
    server = ci_server(oauth_server, "client_secret_basic")
    wrong = "wrong-" + "9" * 20
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--client-credentials", "--client-id",
                   "ci-bot", "--client-secret-env", "CI_SECRET", browser=browser, env={"CI_SECRET": wrong})
    assert run.code == 8, run.stderr
    assert wrong not in run.stdout + run.stderr and "Traceback" not in run.stderr
    assert browser.opened() == []


def test_auth_token_with_client_credentials_renews_an_expired_token(tmp_path, oauth_server):
    server = ci_server(oauth_server, "client_secret_basic")
    env = {"MRTR_OAUTH_GRANT": "client_credentials", "MRTR_CLIENT_ID": "ci-bot", "MRTR_CLIENT_SECRET": SECRET}
    assert run_mrtr(tmp_path, *url_args(server.mcp_url), "--no-input", "call", "echo", "text=1", env=env).code == 0
    expire_stored_tokens(tmp_path)
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "token", env=env)
    assert run.code == 0, run.stderr
    assert server.mcp_status(run.stdout.strip()) == 200
    assert_cc(server, "client_secret_basic", 2)
    assert SECRET not in run.stdout + run.stderr


def test_auth_token_with_client_credentials_needs_no_login(tmp_path, oauth_server):
    """No person is needed to get a client-credentials token, so `auth token` gets one itself,
    as a call does."""
    server = ci_server(oauth_server, "client_secret_basic")
    env = {"MRTR_OAUTH_GRANT": "client_credentials", "MRTR_CLIENT_ID": "ci-bot", "MRTR_CLIENT_SECRET": SECRET}
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "token", env=env)
    assert run.code == 0, run.stderr
    assert server.mcp_status(run.stdout.strip()) == 200
    assert_cc(server, "client_secret_basic")


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_no_encoded_form_of_the_secret_appears_when_the_server_echoes_the_request(tmp_path, oauth_server, browser,
                                                                                  method):
    import base64
    from urllib.parse import quote, quote_plus

    secret = "Sec/ret+Val=ue42"
    server = oauth_server("--client-id", "ci-bot", "--client-secret", secret, "--client-credentials",
                          "--client-auth-method", method, "--echo-request")
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "auth", "login", "--client-credentials",
                   "--client-id", "ci-bot", "--client-secret-env", "CI_SECRET", "--auth-method", method,
                   browser=browser, env={"CI_SECRET": secret})
    assert run.code == 8 and "got " in run.stderr, run.stderr
    basic = base64.b64encode(f"ci-bot:{quote(secret, safe='')}".encode()).decode()
    for form in (secret, quote(secret, safe=""), quote_plus(secret), basic):
        assert form not in run.stdout + run.stderr, form
