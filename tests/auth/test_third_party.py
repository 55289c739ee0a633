"""Signing in against authorization servers this project did not write, started here on
127.0.0.1: the MCP Python SDK's authorization server routes as they ship
(tests/servers/sdk_auth_server.py) and `oidc-provider` from npm, a certified OpenID provider
(tests/servers/oidc_provider/, installed once per machine into .cache/oidc-provider/; skipped
when npm is missing or the install fails), each in front of a protected SDK MCP server.

With each: `auth login` through the stand-in browser, a call with the stored token, a
refresh once the server refuses the access token, a step-up (`auth login --scope` beyond the
first sign-in's scopes), `auth logout`; and an authorization server that restarts and has
forgotten every client and token (the next sign-in registers again). oidc-provider offers
DPoP (as it ships): a resource taking bearer tokens only gets bearer tokens, one requiring
DPoP gets DPoP-bound tokens, and a stored token of the wrong kind is dropped or refreshed
into the right one. No token, client secret, authorization code, PKCE verifier or DPoP key
the servers handled may appear in any output.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import shlex
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx2
import pytest

from tests.auth_support import (
    READY_TIMEOUT,
    ROOT,
    Browser,
    Run,
    poll,
    run_mrtr,
    stop_group,
    store_files,
)
from tests.conftest import PY
from tests.listening import fixed_port
from tests.prefork import launch_argv
from tests.support import SAFETY, running, wait_for

pytestmark = pytest.mark.integration

SERVERS = ROOT / "tests" / "servers"
#: A sign-in whose browser never comes back fails in this many seconds, not 300.
AUTH_WAIT = "30"
#: Names of the request and response members that carry something secret.
SECRET_MEMBERS = {"access_token", "refresh_token", "id_token", "code", "code_verifier", "client_secret",
                  "registration_access_token", "token"}


def start(command: list[str], ready: Path, stderr: Path, env: dict[str, str] | None = None,
          pass_fds: tuple[int, ...] = ()) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
    """Start a server in a process group of its own (handing it `pass_fds`); wait for its
    ready file; (process, ready)."""
    ready.unlink(missing_ok=True)
    with open(stderr, "ab") as err:
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True, env={**os.environ, **(env or {})}, pass_fds=pass_fds)

    def is_ready() -> dict[str, Any] | None:
        if proc.poll() is not None:
            raise RuntimeError(f"{shlex.join(command)} exited with {proc.returncode}: {stderr.read_text()[-2000:]}")
        return json.loads(ready.read_text()) if ready.exists() else None

    return proc, poll(is_ready, READY_TIMEOUT, f"{command[1]} to listen")


Secrets = dict[str, set[str]]


def add_secrets(found: Secrets, pairs: Any) -> None:
    """Add the (member name, value) pairs whose name is one of SECRET_MEMBERS to `found`."""
    for name, value in pairs:
        if name in SECRET_MEMBERS and isinstance(value, str) and value:
            found.setdefault(name, set()).add(value)


def basic_secret(headers: dict[str, str]) -> list[tuple[str, str]]:
    """The password of a Basic Authorization header (a client secret), if any."""
    value = headers.get("authorization", "")
    if not value.startswith("Basic "):
        return []
    return [("client_secret", base64.b64decode(value[6:]).decode().partition(":")[2])]


class SdkServer:
    """tests/servers/sdk_auth_server.py: the SDK's authorization server and an SDK MCP server."""

    name = "sdk"

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.record = tmp / "sdk-record.jsonl"
        self.seen: Secrets = {}
        # Ports a restart can bind again: outside the range port 0 and connections draw from.
        self.ports = [str(fixed_port()), str(fixed_port())]
        self.proc, info = self._start()
        self.mcp_url, self.issuer = info["mcp"], info["issuer"]
        #: the server process itself (a fork of the zygote; `proc` is its launcher)
        self.pid: int = info["pid"]

    def _start(self) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
        return start(launch_argv(SERVERS / "sdk_auth_server.py", "--ready-file", str(self.tmp / "sdk-ready.json"),
                                 "--record", str(self.record), "--port", self.ports[0], "--auth-port", self.ports[1],
                                 owned=True),
                     self.tmp / "sdk-ready.json", self.tmp / "sdk-stderr.txt")

    def restart_authorization_server(self) -> None:
        """End the process and start it again on the same ports: it has forgotten everything."""
        self.secrets()
        stop_group(self.proc)
        # The launcher's end is not the server's: one killed after the grace period is ended
        # by the zygote's keeper on its own time, and while it listens the new one cannot.
        wait_for(lambda: not running(self.pid), what=f"the SDK servers' process {self.pid} to end")
        self.proc, info = self._start()
        self.pid = info["pid"]

    def expire(self) -> None:
        httpx2.post(self.issuer + "/_test/expire", timeout=SAFETY).raise_for_status()

    def requests(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.record.read_text(encoding="utf-8").splitlines() if line]

    def registrations(self) -> list[dict[str, Any]]:
        """The registration requests received (their JSON bodies)."""
        return [json.loads(r["body"]) for r in self.requests() if r["path"] == "/register" and r["method"] == "POST"]

    def token_grants(self) -> list[str]:
        return [dict(parse_qsl(r["body"])).get("grant_type", "") for r in self.requests() if r["path"] == "/token"]

    def secrets(self) -> Secrets:
        """Everything secret this server issued (tokens, codes, client secrets; asked of the
        running process, remembered across restarts) or received (verifiers, secrets), by
        member name."""
        issued = httpx2.get(self.issuer + "/_test/issued", timeout=SAFETY).json()
        add_secrets(self.seen, [(kind[:-1], v) for kind in ("access_tokens", "refresh_tokens", "codes",
                                                            "client_secrets")
                                for v in issued[kind]])
        for r in self.requests():
            if r["method"] == "POST" and r["path"] in ("/token", "/revoke"):
                add_secrets(self.seen, parse_qsl(r["body"]) + basic_secret(r["headers"]))
        return self.seen

    def stop(self) -> None:
        stop_group(self.proc)


