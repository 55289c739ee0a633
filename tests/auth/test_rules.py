"""The MCP authorization profile's rules, one by one, against real HTTP servers on
127.0.0.1 (JSON documents from tests/auth_support.py; the end-to-end sign-in with a real
authorization server is in auth/test_signin.py and the conformance suite).

Spec: 2026-07-28 basic/authorization (scope selection, step-up, iss), its
authorization-server-discovery page (URL orders, issuer check), security-considerations
(PKCE), and the token store's promises (0600/0700, atomic writes, a lock across processes).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import pytest

from mrtr_cli.auth.challenge import Challenge, parse_challenge
from mrtr_cli.auth.client import OAuthClient
from mrtr_cli.auth.discovery import AuthServer, as_metadata_urls, discover, prm_urls, resource_allowed
from mrtr_cli.auth.flows.loopback import Loopback
from mrtr_cli.auth.flows.pkce import AuthorizationRequest, build_request, check_response, pkce_pair
from mrtr_cli.auth.store import TokenStore
from mrtr_cli.config.oauth import AuthSettings
from mrtr_cli.env import Environment
from mrtr_cli.errors import AuthError
from tests.conftest import ROOT
from tests.servers.common import send_json
from tests.support import SAFETY


@pytest.fixture
def http() -> Iterator[httpx2.Client]:
    with httpx2.Client(follow_redirects=False, timeout=SAFETY) as client:
        yield client


def as_doc(issuer: str, **extra: Any) -> dict[str, Any]:
    return {"issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
            "code_challenge_methods_supported": ["S256"], **extra}


# ---------------------------------------------------------------------- discovery order
def test_protected_resource_metadata_urls_in_the_spec_order():
    assert prm_urls("https://mcp.example.com/public/mcp", "https://mcp.example.com/meta") == [
        "https://mcp.example.com/meta",
        "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
        "https://mcp.example.com/.well-known/oauth-protected-resource"]
    assert prm_urls("https://mcp.example.com", None) == ["https://mcp.example.com/.well-known/oauth-protected-resource"]


def test_authorization_server_metadata_urls_in_the_spec_order():
    assert as_metadata_urls("https://auth.example.com/tenant1") == [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration"]
    assert as_metadata_urls("https://auth.example.com") == [
        "https://auth.example.com/.well-known/oauth-authorization-server",
        "https://auth.example.com/.well-known/openid-configuration"]


def test_discovery_falls_back_in_order_and_finds_an_issuer_with_a_path(scripted, http):
    mcp, auth = scripted(), scripted()
    issuer = auth.url() + "/tenant1"
    mcp.docs["/.well-known/oauth-protected-resource"] = (200, {"resource": mcp.url() + "/mcp",
                                                                 "authorization_servers": [issuer]})
    auth.docs["/tenant1/.well-known/openid-configuration"] = (200, as_doc(issuer))
    server = discover(http, mcp.url() + "/mcp", mcp.url() + "/custom-metadata")
    assert server.issuer == issuer and server.resource == mcp.url() + "/mcp"
    assert mcp.fetched == ["/custom-metadata", "/.well-known/oauth-protected-resource/mcp",
                        "/.well-known/oauth-protected-resource"]
    assert auth.fetched == ["/.well-known/oauth-authorization-server/tenant1",
                            "/.well-known/openid-configuration/tenant1",
                         "/tenant1/.well-known/openid-configuration"]


def test_the_challenge_metadata_url_is_used_first_and_alone_when_it_answers(scripted, http):
    mcp, auth = scripted(), scripted()
    mcp.docs["/meta"] = (200, {"resource": mcp.url() + "/mcp", "authorization_servers": [auth.url()]})
    auth.docs["/.well-known/oauth-authorization-server"] = (200, as_doc(auth.url()))
    discover(http, mcp.url() + "/mcp", mcp.url() + "/meta")
    assert mcp.fetched == ["/meta"]
    assert auth.fetched == ["/.well-known/oauth-authorization-server"]


def test_a_resource_that_is_another_server_is_refused_before_any_authorization_server_request(scripted, http):
    mcp, auth = scripted(), scripted()
    mcp.docs["/.well-known/oauth-protected-resource/mcp"] = (
        200, {"resource": "https://elsewhere.example/mcp", "authorization_servers": [auth.url()]})
    with pytest.raises(AuthError, match="names another resource"):
        discover(http, mcp.url() + "/mcp", None)
    assert auth.fetched == []


#: Where a server names a URL in discovery, and the member a message names for it.
URL_MEMBERS = [
    ("challenge", "resource_metadata"),
    ("authorization_servers", "authorization_servers"),
    ("resource", "resource"),
    ("token_endpoint", "token_endpoint"),
    ("authorization_endpoint", "authorization_endpoint"),
]


def plant_url(mcp, auth, where: str, bad: str) -> str | None:
    """Serve the discovery documents of `mcp` and `auth` (scripted servers) with `bad` as the
    URL at `where` (a `URL_MEMBERS` place); the challenge's `resource_metadata` URL to give
    `discover` (`bad` when `where` is "challenge", else None)."""
    prm = {"resource": mcp.url() + "/mcp", "authorization_servers": [auth.url()]}
    if where in ("resource", "authorization_servers"):
        prm[where] = bad if where == "resource" else [bad]
    mcp.docs["/.well-known/oauth-protected-resource/mcp"] = (200, prm)
    auth.docs["/.well-known/oauth-authorization-server"] = (200, as_doc(auth.url(), **(
        {where: bad} if where.endswith("_endpoint") else {})))
    return bad if where == "challenge" else None


@pytest.mark.parametrize(("where", "member"), URL_MEMBERS)
@pytest.mark.parametrize("bad", ["http://[::1", "http://127.0.0.1\u001b[2J/x", "http://127.0.0.1:99999/x"])
def test_a_malformed_url_from_a_server_is_refused_naming_its_member(scripted, http, where, member, bad):
    mcp, auth = scripted(), scripted()
    challenge = plant_url(mcp, auth, where, bad)
    with pytest.raises(AuthError, match=f"{member} is not a valid http\\(s\\) URL") as info:
        discover(http, mcp.url() + "/mcp", challenge)
    assert "\x1b" not in info.value.message


@pytest.mark.parametrize(("where", "member"), URL_MEMBERS)
@pytest.mark.parametrize(("bad", "host"), [
    ("http://evil.example\\@{here}/x", "evil.example"),   # urllib: user `evil.example\` at 127.0.0.1
    ("http://user:pw@{here}/x", "127.0.0.1"),
    ("http://0x7f.1:{port}/x", "127.0.0.1"),
    ("http://%31%32%37.0.0.1:{port}/x", "127.0.0.1"),
])
def test_a_url_a_browser_reads_otherwise_is_refused_naming_its_member(scripted, http, where, member, bad, host):
    mcp, auth = scripted(), scripted()
    here = auth.url().split("://", 1)[1]
    bad = bad.format(here=here, port=here.rsplit(":", 1)[1])
    challenge = plant_url(mcp, auth, where, bad)
    with pytest.raises(AuthError) as info:
        discover(http, mcp.url() + "/mcp", challenge)
    assert member in info.value.message
    assert info.value.message.endswith(f"a browser goes to host {host}; nothing was sent there"), info.value.message
    if where in ("challenge", "authorization_servers"):
        assert auth.fetched == []  # the URL was never fetched


@pytest.mark.parametrize(("server", "resource", "ok"), [
    ("https://a.example/mcp", "https://a.example/mcp", True),
    ("https://a.example/mcp", "https://a.example", True),        # a parent path
    ("https://A.EXAMPLE/mcp", "https://a.example/mcp", True),    # scheme and host case
    ("https://a.example/mcp", "https://a.example/other", False),
    ("https://a.example/mcpx", "https://a.example/mcp", False),  # not a path prefix by segment
    ("https://a.example/mcp", "https://b.example/mcp", False),
    ("https://a.example/mcp", "http://a.example/mcp", False),
])
def test_resource_match(server, resource, ok):
    assert resource_allowed(server, resource) is ok


def test_an_issuer_differing_from_its_metadata_url_is_refused(scripted, http):
    mcp, auth = scripted(), scripted()
    mcp.docs["/.well-known/oauth-protected-resource/mcp"] = (200, {"authorization_servers": [auth.url()]})
    auth.docs["/.well-known/oauth-authorization-server"] = (200, as_doc("https://honest.example"))
    with pytest.raises(AuthError, match="names the issuer"):
        discover(http, mcp.url() + "/mcp", None)


def test_a_2025_03_26_server_without_resource_metadata_uses_its_origin(scripted, http):
    mcp = scripted()
    server = discover(http, mcp.url() + "/mcp", None)  # nothing served at all: the default endpoints
    assert server.legacy and server.issuer == mcp.url()
    assert server.endpoint("authorization_endpoint") == mcp.url() + "/authorize"
    assert server.endpoint("token_endpoint") == mcp.url() + "/token"
    assert server.endpoint("registration_endpoint") == mcp.url() + "/register"
    assert "/.well-known/oauth-authorization-server" in mcp.fetched


def test_a_resource_metadata_server_error_does_not_fall_back_to_2025_03_26(scripted, http):
    mcp = scripted()
    mcp.docs["/.well-known/oauth-protected-resource/mcp"] = (503, {"error": "busy"})
    with pytest.raises(AuthError, match="HTTP 503"):
        discover(http, mcp.url() + "/mcp", None)


# ---------------------------------------------------------------------- PKCE, state, iss
def test_pkce_pair_is_s256_of_a_long_random_verifier():
    verifier, challenge = pkce_pair()
    assert 43 <= len(verifier) <= 128
    expected = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    assert challenge == expected
    assert pkce_pair()[0] != verifier


def test_no_sign_in_without_advertised_s256():
    server = AuthServer(issuer="https://auth.example", metadata=as_doc("https://auth.example",
                        code_challenge_methods_supported=["plain"]), resource="https://mcp.example/mcp")
    with pytest.raises(AuthError, match="S256"):
        build_request(server, "client", "http://127.0.0.1:1/cb", [], "state")
    del server.metadata["code_challenge_methods_supported"]
    with pytest.raises(AuthError, match="S256"):
        build_request(server, "client", "http://127.0.0.1:1/cb", [], "state")


def test_the_authorization_request_carries_pkce_state_resource_and_scope():
    from urllib.parse import parse_qs, urlsplit

    server = AuthServer(issuer="https://auth.example", metadata=as_doc("https://auth.example"),
                        resource="https://mcp.example/mcp")
    req = build_request(server, "cid", "http://127.0.0.1:5/cb", ["a", "b"], "the-state")
    q = {k: v[0] for k, v in parse_qs(urlsplit(req.url).query).items()}
    assert q["code_challenge_method"] == "S256" and q["state"] == "the-state"
    assert q["resource"] == "https://mcp.example/mcp" and q["scope"] == "a b" and q["response_type"] == "code"
    assert "scope" not in parse_qs(urlsplit(build_request(server, "cid", "http://x/cb", [], "s").url).query)


def _req(iss_required: bool) -> AuthorizationRequest:
    return AuthorizationRequest(url="", state="s", verifier="v", redirect_uri="r", issuer="https://auth.example",
                                iss_required=iss_required)


@pytest.mark.parametrize(("advertised", "iss", "ok"), [
    (True, "https://auth.example", True),
    (True, None, False),
    (False, "https://auth.example", True),
    (False, None, True),
    (False, "https://evil.example", False),   # compared even when not advertised
    (True, "https://auth.example/", False),   # no normalization
    (True, "HTTPS://auth.example", False),
])
def test_iss_rules(advertised, iss, ok):
    params = {"code": "c", "state": "s", **({"iss": iss} if iss is not None else {})}
    if ok:
        assert check_response(_req(advertised), params) == "c"
    else:
        with pytest.raises(AuthError):
            check_response(_req(advertised), params)


def test_an_error_from_another_issuer_is_not_shown():
    params = {"error": "access_denied", "error_description": "CLICK-EVIL-LINK", "iss": "https://evil.example"}
    with pytest.raises(AuthError) as info:
        check_response(_req(False), params)
    assert "CLICK-EVIL-LINK" not in info.value.message and "access_denied" not in info.value.message


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=SAFETY) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_loopback_ignores_a_wrong_state_and_a_wrong_path():
    listener = Loopback("right-state")
    try:
        assert listener.redirect_uri.startswith("http://127.0.0.1:")
        assert len(listener.path) > 20  # unguessable
        assert _get(f"http://127.0.0.1:{listener.port}/callback?state=right-state&code=x") == 404
        assert _get(listener.redirect_uri + "?state=wrong&code=evil") == 400
        assert _get(listener.redirect_uri + "?state=right-state&code=good") == 200
        assert listener.wait(30)["code"] == "good"
        assert _get(listener.redirect_uri + "?state=right-state&code=late") == 400  # one response only
    finally:
        listener.close()


def test_a_non_ascii_state_is_a_mismatch_not_a_crash():
    listener = Loopback("right-state")
    try:
        assert listener.accept({"state": "caf\u00e9", "code": "x"}) is False
        assert _get(listener.redirect_uri + "?state=caf%C3%A9&code=evil") == 400
        assert _get(listener.redirect_uri + "?state=right-state&code=good") == 200
        assert listener.wait(30)["code"] == "good"
    finally:
        listener.close()


def test_an_exception_in_a_listener_thread_ends_the_wait():
    class Broken(Loopback):
        def accept(self, params: dict[str, str]) -> bool:
            raise RuntimeError("boom")

    listener = Broken("s")
    try:
        assert _get(listener.redirect_uri + "?state=s&code=x") == 500
        with pytest.raises(RuntimeError, match="boom"):
            listener.wait(30)
    finally:
        listener.close()


# ---------------------------------------------------------------------- scopes
def _client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **settings: Any) -> OAuthClient:
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path / "state"))
    return OAuthClient("https://mcp.example/mcp", AuthSettings(**settings), Environment())


def _server(prm_scopes: list[str] | None = None, as_scopes: list[str] | None = None) -> AuthServer:
    prm = {"authorization_servers": ["https://auth.example"]}
    if prm_scopes is not None:
        prm["scopes_supported"] = prm_scopes
    meta = as_doc("https://auth.example", **({"scopes_supported": as_scopes} if as_scopes is not None else {}))
    return AuthServer(issuer="https://auth.example", metadata=meta, resource="https://mcp.example/mcp",
                      resource_metadata=prm)


def test_scope_selection_order(tmp_path, monkeypatch):
    c = _client(tmp_path, monkeypatch)
    challenged = parse_challenge(401, 'Bearer scope="files:read"')
    assert c._select_scopes(challenged, _server(["a", "b"]), [], None) == ["files:read"]
    assert c._select_scopes(Challenge(401), _server(["a", "b"]), [], None) == ["a", "b"]
    assert c._select_scopes(Challenge(401), _server(None, ["x", "y"]), [], None) == []  # none: omit scope


def test_offline_access_only_when_the_authorization_server_lists_it(tmp_path, monkeypatch):
    c = _client(tmp_path, monkeypatch)
    assert (c._select_scopes(Challenge(401), _server(["a"], ["a", "offline_access"]), [], None)
            == ["a", "offline_access"])
    assert c._select_scopes(Challenge(401), _server(["a"], ["a"]), [], None) == ["a"]
    cc = _client(tmp_path, monkeypatch, grant="client_credentials", client_id="x", client_secret="y")
    assert cc._select_scopes(Challenge(401), _server(["a"], ["a", "offline_access"]), [], None) == ["a"]


def test_step_up_asks_for_the_union_of_held_and_challenged_scopes(tmp_path, monkeypatch):
    c = _client(tmp_path, monkeypatch)
    ch = parse_challenge(403, 'Bearer error="insufficient_scope", scope="files:write"')
    assert ch.insufficient_scope
    assert c._select_scopes(ch, _server(["files:read"]), ["files:read"], None) == ["files:read", "files:write"]


@pytest.mark.parametrize("shell", [False, True])
def test_the_step_up_hint_quotes_the_servers_scopes_where_it_is_read(tmp_path, monkeypatch, shell):
    """The `--scope` words a 403 `insufficient_scope` hint adds to the sign-in command are
    server text: each is quoted for where the hint is read (split back, they are the
    challenge's scopes), and one that cannot be shown as typed gets a sentence instead."""
    import shlex

    from mrtr_cli.render.invocation import in_shell

    c = _client(tmp_path, monkeypatch)
    scopes = ["files:write", "$(id)", "a'b", "-x"]
    ch = Challenge(403, scope=" ".join(scopes), error="insufficient_scope")
    if shell:
        with in_shell():
            err = c._needs_sign_in(ch)
    else:
        err = c._needs_sign_in(ch)
    words = shlex.split(err.message.split("to grant it, run: ", 1)[1])
    assert [w for i, w in enumerate(words) if i and words[i - 1] == "--scope"] == scopes, err.message
    err = c._needs_sign_in(Challenge(403, scope="files:write \x9bx", error="insufficient_scope"))
    command = err.message.split("to grant it, run: ", 1)[1]
    assert "\\x9b" not in command and "cannot be shown as typed" in command, err.message


def test_step_up_stops_after_three(tmp_path, monkeypatch, scripted):
    mcp, _auth = _hostile_servers(scripted)
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path / "state"))
    c = OAuthClient(mcp.url() + "/mcp", AuthSettings(), Environment())
    c.env.no_input = True  # nobody here: each step-up ends at "sign in again", counted first
    header = 'Bearer error="insufficient_scope", scope="admin"'
    for _ in range(3):
        with pytest.raises(AuthError, match="scope admin"):
            c.on_challenge(403, header, "tok")
    with pytest.raises(AuthError, match="after 3 step-up"):
        c.on_challenge(403, header, "tok")


