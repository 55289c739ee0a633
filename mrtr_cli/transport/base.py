"""The transport interface shared by stdio, Streamable HTTP and in-memory transports.

A transport carries JSON-RPC messages as dicts. It correlates responses with the
requests it sent (by JSON-RPC `id`) and hands every other incoming message
(notifications, and for older servers server-initiated requests) to the
`on_message` callback given to `start`. It knows nothing of MCP methods: the
protocol layer computes any HTTP headers and passes them in.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from mrtr_cli.errors import ProtocolError, UsageError
from mrtr_cli.jsonfile import NonFiniteNumber, dumps_strict, parse_strict
from mrtr_cli.render.sanitize import sanitize

if TYPE_CHECKING:  # pragma: no cover - concurrent.futures loads `logging`: imported when a request is made
    from concurrent.futures import Future

Message = dict[str, Any]
MessageHandler = Callable[[Message], None]


class NonFiniteMessage(ProtocolError):
    """An incoming message holds NaN, Infinity or an overflowing number, which JSON does
    not have (exit 4).

    Attributes:
        request_id: the message's `id` (read leniently), so the request it answers can
            fail with this error; None when there is none.
    """

    def __init__(self, token: str, request_id: Any):
        super().__init__(f"the server sent {sanitize(token[:40], single_line=True)}, which is not a JSON number "
                         "(JSON has no NaN or Infinity)")
        self.request_id = request_id


def decode_message(text: str | bytes) -> Any:
    """The JSON value of one incoming message (RFC 8259: no NaN or Infinity).

    Raises:
        NonFiniteMessage: valid JSON to Python but with a non-finite number.
        ValueError: not JSON.
    """
    try:
        return parse_strict(text)
    except NonFiniteNumber as exc:
        try:
            lenient = json.loads(text)
        except ValueError:
            lenient = None
        rid = lenient.get("id") if isinstance(lenient, dict) else None
        raise NonFiniteMessage(exc.token, rid) from None


def decode_or_none(text: str | bytes) -> Any:
    """`decode_message(text)`, or None when `text` is not JSON (a stray line, an HTML page).

    Raises:
        NonFiniteMessage: JSON with NaN or Infinity in it.
    """
    try:
        return decode_message(text)
    except ValueError:  # not JSON (NonFiniteMessage is no ValueError: it goes on up)
        return None


def encode_message(message: Message) -> bytes:
    """One outgoing message as compact UTF-8 JSON.

    Raises:
        UsageError: it holds a non-finite number (never sent: JSON has none), or text with
            no UTF-8 form (a lone surrogate): neither is valid, neither is sent.
    """
    try:
        text = dumps_strict(message, ensure_ascii=False, separators=(",", ":"))
    except ValueError:
        raise UsageError("a value to send holds NaN or Infinity, which JSON does not have") from None
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate ("\udc00"), which JSON input can carry
        raise UsageError(f"not sent: the text holds a lone surrogate (\\u{ord(exc.object[exc.start]):04x}), "
                         "which is not valid Unicode") from None


class RequestTimeout(Exception):
    """`Transport.exchange` ran out of the time its caller gave it."""


#: Seconds left for a request (None: no bound), asked again as the request goes on.
Remaining = Callable[[], "float | None"]


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
        """Wait while a person signs in for a request of this transport (OAuth, HTTP only);
        True when a sign-in was going on. A caller whose own short wait (the era probe's)
        ran out gives the request its time again afterwards."""
        return False

    def spawn(self) -> None:
        """Optionally get going before `start` (a stdio server process boots meanwhile);
        never raises: `start` reports any failure. Nothing to do for HTTP."""

    @abstractmethod
    def start(self, on_message: MessageHandler) -> None:
        """Open the connection. `on_message` receives every message that is not a
        response to one of our requests; it may be called from a reader thread.

        Raises:
            TransportError: the server cannot be started or reached.
        """

    @abstractmethod
    def request(self, message: Message, headers: Mapping[str, str] | None = None) -> Future[Message]:
        """Send a JSON-RPC request; the future resolves to its response message.

        The future fails with `TransportError` (server gone, broken stream, HTTP 5xx)
        or `AuthError` (HTTP 401/403). A JSON-RPC error response is a normal result.
        """

    #: True when `exchange` runs a request in the calling thread, which costs less than
    #: `request` (no hand-off to another thread) for a caller that may block: the worker
    #: threads of `mrtr batch` (a main thread waits on `request`'s future instead, so
    #: that Ctrl-C reaches it).
    inline_exchange: bool = False

    def exchange(self, message: Message, headers: Mapping[str, str] | None, remaining: Remaining) -> Message:
        """Send a request and return its response, in the calling thread.

        Raises:
            RequestTimeout: `remaining()` ran out (the request was abandoned, which on
                HTTP is the cancellation signal).
            TransportError, AuthError: as for `request`.
        """
        raise NotImplementedError

    @abstractmethod
    def send(self, message: Message, headers: Mapping[str, str] | None = None) -> None:
        """Send a notification or a response to a server request; no reply is awaited."""

    @abstractmethod
    def abort(self, request_id: Any) -> None:
        """Stop waiting for `request_id`. HTTP closes the response stream (the
        2026-07-28 cancellation signal); stdio just forgets the request."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection (and stop a server process) cleanly. Idempotent."""

    def kill(self) -> None:
        """Stop at once, without waiting (a second Ctrl-C): a stdio server's whole
        process group gets SIGKILL. Safe to call from a signal handler; never raises."""

    def alive(self) -> bool:
        """False once the server is known to be gone (a stdio server process that exited or
        closed its stdout). An HTTP server is reached afresh by every request: always True."""
        return True

    def describe_failure(self) -> str | None:
        """Extra lines for a transport failure (e.g. the server's last stderr lines)."""
        return None

    def rebind(self, on_message: MessageHandler) -> None:
        """Route incoming messages to `on_message` from now on (a session taking over a
        started transport after an era probe). Transports read `self._on_message` at
        dispatch time, so this is a plain swap."""
        self._on_message = on_message