class OidcProviderServer:
    """oidc-provider (tests/servers/oidc_provider/server.mjs) and an SDK MCP server taking its
    JWT access tokens (tests/servers/jwt_resource_server.py)."""

    name = "oidc-provider"

    def __init__(self, tmp: Path, node: str, modules: Path, *extra: str, env: dict[str, str] | None = None,
                 dpop_resource: bool = False):
        self.tmp = tmp
        self.node, self.modules, self.extra, self.env = node, modules, extra, env
        self.record = tmp / "oidc-record.jsonl"
        # oidc-provider is told its resources' URLs, and they its URL: their listening
        # sockets are made here first, and each MCP server is handed its own.
        sockets = [socket.create_server(("127.0.0.1", 0)) for _ in range(2 if dpop_resource else 1)]
        try:
            urls = [f"http://127.0.0.1:{s.getsockname()[1]}/mcp" for s in sockets]
            self.mcp_url = urls[0]
            #: with `dpop_resource`, a second MCP server (same issuer) taking DPoP-bound tokens only
            self.dpop_url = urls[1] if dpop_resource else None
            self.port = str(fixed_port())  # one a restart can bind again (listening.fixed_port)
            self.proc, info = self._start()
            self.issuer = info["issuer"]
            self.rs = [self._resource(sockets[0], "bearer")]
            if dpop_resource:
                self.rs.append(self._resource(sockets[1], "required"))
        finally:
            for s in sockets:
                s.close()  # each server holds its own copy

    def _resource(self, sock: socket.socket, dpop: str) -> subprocess.Popen[bytes]:
        """tests/servers/jwt_resource_server.py serving on the listening socket `sock`, taking
        DPoP as `dpop` says. Started directly, not forked from the zygote (which takes no
        socket but the standard streams); it ends when this process does (common.serve_apps)."""
        port = sock.getsockname()[1]
        ready = self.tmp / f"rs-ready-{port}.json"
        proc, _ = start([PY, str(SERVERS / "jwt_resource_server.py"), "--issuer", self.issuer,
                         "--fd", str(sock.fileno()), "--ready-file", str(ready), "--dpop", dpop],
                        ready, self.tmp / f"rs-stderr-{port}.txt", pass_fds=(sock.fileno(),))
        return proc

    def _start(self) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
        resources = [w for url in (self.mcp_url, self.dpop_url) if url for w in ("--resource", url)]
        return start([self.node, str(SERVERS / "oidc_provider" / "server.mjs"), "--modules", str(self.modules),
                      *resources, "--port", self.port, "--ready-file", str(self.tmp / "oidc-ready.json"),
                      "--record", str(self.record), *self.extra],
                     self.tmp / "oidc-ready.json", self.tmp / "oidc-stderr.txt", self.env)

    def resource_dpop(self, url: str, mode: str) -> None:
        """The MCP server at `url` takes DPoP from now on as `mode` says (bearer, capable,
        required: tests/servers/oauth_identity.py `DpopPolicy`)."""
        httpx2.post(url.rsplit("/mcp", 1)[0] + "/_test/resource-dpop", params={"mode": mode},
                    timeout=SAFETY).raise_for_status()

    def restart_authorization_server(self) -> None:
        """End oidc-provider and start it again on the same port: it has forgotten every
        client, grant and token, and signs with new keys."""
        stop_group(self.proc)
        self.proc, _ = self._start()

    def expire(self, url: str | None = None) -> None:
        """The MCP server at `url` (default `mcp_url`) refuses every access token it has seen."""
        origin = (url or self.mcp_url).rsplit("/mcp", 1)[0]
        httpx2.post(origin + "/_test/expire", timeout=SAFETY).raise_for_status()

    def requests(self) -> list[dict[str, Any]]:
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text(encoding="utf-8").splitlines() if line]

    def registrations(self) -> list[dict[str, Any]]:
        return [r["request"] for r in self.requests() if r["route"] == "registration"]

    def token_grants(self) -> list[str]:
        return [r["params"].get("grant_type", "") for r in self.requests() if r["route"] == "token"]

    def secrets(self) -> Secrets:
        """Every secret member of the requests recorded and of their responses, by name."""
        found: Secrets = {}
        for r in self.requests():
            for doc in (r["params"], r["body"] or {}):
                add_secrets(found, doc.items())
        return found

    def stop(self) -> None:
        stop_group(self.proc)
        for rs in self.rs:
            stop_group(rs)


