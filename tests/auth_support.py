"""Fixtures for the sign-in tests: a real protected MCP server with its OAuth
authorization server (tests/servers/oauth_server.py) and a stand-in browser
(tests/oauth_browser.py) to set as `BROWSER`.

`oauth_server(*options)` starts a server (options as in oauth_server.py's docstring) and returns
an `OAuthServer`; every server started is ended (its whole process group) at teardown.
`browser` gives the environment that makes `webbrowser` run the stand-in browser and reads what
it visited.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.bounds import SAFETY
from tests.prefork import launch_argv, stop_group
from tests.probe_bound import check_probe_bound, served
from tests.servers.common import send_json
from tests.terminals import spawn_pty

ROOT = Path(__file__).resolve().parent.parent
OAUTH_SERVER = ROOT / "tests" / "servers" / "oauth_server.py"
OAUTH_BROWSER = ROOT / "tests" / "oauth_browser.py"
PY = sys.executable
READY_TIMEOUT = SAFETY


def poll(check: Callable[[], Any], timeout: float, what: str, interval: float = 0.05) -> Any:
    """Call `check` until it returns something truthy (returned) or `timeout` seconds pass
    (RuntimeError naming `what`). A safety net, not a timing assumption."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(interval)


@dataclass
class OAuthServer:
    """One running oauth_server.py: `mcp_url` (the protected MCP endpoint), `issuer` (the
    authorization server, on another origin), `record` (every HTTP request both received)."""

    mcp_url: str
    issuer: str
    proc: subprocess.Popen[bytes]
    record: Path
    stderr: Path
    issuer2: str | None = None

    def stats(self, issuer: str | None = None) -> dict[str, Any]:
        """The server's /_test/stats (of `issuer`, default the first authorization server):
        token request counts and log, tokens issued, revocations..."""
        import httpx2

        return httpx2.get((issuer or self.issuer) + "/_test/stats", timeout=SAFETY).json()

    def switch_as(self) -> None:
        """(--second-as) The resource now names the second authorization server, and takes
        only its tokens."""
        import httpx2

        httpx2.post(self.issuer + "/_test/switch-as", timeout=SAFETY).raise_for_status()

    def expire_tokens(self) -> None:
        """From now on the server refuses every access token issued so far."""
        import httpx2

        httpx2.post(self.issuer + "/_test/expire", timeout=SAFETY).raise_for_status()

    def resource_dpop(self, mode: str) -> None:
        """(--dpop) The MCP server takes DPoP from now on as `mode` says: "bearer" (it knows
        nothing of DPoP), "capable" or "required" (tests/servers/oauth_identity.py `DpopPolicy`)."""
        import httpx2

        httpx2.post(self.issuer + "/_test/resource-dpop", params={"mode": mode}, timeout=SAFETY).raise_for_status()

    def drop_refresh_tokens(self) -> None:
        """From now on the server refuses every refresh token issued so far."""
        import httpx2

        httpx2.post(self.issuer + "/_test/drop-refresh", timeout=SAFETY).raise_for_status()

    def mcp_status(self, token: str) -> int:
        """The HTTP status the MCP endpoint answers an `initialize` carrying `token` with."""
        import httpx2

        body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "1"}}}
        return httpx2.post(self.mcp_url, json=body, timeout=SAFETY, headers={
            "authorization": f"Bearer {token}", "accept": "application/json, text/event-stream"}).status_code

    def secrets(self) -> list[str]:
        """Every access token, refresh token and client secret the server issued or holds."""
        s = self.stats()
        return s["access_tokens"] + s["refresh_tokens"] + s["client_secrets"]

    def requests(self) -> list[dict[str, Any]]:
        """The HTTP requests received (both origins): method, path, headers, body."""
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text(encoding="utf-8").splitlines() if line]


