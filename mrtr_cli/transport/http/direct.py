"""The direct lane: POSTs to the URL the user gave, over pooled `http.client` connections.

httpx2 (with httpcore2 and h11 under it) spends about 0.4 ms of CPU on each request; the
standard library's `http.client` about a tenth of that. In a batch of many calls that is
most of what `mrtr` adds to each line (docs/performance.md, "Batch"), so the POSTs of
`HttpTransport` (requests and their MRTR rounds) go this way when nothing httpx2 does
beyond plain HTTP/1.1 is wanted:

- the URL is the user's own (`http://`, or `https://` verified with the context every
  client of mrtr verifies with, `tlsenv.verifying_context`), without credentials in it;
- no proxy applies to it (`httpenv.proxy_in_effect`), no HTTP trace is asked for;
- the cookie jar is empty, and every header name and value is ASCII.

When the URL is plain `http://` already in the form httpx2 would send it (`plain_url`) and
no proxy variable is set (`client_settings_in_env`), httpx2 is not even imported (the CA
variables are still checked at once, by `tlsenv.verifying_context`) until something needs
it (an upgrade below, a notification, a legacy session's streams): about 60 ms of CPU less
for every run over HTTP.

Anything else goes through httpx2 as before, and so does whatever the first response
asks for beyond a plain answer: a redirect is followed by `transport/http/redirects.py` (every
hop checked by the URL rule, and the address connected to by `transport/http/guard.py`),
cookies a response sets go into the client's jar (later requests then take httpx2's
way), and a compressed body is read through an `httpx2.Response`, which decodes it. The
headers sent are the client's own (`User-Agent`, `Accept-Encoding`, the user's `-H`) and
the request's, as httpx2 would send them.

The lane connects only to the host of the URL the user gave (no server-given host ever
comes here: the connect-time address check applies to those, and they go through httpx2).
Errors are raised as the httpx2 exceptions the transport already handles (`ConnectError`,
`ConnectTimeout`, `ReadTimeout`, `WriteTimeout`, `ReadError`, `RemoteProtocolError`,
`LocalProtocolError`), so a failure reads the same whichever way the request went.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import socket
import ssl
import threading
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from mrtr_cli import __version__

if TYPE_CHECKING:  # pragma: no cover
    import httpx2

#: Bytes read from the socket at a time (as httpx2 reads).
_CHUNK = 65536
#: The headers every request of the MCP transport carries unless the user sets them (`-H`):
#: httpx2's defaults, with mrtr's own name.
DEFAULT_HEADERS = (("Accept", "*/*"), ("Accept-Encoding", "gzip, deflate"), ("Connection", "keep-alive"),
                   ("User-Agent", f"mrtr/{__version__}"))
#: The proxy variables httpx2 reads: with any of them set, the transport's client is made at
#: once (httpx2 decides which URLs they cover, and refuses a value it cannot use).
_CLIENT_VARIABLES = frozenset(("http_proxy", "https_proxy", "all_proxy"))
_PLAIN_URL = re.compile(r"http://[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::[1-9][0-9]{0,4})?"
                        r"(?:/(?!\.\.?(?:/|\?|$))[A-Za-z0-9_~.-]*)*(?:\?[A-Za-z0-9_~.=&-]*)?")


def plain_url(url: str) -> bool:
    """`url` is plain `http://`, host, port and path written as httpx2 would send them (lower-case
    host, no default port, no dot segment, nothing to percent-encode), so it needs no
    normalizing."""
    match = _PLAIN_URL.fullmatch(url)
    return match is not None and not url.split("/", 3)[2].endswith(":80")


def client_settings_in_env() -> bool:
    """A variable in `_CLIENT_VARIABLES` is set, not empty (any case; an empty one is no
    proxy, for httpx2 as for `urllib.request.getproxies`)."""
    return any(value and name.lower() in _CLIENT_VARIABLES for name, value in os.environ.items())
#: Seconds a request may take to be written when the caller gives no bound (httpx2's `write`).
WRITE_TIMEOUT = 60.0
#: Seconds `DirectLane.close` waits at most for the threads reading its connections to leave
#: them (they are woken at once: this bounds a thread that cannot get the interpreter).
CLOSE_WAIT = 2.0


class _Request:
    """What a response says of its request (`resp.request.url`, as an httpx2 response does)."""

    __slots__ = ("url", "method")

    def __init__(self, url: str):
        self.url = url
        self.method = "POST"


class DirectResponse:
    """One response of the direct lane, read as the transport reads an `httpx2.Response`:
    `status_code`, `headers` (case-insensitive `get` and `in`, `dict(...)`), `request.url`,
    `iter_bytes()` and `close()`. Closing it before its body is read (from any thread:
    that is how a request is aborted) ends its connection; after, the connection goes back
    to the lane's pool when the server keeps it open.
    """

    def __init__(self, lane: DirectLane, conn: http.client.HTTPConnection, raw: http.client.HTTPResponse):
        self._lane = lane
        self._conn = conn
        self._raw = raw
        self.status_code = raw.status
        self.headers = raw.msg
        self.request = _Request(lane.url)
        self._done = False
        self._closed = False
        self._lock = threading.Lock()

    def iter_bytes(self) -> Iterator[bytes]:
        """The body in blocks as they arrive (chunked or sized: `http.client` decodes the framing).

        Raises:
            httpx2.ReadTimeout: the socket's timeout passed with nothing read.
            httpx2.ReadError, httpx2.RemoteProtocolError: the connection failed or broke off.
        """
        raw = self._raw
        while True:
            try:
                with self._lane.reading():
                    chunk = raw.read1(_CHUNK)
            except TimeoutError as exc:
                raise _error("ReadTimeout", str(exc) or "timed out") from None
            except http.client.IncompleteRead:
                raise _error("RemoteProtocolError", "peer closed connection without sending complete message body") \
                    from None
            except (OSError, ValueError, http.client.HTTPException) as exc:  # ValueError: closed by an abort
                raise _error("ReadError", str(exc) or type(exc).__name__) from None
            if not chunk:
                if self._closed:  # closed by an abort meanwhile: the body was cut, not ended
                    raise _error("ReadError", "the response was closed")
                self._done = True
                return
            yield chunk

    def read_all(self) -> bytes:
        """The whole body (the caller bounds its size first)."""
        return b"".join(self.iter_bytes())

    def close(self) -> None:
        """Release the connection: back to the pool when the body was read to its end and the
        server keeps the connection, else closed (which aborts a read in another thread)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self._done and not self._raw.will_close:
            self._raw.close()
            self._lane.release(self._conn)
            return
        self._lane.discard(self._conn)

    def raw_headers(self) -> list[tuple[str, str]]:
        """The response's headers as (name, value) pairs, duplicates kept (for an httpx2 response)."""
        return list(self.headers.items())


