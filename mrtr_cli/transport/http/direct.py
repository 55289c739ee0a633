"""The direct lane: POSTs to the user's `http://` URL over pooled sockets, read by mrtr's own
HTTP/1.1 response reader.

httpx2 (with httpcore2 and h11 under it) spends about 0.4 ms of CPU on each request; this
lane about a tenth of that, which is most of what `mrtr batch` adds to each line
(docs/performance.md, "Batch"). `HttpTransport` sends its requests' POSTs this way when
nothing beyond plain HTTP/1.1 is wanted (plain `http://` to the user's URL, no credentials
in it, no proxy for it, no HTTP trace, an empty cookie jar, ASCII headers); anything else,
and whatever a response asks for beyond a plain answer (a redirect, cookies, a compressed
body), goes through httpx2 as before (transport/http/transport.py).

The reader holds to what h11 (httpx2's parser) allows, and refuses the rest with the error
httpx2 raises (`httpx2.RemoteProtocolError`), so a failure reads the same whichever way the
request went (tests/transport/http/test_lane.py feeds the same replies to both):

- h11's grammar (h11/_abnf.py): a status line of any `HTTP/d.d` version (below 1.1: no
  keep-alive), header values of no NUL and no whitespace but SP and HTAB, obs-fold
  continuation lines joined to the line before with one space, chunk sizes of up to 20 hex
  digits with an extension only straight after them, each chunk-size line and each chunk's
  data ended by CRLF (a bare LF there is refused, as h11 refuses it; a head's and a
  trailer's lines may end with a bare LF), trailer lines that are headers;
- a head (status line and headers) of at most `MAX_HEAD` bytes; interim 1xx answers
  (`103 Early Hints`, `102 Processing`) skipped, as many as come, as httpcore skips them
  (each head bounded by `MAX_HEAD`, all of them by the deadline); `101 Switching Protocols`
  refused (a POST asked for no upgrade);
- one `Content-Length` (repeats of the same value allowed, as h11 allows), digits only;
  `Transfer-Encoding: chunked` only, once; beside a `Content-Length` the body is read as
  chunked, as h11 reads it (RFC 9112 section 6.3 lets a client do either); chunk-size lines
  and the trailer block bounded by `MAX_HEAD`;
- a body shorter than its `Content-Length` (or a chunked body cut off) is an error, never a
  short answer.

Every wait (connect, send, each read) is bounded by the request's deadline, the whole of it:
a server trickling a byte at a time cannot outlive the caller's time. A connection's socket is
non-blocking once open, and each wait is the lane's own (`platform.sockets.wait_socket`): a
request costs a look at the idle socket, a send, and a wait and a read per block, with no
change of the socket's timeout mode between them (each such change is a system call that
hands the interpreter to another thread, and `-j 16` workers queue for it). httpx2 is imported by
the transport before any request (this module's import of it is a lookup): no worker thread
ever imports a module, which can crash an interpreter that is shutting down. `DirectLane.close`
wakes every thread blocked in one of its sockets and waits for them to leave it.

A pooled connection the server closed is noticed before it is used (a peek at the socket)
and dropped. The lane itself sends each request once: it never retries one that failed after
its first byte was written (when the write fails, it reads the server's early answer, as
httpcore does, and fails only when there is none). What the user sees can still be a request
sent twice: a failure after the request was sent ends its response stream, and the session
(protocol/session.py) re-issues such a request once, with a new id, as the 2026-07-28 spec
requires; so every difference from httpx2 where the lane refuses what httpx2 accepts can run
a tool twice.
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
import time
from collections.abc import Iterable, Iterator, Mapping

import httpx2

from mrtr_cli.platform.sockets import wait_socket
from mrtr_cli.transport.base import FRAMING_HEADERS

#: Bytes one head (status line and headers), one chunk-size line or one trailer block may
#: take (h11's `max_incomplete_event_size`).
MAX_HEAD = 16 * 1024
#: Seconds a request may take to be written when the caller gives no bound (httpx2's `write`).
WRITE_TIMEOUT = 60.0
#: Seconds `DirectLane.close` waits at most for the threads in its sockets to leave them
#: (they are woken at once: this bounds a thread that cannot get the interpreter).
CLOSE_WAIT = 2.0
#: Bytes read from a socket at a time.
_CHUNK = 65536
_LINE_END = re.compile(rb"\r?\n")
#: A chunk-size line ends with CRLF only (h11 finds the line by its CRLF).
_CRLF = re.compile(rb"\r\n")
_HEAD_END = re.compile(rb"\r?\n\r?\n")
# h11's grammar (h11/_abnf.py): any `HTTP/d.d` version; a reason phrase and a field value of
# no NUL and no whitespace but SP and HTAB (in a value only between visible bytes).
_FIELD_VCHAR = rb"[^\x00\s]"
_STATUS = re.compile(rb"HTTP/([0-9]\.[0-9]) ([0-9]{3})(?: (?:[ \t]|" + _FIELD_VCHAR + rb")*)?")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_BAD_VALUE = re.compile(r"[\x00\r\n]")
_CHUNK_SIZE = re.compile(rb"([0-9A-Fa-f]{1,20})(?:;.*)?[ \t]*")
_HEADER = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*((?:" + _FIELD_VCHAR + rb"+(?:[ \t]+"
                     + _FIELD_VCHAR + rb"+)*)?)[ \t]*")
_FOLD = re.compile(rb"[ \t]+")


def _refused(text: str) -> httpx2.RemoteProtocolError:
    return httpx2.RemoteProtocolError(text)


class Headers(Mapping[str, str]):
    """A response's headers: case-insensitive `get`, `in` and `[]` (repeated fields joined with
    ", ", as httpx2 joins them; names lower case), `raw()` in order with repeats."""

    __slots__ = ("_raw", "_joined")

    def __init__(self, raw: list[tuple[str, str]]):
        self._raw = raw
        joined: dict[str, str] = {}
        for name, value in raw:
            key = name.lower()
            joined[key] = f"{joined[key]}, {value}" if key in joined else value
        self._joined = joined

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._joined

    def __getitem__(self, name: str) -> str:
        return self._joined[name.lower()]

    def get(self, name: str, default: str | None = None) -> str | None:  # type: ignore[override]
        """The value of `name` (any case), or `default`: one look-up (Mapping's own `get` is three calls)."""
        return self._joined.get(name.lower(), default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._joined)

    def __len__(self) -> int:
        return len(self._joined)

    def raw(self) -> list[tuple[str, str]]:
        """(name, value) pairs as the server sent them, repeats kept."""
        return list(self._raw)


class _Request:
    """What a response says of its request (`resp.request.url`, as an httpx2 response does)."""

    __slots__ = ("url", "method")

    def __init__(self, url: str):
        self.url = url
        self.method = "POST"


class _Wire:
    """One connection's socket and what has been read from it but not used yet."""

    def __init__(self, sock: socket.socket, lane: DirectLane):
        self.sock = sock
        self.lane = lane
        self.buf = bytearray()

    def fill(self, deadline: float | None) -> bool:
        """Read what arrives (waiting until `deadline`, a `time.monotonic()` value or None);
        False at the end of the stream.

        Raises:
            httpx2.ReadTimeout: the deadline passed.
            httpx2.ReadError: the connection failed (or was closed by `DirectLane.close`).
        """
        sock = self.sock
        try:
            with self.lane.inside:
                while True:
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0 or not wait_socket(sock, False, left):
                        raise httpx2.ReadTimeout("timed out")
                    try:
                        data = sock.recv(_CHUNK)
                    except BlockingIOError:  # woken for nothing: wait again
                        continue
                    break
        except (OSError, ValueError) as exc:
            raise httpx2.ReadError(str(exc) or type(exc).__name__) from None
        self.buf += data
        return bool(data)

    def exactly(self, size: int, deadline: float | None, what: str) -> bytes:
        """The next `size` bytes (a few: the CRLF after a chunk's data).

        Raises:
            httpx2.RemoteProtocolError: the stream ended first.
        """
        while len(self.buf) < size:
            if not self.fill(deadline):
                raise _refused(f"peer closed connection in the middle of the {what}")
        block = bytes(self.buf[:size])
        del self.buf[:size]
        return block

    def line_block(self, end: re.Pattern[bytes], deadline: float | None, what: str) -> bytes:
        """Bytes up to and without `end` (`_LINE_END` or `_HEAD_END`: bare LF line ends are
        taken, as h11 takes them in a head and a trailer; `_CRLF`: a chunk-size line), at most
        `MAX_HEAD`.

        Raises:
            httpx2.RemoteProtocolError: longer than `MAX_HEAD`, or the stream ended first.
        """
        start = 0
        while True:
            found = end.search(self.buf, start)
            if found is not None:
                block = bytes(self.buf[:found.start()])
                del self.buf[:found.end()]
                return block
            if len(self.buf) > MAX_HEAD:
                raise _refused(f"{what} longer than {MAX_HEAD} bytes")
            start = max(0, len(self.buf) - 3)
            if not self.fill(deadline):
                if not self.buf and what == "response head":
                    raise _refused("Server disconnected without sending a response.")
                raise _refused(f"peer closed connection in the middle of the {what}")


def read_head(wire: _Wire, deadline: float | None) -> tuple[bytes, int, list[tuple[str, str]]]:
    """The final response's (HTTP version as sent, `b"1.1"`; status; headers), interim 1xx
    answers skipped, as many as come (as httpcore skips them; each head is bounded by
    `MAX_HEAD`, all of them by `deadline`).

    Raises:
        httpx2.RemoteProtocolError: a malformed or oversized head, or 101.
    """
    while True:
        head = wire.line_block(_HEAD_END, deadline, "response head")
        first, _, rest = head.partition(b"\n")
        first = first.removesuffix(b"\r")
        match = _STATUS.fullmatch(first)
        if match is None:
            raise _refused(f"illegal status line: {bytearray(first)!r}")  # as h11 words it
        status = int(match.group(2))
        headers = _parse_fields(rest)
        if status >= 200:
            return match.group(1), status, headers
        if status == 101 or status < 100:
            raise _refused(f"unexpected HTTP {status} to a POST")


def _parse_fields(block: bytes) -> list[tuple[str, str]]:
    """Header fields from `block` (lines without the final blank one); a line that begins
    with SP or HTAB continues the one before (obs-fold, RFC 9112 section 5.2), joined to it
    with one space, as h11 joins it.

    Raises:
        httpx2.RemoteProtocolError: a line that is no `name: value`, or a continuation line
            first.
    """
    fields: list[tuple[str, str]] = []
    if not block:
        return fields
    lines: list[bytes] = []
    for line in _LINE_END.split(block):
        fold = _FOLD.match(line)
        if fold is None:
            lines.append(line)
        elif not lines:
            raise _refused("continuation line at start of headers")
        else:
            lines[-1] += b" " + line[fold.end():]
    for line in lines:
        match = _HEADER.fullmatch(line)
        if match is None:
            raise _refused(f"illegal header line: {bytearray(line)!r}")  # as h11 words it
        fields.append((match.group(1).decode("ascii"), match.group(2).decode("latin-1")))
    return fields


def framing(status: int, headers: list[tuple[str, str]]) -> int | None:
    """How the body is framed: its length, -1 for chunked, None for "until the server closes".
    As h11 frames it: `Transfer-Encoding: chunked` wins over a `Content-Length` beside it (which
    must still be valid).

    Raises:
        httpx2.RemoteProtocolError: conflicting, negative or malformed `Content-Length`; a
            `Transfer-Encoding` other than one `chunked`.
    """
    lengths = {part.strip() for name, value in headers if name.lower() == "content-length"
               for part in value.split(",")}
    codings = [value.strip().lower() for name, value in headers if name.lower() == "transfer-encoding"]
    if len(lengths) > 1:
        raise _refused("conflicting Content-Length headers")
    length = lengths.pop() if lengths else None
    if length is not None and (not length.isdigit() or not length.isascii() or len(length) > 20):
        raise _refused("bad Content-Length")
    if codings and codings != ["chunked"]:
        raise _refused("Only Transfer-Encoding: chunked is supported")  # as h11 words it
    if status in (204, 304):
        return 0
    if codings:
        return -1
    return None if length is None else int(length)


class DirectResponse:
    """One response of the direct lane, read as the transport reads an `httpx2.Response`:
    `status_code`, `headers`, `request.url`, `iter_bytes()` and `close()`. Closing it before
    its body is read (from any thread: that is how a request is aborted) ends its connection;
    after, the connection goes back to the pool when the server keeps it open.
    """

    def __init__(self, lane: DirectLane, wire: _Wire, version: bytes, status: int,
                 raw: list[tuple[str, str]], deadline: float | None, *, reusable: bool = True):
        self._lane = lane
        self._wire = wire
        self.status_code = status
        self.headers = Headers(raw)
        self.request = _Request(lane.url)
        self._length = framing(status, raw)
        connection = (self.headers.get("connection") or "").lower()
        self._keep = reusable and version >= b"1.1" and "close" not in connection and self._length is not None
        self._deadline = deadline
        self._done = False
        self._closed = False
        self._lock = threading.Lock()

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """The headers as (name, value) pairs of the bytes the server sent, repeats kept (for
        an httpx2 response, which decodes them as its own connections' are: a value that is
        not ASCII, such as a `Location` with `é` in UTF-8, as text there too)."""
        return [(name.encode("latin-1"), value.encode("latin-1")) for name, value in self.headers.raw()]

    def iter_bytes(self) -> Iterator[bytes]:
        """The body in blocks as they arrive, its framing decoded.

        Raises:
            httpx2.ReadTimeout: the request's deadline passed.
            httpx2.ReadError: the connection failed or was closed (an abort).
            httpx2.RemoteProtocolError: the body ended short of its framing, or broke it.
        """
        if self._length is None:
            yield from self._until_close()
        elif self._length >= 0:
            yield from self._sized(self._length)
        else:
            yield from self._chunked()
        self._done = True

    def read_all(self) -> bytes:
        """The whole body (the caller bounds its size first)."""
        return b"".join(self.iter_bytes())

    def _take(self, most: int) -> bytes:
        wire = self._wire
        if not wire.buf and not wire.fill(self._deadline):
            if self._closed:  # closed by an abort meanwhile: the body was cut, not ended
                raise httpx2.ReadError("the response was closed")
            return b""
        data = bytes(wire.buf[:most])
        del wire.buf[:most]
        return data

    def _sized(self, length: int) -> Iterator[bytes]:
        left = length
        while left:
            data = self._take(min(left, _CHUNK))
            if not data:
                raise _refused("peer closed connection without sending complete message body: "
                               f"received {length - left} bytes, expected {length}")
            left -= len(data)
            yield data

    def _until_close(self) -> Iterator[bytes]:
        while data := self._take(_CHUNK):
            yield data

    def _chunked(self) -> Iterator[bytes]:
        wire = self._wire
        while True:
            line = wire.line_block(_CRLF, self._deadline, "chunk-size line")
            match = _CHUNK_SIZE.fullmatch(line)
            if match is None:
                raise _refused("illegal chunk header")
            size = int(match.group(1), 16)
            if not size:
                break
            yield from self._sized(size)
            if wire.exactly(2, self._deadline, "chunk end") != b"\r\n":
                raise _refused("malformed chunk footer (expected CRLF)")
        trailer: list[bytes] = []
        size = 0
        while line := wire.line_block(_LINE_END, self._deadline, "trailer"):
            size += len(line) + 2
            if size > MAX_HEAD:
                raise _refused(f"trailer longer than {MAX_HEAD} bytes")
            trailer.append(line)
        _parse_fields(b"\n".join(trailer))  # header lines, as h11 requires (and drops)

    def close(self) -> None:
        """Release the connection: back to the pool when the body was read to its end and the
        server keeps the connection, else closed (which ends a read in another thread)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self._done and self._keep and not self._wire.buf:
            self._lane.release(self._wire)
        else:
            self._lane.discard(self._wire)


class _Inside:
    """`with lane.inside:` around each use of a socket of a lane, counting the threads in them
    (`count`; `quiet` is notified when it falls to 0, under the lane's lock)."""

    __slots__ = ("_lock", "count", "quiet")

    def __init__(self, lock: threading.Lock):
        self._lock = lock
        self.count = 0
        self.quiet = threading.Condition(lock)

    def __enter__(self) -> None:
        with self._lock:
            self.count += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self.count -= 1
            if not self.count:
                self.quiet.notify_all()


class DirectLane:
    """Pooled HTTP/1.1 connections to the origin of one `http://` URL, for POSTs to it.

    Args:
        url: the URL as httpx2 normalizes it (`str(httpx2.URL(url))`), scheme `http`.
        host, port, target: where it connects and the request target it sends.
        connect_timeout: seconds to open a connection (less when the caller has less left).
        base_headers: the client's own headers, sent on every request unless a request
            header of the same name replaces it.
    """

    def __init__(self, url: str, host: str, port: int, target: str, connect_timeout: float,
                 base_headers: Iterable[tuple[str, str]]):
        self.url = url
        self._address = (host.encode("ascii"), port)  # bytes: getaddrinfo would load the idna codec
        named = f"[{host}]" if ":" in host else host  # an IPv6 address in brackets
        self._start = f"POST {target} HTTP/1.1\r\nHost: {named if port == 80 else f'{named}:{port}'}\r\n"
        self._connect_timeout = connect_timeout
        # The client's headers as lines, each checked once: (name in lower case, its line or
        # None when it is not ASCII, whether HTTP refuses it).
        self._base: list[tuple[str, str | None, bool]] = []
        for name, value in base_headers:
            if name.lower() not in FRAMING_HEADERS:
                try:
                    self._base.append((name.lower(), _header_line(name, value), False))
                except httpx2.LocalProtocolError:
                    self._base.append((name.lower(), None, True))
        self._idle: list[_Wire] = []
        self._open: set[_Wire] = set()
        self._lock = threading.Lock()
        self._closed = False
        #: Around each use of a socket: `close` waits for the threads inside to leave.
        self.inside = _Inside(self._lock)

    @property
    def _readers(self) -> int:
        """Threads inside a socket call of the lane (`inside`) at this moment."""
        return self.inside.count

    def head_bytes(self, headers: Mapping[str, str], length: int) -> bytes | None:
        """The request's head: the client's headers (repeats kept, in order), then `headers`,
        each of which replaces every client header of its name (case-insensitively), as httpx2
        merges them; the framing is the lane's own. None when a name or value is not ASCII
        (httpx2's way then).

        Raises:
            httpx2.LocalProtocolError: a header name or value HTTP does not allow.
        """
        given = [(name, value) for name, value in headers.items() if name.lower() not in FRAMING_HEADERS]
        replaced = {name.lower() for name, _ in given}
        lines = [self._start]
        for lower, line, refused in self._base:  # first, as httpx2 sends them
            if lower not in replaced:
                if refused:
                    raise httpx2.LocalProtocolError("Illegal header name or value")
                if line is None:
                    return None
                lines.append(line)
        for name, value in given:
            given_line = _header_line(name, value)
            if given_line is None:
                return None
            lines.append(given_line)
        lines.append(f"Content-Length: {length}\r\n\r\n")
        return "".join(lines).encode("ascii")

    def post(self, head: bytes, body: bytes, left: float | None) -> DirectResponse:
        """POST `body` after `head` (from `head_bytes`); `left` seconds bound the whole of it
        (None: no bound but `WRITE_TIMEOUT` for writing). Returns the response, body unread.

        When writing fails (the server answered early, a 413 or a 401 before reading the body,
        and closed), the response is read all the same, as httpcore reads it; only when there
        is none does the request fail, with the read's error.

        Raises:
            httpx2.ConnectError, httpx2.ConnectTimeout: no connection could be opened.
            httpx2.WriteTimeout, httpx2.ReadTimeout: `left` passed while sending or waiting.
            httpx2.WriteError, httpx2.ReadError: the connection failed.
            httpx2.RemoteProtocolError: the server broke off or broke HTTP/1.1.
        """
        deadline = None if left is None else time.monotonic() + left
        wire = self._take() or self._connect(left)
        try:
            written = True
            try:
                self._write(wire, head + body, deadline)
            except httpx2.WriteError:
                written = False  # a server may answer before it reads the body, then close
            version, status, raw = read_head(wire, deadline)
            return DirectResponse(self, wire, version, status, raw, deadline, reusable=written)
        except BaseException:
            self.discard(wire)
            raise

    def _write(self, wire: _Wire, data: bytes, deadline: float | None) -> None:
        if deadline is None:
            deadline = time.monotonic() + WRITE_TIMEOUT
        elif deadline - time.monotonic() <= 0:
            raise httpx2.WriteTimeout("timed out")
        sock, view = wire.sock, memoryview(data)
        try:
            with self.inside:
                while True:
                    try:
                        sent = sock.send(view)
                    except BlockingIOError:  # the socket's buffer is full: wait for room
                        sent = 0
                    view = view[sent:]
                    if not view:
                        return
                    left = deadline - time.monotonic()
                    if left <= 0 or not wait_socket(sock, True, left):
                        raise httpx2.WriteTimeout("timed out sending the request")
        except (OSError, ValueError) as exc:
            raise httpx2.WriteError(str(exc) or type(exc).__name__) from None

    def _take(self) -> _Wire | None:
        """An idle connection the server has not closed, or None."""
        while True:
            with self._lock:
                if not self._idle:
                    return None
                wire = self._idle.pop()
            if not _readable(wire.sock):
                return wire
            self.discard(wire)  # closed by the server (or it sent something unasked): not reused

    def _connect(self, left: float | None) -> _Wire:
        timeout = self._connect_timeout if left is None else min(self._connect_timeout, left)
        if timeout <= 0:
            raise httpx2.ConnectTimeout("timed out")
        try:
            sock = socket.create_connection(self._address, timeout=timeout)  # type: ignore[arg-type] # bytes host
        except TimeoutError:
            raise httpx2.ConnectTimeout("timed out") from None
        except OSError as exc:
            raise httpx2.ConnectError(str(exc) or type(exc).__name__) from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(False)  # each wait is the lane's own (`wait_socket`), bounded by the request's deadline
        wire = _Wire(sock, self)
        with self._lock:
            closed = self._closed
            self._open.add(wire)
        if closed:
            self.discard(wire)
            raise httpx2.ConnectError("the HTTP connection is closed")
        return wire

    def release(self, wire: _Wire) -> None:
        """`wire` is free for the next request."""
        with self._lock:
            if not self._closed:
                self._idle.append(wire)
                return
        self.discard(wire)

    def discard(self, wire: _Wire) -> None:
        """End `wire` (a read blocked on it in another thread returns at once)."""
        with self._lock:
            self._open.discard(wire)
        with contextlib.suppress(OSError):
            wire.sock.shutdown(socket.SHUT_RDWR)
        wire.sock.close()

    def close(self) -> None:
        """End every connection and wait (`CLOSE_WAIT` at most) for the threads in them to
        leave; later requests fail to connect."""
        with self._lock:
            self._closed = True
            wires = list(self._open)
            self._idle.clear()
        for wire in wires:
            self.discard(wire)  # a blocked read returns at once
        with self._lock:
            self.inside.quiet.wait_for(lambda: not self._readers, CLOSE_WAIT)


class _LaneStream(httpx2.SyncByteStream):
    """A lane response's body as an httpx2 stream (closing it closes the response)."""

    def __init__(self, resp: DirectResponse):
        self._resp = resp

    def __iter__(self) -> Iterator[bytes]:
        return self._resp.iter_bytes()

    def close(self) -> None:
        self._resp.close()


def upgraded(resp: DirectResponse, request: httpx2.Request, client: httpx2.Client) -> httpx2.Response:
    """`resp` as an `httpx2.Response` of `request` (its body streamed from the same connection;
    httpx2 decodes a `Content-Encoding`), its cookies kept in `client`'s jar."""
    wrapped = httpx2.Response(resp.status_code, headers=resp.raw_headers(), stream=_LaneStream(resp),
                              request=request)
    if "set-cookie" in resp.headers:
        client.cookies.extract_cookies(wrapped)
    return wrapped


def _header_line(name: str, value: str) -> str | None:
    """`name: value` and CRLF; None when either is not ASCII (httpx2's way then).

    Raises:
        httpx2.LocalProtocolError: a name or value HTTP does not allow.
    """
    if not (name.isascii() and value.isascii()):
        return None
    if _TOKEN.fullmatch(name) is None or _BAD_VALUE.search(value):
        raise httpx2.LocalProtocolError("Illegal header name or value")
    return f"{name}: {value}\r\n"


def _readable(sock: socket.socket) -> bool:
    """An idle connection's socket has something to read: the server closed it (or sent
    something unasked); either way it is not reused. A look without waiting."""
    try:
        return wait_socket(sock, False, 0)
    except (OSError, ValueError):
        return True