class OAuthServers:
    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.servers: list[OAuthServer] = []

    def start(self, *options: str) -> OAuthServer:
        n = len(self.servers)
        ready = self.tmp / f"oauth-ready-{n}.json"
        record = self.tmp / f"oauth-record-{n}.jsonl"
        stderr = self.tmp / f"oauth-stderr-{n}.txt"
        with open(stderr, "wb") as err:
            proc = subprocess.Popen(launch_argv(OAUTH_SERVER, "--ready-file", str(ready), "--record", str(record),
                                                 *options, owned=True), stdin=subprocess.DEVNULL,
                                                 stdout=subprocess.DEVNULL, stderr=err,
                                    start_new_session=True)

        def is_ready() -> dict[str, Any] | None:
            if proc.poll() is not None:
                raise RuntimeError(f"oauth_server.py exited with {proc.returncode}: {stderr.read_text()[-2000:]}")
            return json.loads(ready.read_text()) if ready.exists() else None

        info = poll(is_ready, READY_TIMEOUT, "oauth_server.py to listen")
        server = OAuthServer(served(info["mcp"]), info["issuer"], proc, record, stderr, info.get("issuer2"))
        self.servers.append(server)
        return server

    def stop(self) -> None:
        for server in self.servers:
            stop_group(server.proc)


@pytest.fixture
def oauth_server(tmp_path: Path) -> Iterator[Callable[..., OAuthServer]]:
    """A factory: `oauth_server("--token-lifetime", "5", ...)` starts a protected MCP server and
    its authorization server and returns an `OAuthServer`."""
    servers = OAuthServers(tmp_path)
    yield servers.start
    servers.stop()


@dataclass
class Browser:
    """The stand-in browser: `env` makes `webbrowser` (through `BROWSER`) run it; `events()` is
    what it did (see tests/oauth_browser.py)."""

    command: Path
    log: Path
    env: dict[str, str] = field(default_factory=dict)

    def events(self) -> list[dict[str, Any]]:
        sys.path.insert(0, str(OAUTH_BROWSER.parent))
        from oauth_browser import read_log

        return read_log(self.log)

    def opened(self) -> list[str]:
        """The URLs the browser was asked to open."""
        return [e["url"] for e in self.events() if e["event"] == "open"]

    def visited(self) -> list[str]:
        return [e["url"] for e in self.events() if e["event"] == "visit"]

    def finished(self) -> list[dict[str, Any]]:
        """The browser's end events so far: one per URL it opened and has finished with."""
        return [e for e in self.events() if e["event"] in ("done", "stopped", "error")]

    def wait_finished(self, count: int = 1, timeout: float = SAFETY) -> dict[str, Any]:
        """The `count`-th end event (done, stopped or error), once there is one."""
        ends = poll(lambda: len(self.finished()) >= count and self.finished(), timeout, "the browser to finish")
        return ends[count - 1]

    def kill_children(self) -> None:
        for e in self.events():
            if e["event"] == "child":
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(e["pid"], signal.SIGTERM)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    """The stand-in browser, with its log in tmp_path."""
    command = tmp_path / "test-browser"
    command.write_text(f"#!/bin/sh\nexec {shlex.quote(PY)} {shlex.quote(str(OAUTH_BROWSER))} \"$@\"\n")
    command.chmod(0o755)
    log = tmp_path / "browser-log.jsonl"
    b = Browser(command, log, {"BROWSER": str(command), "OAUTH_BROWSER_LOG": str(log)})
    yield b
    b.kill_children()


# ---------------------------------------------------------------------- running mrtr
@dataclass
class Run:
    """A finished `mrtr` process."""

    code: int
    stdout: str
    stderr: str


def mrtr_env(tmp_path: Path, browser: Browser | None = None, **extra: str) -> dict[str, str]:
    """The environment a test runs `mrtr` in: state under tmp_path, the stand-in browser as
    `BROWSER` (or, without `browser`, a `BROWSER` that fails the test if it is ever run)."""
    from tests.conftest import clean_env

    env = clean_env(tmp_path, extra)
    env.setdefault("MRTR_AUTH_WAIT", "60")  # a sign-in that never comes back fails in a minute, not five
    if browser is not None:
        env.update(browser.env)
    else:
        env["BROWSER"] = "/bin/false"
    return env


