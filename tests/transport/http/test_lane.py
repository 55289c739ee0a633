"""The direct lane of the HTTP transport (transport/http/direct.py) against raw-socket servers
on 127.0.0.1 that answer with scripted bytes: interim answers, bodies cut short, framing
httpx2 refuses, endless heads and trailers, trickling servers, connections closed between
requests, and a close while a thread waits in a socket. Where httpx2 refuses the same
reply, the error is the same class (and exit code) whichever way the request went.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from mrtr_cli.errors import TransportError
from mrtr_cli.transport.base import RequestTimeout
from mrtr_cli.transport.errors import BrokenStream
from mrtr_cli.transport.http.transport import HttpTransport
from tests.conftest import ROOT, SAFETY

#: What a scripted server does with one request: write these bytes (or call this with the socket).
Script = Callable[[socket.socket, int], None]


class RawServer:
    """An HTTP/1.1 server on 127.0.0.1 of raw sockets: each request read whole (head and
    Content-Length body) is recorded in `bodies`, then `script(sock, n)` answers request n
    (counted from 0 over all connections), its head in `heads`; after it the connection stays open for the next
    request unless the script closed it. `closed` is set each time the server closes one."""

    def __init__(self, script: Script):
        self.script = script
        self.bodies: list[bytes] = []
        self.heads: list[bytes] = []
        self.connections = 0
        self.closed = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}/mcp"
        self._stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._stop:
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _serve(self, sock: socket.socket) -> None:
        buf = b""
        try:
            while True:
                while b"\r\n\r\n" not in buf:
                    data = sock.recv(65536)
                    if not data:
                        return
                    buf += data
                head, _, buf = buf.partition(b"\r\n\r\n")
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                while len(buf) < length:
                    data = sock.recv(65536)
                    if not data:
                        return
                    buf += data
                self.heads.append(head)
                self.bodies.append(buf[:length])
                buf = buf[length:]
                self.script(sock, len(self.bodies) - 1)
                if sock.fileno() < 0:
                    self.closed.set()
                    return
        except OSError:
            return
        finally:
            sock.close()

    def stop(self) -> None:
        self._stop = True
        self._listener.close()


@pytest.fixture
def raw() -> Iterator[Callable[[Script], RawServer]]:
    made: list[RawServer] = []

    def start(script: Script) -> RawServer:
        made.append(RawServer(script))
        return made[-1]

    yield start
    for server in made:
        server.stop()


def request_id(body: bytes) -> Any:
    return json.loads(body)["id"]


def answer(body: bytes, *, extra: bytes = b"", status: bytes = b"200 OK") -> bytes:
    """A JSON-RPC result for the request `body`, as a whole HTTP response."""
    payload = json.dumps({"jsonrpc": "2.0", "id": request_id(body), "result": {"ok": True}}).encode()
    return (b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\n" + extra
            + b"Content-Length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload)


def message(n: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "t", "arguments": {}}}


@contextmanager
def opened(url: str, *, lane: bool = True, headers: dict[str, str] | None = None) -> Iterator[HttpTransport]:
    """A started transport, closed at the end; `lane=False`: httpx2's way (an HTTP trace
    turns the lane off)."""
    http = HttpTransport(url, headers=headers, on_http=None if lane else (lambda kind, info: None))
    http.start(lambda m: None)
    try:
        assert (http._lane is not None) is lane
        yield http
    finally:
        http.close()


def exchange(http: HttpTransport, n: int, seconds: float = SAFETY) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    return http.exchange(message(n), None, lambda: deadline - time.monotonic())


def failure(url: str, *, lane: bool) -> TransportError:
    with opened(url, lane=lane) as http, pytest.raises(TransportError) as caught:
        exchange(http, 1)
    return caught.value


def test_interim_answers_are_skipped_and_the_next_request_reads_its_own_reply(raw):
    def script(sock: socket.socket, n: int) -> None:
        body = server.bodies[n]
        sock.sendall(b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
                     b"HTTP/1.1 100 Continue\r\n\r\n" + answer(body))

    server = raw(script)
    with opened(server.url) as http:
        for n in range(3):
            assert exchange(http, n) == {"jsonrpc": "2.0", "id": n, "result": {"ok": True}}
    assert server.connections == 1  # one connection, each reply read whole


def test_101_is_refused(raw):
    upgrade = raw(lambda sock, n: sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n"))
    assert isinstance(failure(upgrade.url, lane=True), BrokenStream)


def cut_short(sock: socket.socket, n: int) -> None:
    sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"")
    sock.close()


def chunked_cut(sock: socket.socket, n: int) -> None:
    sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                 b"10\r\n{\"jsonrpc\": \"2.0")
    sock.close()


def headed(*lines: bytes) -> Script:
    def script(sock: socket.socket, n: int) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + b"".join(lines) + b"\r\n{}")
        sock.close()
    return script


def endless_headers(sock: socket.socket, n: int) -> None:
    sock.sendall(b"HTTP/1.1 200 OK\r\n" + b"X-Pad: " + b"a" * 1000 + b"\r\n" * 1)
    with pytest.raises(OSError):  # the client stops reading (and closes) long before this ends
        for _ in range(100_000):
            sock.sendall(b"X-Pad: " + b"a" * 1000 + b"\r\n")


def endless_trailers(sock: socket.socket, n: int) -> None:
    sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                 b"2\r\n{}\r\n0\r\n")
    with pytest.raises(OSError):
        for _ in range(100_000):
            sock.sendall(b"X-Trailer: " + b"a" * 1000 + b"\r\n")


REFUSED_BY_BOTH = {
    "body short of its Content-Length": cut_short,
    "chunked body cut off": chunked_cut,
    "conflicting Content-Length": headed(b"Content-Length: 2\r\nContent-Length: 3\r\n"),
    "negative Content-Length": headed(b"Content-Length: -2\r\n"),
    "Content-Length list": headed(b"Content-Length: 2, 3\r\n"),
    "Transfer-Encoding other than chunked": headed(b"Transfer-Encoding: gzip\r\n"),
    "two Transfer-Encoding headers": headed(b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"),
    "endless headers": endless_headers,
    "endless trailers": endless_trailers,
}


@pytest.mark.parametrize("case", REFUSED_BY_BOTH)
def test_a_reply_httpx2_refuses_is_refused_by_the_lane_with_the_same_error(raw, case):
    server = raw(REFUSED_BY_BOTH[case])
    lane, through_httpx2 = failure(server.url, lane=True), failure(server.url, lane=False)
    assert type(lane) is type(through_httpx2) is BrokenStream
    assert lane.exit_status == through_httpx2.exit_status


def _status_line_only(sock: socket.socket, n: int) -> None:
    sock.sendall(b"HTTP/2 200\r\nContent-Length: 2\r\n\r\n{}")
    sock.close()


#: Refusals whose words come from the reply (h11 quotes the line it refused).
WORDED_AS_HTTPX2 = {
    "a status line h11 does not read": _status_line_only,
    "a space before a header's colon": headed(b"Content-Type : application/json\r\n"),
    "a coding before chunked": headed(b"Transfer-Encoding: gzip, chunked\r\n"),
}


@pytest.mark.parametrize("case", WORDED_AS_HTTPX2)
def test_a_refused_reply_is_worded_as_httpx2_words_it(raw, case):
    server = raw(WORDED_AS_HTTPX2[case])
    lane, through_httpx2 = failure(server.url, lane=True), failure(server.url, lane=False)
    assert lane.message == through_httpx2.message


def test_a_repeated_equal_content_length_and_a_chunked_body_with_trailers_are_read(raw):
    def script(sock: socket.socket, n: int) -> None:
        payload = json.dumps({"jsonrpc": "2.0", "id": request_id(server.bodies[n]), "result": {}}).encode()
        if n == 0:
            size = str(len(payload)).encode()
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + size
                         + b"\r\nContent-Length: " + size + b"\r\n\r\n" + payload)
        else:
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                         + b"".join(b"%x;ext=1\r\n%s\r\n" % (1, payload[i:i + 1]) for i in range(len(payload)))
                         + b"0\r\nX-Trailer: yes\r\n\r\n")

    server = raw(script)
    with opened(server.url) as http:
        for n in range(3):
            assert exchange(http, n)["id"] == n
    assert server.connections == 1


def test_an_event_stream_reply_is_read_on_the_lane(raw):
    def script(sock: socket.socket, n: int) -> None:
        result = json.dumps({"jsonrpc": "2.0", "id": request_id(server.bodies[n]), "result": {"sse": True}})
        events = (f"data: {json.dumps({'jsonrpc': '2.0', 'method': 'notifications/progress', 'params': {}})}\n\n"
                  f"data: {result}\n\n").encode()
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                     + b"%x\r\n%s\r\n0\r\n\r\n" % (len(events), events))

    server = raw(script)
    with opened(server.url) as http:
        assert exchange(http, 7)["result"] == {"sse": True}


def test_a_connection_the_server_closed_between_requests_is_not_reused(raw):
    def script(sock: socket.socket, n: int) -> None:
        sock.sendall(answer(server.bodies[n]))  # keep-alive as far as the headers say
        sock.close()

    server = raw(script)
    with opened(server.url) as http:
        for n in range(3):
            server.closed.clear()
            assert exchange(http, n)["id"] == n
            assert server.closed.wait(SAFETY)
    assert [request_id(b) for b in server.bodies] == [0, 1, 2]  # each sent once
    assert server.connections == 3


def test_connection_close_is_honoured(raw):
    server = raw(lambda sock, n: sock.sendall(answer(server.bodies[n], extra=b"Connection: close\r\n")))
    with opened(server.url) as http:
        for n in range(2):
            assert exchange(http, n)["id"] == n
    assert server.connections == 2  # the server kept it open, but said it would not


def test_a_post_that_reached_the_server_is_never_sent_twice(raw):
    def script(sock: socket.socket, n: int) -> None:
        if n == 0:
            sock.sendall(answer(server.bodies[n]))
        else:
            sock.close()  # read the request, then went away without an answer

    server = raw(script)
    with opened(server.url) as http:
        exchange(http, 0)
        with pytest.raises(BrokenStream):
            exchange(http, 1)
    assert [request_id(b) for b in server.bodies] == [0, 1]


def test_a_trickling_reply_does_not_outlive_the_time_given(raw):
    stop = threading.Event()

    def script(sock: socket.socket, n: int) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
        while not stop.wait(0.05):
            sock.sendall(b" ")

    server = raw(script)
    given = 1.0
    try:
        with opened(server.url) as http:
            start = time.monotonic()
            with pytest.raises(RequestTimeout):
                exchange(http, 1, given)
            # Each byte arrives well within the time left: only a bound on the whole reply ends it.
            assert time.monotonic() - start < given + SAFETY / 4
    finally:
        stop.set()


def test_close_wakes_a_thread_waiting_for_a_reply_and_no_worker_imports(raw):
    """`close` returns with no thread left in a socket; no thread but the main one imports a
    module (an import on a worker while the interpreter ends can crash it), even on failures."""
    script = r"""
