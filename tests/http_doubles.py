"""Small HTTP servers of the tests' own, for the redirect and proxy tests
(tests/transport/http/test_redirects.py, tests/transport/http/test_proxy.py): the `started`
fixture (each server it starts is stopped at teardown), an HTTP(S) server that answers as
a test scripts it and records what arrives (`Answering`), a TCP listener that records the
connections made to it (`Listener`, on the address no request may reach), a 2025-11-25
server whose GET stream and DELETE are redirected (`legacy_answer`), and the run inside a
loopback-only network namespace (`python -m tests.http_doubles SPEC`, started by the test
with `unshare -n -m`).
"""

from __future__ import annotations

import json
import os
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

#: The address no request may go to (cloud instance metadata), added to `lo` in the namespace.
METADATA = "169.254.169.254"
#: The bearer token every run inside the namespace is given: it must appear nowhere.
TOKEN = "redirect-t0ken-" + "4" * 12
#: A request that reached a test server: (method, path, headers, body).
Answer = tuple[int, dict[str, str], bytes]


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class Answering:
    """An HTTP server on `host` (HTTPS with `cert`, a (certificate, key) pair) answering each
    request with `answer(seen) -> (status, headers, body)`; `seen` lists what arrived."""

    def __init__(self, answer: Callable[[Seen], Answer], *, host: str = "127.0.0.1",
                 cert: tuple[str, str] | None = None):
        self.seen: list[Seen] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                got = Seen(self.command, self.path, dict(self.headers), self.rfile.read(length) if length else b"")
                outer.seen.append(got)
                status, headers, body = answer(got)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_DELETE = _answer  # noqa: N815 - the names http.server calls

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.scheme = "http"
        if cert is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*cert)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.server.handle_error = lambda request, address: None  # type: ignore[method-assign]
            self.scheme = "https"
        self.host = host
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def url(self, path: str = "/mcp", *, host: str | None = None) -> str:
        return f"{self.scheme}://{host or self.host}:{self.server.server_address[1]}{path}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def redirecting(status: int, location: str) -> Callable[[Seen], Answer]:
    """Every request answered `status` with `Location: location`."""
    return lambda seen: (status, {"Location": location}, b"")


class Listener:
    """A TCP listener on `host` that records the first bytes of every connection made to
    it (`connections`, in order of arrival) and closes it."""

    def __init__(self, host: str):
        self.sock = socket.create_server((host, 0))
        self.port = self.sock.getsockname()[1]
        self.connections: list[bytes] = []
        self.changed = threading.Condition()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                try:
                    first = conn.recv(200)
                except OSError:
                    first = b""
            with self.changed:
                self.connections.append(first)
                self.changed.notify_all()

    def wait_for(self, count: int, timeout: float = 60) -> None:
        with self.changed:
            self.changed.wait_for(lambda: len(self.connections) >= count, timeout)


def legacy_answer(forbidden: str) -> tuple[Callable[[Seen], Answer], threading.Event]:
    """A 2025-11-25 server with a session whose GET stream is redirected (HTTP 302) and
    whose DELETE is redirected (307) to `forbidden`; `tools/list` is answered once the GET
    stream was asked for (the returned event), so the run cannot end before it."""
    got_get = threading.Event()

    def answer(seen: Seen) -> Answer:
        if seen.method == "GET":
            got_get.set()
            return 302, {"Location": forbidden}, b""
        if seen.method == "DELETE":
            return 307, {"Location": forbidden}, b""
        msg = json.loads(seen.body)
        if "id" not in msg:
            return 202, {}, b""
        result: dict[str, Any] = {}
        if msg["method"] == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "legacy-redirects", "version": "1"}}
        elif msg["method"] == "tools/list":
            got_get.wait(60)
            result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
        body = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode()
        return 200, {"Content-Type": "application/json", "Mcp-Session-Id": "s-1"}, body

    return answer, got_get


@dataclass
class Case:
    """One run of `mrtr --url SERVER tools` against a server redirecting to `location`
    (`{port}`: the listener's port; `{case}`: `name`, so a connection that arrives says
    which case it came from)."""

    name: str
    status: int = 307
    location: str = "http://169.254.169.254:{port}/latest/meta-data/{case}"
    https: bool = False
    args: list[str] = field(default_factory=list)


def in_namespace(spec: dict[str, Any]) -> dict[str, Any]:
    """Inside the namespace (lo up, `METADATA` on it, /etc/hosts naming it): every case of
    `spec["cases"]` run, then the connect-time check in process, then one connection to the
    listener of this function's own (the control: the listener does accept). Returns
    {"runs": {name: {code, stdout, stderr, seen}}, "guard": ..., "connections": [...]}."""
    sys.path.insert(0, os.getcwd())
    listener = Listener(METADATA)
    port = listener.port
    cert = tuple(spec["cert"])
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update({"TOK": TOKEN, "SSL_CERT_FILE": cert[0]})
    runs: dict[str, Any] = {}
    for raw in spec["cases"]:
        case = Case(**raw)
        location = case.location.replace("{port}", str(port)).replace("{case}", case.name)
        if case.name == "legacy-get-and-delete":
            answer, got_get = legacy_answer(location)
        else:
            answer, got_get = redirecting(case.status, location), None
        server = Answering(answer, cert=cert if case.https else None)  # type: ignore[arg-type]
        # The era probe gets the whole --timeout (its default 2 s, counted from the send, can
        # run out on a loaded machine: mrtr would then speak 2025-11-25, another case).
        run = subprocess.run([sys.executable, "-m", "mrtr_cli", "--url", server.url(), "--bearer-token-env", "TOK",
                              "--timeout", "90", "--probe-timeout", "90", "-vv", *case.args, "tools"],
                             env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
        runs[case.name] = {"code": run.returncode, "stdout": run.stdout, "stderr": run.stderr,
                           "seen": [[s.method, s.path] for s in server.seen],
                           "got_get": None if got_get is None else got_get.is_set()}
        server.stop()
    guard = _connect_time_check(port, listener)
    listener.sock.close()
    return {"runs": runs, "guard": guard, "connections": [c.decode("latin-1") for c in listener.connections]}


def _connect_time_check(port: int, listener: Listener) -> dict[str, Any]:
    """The connect-time address check of mrtr's HTTP client, in process: a name that
    resolves to `METADATA` is refused within `server_given` (no connection made), and
    connected to outside it (the control connection, awaited)."""
    from mrtr_cli.transport.http.env import new_client

    url = f"http://sneaky.test:{port}/control"
    client = new_client(timeout=30)
    said = "nothing refused"
    try:
        from mrtr_cli.transport.http.guard import server_given
    except ImportError:  # a checkout without the check (to see these tests fail there)
        said = "no connect-time check"
    else:
        try:
            with server_given(lambda address: RuntimeError(f"refused {address}")):
                client.get(url)
        except RuntimeError as exc:
            said = str(exc)
    before = len(listener.connections)
    try:  # noqa: SIM105 - a catch of Exception stays marked for BLE001; suppress() would hide it
        client.get(url)  # the user's own URL: connected to
    except Exception:  # noqa: BLE001 - the listener closes without an answer
        pass
    listener.wait_for(before + 1)
    client.close()
    return {"said": said}


if __name__ == "__main__":
    print(json.dumps(in_namespace(json.loads(Path(sys.argv[1]).read_text()))))