def run_mrtr(tmp_path: Path, *args: str, browser: Browser | None = None, env: dict[str, str] | None = None,
             input: str = "", timeout: float = SAFETY) -> Run:
    """Run `python -m mrtr_cli ARGS` without a terminal (stdin a pipe)."""
    check_probe_bound(args, env)
    proc = subprocess.run([PY, "-m", "mrtr_cli", *args], input=input, capture_output=True, text=True,
                          env={**mrtr_env(tmp_path, browser), **(env or {})}, cwd=ROOT, timeout=timeout,
                          start_new_session=True)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def spawn_mrtr(tmp_path: Path, *args: str, browser: Browser | None = None, env: dict[str, str] | None = None,
               stdout: Path | None = None) -> tuple[Any, Path]:
    """`mrtr ARGS` in a real pseudo-terminal (pexpect), stdout redirected to a file; everything
    the terminal showed is also copied to `tmp_path/pty-N.log`. Returns (child, stdout path)."""
    out = stdout or tmp_path / f"stdout-{time.monotonic_ns()}.txt"
    command = "exec " + " ".join(shlex.quote(a) for a in [PY, "-m", "mrtr_cli", *args]) + f" > {shlex.quote(str(out))}"
    child = spawn_pty("/bin/sh", ["-c", command], cwd=str(ROOT), env={**mrtr_env(tmp_path, browser), **(env or {})},
                      encoding="utf-8", timeout=SAFETY, dimensions=(50, 250))
    child.logfile_read = open(tmp_path / f"pty-{time.monotonic_ns()}.log", "w", encoding="utf-8")  # noqa: SIM115
    return child, out


def finish(child: Any, timeout: float = SAFETY) -> int:
    """Wait for a spawned `mrtr` to end; its exit status."""
    import pexpect

    child.expect(pexpect.EOF, timeout=timeout)
    child.close()
    if child.logfile_read:
        child.logfile_read.close()
    return child.exitstatus if child.exitstatus is not None else 128 + (child.signalstatus or 0)


def state_dir(tmp_path: Path) -> Path:
    """mrtr's state directory in a test (`XDG_STATE_HOME/mrtr`, see clean_env)."""
    return tmp_path / "state" / "mrtr"


def auth_dir(tmp_path: Path) -> Path:
    """The token store (/work/oauth-interface.md: `<state>/auth/`)."""
    return state_dir(tmp_path) / "auth"


def store_files(tmp_path: Path) -> list[Path]:
    """The token store's JSON documents, one per resource."""
    d = auth_dir(tmp_path)
    return sorted(d.glob("*.json")) if d.exists() else []


def expire_stored_tokens(tmp_path: Path) -> int:
    """Make every stored access token look expired to `mrtr` (its `expires_at` in the past), as
    time would; the server still accepts it. Returns how many were changed."""
    changed = 0
    for path in store_files(tmp_path):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for entry in (doc.get("issuers") or {}).values():
            tokens = entry.get("tokens") or {}
            if tokens.get("access_token"):
                tokens["expires_at"] = int(time.time()) - 60
                changed += 1
        mode = path.stat().st_mode & 0o777
        path.write_text(json.dumps(doc), encoding="utf-8")
        path.chmod(mode)
    return changed


def login_hint(url: str) -> str:
    """The command an exit-8 message names when nobody can sign in (docs/oauth.md)."""
    return f"mrtr --url {url} auth login"


def sign_in(tmp_path: Path, server: OAuthServer, browser: Browser, *extra: str) -> Run:
    """`mrtr --url URL auth login` through the stand-in browser (no terminal needed: the command
    itself is the consent); asserts it worked."""
    before = len(browser.finished())
    run = run_mrtr(tmp_path, "--url", server.mcp_url, "auth", "login", *extra, browser=browser)
    assert run.code == 0, run.stderr
    assert browser.wait_finished(before + 1)["event"] == "done"
    return run


def authorize_params(browser: Browser, n: int = -1) -> dict[str, str]:
    """The query parameters of the n-th authorization URL the browser was asked to open."""
    from urllib.parse import parse_qsl, urlsplit

    return dict(parse_qsl(urlsplit(browser.opened()[n]).query))