import sys, threading, time
from mrtr_cli.transport.http.transport import HttpTransport
url = sys.argv[1]
http = HttpTransport(url)
http.start(lambda m: None)
imports = []
sys.addaudithook(lambda event, args: event == "import" and threading.current_thread() is not threading.main_thread()
                 and imports.append(args[0]))
futures = [http.request({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {}}) for n in range(4)]
while len(http._lane._open) < 4:
    time.sleep(0.01)
http.close()
errors = []
for fut in futures:
    try:
        fut.result(30)
    except Exception as exc:
        errors.append(type(exc).__name__)
print(http._lane._readers, sorted(set(errors)), imports)
"""
    server = raw(lambda sock, n: None)  # reads each request, never answers
    proc = subprocess.run([sys.executable, "-c", script, server.url], capture_output=True, text=True, cwd=ROOT,
                          timeout=SAFETY)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "['BrokenStream']", "[]"], proc.stdout


@pytest.mark.parametrize("header", ["Content-Length: 5", "transfer-encoding: chunked", "Host: elsewhere",
                                    "Connection: close"])
def test_a_header_that_frames_the_request_is_refused_before_anything_is_sent(mrtr, raw, tmp_path, header):
    server = raw(lambda sock, n: sock.sendall(answer(server.bodies[n])))
    lines = tmp_path / "lines.jsonl"
    lines.write_text('{"call": "t"}\n')
    r = mrtr("--url", server.url, "-H", header, "batch", lines)
    assert r.code == 2
    assert r.stderr.splitlines() == [f"mrtr: error: -H {header.split(':')[0]}: mrtr sets this header itself "
                                     "(it frames the request); it cannot be given"]
    assert r.stdout == "" and server.bodies == []


def test_a_head_with_bare_line_feeds_is_read_as_httpx2_reads_it(raw):
    server = raw(lambda sock, n: sock.sendall(answer(server.bodies[n]).replace(b"\r\n", b"\n")))
    with opened(server.url) as http:
        for n in range(2):
            assert exchange(http, n)["id"] == n


def outcome(url: str, *, lane: bool) -> tuple[str, Any]:
    """What one request comes to: ("ok", the message) or (the error's class, its exit status)."""
    with opened(url, lane=lane) as http:
        try:
            return "ok", exchange(http, 1)
        except TransportError as exc:
            return type(exc).__name__, exc.exit_status


def _reply(head: bytes, chunked: bytes | None = None, *, version: bytes = b"HTTP/1.1",
           before: bytes = b"") -> Callable[[bytes], bytes]:
    """A reply to a request body: `before`, then `version 200 OK`, `head` lines, and the JSON-RPC
    result as a Content-Length body, or chunked with `chunked` % (size, payload)."""
    def make(body: bytes) -> bytes:
        payload = json.dumps({"jsonrpc": "2.0", "id": request_id(body), "result": {"ok": True}}).encode()
        start = before + version + b" 200 OK\r\nContent-Type: application/json\r\n" + head
        if chunked is None:
            return start + b"Content-Length: %d\r\n\r\n" % len(payload) + payload
        return start + b"Transfer-Encoding: chunked\r\n\r\n" + chunked % (len(payload), payload)
    return make


CHUNKED = b"%x\r\n%s\r\n0\r\n\r\n"
#: Replies where h11's grammar and a hand-written reader part easily: each must come to the
#: same outcome through the lane and through httpx2.
SAME_AS_HTTPX2 = {
    "HTTP/1.2 status line": _reply(b"", version=b"HTTP/1.2"),
    "HTTP/2.0 status line": _reply(b"", version=b"HTTP/2.0"),
    "HTTP/1.0 status line": _reply(b"", version=b"HTTP/1.0"),
    "HTTP/1.11 status line": _reply(b"", version=b"HTTP/1.11"),
    "status line without a reason": lambda body: _reply(b"")(body).replace(b" 200 OK", b" 200", 1),
    "NUL in the reason phrase": lambda body: _reply(b"")(body).replace(b" 200 OK", b" 200 O\x00K", 1),
    "obs-fold continuation line": _reply(b"X-A: a\r\n  b\r\n\tc\r\n"),
    "continuation line first": lambda body: _reply(b"")(body).replace(b"200 OK\r\n", b"200 OK\r\n X: y\r\n", 1),
    "NUL in a header value": _reply(b"X-A: a\x00b\r\n"),
    "vertical tab in a header value": _reply(b"X-A: a\x0bb\r\n"),
    "form feed in a header value": _reply(b"X-A: a\x0c\r\n"),
    "other control bytes in a header value": _reply(b"X-A: a\x01b\x7f\r\n"),
    "obs-text in a header value": _reply(b"X-A: \xe9\xff\r\n"),
    "space before the colon": _reply(b"X-A : a\r\n"),
    "20-digit chunk size": _reply(b"", b"%020x\r\n%s\r\n0\r\n\r\n"),
    "21-digit chunk size": _reply(b"", b"%021x\r\n%s\r\n0\r\n\r\n"),
    "whitespace before a chunk extension": _reply(b"", b"%x ; a=b\r\n%s\r\n0\r\n\r\n"),
    "whitespace after a chunk size": _reply(b"", b"%x \t\r\n%s\r\n0\r\n\r\n"),
    "chunk extensions": _reply(b"", b"%x;a=b;c=\"d\" \r\n%s\r\n0;x=y\r\n\r\n"),
    "bare LF after chunk data": _reply(b"", b"%x\r\n%s\n0\r\n\r\n"),
    "other bytes after chunk data": _reply(b"", b"%x\r\n%sXY0\r\n\r\n"),
    "bare LF chunk-size lines": _reply(b"", b"%x\n%s\r\n0\n\n"),
    "101 Switching Protocols before the answer": _reply(b"", before=b"HTTP/1.1 101 Switching Protocols\r\n\r\n"),
    "trailer line that is no header": _reply(b"", b"%x\r\n%s\r\n0\r\nnot a header\r\n\r\n"),
    "trailer headers": _reply(b"", b"%x\r\n%s\r\n0\r\nX-T: 1\r\nY: 2\r\n\r\n"),
    "folded trailer": _reply(b"", b"%x\r\n%s\r\n0\r\nX-T: 1\r\n 2\r\n\r\n"),
    "chunked beside a Content-Length": _reply(b"Content-Length: 5\r\n", CHUNKED),
    "chunked beside a bad Content-Length": _reply(b"Content-Length: x\r\n", CHUNKED),
    "Transfer-Encoding gzip, chunked": _reply(b"Transfer-Encoding: gzip, chunked\r\n"),
    "100 interim 102 Processing answers": _reply(b"", before=b"HTTP/1.1 102 Processing\r\n\r\n" * 100),
    "interim answers with headers": _reply(b"", before=b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" * 20),
}


@pytest.mark.parametrize("case", SAME_AS_HTTPX2)
def test_a_reply_comes_to_the_same_outcome_through_the_lane_and_through_httpx2(raw, case):
    server = raw(lambda sock, n: sock.sendall(SAME_AS_HTTPX2[case](server.bodies[n])))
    assert outcome(server.url, lane=True) == outcome(server.url, lane=False)


def test_interim_answers_beyond_the_old_limit_keep_a_long_call_alive_on_one_connection(raw):
    server = raw(lambda sock, n: sock.sendall(b"HTTP/1.1 102 Processing\r\n\r\n" * 50 + answer(server.bodies[n])))
    with opened(server.url) as http:
        for n in range(2):
            assert exchange(http, n)["id"] == n
    assert [request_id(b) for b in server.bodies] == [0, 1] and server.connections == 1



class EarlyServer:
    """An HTTP server on 127.0.0.1 that answers every request with `reply` as soon as it has
    its head, without reading the body, then closes (as a server with a body limit does)."""

    def __init__(self, reply: bytes):
        self.reply = reply
        self.heads = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}/mcp"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return
            with sock:
                buf = b""
                while b"\r\n\r\n" not in buf and (data := sock.recv(65536)):
                    buf += data
                self.heads += 1
                sock.sendall(self.reply)

    def stop(self) -> None:
        self._listener.close()


_TOO_LARGE = b'{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "body over 1 MB"}}'
EARLY_REPLIES = {
    "413 with a JSON-RPC error": (b"HTTP/1.1 413 Content Too Large\r\nContent-Type: application/json\r\n"
                                  b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(_TOO_LARGE), _TOO_LARGE)),
    "401 challenge": (b'HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm="x"\r\n'
                      b"Connection: close\r\nContent-Length: 0\r\n\r\n"),
}