@pytest.fixture(scope="session")
def oidc_provider() -> tuple[str, Path]:
    """(node, node_modules) with oidc-provider installed; skips when it cannot be."""
    spec = importlib.util.spec_from_file_location("oidc_provider_install", SERVERS / "oidc_provider" / "install.py")
    assert spec is not None and spec.loader is not None
    install = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(install)
    try:
        return install.ensure_installed()
    except install.Unavailable as exc:
        pytest.skip(f"oidc-provider is not available: {exc}")


@pytest.fixture(params=["sdk", "oidc-provider"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SdkServer | OidcProviderServer]:
    """A third-party authorization server with its protected MCP server."""
    if request.param == "sdk":
        s: SdkServer | OidcProviderServer = SdkServer(tmp_path)
    else:
        node, modules = request.getfixturevalue("oidc_provider")
        s = OidcProviderServer(tmp_path, node, modules)
    yield s
    s.stop()


class Runs:
    """Every `mrtr` run of a test, for the check that nothing secret was printed."""

    def __init__(self, tmp: Path, browser: Browser):
        self.tmp, self.browser = tmp, browser
        self.all: list[Run] = []
        self.keys: set[str] = set()  # every DPoP key stored (its JWK text and its private part)

    def __call__(self, *args: str, code: int) -> Run:
        run = run_mrtr(self.tmp, *args, browser=self.browser, env={"MRTR_AUTH_WAIT": AUTH_WAIT})
        self.all.append(run)
        for path in store_files(self.tmp):
            for entry in (json.loads(path.read_text()).get("issuers") or {}).values():
                key = (entry.get("tokens") or {}).get("dpop_key")
                if isinstance(key, str):
                    self.keys |= {key, json.loads(key)["d"]}
        assert run.code == code, f"exit {run.code}, wanted {code}: {run.stderr}"
        return run

    def mechanism(self, url: str) -> str:
        """How the stored sign-in of `url` got its token (`auth status`: grant, binding)."""
        (row,) = json.loads(self("--url", url, "auth", "status", "--json", code=0).stdout)
        return str(row["mechanism"])

    def sign_in(self, url: str, *extra: str) -> Run:
        before = len(self.browser.finished())
        run = self("--url", url, "-v", "auth", "login", *extra, code=0)
        assert self.browser.wait_finished(before + 1)["event"] == "done"
        return run

    def assert_nothing_secret_printed(self, server: SdkServer | OidcProviderServer) -> None:
        found = server.secrets()
        add_secrets(found, [(k, v) for url in self.browser.visited() for k, v in parse_qsl(urlsplit(url).query)])
        assert {"access_token", "refresh_token", "code", "code_verifier"} <= set(found), sorted(found)
        secrets = set().union(*found.values()) | self.keys
        assert all(len(s) >= 16 for s in secrets), "a short value would match by chance"
        for run in self.all:
            for secret in secrets:
                assert secret not in run.stdout and secret not in run.stderr, (secret, run.stderr)


@pytest.fixture
def runs(tmp_path: Path, browser: Browser) -> Runs:
    return Runs(tmp_path, browser)


def whoami(runs: Runs, url: str, *extra: str) -> list[str]:
    """The scopes of the token the call carried (the `whoami` tool)."""
    out = runs("--url", url, *extra, "call", "whoami", code=0).stdout
    assert "client=" in out and "client=None" not in out, out
    return out.split("scopes=", 1)[1].split()


def registered_scopes(server: SdkServer | OidcProviderServer) -> list[str]:
    """The `scope` of the last registration request (what mrtr registered for)."""
    return str(server.registrations()[-1].get("scope") or "").split()


def test_sign_in_call_refresh_step_up_and_logout(server, runs, tmp_path):
    url = server.mcp_url
    runs.sign_in(url)
    # registered for the scopes it asks for (a client registered for none may be held to
    # the server's defaults, or to nothing)
    assert len(server.registrations()) == 1 and "mcp:read" in registered_scopes(server)
    assert "mcp:read" in whoami(runs, url) and "mcp:write" not in whoami(runs, url)
    assert server.token_grants() == ["authorization_code"]

    # the server refuses the access token: one refresh, and the call goes through; twice
    # (both servers rotate refresh tokens: the second refresh needs the one stored by the first)
    for refreshes in (1, 2):
        server.expire()
        assert "mcp:read" in whoami(runs, url, "-v")
        assert server.token_grants() == ["authorization_code"] + ["refresh_token"] * refreshes

    # a step-up beyond the first sign-in's scopes (the SDK's server refuses a scope the
    # client was not registered for: registered again, for both)
    runs.sign_in(url, "--scope", "mcp:write")
    assert {"mcp:read", "mcp:write"} <= set(registered_scopes(server))
    scopes = whoami(runs, url)
    assert "mcp:read" in scopes and "mcp:write" in scopes, scopes

    out = runs("--url", url, "-v", "auth", "logout", code=0)
    # each (pinned) server answers its own way: the SDK's refuses both POSTs (400: its form
    # model wants a client_secret member even with Basic auth), so the tokens are only forgotten
    # here; oidc-provider revokes the refresh token
    endpoint, said = (("/revoke", "revocation failed; the tokens were forgotten here") if isinstance(server, SdkServer)
                      else ("/token/revocation", "revoked refresh token"))
    assert f"{endpoint} -> " in out.stderr and f": {said}\n" in out.stderr, out.stderr
    assert store_files(tmp_path) == []
    runs("--url", url, "auth", "status", code=8)
    runs.assert_nothing_secret_printed(server)


def test_a_forgotten_registration_is_registered_again(server, runs):
    url = server.mcp_url
    runs.sign_in(url)
    assert "mcp:read" in whoami(runs, url)
    server.restart_authorization_server()

    # the stored token is refused; its refresh too, the client being unknown now
    # (invalid_client): the registration is dropped, and the next sign-in registers again
    refused = runs("--url", url, "-v", "call", "whoami", code=8)
    assert "/token -> 401" in refused.stderr
    assert "auth login" in refused.stderr
    runs.sign_in(url)
    assert len(server.registrations()) == 2  # one before the restart, one after
    assert "mcp:read" in whoami(runs, url)
    runs.assert_nothing_secret_printed(server)


def test_oidc_provider_accepts_a_client_id_metadata_document(oidc_provider, tmp_path, https_documents, runs):
    node, modules = oidc_provider
    client_id = https_documents.url("/mrtr-client.json")
    https_documents.docs["/mrtr-client.json"] = {
        "client_id": client_id, "client_name": "mrtr", "application_type": "native",
        "redirect_uris": ["http://127.0.0.1/callback"], "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"], "token_endpoint_auth_method": "none"}
    server = OidcProviderServer(tmp_path, node, modules, "--cimd",
                                env={"NODE_EXTRA_CA_CERTS": str(tmp_path / "cert.pem")})
    try:
        runs.sign_in(server.mcp_url, "--client-metadata-url", client_id)
        assert server.registrations() == []
        assert "/mrtr-client.json" in https_documents.fetched
        out = runs("--url", server.mcp_url, "call", "whoami", code=0).stdout
        assert f"client={client_id}" in out
        runs.assert_nothing_secret_printed(server)
    finally:
        server.stop()


