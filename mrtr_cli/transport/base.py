"""The transport interface shared by stdio, Streamable HTTP and in-memory transports.

A transport carries JSON-RPC messages as dicts. It correlates responses with the
requests it sent (by JSON-RPC `id`) and hands every other incoming message
(notifications, and for older servers server-initiated requests) to the
`on_message` callback given to `start`. It knows nothing of MCP methods: the
protocol layer computes any HTTP headers and passes them in.

The interface is small (`Transport`); what only some transports offer is a declared face
a caller asks for, never an attribute it probes: `Transport.sessions()` gives the
`Sessions` face (Streamable HTTP's `Mcp-Session-Id` sessions of 2025-11-25) or None, and
`Transport.process()` the `LocalProcess` face (stdio: a server process this run started)
or None.
What an HTTP transport is handed for sign-in is the `SignIn` hook. The errors a transport
raises are drawn in transport/errors.py.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from mrtr_cli.errors import ProtocolError, TransportError, UsageError
from mrtr_cli.jsonfile import (
    MAX_INT_DIGITS,
    NonFiniteNumber,
    UnreadableNumber,
    escape_lone_surrogates,
    parse_strict,
    wire_text,
)
from mrtr_cli.render.invocation import for_new_shell
from mrtr_cli.render.sanitize import sanitize

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.transport.future import Future

Message = dict[str, Any]
#: A message mrtr sends: built by mrtr (protocol/messages.py has its shapes), only read
#: and encoded here.
OutgoingMessage = Mapping[str, object]
MessageHandler = Callable[[Message], None]
#: Headers that frame an HTTP/1.1 request or route it (RFC 9112 sections 3.2, 6 and 9.6):
#: mrtr writes them itself; `config/target.check_header` refuses them from any header
#: source, and the direct lane never takes them from its caller.
FRAMING_HEADERS = frozenset(("content-length", "transfer-encoding", "host", "connection"))


class InvalidMessage(ProtocolError):
    """An incoming message that is JSON but not an acceptable one (exit 4): too large,
    nested too deeply, or holding a number JSON does not have.

    Attributes:
        request_id: the message's `id` when it could be read, so the request it answers
            fails with this error; None when unknown (then every pending request does).
    """

    def __init__(self, message: str, request_id: object = None, *, hint: str | None = None):
        super().__init__(message, hint=hint)
        self.request_id = request_key(request_id)


def request_key(value: object) -> str | int | None:
    """A message's `id` as mrtr's own requests can carry it (a string or an integer), or
    None for anything else a server may send there (null, a list, an object, a boolean, a
    fraction): such an id names no request of mrtr's, and is never used as a key."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


class NonFiniteMessage(InvalidMessage):
    """An incoming message holds NaN, Infinity or an overflowing number, which JSON does
    not have (exit 4)."""

    def __init__(self, token: str, request_id: object):
        from mrtr_cli.jsonfile import overflows  # noqa: PLC0415 - lazy for start-up time

        shown = sanitize(token[:40], single_line=True)
        if overflows(token):
            super().__init__(f"the server sent the number {shown}, too large to read (beyond a float)", request_id)
        else:
            super().__init__(f"the server sent {shown}, which is not a JSON number (JSON has no NaN or Infinity)",
                             request_id)


class NumberTooLongMessage(InvalidMessage):
    """An incoming message holds an integer of more than `jsonfile.MAX_INT_DIGITS` digits
    (exit 4)."""

    def __init__(self, digits: int, request_id: object):
        super().__init__(f"the server sent an integer of {digits} digits, over the limit of "
                         f"{MAX_INT_DIGITS} digits", request_id)


class MessageTooDeep(InvalidMessage):
    """An incoming message nests arrays and objects deeper than `limits.MAX_DEPTH` (exit 4)."""

    def __init__(self, request_id: object = None):
        from mrtr_cli.transport.limits import MAX_DEPTH  # noqa: PLC0415 - lazy for start-up time

        super().__init__(f"the server sent a message nested more than {MAX_DEPTH} levels deep "
                         f"(the limit on JSON from a server)", request_id)