def test_a_plain_403_is_no_challenge(tmp_path, monkeypatch):
    c = _client(tmp_path, monkeypatch)
    assert c.on_challenge(403, 'Bearer error="invalid_token"', "tok") is None


@pytest.mark.parametrize(("header", "want"), [
    ('Bearer resource_metadata="https://m/x", scope="a b"', ("https://m/x", "a b", None)),
    ('Bearer error="insufficient_scope", scope="w", error_description="need \\"w\\""', (None, "w",
                                                                                        "insufficient_scope")),
    ('Basic realm="x", Bearer scope=read', (None, "read", None)),
    ('Bearer realm="r"', (None, None, None)),
])
def test_challenge_parsing(header, want):
    ch = parse_challenge(401, header)
    assert (ch.resource_metadata, ch.scope, ch.error) == want


@pytest.mark.parametrize(("header", "schemes", "algs", "params"), [
    ('Bearer error="invalid_token", DPoP algs="ES256 PS256"', ("bearer", "dpop"), ["ES256", "PS256"], "bearer"),
    ('DPoP algs="ES256", error="invalid_token", resource_metadata="https://m/x"', ("dpop",), ["ES256"], "dpop"),
    ('Bearer, DPoP algs=ES256', ("bearer", "dpop"), ["ES256"], "bearer"),
    # a quoted string is no scheme, a token68 neither
    ('Bearer error_description="no DPoP, dpop here", realm="a, DPoP b"', ("bearer",), None, "bearer"),
    ('Basic dXNlcjpwYXNz==, Bearer scope=read', ("basic", "bearer"), None, "bearer"),
    ('Negotiate a/b+c=, DPoP', ("negotiate", "dpop"), None, "dpop"),
    ('dpop ALGS="ES256"', ("dpop",), ["ES256"], "dpop"),
    ('"unterminated, DPoP', (), None, None),
])
def test_challenge_schemes_and_dpop_algs(header, schemes, algs, params):
    ch = parse_challenge(401, header)
    assert ch.schemes == schemes and ch.dpop_algs == algs
    assert ch.bearer == (params is not None) and ch.dpop == (params == "dpop")
    assert ch.offers_dpop == ("dpop" in schemes)
    assert ch.refuses_dpop == ("bearer" in schemes and "dpop" not in schemes)