@pytest.mark.parametrize("case", EARLY_REPLIES)
def test_an_early_answer_to_a_large_post_is_read_as_httpx2_reads_it(case):
    """The server answers before reading the body and closes: the write fails, and the answer
    is what the request comes to (not a broken stream, which the session would re-issue)."""
    server = EarlyServer(EARLY_REPLIES[case])
    big = {**message(1), "params": {"name": "t", "arguments": {"big": "x" * 20_000_000}}}

    def outcome_of(lane: bool) -> tuple[str, Any]:
        with opened(server.url, lane=lane) as http:
            deadline = time.monotonic() + SAFETY
            try:
                return "ok", http.exchange(big, None, lambda: deadline - time.monotonic())
            except Exception as exc:  # noqa: BLE001 - the outcome compared, whatever it is
                return type(exc).__name__, getattr(exc, "exit_status", None)

    try:
        lane, through_httpx2 = outcome_of(True), outcome_of(False)
    finally:
        server.stop()
    assert lane == through_httpx2
    assert lane[0] != "BrokenStream"
    assert server.heads == 2  # one request each way: nothing re-sent


def test_repeated_headers_whose_names_differ_in_case_are_all_sent(raw):
    server = raw(lambda sock, n: sock.sendall(answer(server.bodies[n])))
    for lane in (True, False):
        with opened(server.url, lane=lane, headers={"X-A": "2", "x-a": "3"}) as http:
            exchange(http, 1)
    sent = [[line for line in head.split(b"\r\n") if line.lower().startswith(b"x-a:")] for head in server.heads]
    assert sent == [[b"X-A: 2", b"x-a: 3"]] * 2


def test_a_lane_error_names_the_url_as_typed_and_no_redirect(refused_port):
    port = refused_port  # nothing listens there
    for url in (f"http://LOCALHOST:{port}/mcp", f"http://127.0.0.1:{port}/./mcp"):
        lane, through_httpx2 = failure(url, lane=True), failure(url, lane=False)
        assert "redirected" not in lane.message
        assert lane.message == through_httpx2.message
        assert url in lane.message