class DirectLane:
    """Pooled HTTP/1.1 connections to one origin, for POSTs to one URL (the user's).

    Args:
        url: the URL as httpx2 normalizes it (`str(httpx2.URL(url))`).
        context: the TLS context for `https://` (None for `http://`).
        connect_timeout: seconds to open a connection (less when the caller has less left).
        base_headers: the client's own headers, sent on every request unless a request
            header of the same name replaces it.
    """

    def __init__(self, url: str, context: ssl.SSLContext | None, connect_timeout: float,
                 base_headers: list[tuple[str, str]]):
        parts = urlsplit(url)
        self.url = url
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port or (443 if self._https else 80)
        self._target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._context = context
        self._connect_timeout = connect_timeout
        self._base = {name.lower(): (name, value) for name, value in base_headers}
        self._idle: list[http.client.HTTPConnection] = []
        self._open: set[http.client.HTTPConnection] = set()
        self._lock = threading.Lock()
        self._closed = False
        self._readers = 0  # threads inside a blocking socket call of the lane (`reading`)
        self._quiet = threading.Condition(self._lock)

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Around each blocking call on a connection: `close` waits for the threads inside
        to leave (a thread left reading `http.client`'s buffered socket file while the
        interpreter shuts down can crash it)."""
        with self._lock:
            self._readers += 1
        try:
            yield
        finally:
            with self._lock:
                self._readers -= 1
                if not self._readers:
                    self._quiet.notify_all()

    def headers(self, headers: Mapping[str, str]) -> dict[str, str] | None:
        """The headers a request sends: the client's, then `headers` (same names replaced); None
        when one is not ASCII (httpx2's way then: it has its own encoding rules)."""
        out = dict(self._base)
        for name, value in headers.items():
            out[name.lower()] = (name, value)
        sent = dict(out.values())
        for name, value in sent.items():
            if not (name.isascii() and value.isascii()):
                return None
        return sent

    def post(self, body: bytes, headers: Mapping[str, str], left: float | None) -> DirectResponse:
        """POST `body` with `headers` (from `headers()`); `left` bounds every wait (seconds,
        None: no bound but `WRITE_TIMEOUT` for writing). Returns the response with its body
        unread.

        Raises:
            httpx2.ConnectError, httpx2.ConnectTimeout: no connection could be opened.
            httpx2.WriteTimeout, httpx2.ReadTimeout: `left` passed while sending or waiting.
            httpx2.RemoteProtocolError, httpx2.ReadError: the server broke off or sent no HTTP.
            httpx2.LocalProtocolError: a header the HTTP rules do not allow.
        """
        conn = self._take()
        if conn is None:
            conn = self._connect(left)
        with self.reading():
            failure = _failure(conn, body, self._target, headers, left)
        if isinstance(failure, http.client.HTTPResponse):
            return DirectResponse(self, conn, failure)
        self.discard(conn)
        raise _error(*failure) from None

    def upgraded(self, resp: DirectResponse, request: httpx2.Request) -> httpx2.Response:
        """`resp` as an `httpx2.Response` of `request`, its body streamed from the same
        connection (httpx2 decodes a `Content-Encoding`)."""
        import httpx2  # noqa: PLC0415 - needed only here and for errors

        class _Stream(httpx2.SyncByteStream):
            def __iter__(self) -> Iterator[bytes]:
                return resp.iter_bytes()

            def close(self) -> None:
                resp.close()

        return httpx2.Response(resp.status_code, headers=resp.raw_headers(), stream=_Stream(), request=request)

    def _take(self) -> http.client.HTTPConnection | None:
        """An idle connection the server has not closed, or None."""
        while True:
            with self._lock:
                if not self._idle:
                    return None
                conn = self._idle.pop()
            sock = conn.sock
            if sock is not None and not _readable(sock):
                return conn
            self.discard(conn)  # closed by the server (or it sent something unasked): not reused

    def _connect(self, left: float | None) -> http.client.HTTPConnection:
        timeout = self._connect_timeout if left is None else min(self._connect_timeout, left)
        conn: http.client.HTTPConnection
        if self._https:
            conn = http.client.HTTPSConnection(self._host, self._port, timeout=timeout, context=self._context)
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=timeout)
        try:
            conn.connect()
            conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except TimeoutError:
            conn.close()
            raise _error("ConnectTimeout", "timed out") from None
        except OSError as exc:  # ssl.SSLError is one: a certificate that does not verify
            conn.close()
            raise _error("ConnectError", str(exc)) from None
        with self._lock:
            closed = self._closed
            self._open.add(conn)
        if closed:
            self.discard(conn)
            raise _error("ConnectError", "the HTTP connection is closed")
        return conn

    def release(self, conn: http.client.HTTPConnection) -> None:
        """`conn` is free for the next request."""
        with self._lock:
            if not self._closed:
                self._idle.append(conn)
                return
        self.discard(conn)

    def discard(self, conn: http.client.HTTPConnection) -> None:
        """End `conn` (a read blocked on it in another thread returns at once)."""
        with self._lock:
            self._open.discard(conn)
        sock = conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        conn.close()

    def close(self) -> None:
        """End every connection; later requests fail to connect."""
        with self._lock:
            self._closed = True
            conns = list(self._open)
            self._idle.clear()
        for conn in conns:
            self.discard(conn)  # a blocked read returns at once
        with self._lock:  # and its thread leaves the socket before the run goes on (or ends)
            self._quiet.wait_for(lambda: not self._readers, CLOSE_WAIT)