def test_a_challenge_naming_dpop_alone_requires_it_only_for_a_request_without_a_dpop_token():
    ch = parse_challenge(401, 'DPoP error="invalid_token"')
    assert ch.requires_dpop
    ch.answered_dpop = True  # a resource answers a DPoP request in the DPoP scheme, whatever else it takes
    assert not ch.requires_dpop and ch.offers_dpop
    assert not parse_challenge(401, 'Bearer, DPoP').requires_dpop


# ---------------------------------------------------------------------- DPoP only where the resource takes it
def _resource(metadata: dict[str, Any] | None = None, header: str | None = None):
    from mrtr_cli.auth.endpoint.binding import resource_dpop

    return resource_dpop(metadata, parse_challenge(401, header))


@pytest.mark.parametrize(("metadata", "header", "required", "offered", "why"), [
    (None, None, False, False, ""),
    ({"authorization_servers": ["https://a"]}, 'Bearer error="invalid_token"', False, False, ""),
    ({"dpop_bound_access_tokens_required": False}, "Bearer", False, False, ""),
    ({"dpop_signing_alg_values_supported": []}, "Bearer", False, False, ""),
    ({"dpop_signing_alg_values_supported": [1, None]}, "Bearer", False, False, ""),
    ({"dpop_signing_alg_values_supported": ["ES256"]}, "Bearer", False, True, "metadata lists"),
    (None, 'Bearer, DPoP algs="ES256"', False, True, "challenge names DPoP"),
    ({"dpop_bound_access_tokens_required": True}, "Bearer", True, True, "dpop_bound_access_tokens_required"),
    ({"dpop_bound_access_tokens_required": "yes"}, "Bearer", False, False, ""),
    (None, 'DPoP algs="ES256"', True, True, "names DPoP and not Bearer"),
])
def test_what_a_resource_says_about_dpop(metadata, header, required, offered, why):
    said = _resource(metadata, header)
    assert (said.required, said.offered) == (required, offered)
    assert why in said.why and bool(said.why) == offered