class MessageTooLarge(InvalidMessage):
    """An incoming message is larger than the limit (`--max-message-size`; exit 4).

    Attributes:
        size: the bytes seen when the reader stopped (at least the limit + 1), or the
            size the server announced (`Content-Length`).
        limit: the limit in bytes.
    """

    def __init__(self, size: int, limit: int, *, exact: bool = False):
        from mrtr_cli.transport.limits import ENV_VAR, describe_size  # noqa: PLC0415 - lazy for start-up time

        if exact:
            text = f"the server sent a message of {describe_size(size)}, over the limit of {describe_size(limit)}"
        else:
            text = (f"the server sent a message over the limit of {describe_size(limit)} "
                    f"(mrtr stopped reading it at {size} bytes)")
        super().__init__(text,
                         hint=for_new_shell(f"raise the limit with --max-message-size SIZE (or {ENV_VAR}), e.g. "
                                            f"--max-message-size {max(2, 2 * ((size + (1 << 20) - 1) >> 20))}M"))
        self.size = size
        self.limit = limit


def decode_message(text: str | bytes, *, allow_overflow: bool = False) -> Any:
    """The JSON value of one incoming message (RFC 8259: no NaN or Infinity). With
    `allow_overflow`, a number too large for a float (`1e400`, which is valid JSON) is read
    as infinity for the caller to judge (an OAuth `expires_in`: "unknown"), instead of
    refusing the message.

    Raises:
        NonFiniteMessage: valid JSON to Python but with a non-finite number.
        NumberTooLongMessage: an integer of more than `jsonfile.MAX_INT_DIGITS` digits.
        MessageTooDeep: arrays and objects nest deeper than `limits.MAX_DEPTH`.
        ValueError: not JSON.
    """
    from mrtr_cli.transport.limits import MAX_DEPTH, too_deep  # noqa: PLC0415 - lazy for start-up time

    try:
        value = parse_strict(text)
    except RecursionError:  # far deeper than the limit: Python's own reader gave up
        raise MessageTooDeep() from None
    except UnreadableNumber as exc:
        try:  # read again, any number taken, to learn which request it answers
            lenient = json.loads(text, parse_int=_lenient_int)
        except ValueError:
            lenient = None
        except RecursionError:
            lenient = None
        rid = lenient.get("id") if isinstance(lenient, dict) else None
        if isinstance(exc, NonFiniteNumber):
            from mrtr_cli.jsonfile import overflows  # noqa: PLC0415 - lazy for start-up time

            if allow_overflow and overflows(exc.token):
                return _with_overflow(text)
            raise NonFiniteMessage(exc.token, rid) from None
        raise NumberTooLongMessage(len(exc.token.lstrip("-")), rid) from None
    # Counting brackets is cheap; only a message with enough of them is walked.
    if isinstance(value, (dict, list)) and _brackets(text) > MAX_DEPTH and too_deep(value):
        raise MessageTooDeep(value.get("id") if isinstance(value, dict) else None)
    return value


def _with_overflow(text: str | bytes) -> Any:
    """`text` read with numbers beyond a float as infinity, still refusing NaN and Infinity
    and too-long integers (`decode_message`'s `allow_overflow`).

    Raises:
        NonFiniteMessage, NumberTooLongMessage, MessageTooDeep: as `decode_message`.
    """
    from mrtr_cli.transport.limits import MAX_DEPTH, too_deep  # noqa: PLC0415 - lazy for start-up time

    def constant(token: str) -> Any:
        raise NonFiniteMessage(token, None)

    def integer(token: str) -> int:
        if len(token.lstrip("-")) > MAX_INT_DIGITS:
            raise NumberTooLongMessage(len(token.lstrip("-")), None)
        return int(token)

    try:
        value = json.loads(text, parse_constant=constant, parse_int=integer)
    except RecursionError:
        raise MessageTooDeep() from None
    if isinstance(value, (dict, list)) and _brackets(text) > MAX_DEPTH and too_deep(value):
        raise MessageTooDeep()
    return value


def _lenient_int(token: str) -> int:
    """An integer token as an int, or 0 when it has too many digits to convert."""
    return int(token) if len(token) <= MAX_INT_DIGITS else 0


def _brackets(text: str | bytes) -> int:
    """How many `[` and `{` `text` holds (an upper bound on its depth)."""
    if isinstance(text, str):
        return text.count("[") + text.count("{")
    return text.count(b"[") + text.count(b"{")


def decode_or_none(text: str | bytes, *, allow_overflow: bool = False) -> Any:
    """`decode_message(text)`, or None when `text` is not JSON (a stray line, an HTML page).

    Raises:
        InvalidMessage: JSON with NaN or Infinity in it, or nested too deeply.
    """
    try:
        return decode_message(text, allow_overflow=allow_overflow)
    except ValueError:  # not JSON (InvalidMessage is no ValueError: it goes on up)
        return None