def _error(kind: str, text: str) -> Exception:
    """The httpx2 error named `kind` (`ReadTimeout`, ...) with `text`: what the transport
    handles, whichever way the request went (httpx2 is imported here, on a failure only)."""
    import httpx2  # noqa: PLC0415 - lazy: a run without failures never needs it

    error: Exception = getattr(httpx2, kind)(text)
    return error


def _failure(conn: http.client.HTTPConnection, body: bytes, target: str, headers: Mapping[str, str],
             left: float | None) -> http.client.HTTPResponse | tuple[str, str]:
    """POST `body` on `conn` and read the response's head: the response, or what failed as
    (the name of the httpx2 error to raise, its text)."""
    sock = conn.sock
    try:
        sock.settimeout(WRITE_TIMEOUT if left is None else left)
        conn.request("POST", target, body, headers)
    except TimeoutError:
        return "WriteTimeout", "timed out sending the request"
    except ValueError as exc:  # an invalid header name or value (http.client checks them)
        return "LocalProtocolError", str(exc)
    except (OSError, http.client.HTTPException) as exc:
        return "WriteError", str(exc) or type(exc).__name__
    try:
        sock.settimeout(left)
        return conn.getresponse()
    except TimeoutError:
        return "ReadTimeout", "timed out waiting for the response"
    except http.client.RemoteDisconnected:
        return "RemoteProtocolError", "Server disconnected without sending a response."
    except (OSError, ValueError, http.client.HTTPException) as exc:
        return "RemoteProtocolError", str(exc) or type(exc).__name__


def _readable(sock: socket.socket) -> bool:
    """An idle connection's socket has something to read: the server closed it (or broke
    the protocol); either way it is not reused (as httpcore2 decides). A peek at the TCP
    stream without waiting (the raw socket's, under TLS too: a close there is a TCP
    event or unasked bytes), the same on every system."""
    try:
        sock.settimeout(0)
        socket.socket.recv(sock, 1, socket.MSG_PEEK)  # bytes, or b"" at the end: readable
    except BlockingIOError:
        return False  # nothing to read: the connection is as it was left
    except (OSError, ValueError):
        return True
    return True