def _choose(want, resource, as_algs=("ES256",)):
    from mrtr_cli.auth.endpoint.binding import choose

    return choose(want, resource, list(as_algs) if as_algs is not None else None, label="https://mcp.example/mcp",
                  issuer="https://auth.example")


def test_dpop_is_chosen_by_the_resource_the_authorization_server_and_the_setting():
    silent, offers = _resource(None, "Bearer"), _resource(None, 'Bearer, DPoP algs="ES256"')
    requires = _resource({"dpop_bound_access_tokens_required": True}, "Bearer")
    assert _choose(None, silent) is False  # an authorization server offering DPoP is not enough
    assert _choose(None, offers) is True
    assert _choose(None, offers, as_algs=None) is False  # the authorization server does not list DPoP
    assert _choose(None, offers, as_algs=("EdDSA",)) is False  # no algorithm both take
    assert _choose(None, _resource(None, 'Bearer, DPoP algs="PS256"')) is False
    assert _choose(None, requires) is True and _choose(None, requires, as_algs=None) is True
    assert _choose(True, silent) is True and _choose(True, silent, as_algs=None) is True
    assert _choose(False, offers) is False and _choose(False, silent) is False
    with pytest.raises(AuthError, match=r"takes DPoP-bound tokens only \(its protected resource metadata sets "
                                        r"dpop_bound_access_tokens_required\), and DPoP is turned off \(--no-dpop"):
        _choose(False, requires)
    with pytest.raises(AuthError, match="takes DPoP proofs signed with PS256 only; mrtr signs them with ES256"):
        _choose(None, _resource({"dpop_bound_access_tokens_required": True}, 'DPoP algs="PS256"'))
    with pytest.raises(AuthError, match="takes DPoP proofs signed with PS256 only"):
        _choose(True, _resource({"dpop_signing_alg_values_supported": ["PS256", 7]}))
    # each list the resource names must hold ES256: its metadata's and its challenge's
    with pytest.raises(AuthError, match="signed with ES256 PS256 only"):
        _choose(True, _resource({"dpop_signing_alg_values_supported": ["ES256"]}, 'Bearer, DPoP algs="PS256"'))
    with pytest.raises(AuthError, match="the authorization server https://auth.example takes DPoP proofs signed "
                                        "with EdDSA only; mrtr signs them with ES256"):
        _choose(None, requires, as_algs=("EdDSA",))
    with pytest.raises(AuthError) as refused:
        _choose(True, silent, as_algs=("EdDSA",))
    assert "leave out --dpop" in str(refused.value.hint)