def encode_message(message: OutgoingMessage) -> bytes:
    """One outgoing message as compact UTF-8 JSON.

    Text with no UTF-8 form (a lone surrogate such as "\\ud800", which a server's JSON can
    carry, e.g. in a `requestState` or an input key it expects back) is sent as the JSON
    escape it arrived as, so it is echoed exactly.

    Raises:
        UsageError: it holds a non-finite number (never sent: JSON has none).
    """
    try:
        text = wire_text(message)
    except ValueError:
        raise UsageError("a value to send holds NaN or Infinity, which JSON does not have") from None
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: sent as the escape it came as
        return escape_lone_surrogates(text).encode("utf-8")


class RequestTimeout(Exception):
    """`Transport.exchange` ran out of the time its caller gave it."""


#: Seconds left for a request (None: no bound), asked again as the request goes on.
Remaining = Callable[[], "float | None"]


class Sessions(Protocol):
    """The face of a transport with sessions (2025-11-25 Streamable HTTP "Session
    Management", "Resumability and Redelivery", "Listening for Messages from the Server"):
    what a legacy session asks of it. `Transport.sessions()` gives it, or None (stdio).
    """

    #: Headers sent on every later request (`Mcp-Session-Id` once the session has one).
    session_headers: dict[str, str]
    #: Resume a response stream closed before its final response (legacy sessions only;
    #: 2026-07-28 has no resumption).
    resume_streams: bool
    #: Called with the headers of every request's reply (the session id is read from them).
    on_response_headers: Callable[[Mapping[str, str]], None] | None

    def refuses_session_id(self, value: str) -> str | None:
        """Why `value` cannot be sent back as the session id, in a few words, or None
        when it can."""

    def open_event_stream(self, headers: Mapping[str, str] | None = None) -> None:
        """Open the optional stream of server-initiated messages (a GET); any failure
        just ends it."""

    def end_session(self, headers: Mapping[str, str] | None = None, timeout: float = 3.0) -> int | None:
        """End the session (a DELETE), best effort, forgetting its id whatever the answer:
        the status, or None when there was none or the server could not be reached."""


class LocalProcess(Protocol):
    """The face of a transport whose server is a process this run started (stdio: the
    server as a child process tree, 2026-07-28 `basic/transports/stdio`): what a caller
    asks of that process. `Transport.process()` gives it, or None (HTTP).
    """

    def end_at_once(self) -> None:
        """From now on `close` stops at once, with no grace period (shell completion, which
        must answer within `MRTR_COMPLETE_TIMEOUT`)."""

    def kill(self) -> None:
        """Stop at once, without waiting (a second Ctrl-C): the server's whole process
        group gets SIGKILL. Safe to call from a signal handler; never raises."""

    def alive(self) -> bool:
        """False once the server is known to be gone (its process exited or closed its
        stdout)."""

    def gone(self) -> TransportError | None:
        """Why the server is gone once `alive()` is False (e.g. "the server process exited with
        code 1"), else None."""

    def heard_from(self) -> bool:
        """False while the server has sent nothing at all (still starting)."""

    def unread_input(self) -> int | None:
        """Bytes sent to the server that it has not read yet (a server still starting has
        not begun reading its stdin), or None when the system cannot tell."""

    def describe_failure(self) -> str | None:
        """Extra lines for a transport failure (the server's last stderr lines), or None."""


def server_alive(transport: Transport) -> bool:
    """False once the server of `transport` is known to be gone: only a server process
    this run started can be (`LocalProcess.alive`); one reached afresh by every request
    (HTTP) never is."""
    process = transport.process()
    return process is None or process.alive()


def kill_server(transport: Transport | None) -> None:
    """Stop the server of `transport` at once when it is a process this run started
    (`LocalProcess.kill`: safe in a signal handler, never raises); nothing for a server
    reached by HTTP, or for None."""
    process = transport.process() if transport is not None else None
    if process is not None:
        process.kill()


