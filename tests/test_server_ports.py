"""The test HTTP servers' ports: a server binds port 0 itself and reports the port it got
(tests/listening.py), so the URL a test is given is that server's, whatever else takes
ports on the machine meanwhile (another xdist worker's servers, other work)."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.conftest import SERVERS, url_args
from tests.listening import closed_port


class Decoy(BaseHTTPRequestHandler):
    """Another process's server: answers every request, and not as an MCP server would."""

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer()

    def _answer(self) -> None:
        body = b"a decoy, not the test's server"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_test_servers_url_is_that_servers_though_another_took_the_free_port(http_servers, mrtr, monkeypatch):
    decoy = ThreadingHTTPServer(("127.0.0.1", 0), Decoy)
    threading.Thread(target=decoy.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    taken = decoy.server_address
    try:
        with monkeypatch.context() as patch:
            # What a loaded machine does now and then, done every time: any port this test
            # process learns is free is one another process takes before the server binds it.
            patch.setattr(socket.socket, "getsockname", lambda self: taken)
            url = http_servers.start(SERVERS / "core_server.py")
        run = mrtr(*url_args(url), "ping")
        assert run.code == 0, run.stderr
        assert f":{taken[1]}/" not in url
    finally:
        decoy.shutdown()
        decoy.server_close()


def test_a_closed_port_refuses_and_cannot_be_taken():
    with closed_port() as port:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            raise AssertionError("a connection to the closed port was accepted")
        except ConnectionRefusedError:
            pass
        with socket.socket() as other:
            other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                other.bind(("127.0.0.1", port))
                raise AssertionError("another socket bound the held port")
            except OSError:
                pass