# ---------------------------------------------------------------------- the token store
def test_the_store_is_private_and_written_atomically(tmp_path, monkeypatch):
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path / "state"))
    store = TokenStore("https://mcp.example/mcp")
    store.update("https://auth.example", tokens={"access_token": "at-1"})
    store.update("https://auth.example", tokens={"access_token": "at-2"})
    folder = Path(store.path).parent
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert sorted(p.name for p in folder.iterdir()) == [Path(store.path).name]  # no temporary file left
    assert store.entry()["tokens"]["access_token"] == "at-2"


def test_auth_status_shows_server_strings_sanitized_and_json_as_stored(tmp_path, monkeypatch):
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path / "state"))
    evil_scope, evil_client = "a\u001b]0;pwned\u0007 \u001b[2Jzz", "bot\u001b[31m"
    TokenStore("https://mcp.example/mcp").update(
        "https://auth.example", client={"client_id": evil_client, "source": "registered"},
        tokens={"access_token": "at", "scope": evil_scope, "expires_at": 4102444800})
    env = dict(os.environ, PYTHONPATH=str(ROOT), MRTR_STATE_DIR=str(tmp_path / "state"))
    base = [sys.executable, "-m", "mrtr_cli", "--url", "https://mcp.example/mcp", "auth", "status"]
    table = subprocess.run(base, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=SAFETY)
    assert table.returncode == 0, table.stderr
    assert "zz" in table.stdout and "\x1b" not in table.stdout + table.stderr and "\x07" not in table.stdout
    raw = subprocess.run(base + ["--json"], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                         timeout=SAFETY)
    row = json.loads(raw.stdout)[0]
    assert row["scopes"] == evil_scope.split() and row["clientId"] == evil_client


def test_tokens_are_kept_per_issuer(tmp_path, monkeypatch):
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path / "state"))
    store = TokenStore("https://mcp.example/mcp")
    store.update("https://as1.example", client={"client_id": "one"}, tokens={"access_token": "a1"})
    store.update("https://as2.example", client={"client_id": "two"}, tokens={"access_token": "a2"})
    assert store.entry()["client"]["client_id"] == "two"
    assert store.entry("https://as1.example")["client"]["client_id"] == "one"
    assert TokenStore("HTTPS://MCP.EXAMPLE/mcp").path == store.path  # the canonical URI names the file
    assert TokenStore("https://mcp.example/other").path != store.path