class SignIn(Protocol):
    """The OAuth hook an HTTP transport is handed (transport/http/authhook.py `Authorizer`
    fits; the transport imports nothing of auth/): the headers of each request, and a new
    token when the server challenges one (2026-07-28 `basic/authorization`)."""

    def headers(self, method: str = "POST", url: str | None = None) -> dict[str, str]:
        """The `Authorization` (and `DPoP`) headers of a `method` request to `url`
        (None: the MCP endpoint); empty when there is no token."""

    def note_nonce(self, nonce: str | None) -> None:
        """A reply of the MCP server carried `DPoP-Nonce: nonce` (RFC 9449 section 9)."""

    def wait_idle(self) -> bool:
        """Block while a person signs in; True when one was."""

    def challenge(self, status: int, www_authenticate: str | None, sent: str | None,
                  nonce: str | None = None) -> bool:
        """A 401/403 came back for a request that carried token `sent`: True when the
        request should go again with new `headers()`. Raises AuthError, Interrupted."""

    def identity(self) -> dict[str, Any] | None:
        """Who is signed in, as a key of the list cache, or None."""


class Transport(ABC):
    """One connection to one server.

    Lifecycle: `start(on_message)` once, then any number of `request`/`send`
    calls from any thread, then `close()`.
    """

    #: A short description of the target for messages ("stdio: python srv.py", a URL).
    label: str = ""
    #: True when aborting a request is itself the cancellation signal (HTTP closes
    #: the SSE stream); False when the protocol must send `notifications/cancelled`.
    cancel_by_close: bool = False

    def wait_sign_in(self) -> bool:
        """Wait while a request of this transport waits for a token (OAuth, HTTP only: a
        person signing in, a stored token being refreshed); True when one was. A caller
        whose own short wait (the era probe's) ran out gives the request its time again
        afterwards: that time says nothing about the server."""
        return False

    @abstractmethod
    def start(self, on_message: MessageHandler) -> None:
        """Open the connection. `on_message` receives every message that is not a
        response to one of our requests in flight (a response to none, e.g. one cancelled,
        too: the session ignores it); it may be called from a reader thread.

        Raises:
            TransportError: the server cannot be started or reached.
        """

    @abstractmethod
    def request(self, message: OutgoingMessage, headers: Mapping[str, str] | None = None, *,
                budget: Remaining | None = None) -> Future[Message]:
        """Send a JSON-RPC request; the future resolves to its response message.

        `budget` tells the seconds the caller will wait (it enforces them itself): a
        transport that would wait on its own (HTTP 429's `Retry-After`) fails at once
        instead of waiting longer.

        The future fails with `TransportError` (server gone, broken stream, HTTP 5xx)
        or `AuthError` (HTTP 401/403). A JSON-RPC error response is a normal result.
        """

    #: True when `exchange` runs a request in the calling thread, which costs less than
    #: `request` (no hand-off to another thread) for a caller that may block: the worker
    #: threads of `mrtr batch` (a main thread waits on `request`'s future instead, so
    #: that Ctrl-C reaches it).
    inline_exchange: bool = False

    def exchange(self, message: OutgoingMessage, headers: Mapping[str, str] | None, remaining: Remaining) -> Message:
        """Send a request and return its response, in the calling thread.

        Raises:
            RequestTimeout: `remaining()` ran out (the request was abandoned, which on
                HTTP is the cancellation signal).
            TransportError, AuthError: as for `request`.
        """
        raise NotImplementedError

    @abstractmethod
    def send(self, message: OutgoingMessage, headers: Mapping[str, str] | None = None, *,
             timeout: float | None = None) -> None:
        """Send a notification or a response to a server request; no reply is awaited.

        `timeout`: at most this many seconds for the delivery (HTTP: the POST and its
        202; None: the transport's own bound, `SEND_TIMEOUT` on HTTP). A server that
        takes the message but never acknowledges it costs that bound, never a hang.

        Raises:
            TransportError: the message could not be delivered within the bound."""

    @abstractmethod
    def abort(self, request_id: object) -> None:
        """Stop waiting for `request_id`. HTTP closes the response stream (the
        2026-07-28 cancellation signal); stdio just forgets the request."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection (and stop a server process) cleanly. Idempotent."""

    def sessions(self) -> Sessions | None:
        """The transport's `Sessions` face (Streamable HTTP), or None when it has no
        sessions (stdio)."""
        return None

    def process(self) -> LocalProcess | None:
        """The transport's `LocalProcess` face (stdio: the server is a process this run
        started), or None when the server is reached afresh by every request (HTTP)."""
        return None

    def rebind(self, on_message: MessageHandler) -> None:
        """Route incoming messages to `on_message` from now on (a session taking over a
        started transport after an era probe). Transports read `self._on_message` at
        dispatch time, so this is a plain swap."""
        self._on_message = on_message