@pytest.fixture
def oidc_dpop(oidc_provider: tuple[str, Path], tmp_path: Path) -> Iterator[OidcProviderServer]:
    """oidc-provider (DPoP offered, as it ships) in front of two SDK MCP servers: one taking
    bearer tokens only (`mcp_url`), one taking DPoP-bound tokens only (`dpop_url`)."""
    node, modules = oidc_provider
    server = OidcProviderServer(tmp_path, node, modules, dpop_resource=True)
    yield server
    server.stop()


def test_oidc_provider_dpop_only_where_the_resource_takes_it(oidc_dpop, runs):
    bearer_url, dpop_url = oidc_dpop.mcp_url, oidc_dpop.dpop_url
    assert "ES256" in httpx2.get(oidc_dpop.issuer + "/.well-known/openid-configuration",
                                 timeout=SAFETY).json()["dpop_signing_alg_values_supported"]
    # a resource taking bearer tokens only, behind an authorization server offering DPoP: bearer
    runs.sign_in(bearer_url)
    assert "mcp:read" in whoami(runs, bearer_url, "--no-input")
    assert runs.mechanism(bearer_url) == "authorization code, bearer"
    # a resource requiring DPoP, behind the same authorization server: DPoP
    runs.sign_in(dpop_url)
    assert "mcp:read" in whoami(runs, dpop_url, "--no-input")
    assert runs.mechanism(dpop_url) == "authorization code, DPoP"
    # its refused token is refreshed once, still bound (the package checks the refresh's proof)
    oidc_dpop.expire(dpop_url)
    assert "mcp:read" in whoami(runs, dpop_url, "--no-input")
    assert runs.mechanism(dpop_url) == "authorization code, DPoP"
    assert oidc_dpop.token_grants() == ["authorization_code", "authorization_code", "refresh_token"]
    # turning DPoP off where the resource requires it: said so, before anything is asked
    refused = runs("--url", dpop_url, "auth", "login", "--no-dpop", code=8)
    assert "takes DPoP-bound tokens only" in refused.stderr and "DPoP is turned off" in refused.stderr
    assert "requires sign-in" not in refused.stderr
    assert oidc_dpop.token_grants() == ["authorization_code", "authorization_code", "refresh_token"]
    runs.assert_nothing_secret_printed(oidc_dpop)