HOLDER = """
import sys
from mrtr_cli.auth.store import TokenStore
store = TokenStore(sys.argv[1])
with store.locked():
    print("locked", flush=True)
    sys.stdin.readline()
print("released", flush=True)
"""


def test_the_lock_is_held_across_processes(tmp_path, monkeypatch):
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path / "state"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, "https://mcp.example/mcp"], env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "locked"
        store = TokenStore("https://mcp.example/mcp")
        with pytest.raises(AuthError, match="locked"), store.locked(timeout=0.2):
            pass
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "released"
        with store.locked(timeout=SAFETY):
            pass
    finally:
        holder.kill()
        holder.wait()


@pytest.fixture
def keychain():
    """Set the process's keyring backend (`keyring` is in the test extra): `keychain(backend)`;
    the one before is put back afterwards."""
    import keyring

    before = keyring.get_keyring()
    yield keyring.set_keyring
    keyring.set_keyring(before)


class MemoryKeychain:
    """A keyring backend holding passwords in memory (a real backend, registered through
    keyring's own API, standing in for the OS keychain)."""

    def __new__(cls):
        from keyring.backend import KeyringBackend

        class Backend(KeyringBackend):
            priority = 1

            def __init__(self):
                super().__init__()
                self.items: dict[tuple[str, str], str] = {}

            def set_password(self, service, username, password):
                self.items[(service, username)] = password

            def get_password(self, service, username):
                return self.items.get((service, username))

            def delete_password(self, service, username):
                self.items.pop((service, username), None)

        return Backend()


def test_keyring_without_a_keychain_falls_back_to_the_file_store_with_a_note(tmp_path, monkeypatch, keychain):
    from keyring.backends import fail

    keychain(fail.Keyring())
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path / "state"))
    notes: list[str] = []
    store = TokenStore("https://mcp.example/mcp", backend="keyring", note=notes.append)
    assert store.backend == "file" and "keychain" in notes[0]
    store.update("https://auth.example", tokens={"access_token": "at"})
    assert json.loads(Path(store.path).read_text())["issuers"]["https://auth.example"]["tokens"]["access_token"] == "at"


def test_keyring_with_a_keychain_keeps_the_tokens_out_of_the_file(tmp_path, monkeypatch, keychain):
    backend = MemoryKeychain()
    keychain(backend)
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path / "state"))
    notes: list[str] = []
    store = TokenStore("https://mcp.example/mcp", backend="keyring", note=notes.append)
    assert store.backend == "keyring" and notes == []
    store.update("https://auth.example", tokens={"access_token": "at-secret", "refresh_token": "rt-secret"})
    text = Path(store.path).read_text()
    assert "at-secret" not in text and "rt-secret" not in text
    assert sorted(backend.items.values()) == ["at-secret", "rt-secret"]
    again = TokenStore("https://mcp.example/mcp", backend="keyring")
    assert again.entry("https://auth.example")["tokens"] == {"access_token": "at-secret", "refresh_token": "rt-secret"}


# ---------------------------------------------------------------------- config entries
def _entry_settings(entry: dict[str, Any], allowed: bool) -> AuthSettings | None:
    from mrtr_cli.config.oauth import from_config_entry

    return from_config_entry(entry, where="cfg: server 'x'", allowed=allowed, expand=lambda t: t)


def test_a_config_entry_carries_oauth_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("WORK_SECRET", "s3cret-value")
    key = tmp_path / "key.pem"
    key.write_text("PEM")
    s = _entry_settings({"url": "https://x/mcp", "oauth": {
        "clientId": "cid", "clientSecret": "env:WORK_SECRET", "scopes": ["a", "b c"], "redirectPort": 33418,
        "grantType": "client_credentials", "tokenEndpointAuthMethod": "client_secret_post",
        "privateKeyFile": str(key)}}, allowed=True)
    assert (s.client_id, s.client_secret, s.scopes, s.redirect_port) == ("cid", "s3cret-value", ["a", "b", "c"], 33418)
    assert s.client_credentials and s.auth_method == "client_secret_post" and s.private_key == "PEM"
    assert _entry_settings({"url": "https://x/mcp"}, allowed=True) is None


def test_a_config_entry_client_metadata_url_that_cannot_be_one_is_named_by_its_entry():
    from mrtr_cli.errors import UsageError

    with pytest.raises(UsageError, match=r"^cfg: server 'x': oauth clientMetadataUrl http://c/m.json: a Client ID"):
        _entry_settings({"oauth": {"clientMetadataUrl": "http://c/m.json"}}, allowed=True)
    s = _entry_settings({"oauth": {"clientMetadataUrl": "https://c.example/m.json"}}, allowed=True)
    assert s is not None and s.client_metadata_url == "https://c.example/m.json"


def test_a_project_config_cannot_read_secrets_or_keys_without_expand_env(tmp_path):
    from mrtr_cli.errors import UsageError

    with pytest.raises(UsageError, match="clientSecret env:"):
        _entry_settings({"oauth": {"clientId": "c", "clientSecret": "env:HOME"}}, allowed=False)
    with pytest.raises(UsageError, match="privateKeyFile"):
        _entry_settings({"oauth": {"clientId": "c", "privateKeyFile": str(tmp_path / "k.pem")}}, allowed=False)
    assert _entry_settings({"oauth": {"clientId": "c", "clientSecret": "literal"}},
                           allowed=False).client_secret == "literal"


