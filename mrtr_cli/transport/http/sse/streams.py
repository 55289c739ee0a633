"""The SSE streams of Streamable HTTP beyond a POST's own reply: reading a response stream
up to its final response, resuming a stream the server closed before it (GET with
`Last-Event-ID`), and the optional GET stream of server-initiated messages.

Spec: 2025-11-25 `basic/transports` Streamable HTTP ("Listening for Messages from the
Server", "Resumability and Redelivery"); 2026-07-28 has no resumption, so `HttpTransport`
resumes only when the protocol layer sets `resume_streams` (older sessions). An SSE
event may be at most the message size limit (transport/limits.py).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mrtr_cli.errors import MrtrError, ProtocolError
from mrtr_cli.limits import describe_seconds
from mrtr_cli.render.sanitize import quote_value
from mrtr_cli.transport.base import InvalidMessage, Message, MessageHandler, Remaining, RequestTimeout, decode_message
from mrtr_cli.transport.errors import BrokenStream
from mrtr_cli.transport.http.echoed import unsendable
from mrtr_cli.transport.http.reply import SESSION_HEADER
from mrtr_cli.transport.http.retry import pause
from mrtr_cli.transport.http.sse.events import MAX_RETRY_MS, SseCursor, parse_sse_bytes
from mrtr_cli.transport.limits import max_message_size

if TYPE_CHECKING:  # pragma: no cover
    import httpx2


class EventStreams:
    """The stream reading of `transport.http.transport.HttpTransport` (a base class of it): it uses the
    transport's client, its `_send` (redirects followed by the same rules as a POST's), lock,
    response slots (`_responses`, so `close` and `abort` end a stream), trace hook,
    authorization headers and message handler.
    """

    # Declared here, set by `HttpTransport.__init__`.
    url: str
    session_headers: dict[str, str]
    _user_headers: dict[str, str]
    _client: httpx2.Client | None
    _on_message: MessageHandler
    _responses: dict[Any, httpx2.Response]
    _lock: threading.Lock
    _stream_thread: threading.Thread | None

    if TYPE_CHECKING:  # pragma: no cover - `HttpTransport`'s methods, declared for the type checker only
        def _send(self, request: httpx2.Request, remaining: Remaining | None = None) -> httpx2.Response: ...
        def _require_client(self) -> httpx2.Client: ...
        def _is_aborted(self, rid: object) -> bool: ...
        def _auth_headers(self, method: str = "POST", url: str | None = None) -> dict[str, str]: ...
        def _trace(self, kind: str, info: dict[str, Any]) -> None: ...
        def _trace_response(self, resp: httpx2.Response) -> None: ...
        def _connect_error(self, exc: Exception) -> MrtrError: ...

    def open_event_stream(self, headers: Mapping[str, str] | None = None) -> None:
        """Open the optional GET SSE stream for server-initiated messages (2025-11-25).

        Runs on a background thread; every request or notification on it goes to
        `on_message`. A server without one (405) or any failure just ends it; a
        stream the server closes is reopened (with `Last-Event-ID`) a few times.
        """
        if self._client is None or self._stream_thread is not None:
            return
        self._stream_thread = threading.Thread(
            target=self._run_event_stream, args=(dict(headers or {}),), name="mrtr-http-get", daemon=True)
        self._stream_thread.start()

    def _read_events(self, resp: httpx2.Response, rid: object, cursor: SseCursor,
                     remaining: Remaining | None) -> Message | None:
        """Read an SSE response stream: requests and notifications go to `on_message`; the
        response to `rid` is returned, or None when the stream ends before it."""
        for event in parse_sse_bytes(resp.iter_bytes(), cursor, max_event=max_message_size(strict=False)):
            if not event.data.strip():
                continue
            try:
                msg = decode_message(event.data)
            except ValueError:  # not JSON (an InvalidMessage goes on up as it is)
                raise ProtocolError("the server sent an SSE event that is not JSON") from None
            if not isinstance(msg, dict):
                raise ProtocolError("the server sent a JSON-RPC batch, which this protocol does not allow")
            if "method" in msg:
                self._on_message(msg)
                if remaining is not None and (left := remaining()) is not None and left <= 0:
                    raise RequestTimeout()
                continue
            if "result" in msg or "error" in msg:
                if msg.get("id") == rid or msg.get("id") is None:
                    return msg
                self._on_message(msg)  # a response to another request on this stream: not ours (-v notes it)
                continue
        return None

    def _resume(self, rid: object, cursor: SseCursor, headers: dict[str, str],
                remaining: Remaining | None) -> Message | None:
        """Resume the response stream of request `rid` that the server closed before the
        final response (2025-11-25 Streamable HTTP, "Resumability and Redelivery"): wait
        the server's `retry` delay (default 1 s; the client MUST respect it; at most
        `MAX_RETRY_MS`, and within the time left), then GET with `Last-Event-ID` and read on.
        Repeated while the server keeps sending events; after three reconnections that bring
        none, or a GET the server refuses, returns None.

        Raises:
            RequestTimeout: the time left is shorter than the delay.
            BrokenStream: the request was aborted meanwhile, the server asks for a
                delay over `MAX_RETRY_MS`, or its last event id cannot be sent back in
                `Last-Event-ID` (`transport.http.echoed`) (exit 3, at once: never waited for).
        """
        client = self._require_client()
        idle = 0
        while idle < 3:
            if cursor.last_id and (why := unsendable(cursor.last_id)):
                raise BrokenStream(f"the response stream from {self.url} ended before the final response, and it "
                                   f"cannot be resumed: its last event id {quote_value(cursor.last_id)} cannot be "
                                   f"sent back in Last-Event-ID ({why})")
            if cursor.retry_ms is not None and cursor.retry_ms > MAX_RETRY_MS:
                raise BrokenStream(f"the response stream from {self.url} ended before the final response, and the "
                                   f"server asks to wait more than the {describe_seconds(MAX_RETRY_MS / 1000)} mrtr "
                                   "waits before resuming it (SSE retry)")
            delay = (cursor.retry_ms if cursor.retry_ms is not None else 1000) / 1000
            left = remaining() if remaining is not None else None
            if left is not None and left <= delay:
                raise RequestTimeout()
            pause(delay, lambda: self._is_aborted(rid) or self._client is None)
            seen = cursor.last_id
            get_headers = {k: v for k, v in headers.items() if k.lower() not in ("accept", "content-type")}
            get_headers.update({"Accept": "text/event-stream", "Last-Event-ID": seen or ""})
            get_headers.update(self._auth_headers("GET"))
            self._trace("request", {"method": "GET", "url": self.url, "headers": {**self._user_headers, **get_headers}})
            try:
                resp = self._send(client.build_request("GET", self.url, headers=get_headers), remaining)
            except Exception as exc:  # noqa: BLE001
                raise self._connect_error(exc) from None
            with self._lock:
                self._responses[rid] = resp
            try:
                self._trace_response(resp)
                ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
                if resp.status_code != 200 or ctype != "text/event-stream":
                    return None
                msg = self._read_events(resp, rid, cursor, remaining)
            finally:
                with self._lock:
                    self._responses.pop(rid, None)
                resp.close()
            if msg is not None:
                return msg
            idle = 0 if cursor.last_id != seen else idle + 1
        return None

    def _run_event_stream(self, headers: dict[str, str]) -> None:
        cursor = SseCursor()
        failures = 0
        key = object()  # the stream's slot in _responses, so close() ends it
        while failures < 3:
            client = self._client
            if client is None or SESSION_HEADER not in self.session_headers:
                return
            if cursor.last_id and unsendable(cursor.last_id):
                return  # it cannot be reopened where it ended: the optional stream just ends
            all_headers = {"Accept": "text/event-stream", **self.session_headers, **headers,
                           **self._auth_headers("GET")}
            if cursor.last_id is not None:
                all_headers["Last-Event-ID"] = cursor.last_id
            self._trace("request", {"method": "GET", "url": self.url, "headers": all_headers})
            try:  # redirects are followed by the same rules as the POST's (transport/http/redirects.py)
                resp = self._send(client.build_request("GET", self.url, headers=all_headers))
            except Exception:  # noqa: BLE001 - the GET stream is optional
                return
            with self._lock:
                self._responses[key] = resp
            got = False
            try:
                self._trace_response(resp)
                ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
                if resp.status_code != 200 or ctype != "text/event-stream":
                    return  # e.g. 405: this server offers no GET stream
                for event in parse_sse_bytes(resp.iter_bytes(), cursor, max_event=max_message_size(strict=False)):
                    got = True
                    try:
                        msg = decode_message(event.data) if event.data.strip() else None
                    except (ValueError, InvalidMessage):  # a broken notification is dropped, the stream goes on
                        continue
                    if isinstance(msg, dict):  # a response here: no request waits for it on this stream (-v notes it)
                        self._on_message(msg)
            except Exception:  # noqa: BLE001 - a broken or closed stream just ends (or reopens)
                pass
            finally:
                with self._lock:
                    self._responses.pop(key, None)
                resp.close()
            failures = 0 if got else failures + 1
            if cursor.retry_ms is not None and cursor.retry_ms > MAX_RETRY_MS:
                return  # a longer wait than mrtr makes: the optional stream just ends
            try:
                pause(cursor.retry_ms / 1000 if cursor.retry_ms is not None else 0.5, lambda: self._client is None)
            except BrokenStream:  # the transport closed meanwhile
                return