def test_oidc_provider_stored_tokens_of_the_wrong_kind(oidc_dpop, runs):
    url = oidc_dpop.mcp_url
    # a DPoP-bound token stored for the bearer-only resource (asked for): dropped, not refreshed
    runs.sign_in(url, "--dpop")
    assert runs.mechanism(url) == "authorization code, DPoP"
    dropped = runs("--url", url, "--no-input", "call", "whoami", code=8)
    assert "the stored DPoP-bound token was dropped" in dropped.stderr, dropped.stderr
    assert f"requires sign-in; run: mrtr --url {url} auth login" in dropped.stderr
    assert oidc_dpop.token_grants() == ["authorization_code"]  # no refresh wasted
    runs.sign_in(url)
    assert "mcp:read" in whoami(runs, url, "--no-input")
    assert runs.mechanism(url) == "authorization code, bearer"
    # the resource now takes DPoP-bound tokens only: the stored bearer token is refreshed for
    # a DPoP-bound one (the package binds a refreshed access token to the proof's key)
    oidc_dpop.resource_dpop(url, "required")
    assert "mcp:read" in whoami(runs, url, "--no-input")
    assert runs.mechanism(url) == "authorization code, DPoP"
    assert oidc_dpop.token_grants() == ["authorization_code", "authorization_code", "refresh_token"]
    runs.assert_nothing_secret_printed(oidc_dpop)