def test_the_deadline_stands_still_for_other_threads_while_a_person_signs_in():
    from mrtr_cli.protocol.deadline import Deadline

    d = Deadline(1000.0)
    with d.paused():
        frozen = d.remaining()
        seen: list[float | None] = []
        t = threading.Thread(target=lambda: seen.append(d.remaining()))  # the waiting thread
        t.start()
        t.join()
        assert seen == [frozen]
    assert d.remaining() <= frozen


def test_auth_login_to_a_server_that_asks_for_no_sign_in_says_so(scripted, tmp_path):
    open_server = scripted()  # answers POST with 501 (no challenge) and publishes no metadata
    env = dict(os.environ, PYTHONPATH=str(ROOT), MRTR_STATE_DIR=str(tmp_path / "state"), BROWSER="/bin/false")
    run = subprocess.run([sys.executable, "-m", "mrtr_cli", "--url", open_server.url() + "/mcp", "auth", "login"],
                         env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=SAFETY)
    assert run.returncode == 8, run.stderr
    assert "nothing to sign in to" in run.stderr and run.stdout == ""
    assert not (tmp_path / "state" / "auth").exists()


def test_auth_token_to_a_server_that_asks_for_no_sign_in_prints_no_login_command(scripted, tmp_path):
    open_server = scripted()
    env = dict(os.environ, PYTHONPATH=str(ROOT), MRTR_STATE_DIR=str(tmp_path / "state"), BROWSER="/bin/false")
    run = subprocess.run([sys.executable, "-m", "mrtr_cli", "--url", open_server.url() + "/mcp", "auth", "token"],
                         env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=SAFETY)
    assert run.returncode == 8, run.stderr
    assert "nothing to sign in to" in run.stderr and "auth login" not in run.stderr and run.stdout == ""


def test_without_a_person_a_refused_discovery_is_said_instead_of_a_login_command(scripted, tmp_path, monkeypatch):
    mcp, auth = scripted(), scripted()
    mcp.docs["/.well-known/oauth-protected-resource/mcp"] = (
        200, {"resource": "https://elsewhere.example/mcp", "authorization_servers": [auth.url()]})
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path / "state"))
    env = Environment()
    env.no_input = True
    client = OAuthClient(mcp.url() + "/mcp", AuthSettings(), env)
    try:
        with pytest.raises(AuthError, match="names another resource") as info:
            client.authorize(Challenge(401))
    finally:
        client.close()
    assert "auth login" not in info.value.message + str(info.value.hint or "")
    assert auth.fetched == []


def test_authorization_server_endpoints_must_be_https_off_this_machine():
    from mrtr_cli.auth.discovery import check_https

    local = AuthServer(issuer="http://127.0.0.1:9", metadata=as_doc("http://127.0.0.1:9"), resource="r")
    check_https(local)
    remote = AuthServer(issuer="https://auth.example", metadata=as_doc("https://auth.example",
                        token_endpoint="http://auth.example/token"), resource="r")
    with pytest.raises(AuthError, match="token_endpoint http://auth.example/token is plain HTTP to another machine"):
        check_https(remote)


