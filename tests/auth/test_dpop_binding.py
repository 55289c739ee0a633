"""DPoP only where the resource takes it, end to end against tests/servers/oauth_server.py
(the SDK's authorization server routes; its DPoP checks and resource modes:
tests/servers/oauth_identity.py `DpopPolicy`). The authorization server offers DPoP in
every test here; what decides is the MCP server:

- a bearer-only resource gets a bearer token, a resource that requires DPoP a DPoP-bound
  one, with every grant (authorization code, client credentials, JWT bearer, ID-JAG);
- the signals: the resource's metadata (`dpop_bound_access_tokens_required`,
  `dpop_signing_alg_values_supported`) and its challenge (`DPoP` beside or instead of
  `Bearer`, with `algs`); no signal means bearer; the proof algorithm must be one both
  servers take;
- `--no-dpop` where DPoP is required, `--dpop` where it is not taken: said so, exit 8;
- stored tokens of the wrong kind (a resource that changed): a DPoP-bound token at a
  bearer-only resource is dropped, not refreshed; a bearer token at a resource that now
  requires DPoP is refreshed for a DPoP-bound one.

No token, refresh token, client secret, DPoP key or assertion appears in any output.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.auth_support import Browser, OAuthServer, Run, run_mrtr, store_files
from tests.bounds import SAFETY
from tests.conftest import url_args

jwt = pytest.importorskip("jwt")

SECRET = "dpop-ci-secret-" + "8" * 20
AGENT_SECRET = "dpop-agent-secret-" + "3" * 20
RESOURCE_MODES = {"bearer-only": ["--bearer-only-resource"], "dpop-required": ["--dpop-required"]}


class Runs:
    """The `mrtr` runs of one test against one server, for the check that nothing secret
    was printed: every token and secret the server issued, every DPoP key stored, every
    assertion presented."""

    def __init__(self, tmp: Path, server: OAuthServer, browser: Browser | None = None,
                 env: dict[str, str] | None = None):
        self.tmp, self.server, self.browser, self.env = tmp, server, browser, env or {}
        self.all: list[Run] = []
        self.keys: set[str] = set()
        self.extra: set[str] = {SECRET, AGENT_SECRET}

    def __call__(self, *args: str, code: int, env: dict[str, str] | None = None) -> Run:
        run = run_mrtr(self.tmp, *url_args(self.server.mcp_url), *args, browser=self.browser,
                       env={**self.env, **(env or {})})
        self.all.append(run)
        assert run.code == code, f"exit {run.code}, wanted {code}: {run.stderr}"
        self.tokens()  # note the DPoP key stored now, if any
        return run

    def call(self, code: int = 0, env: dict[str, str] | None = None) -> Run:
        run = self("--no-input", "call", "echo", "text=x", code=code, env=env)
        if code == 0:
            assert run.stdout.strip() == "echo: x", run.stdout
        return run

    def tokens(self) -> dict[str, Any]:
        """The stored token set of the current issuer ({} when none)."""
        files = store_files(self.tmp)
        if not files:
            return {}
        doc = json.loads(files[0].read_text())
        tokens = ((doc.get("issuers") or {}).get(doc.get("issuer")) or {}).get("tokens") or {}
        if isinstance(tokens.get("dpop_key"), str):
            self.keys.add(tokens["dpop_key"])
            self.keys.add(json.loads(tokens["dpop_key"])["d"])
        return tokens

    def assert_nothing_secret_printed(self) -> None:
        secrets = set(self.server.secrets()) | self.keys | self.extra
        assert all(len(s) >= 16 for s in secrets), "a short value would match by chance"
        for run in self.all:
            assert run.code != 70, run.stderr
            for secret in secrets:
                assert secret not in run.stdout and secret not in run.stderr, (secret[:6], run.stderr)


def token_grants(server: OAuthServer) -> list[str]:
    return [entry["grant_type"] for entry in server.stats()["token_log"]]


def proofs(server: OAuthServer, where: str) -> list[dict[str, Any]]:
    return [p for p in server.stats()["dpop"] if p["where"] == where]


@pytest.fixture
def workload_key(tmp_path: Path) -> tuple[Any, str]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    public = tmp_path / "trusted.pem"
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    return key, str(public)


def workload_jwt(key: Any, audience: str, sub: str) -> str:
    now = int(time.time())
    return jwt.encode({"iss": "https://platform.example", "sub": sub, "aud": audience, "iat": now, "exp": now + 300,
                       "jti": f"{sub}-{time.monotonic_ns()}"}, key, algorithm="ES256")


def start(grant: str, oauth_server: Any, tmp_path: Path, browser: Browser, workload_key: Any,
          *options: str) -> Runs:
    """A server (the authorization server offering DPoP, `options` for the resource) and
    the runs of the `grant` ("code", "client_credentials", "jwt_bearer", "id_jag") there."""
    key, public = workload_key
    if grant == "code":
        return Runs(tmp_path, oauth_server("--dpop", *options), browser)
    if grant == "client_credentials":
        server = oauth_server("--dpop", "--client-id", "dpop-bot", "--client-secret", SECRET, "--client-credentials",
                              *options)
        return Runs(tmp_path, server, env={"MRTR_OAUTH_GRANT": "client_credentials", "MRTR_CLIENT_ID": "dpop-bot",
                                           "MRTR_CLIENT_SECRET": SECRET})
    if grant == "jwt_bearer":
        server = oauth_server("--dpop", "--trust-key", public, "--required-scope", "", *options)
        path = tmp_path / "workload.jwt"
        path.write_text(workload_jwt(key, server.issuer, "pod-1"))
        runs = Runs(tmp_path, server, env={"MRTR_ASSERTION_FILE": str(path)})
        runs.extra.add(path.read_text())
        return runs
    server = oauth_server("--dpop", "--trust-key", public, "--required-scope", "", "--client-id", "agent",
                          "--client-secret", AGENT_SECRET, *options)
    path = tmp_path / "id.jwt"
    path.write_text(workload_jwt(key, "mrtr-at-idp", "alice@example.com"))
    runs = Runs(tmp_path, server, env={"MRTR_ID_TOKEN_FILE": str(path), "MRTR_CLIENT_ID": "agent",
                                       "MRTR_CLIENT_SECRET": AGENT_SECRET,
                                       "MRTR_IDP_TOKEN_ENDPOINT": server.issuer + "/idp/token"})
    runs.extra.add(path.read_text())
    return runs


def sign_in(runs: Runs, *extra: str, code: int = 0) -> Run:
    """`auth login` (through the stand-in browser for the code flow)."""
    before = len(runs.browser.finished()) if runs.browser else 0
    run = runs("auth", "login", *extra, code=code)
    if runs.browser and code == 0:
        assert runs.browser.wait_finished(before + 1)["event"] == "done"
    return run


# ---------------------------------------------------------------------- every grant, both kinds of resource
@pytest.mark.parametrize("grant", ["code", "client_credentials", "jwt_bearer", "id_jag"])
@pytest.mark.parametrize("resource", ["bearer-only", "dpop-required"])
def test_each_grant_gets_the_kind_of_token_the_resource_takes(tmp_path, oauth_server, browser, workload_key,
                                                               grant, resource):
    runs = start(grant, oauth_server, tmp_path, browser, workload_key, *RESOURCE_MODES[resource])
    if grant == "code":
        sign_in(runs)
    runs.call()
    runs.call()  # the stored token, as it is
    tokens = runs.tokens()
    if resource == "bearer-only":
        assert tokens["token_type"] == "Bearer" and "dpop_key" not in tokens, tokens.get("token_type")
        assert runs.server.stats()["dpop"] == []  # no proof, at either server
    else:
        assert tokens["token_type"] == "DPoP"
        assert proofs(runs.server, "token") and all(p["ok"] for p in proofs(runs.server, "token"))
        assert len([p for p in proofs(runs.server, "mcp") if p["ok"]]) >= 2
    assert "refresh_token" not in token_grants(runs.server)  # nothing was wasted
    assert len(token_grants(runs.server)) == 1
    status = runs("auth", "status", code=0)
    assert (", DPoP" if resource == "dpop-required" else ", bearer") in status.stdout, status.stdout
    runs.assert_nothing_secret_printed()


# ---------------------------------------------------------------------- what the resource says
@pytest.mark.parametrize("options, env, want", [
    # a challenge naming both schemes, or metadata listing DPoP: the resource takes DPoP
    pytest.param(["--resource-dpop-signal", "challenge"], {}, "DPoP", id="challenge-names-both"),
    pytest.param(["--resource-dpop-signal", "metadata"], {}, "DPoP", id="metadata-lists-algs"),
    # it takes DPoP but says nothing: bearer tokens (they work there)
    pytest.param(["--resource-dpop-signal", "none"], {}, "Bearer", id="no-signal"),
    # required, said in one place only
    pytest.param(["--dpop-required", "--resource-dpop-signal", "challenge"], {}, "DPoP", id="required-by-challenge"),
    pytest.param(["--dpop-required", "--resource-dpop-signal", "metadata"], {}, "DPoP", id="required-by-metadata"),
    # a required resource behind an authorization server that does not list DPoP: DPoP all the same
    pytest.param(["--dpop-required", "--dpop-unlisted"], {}, "DPoP", id="required-as-unlisted"),
    pytest.param(["--dpop-unlisted"], {}, "Bearer", id="offered-as-unlisted"),
    # ... and one that answers the proof with a bearer token: said so, not signed in again and again
    pytest.param(["--dpop-required", "--as-ignores-dpop"], {},
                 "takes DPoP-bound tokens only, and its authorization server answered mrtr's DPoP proof with a "
                 "bearer token", id="required-as-ignores-proofs"),
    # no proof algorithm both servers take: bearer where the resource takes it, else refused
    pytest.param(["--resource-dpop-algs", "RS256 PS256"], {}, "Bearer", id="offered-other-algs"),
    pytest.param(["--dpop-required", "--resource-dpop-algs", "RS256 PS256"], {},
                 "takes DPoP proofs signed with PS256 RS256 only; mrtr signs them with ES256",
                 id="required-other-algs"),
    pytest.param(["--resource-dpop-algs", "RS256"], {"MRTR_OAUTH_DPOP": "1"},
                 "takes DPoP proofs signed with RS256 only; mrtr signs them with ES256", id="forced-other-algs"),
    # asked for where the resource does not say it takes DPoP: asked for is asked for
    pytest.param(["--resource-dpop-signal", "none"], {"MRTR_OAUTH_DPOP": "1"}, "DPoP", id="forced-no-signal"),
    # turned off where the resource requires it: said so, nothing is asked of the token endpoint
    pytest.param(["--dpop-required"], {"MRTR_OAUTH_DPOP": "0"},
                 "takes DPoP-bound tokens only (its protected resource metadata sets dpop_bound_access_tokens_required)"
                 ", and DPoP is turned off", id="off-required-by-metadata"),
    pytest.param(["--dpop-required", "--resource-dpop-signal", "challenge"], {"MRTR_OAUTH_DPOP": "0"},
                 "takes DPoP-bound tokens only (its challenge names DPoP and not Bearer), and DPoP is turned off",
                 id="off-required-by-challenge"),
])
def test_the_resource_decides(tmp_path, oauth_server, workload_key, options, env, want):
    runs = start("client_credentials", oauth_server, tmp_path, None, workload_key, *options)
    if want in ("DPoP", "Bearer"):
        runs.call(env=env)
        assert runs.tokens()["token_type"] == want
        assert len(token_grants(runs.server)) == 1
        assert bool(proofs(runs.server, "token")) == (want == "DPoP")
    else:
        run = runs.call(code=8, env=env)
        assert want in run.stderr, run.stderr
        # refused before a token was asked for (or after the one that showed it cannot work)
        assert len(token_grants(runs.server)) == ("--as-ignores-dpop" in options)
        assert "requires sign-in" not in run.stderr
    runs.assert_nothing_secret_printed()


def test_no_dpop_at_a_resource_that_requires_it_is_named_before_the_browser(tmp_path, oauth_server, browser,
                                                                            workload_key):
    runs = start("code", oauth_server, tmp_path, browser, workload_key, "--dpop-required")
    login = sign_in(runs, "--no-dpop", code=8)
    assert "takes DPoP-bound tokens only" in login.stderr and "--no-dpop" in login.stderr, login.stderr
    assert browser.opened() == [] and runs.server.stats()["registrations"] == 0
    # with no terminal, the same words, not "requires sign-in; run: ... auth login"
    call = runs.call(code=8, env={"MRTR_OAUTH_DPOP": "0"})
    assert "takes DPoP-bound tokens only" in call.stderr and "requires sign-in" not in call.stderr, call.stderr
    sign_in(runs)  # without the setting: DPoP
    runs.call()
    assert runs.tokens()["token_type"] == "DPoP"
    runs.assert_nothing_secret_printed()


def test_dpop_asked_for_at_a_bearer_only_resource_is_named_without_a_refresh(tmp_path, oauth_server, browser,
                                                                             workload_key):
    runs = start("code", oauth_server, tmp_path, browser, workload_key, "--bearer-only-resource")
    sign_in(runs, "--dpop")
    assert runs.tokens()["token_type"] == "DPoP"  # asked for, so made
    run = runs.call(code=8, env={"MRTR_OAUTH_DPOP": "1"})
    assert "takes bearer tokens only" in run.stderr and "DPoP was asked for" in run.stderr, run.stderr
    assert token_grants(runs.server) == ["authorization_code"]  # no refresh wasted
    assert runs.tokens()["token_type"] == "DPoP"  # the sign-in is left as it was
    runs.assert_nothing_secret_printed()


# ---------------------------------------------------------------------- stored tokens of the wrong kind
def test_a_stored_dpop_token_at_a_resource_now_bearer_only_is_dropped_not_refreshed(tmp_path, oauth_server, browser,
                                                                                    workload_key):
    runs = start("code", oauth_server, tmp_path, browser, workload_key)
    sign_in(runs)
    assert runs.tokens()["token_type"] == "DPoP"
    runs.server.resource_dpop("bearer")
    run = runs.call(code=8)  # nobody to sign in again here
    assert "takes bearer tokens only (its challenge offers no DPoP): the stored DPoP-bound token was dropped" \
        in run.stderr, run.stderr
    assert f"requires sign-in; run: mrtr --url {runs.server.mcp_url} auth login" in run.stderr
    assert token_grants(runs.server) == ["authorization_code"]  # no refresh wasted
    assert runs.tokens() == {}
    registrations = runs.server.stats()["registrations"]
    sign_in(runs)  # the registration is reused; the new token is a bearer one
    assert runs.server.stats()["registrations"] == registrations
    runs.call()
    assert runs.tokens()["token_type"] == "Bearer"
    runs.assert_nothing_secret_printed()


def test_an_unattended_dpop_token_at_a_resource_now_bearer_only_is_replaced_by_a_bearer_one(
        tmp_path, oauth_server, workload_key):
    runs = start("client_credentials", oauth_server, tmp_path, None, workload_key)
    runs.call()
    assert runs.tokens()["token_type"] == "DPoP"
    runs.server.resource_dpop("bearer")
    run = runs.call()
    assert "the stored DPoP-bound token was dropped" in run.stderr
    assert runs.tokens()["token_type"] == "Bearer"
    assert len(token_grants(runs.server)) == 2 and len(proofs(runs.server, "token")) == 1
    runs.assert_nothing_secret_printed()


@pytest.mark.parametrize("grant", ["code", "client_credentials"])
def test_a_stored_bearer_token_at_a_resource_now_requiring_dpop_is_refreshed_bound(
        tmp_path, oauth_server, browser, workload_key, grant):
    runs = start(grant, oauth_server, tmp_path, browser, workload_key, "--bearer-only-resource")
    if grant == "code":
        sign_in(runs)
    runs.call()
    assert runs.tokens()["token_type"] == "Bearer"
    runs.server.resource_dpop("required")
    runs.call()  # no person needed: one token request, with a proof of a new key
    assert runs.tokens()["token_type"] == "DPoP"
    assert token_grants(runs.server) == (["authorization_code", "refresh_token"] if grant == "code"
                                         else ["client_credentials"] * 2)
    assert [p["ok"] for p in proofs(runs.server, "token")] == [True]
    runs.call()  # and it stays so
    assert len(token_grants(runs.server)) == 2
    runs.assert_nothing_secret_printed()


@pytest.mark.parametrize("dpop, options, want", [
    pytest.param(True, ["--resource-dpop-signal", "none"], "DPoP", id="true-where-nothing-is-said"),
    pytest.param(False, ["--resource-dpop-signal", "metadata"], "Bearer", id="false-where-it-is-taken"),
    pytest.param(False, ["--dpop-required"], "and DPoP is turned off", id="false-where-it-is-required"),
])
def test_the_config_entry_dpop_setting(tmp_path, oauth_server, workload_key, dpop, options, want):
    runs = start("client_credentials", oauth_server, tmp_path, None, workload_key, *options)
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"dpop": {
        "type": "http", "url": runs.server.mcp_url,
        "oauth": {"clientId": "dpop-bot", "clientSecret": "env:DPOP_SECRET", "grantType": "client_credentials",
                  "dpop": dpop}}}}))
    run = run_mrtr(tmp_path, "--config", str(config), "--expand-env", "-s", "dpop", "--probe-timeout", f"{SAFETY:g}",
                   "--no-input", "call", "echo", "text=x", env={"DPOP_SECRET": SECRET})
    runs.all.append(run)
    if want in ("DPoP", "Bearer"):
        assert run.code == 0 and run.stdout.strip() == "echo: x", run.stderr
        assert runs.tokens()["token_type"] == want
    else:
        assert run.code == 8 and want in run.stderr and "\"dpop\": false" in run.stderr, run.stderr
        assert token_grants(runs.server) == []
    runs.assert_nothing_secret_printed()