# ---------------------------------------------------------------------- JSON documents over HTTP(S)
class JsonDocuments:
    """JSON documents served on 127.0.0.1, over HTTPS with a self-signed certificate when
    `tls_dir` is given (Client ID Metadata Documents must be https:// URLs). `docs[path]` is a
    document (answered 200), a (status, document) or (status, document, headers) tuple, or a
    callable of this object giving either (it may block: a server that does not answer);
    it is read at each request (the query string is ignored). A document given as
    bytes is sent as it is (a hostile body: not JSON, too large, too deep). A POST to a path
    in `docs` is answered the same way (its body is read and dropped; a token or registration
    endpoint), to any other path with 501. Every path answered from `docs` (or 404) is
    appended to `fetched`;
    `url(path)` is a document's address."""

    def __init__(self, tls_dir: Path | None = None):
        import ssl
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.docs: dict[str, Any] = {}
        self.fetched: list[str] = []
        self.last_query = ""  # the query string of the last request (a callable may answer from it)
        self.last_body = b""  # the body of the last POST
        self.last_headers: dict[str, str] = {}  # the headers of the last request
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                outer.last_body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path.split("?")[0] not in outer.docs:
                    self.send_error(501)
                    return
                self.do_GET()

            def do_GET(self) -> None:
                outer.fetched.append(self.path)
                outer.last_headers = dict(self.headers)
                outer.last_query = self.path.partition("?")[2]
                entry = outer.docs.get(self.path.split("?")[0], (404, {"error": "not_found"}))
                entry = entry(outer) if callable(entry) else entry
                status, doc, *headers = entry if isinstance(entry, tuple) else (200, entry)
                send_json(self, status, doc if isinstance(doc, bytes) else json.dumps(doc).encode(),
                          headers[0] if headers else None)

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                import sys

                if not isinstance(sys.exc_info()[1], ConnectionError):  # a client gone: its own business
                    super().handle_error(request, client_address)

        self.server = Server(("127.0.0.1", 0), Handler)
        self.scheme = "http"
        if tls_dir is not None:
            cert, key = self_signed_certificate(tls_dir)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.scheme = "https"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def url(self, path: str = "") -> str:
        return f"{self.scheme}://127.0.0.1:{self.server.server_address[1]}{path}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def self_signed_certificate(tmp: Path) -> tuple[str, str]:
    """A certificate for 127.0.0.1 and its key, as PEM files in `tmp`."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp / "cert.pem", tmp / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_path), str(key_path)


@pytest.fixture
def scripted() -> Iterator[Callable[[], JsonDocuments]]:
    """Makes JSON document servers on 127.0.0.1 (`JsonDocuments`): `.docs[path] = (status,
    doc)`, `.fetched` lists the paths asked for; each is stopped at teardown."""
    made: list[JsonDocuments] = []

    def make() -> JsonDocuments:
        made.append(JsonDocuments())
        return made[-1]

    yield make
    for server in made:
        server.stop()


@pytest.fixture
def https_documents(tmp_path: Path) -> Iterator[JsonDocuments]:
    """JSON documents over HTTPS on 127.0.0.1 (self-signed)."""
    docs = JsonDocuments(tmp_path)
    yield docs
    docs.stop()


def young_objects_around(code: str, *args: str) -> list[int]:
    """The numbers `code` prints (e.g. `gc.get_count()[0]`, the youngest generation's
    count, before and after a lazy import), run in a fresh interpreter with `gc` and `sys`
    imported and the entry point's collection threshold set (mrtr_cli/cli/entry.py)."""
    lead = "import gc, sys\nfrom mrtr_cli.cli.entry import GC_YOUNG_THRESHOLD\ngc.set_threshold(GC_YOUNG_THRESHOLD)\n"
    out = subprocess.run([PY, "-c", lead + code, *args], capture_output=True, text=True, cwd=ROOT, timeout=SAFETY,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    return [int(n) for n in out.stdout.split()]