class _TokenEndpoint(BaseHTTPRequestHandler):
    reply: dict[str, Any] = {}

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        send_json(self, 200, json.dumps(self.reply).encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize(("reply", "ok"), [
    ({"access_token": "at", "token_type": "Bearer", "expires_in": 60}, True),
    ({"access_token": "at", "token_type": "bearer"}, True),
    ({"access_token": "at", "token_type": "DPoP"}, False),
    ({"token_type": "Bearer"}, False),
])
def test_token_responses(reply, ok, http):
    from mrtr_cli.auth.endpoint.grants import TokenError, token_request

    handler = type("H", (_TokenEndpoint,), {"reply": reply})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/token"
        if ok:
            tokens = token_request(http, url, {"grant_type": "x"}, {}, previous={"refresh_token": "rt"},
                                   requested_scope="s")
            assert tokens["access_token"] == "at" and tokens["refresh_token"] == "rt" and tokens["scope"] == "s"
        else:
            with pytest.raises(TokenError):
                token_request(http, url, {"grant_type": "x"}, {})
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_verbose_notes_each_authorization_request_without_its_query(scripted, tmp_path):
    server = scripted()
    env = dict(os.environ, PYTHONPATH=str(ROOT), MRTR_STATE_DIR=str(tmp_path / "state"), BROWSER="/bin/false")
    run = subprocess.run([sys.executable, "-m", "mrtr_cli", "-v", "--url", server.url() + "/mcp?k=v", "auth", "login"],
                         env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=SAFETY)
    assert run.returncode == 8, run.stderr
    assert f"mrtr: oauth: POST {server.url()}/mcp -> 501" in run.stderr
    assert f"mrtr: oauth: GET {server.url()}/.well-known/oauth-protected-resource/mcp -> 404" in run.stderr
    assert "k=v" not in run.stderr.replace(f"{server.url()}/mcp?k=v", "")


def test_a_registration_response_url_is_checked_before_use(http):
    reply = {"client_id": "c", "token_endpoint_auth_method": "none", "redirect_uris": ["http://[::1"]}
    from mrtr_cli.auth.registration import register

    handler = type("H", (_TokenEndpoint,), {"reply": reply})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        issuer = f"http://127.0.0.1:{httpd.server_address[1]}"
        server = AuthServer(issuer=issuer, metadata=as_doc(issuer, registration_endpoint=issuer + "/register"),
                            resource="r")
        with pytest.raises(AuthError, match="registration response's redirect_uris is not a valid"):
            register(http, server, "http://127.0.0.1:9/callback/x")
    finally:
        httpd.shutdown()
        httpd.server_close()


# ---------------------------------------------------------------------- hostile replies
def _hostile_login(tmp_path: Path, mcp: Any, *extra: str, env: dict[str, str] | None = None) -> Any:
    """`mrtr --url MCP auth login --client-credentials ...` (nobody present, no browser)."""
    run_env = dict(os.environ, PYTHONPATH=str(ROOT), MRTR_STATE_DIR=str(tmp_path / "state"), BROWSER="/bin/false",
                   CI_SECRET="s3cret-" + "7" * 16, **(env or {}))
    return subprocess.run([sys.executable, "-m", "mrtr_cli", "--url", mcp.url() + "/mcp", "auth", "login",
                           "--client-credentials", "--client-id", "ci", "--client-secret-env", "CI_SECRET",
                           "--auth-method", "client_secret_post", *extra],
                          env=run_env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=SAFETY)


def _hostile_servers(scripted: Any, token_reply: Any = None) -> tuple[Any, Any]:
    mcp, auth = scripted(), scripted()
    mcp.docs["/.well-known/oauth-protected-resource/mcp"] = {"resource": mcp.url() + "/mcp",
                                                             "authorization_servers": [auth.url()]}
    auth.docs["/.well-known/oauth-authorization-server"] = as_doc(auth.url())
    if token_reply is not None:
        auth.docs["/token"] = token_reply
    return mcp, auth


def _one_error_line(run: Any) -> str:
    assert "Traceback" not in run.stderr and run.stdout == "", run.stderr
    lines = [line for line in run.stderr.splitlines() if line.startswith("mrtr: error:")]
    assert len(lines) == 1, run.stderr
    return lines[0]


def test_an_oversized_metadata_document_is_refused_naming_the_server_and_the_limit(scripted, tmp_path):
    mcp, auth = _hostile_servers(scripted)
    auth.docs["/.well-known/oauth-authorization-server"] = json.dumps(
        as_doc(auth.url(), padding="x" * 300_000)).encode()
    run = _hostile_login(tmp_path, mcp, env={"MRTR_MAX_MESSAGE_SIZE": "64K"})
    assert run.returncode == 8, run.stderr
    line = _one_error_line(run)
    assert f"{auth.url()}/.well-known/oauth-authorization-server" in line
    assert "over the limit of 65536 bytes (64 KiB)" in line
    assert "/token" not in auth.fetched


def test_a_deeply_nested_token_response_is_refused(scripted, tmp_path):
    deep = b"[" * 2000 + b"]" * 2000
    mcp, auth = _hostile_servers(scripted, token_reply=b'{"access_token": "at", "token_type": "Bearer", "x": '
                                 + deep + b"}")
    run = _hostile_login(tmp_path, mcp)
    assert run.returncode == 8, run.stderr
    line = _one_error_line(run)
    assert f"the token endpoint {auth.url()}/token" in line and "nested more than 128 levels" in line


@pytest.mark.parametrize("reply", [b"[1, 2, 3]", b'"access_token"', b"null", b"<html>no</html>"])
def test_a_token_response_that_is_no_json_object_is_refused(scripted, tmp_path, reply):
    mcp, auth = _hostile_servers(scripted, token_reply=reply)
    run = _hostile_login(tmp_path, mcp)
    assert run.returncode == 8, run.stderr
    assert f"the token endpoint {auth.url()}/token answered HTTP 200 without a JSON object" in _one_error_line(run)
    assert auth.fetched[-1] == "/token"


@pytest.mark.parametrize("doc", [b"[]", b"42", b'"x"'])
def test_metadata_that_is_no_json_object_is_an_error_naming_its_url(scripted, tmp_path, doc):
    mcp, auth = _hostile_servers(scripted)
    auth.docs["/.well-known/oauth-authorization-server"] = doc
    run = _hostile_login(tmp_path, mcp)
    assert run.returncode == 8, run.stderr
    assert (f"the authorization server metadata at {auth.url()}/.well-known/oauth-authorization-server holds JSON "
            "that is not an object") in _one_error_line(run)


def test_a_registration_response_over_the_limit_is_refused_before_it_is_read_whole(scripted, http, monkeypatch):
    from mrtr_cli.auth.registration import register
    from mrtr_cli.transport.limits import set_max_message_size

    auth = scripted()
    auth.docs["/register"] = (201, {"client_id": "c", "padding": "x" * 5000})
    server = AuthServer(issuer=auth.url(), metadata=as_doc(auth.url(), registration_endpoint=auth.url("/register")),
                        resource="r")
    set_max_message_size(1024)
    try:
        with pytest.raises(AuthError, match=r"the registration endpoint .*/register sent a reply over the limit "
                                            r"of 1024 bytes"):
            register(http, server, "http://127.0.0.1:9/callback/x")
    finally:
        set_max_message_size(None)


def test_a_bad_mrtr_auth_wait_is_refused_before_anything_opens(tmp_path, oauth_server, browser):
    from tests.auth_support import run_mrtr

    server = oauth_server()
    r = run_mrtr(tmp_path, "--url", server.mcp_url, "auth", "login", browser=browser, env={"MRTR_AUTH_WAIT": "abc"})
    assert r.code == 2, r.stderr
    assert "MRTR_AUTH_WAIT='abc': expected a positive number of seconds" in r.stderr
    assert browser.opened() == [] and server.stats()["authorizations"] == 0
