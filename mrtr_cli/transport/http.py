"""Streamable HTTP transport (2026-07-28 `basic/transports/streamable-http`).

Every message is one POST. A request's response is either `application/json`
(one JSON-RPC response) or `text/event-stream` (request-scoped notifications,
then the final response). Each request runs on its own worker thread so the
caller can wait with a deadline, be interrupted by Ctrl-C, and abort: closing
the SSE response stream is the 2026-07-28 cancellation signal.

For legacy (2025-11-25 and earlier) sessions the protocol layer adds
`session_headers` (`Mcp-Session-Id`), and the transport offers what legacy
Streamable HTTP needs: `SessionExpired` for a 404 on a request that carried a
session id, `end_session` (DELETE), `open_event_stream` (the optional GET
stream for server-initiated messages), and `resume_streams`: a response stream
the server closes before the final response is resumed with GET and
`Last-Event-ID` after the server's `retry` delay.

Bounds (docs/limits.md): a response body or one SSE event may be at most the
message size limit (transport/limits.py), read in blocks and refused beyond it
(exit 4, `MessageTooLarge`); HTTP 429 is retried `MAX_429_RETRIES` times after the
server's `Retry-After` (seconds or an HTTP date; without one 1, 2, 4 s), within the
time left and at most `MAX_RETRY_AFTER` seconds a wait, then fails (exit 4).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from mrtr_cli.errors import AuthError, ExitStatus, ProtocolError, TransportError
from mrtr_cli.render.sanitize import quote_value, sanitize
from mrtr_cli.transport.base import (
    InvalidMessage,
    Message,
    MessageHandler,
    MessageTooLarge,
    Remaining,
    RequestTimeout,
    Transport,
    decode_message,
    decode_or_none,
    encode_message,
)
from mrtr_cli.transport.limits import max_message_size
from mrtr_cli.transport.future import Future
from mrtr_cli.transport.sse import SseCursor, parse_sse_bytes

if TYPE_CHECKING:  # pragma: no cover
    import httpx

ACCEPT = "application/json, text/event-stream"
#: Retries of a request the server answers with HTTP 429 (Too Many Requests).
MAX_429_RETRIES = 3
#: The longest wait for one retry after a 429, in seconds (a longer Retry-After fails at once).
MAX_RETRY_AFTER = 60.0


class HttpStatusError(TransportError):
    """A non-2xx HTTP status without a JSON-RPC error body.

    Attributes:
        status: the HTTP status code.
        body: up to 2 KB of the response body, for era detection and diagnostics.
    """

    def __init__(self, message: str, status: int, body: str, *, hint: str | None = None):
        super().__init__(message, hint=hint)
        self.status = status
        self.body = body
        if 400 <= status < 500 and status not in (404, 405, 410):
            # The server is there and answered, but not with anything we understand.
            self.exit_status = ExitStatus.PROTOCOL


class BrokenStream(TransportError):
    """The response stream ended or failed before the final JSON-RPC response."""


class SessionExpired(HttpStatusError):
    """HTTP 404 on a request that carried `Mcp-Session-Id`: the legacy session is gone
    and the client must `initialize` again without it (2025-11-25 transports)."""


SESSION_HEADER = "Mcp-Session-Id"
#: New tokens one request may be sent again with (a sign-in, then step-ups: the suite
#: and the spec allow a few; the authorizer stops step-ups at 3 itself).
MAX_AUTH_RETRIES = 4
#: Seconds a notification or response POST may take to be acknowledged (202) unless
#: the caller gives its own bound: a server that takes it and never answers costs this.
SEND_TIMEOUT = 10.0


class HttpTransport(Transport):
    """POST JSON-RPC messages to one MCP endpoint.

    Args:
        url: the MCP endpoint, e.g. `http://127.0.0.1:8000/mcp`.
        headers: user headers (`-H`) sent on every request; values may be secrets.
        connect_timeout: seconds to establish a connection.
        on_http: optional trace hook called as `on_http(kind, info)` with kind
            "request" (method, url, headers) or "response" (status, headers).
        verify: TLS verification (True, False, or a CA bundle path).
        authorizer: the OAuth hook (`transport.authhook.Authorizer`), or None: its
            `headers()` go on every request (to this origin only), and a 401/403 asks its
            `challenge()` whether to send the request once more with a new token.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        connect_timeout: float = 10.0,
        on_http: Callable[[str, dict[str, Any]], None] | None = None,
        verify: bool | str = True,
        authorizer: Any = None,
    ):
        self.url = url
        self.label = url
        self.cancel_by_close = True
        self._user_headers = dict(headers or {})
        self._connect_timeout = connect_timeout
        self._on_http = on_http
        self._verify = verify
        self.authorizer = authorizer
        self._client: httpx.Client | None = None
        self._on_message: MessageHandler = lambda m: None
        self._responses: dict[Any, httpx.Response] = {}
        self._aborted: set[Any] = set()
        self._lock = threading.Lock()
        #: Headers the protocol layer adds to every later request (e.g. a legacy session id).
        self.session_headers: dict[str, str] = {}
        #: Resume a response stream closed before its final response (legacy sessions only:
        #: 2025-11-25 "Resumability and Redelivery"; 2026-07-28 has no resumption).
        self.resume_streams = False
        #: Called with the headers of every response (the protocol layer reads session ids).
        self.on_response_headers: Callable[[Mapping[str, str]], None] | None = None
        self._stream_thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self, on_message: MessageHandler) -> None:
        import httpx  # noqa: PLC0415 - imported only when HTTP is used (startup time)

        self._on_message = on_message
        self._home = httpx_origin(self.url)
        self._client = httpx.Client(
            headers=self._user_headers,
            timeout=httpx.Timeout(connect=self._connect_timeout, read=None, write=60.0, pool=None),
            follow_redirects=True,
            event_hooks={"request": [self._keep_headers_home]},
            verify=self._verify,
            # No cap of our own: concurrency is bounded by the caller (`batch -j`, at most 256),
            # and a request queued for a connection would wait outside its --timeout.
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=256),
        )

    def _keep_headers_home(self, request: httpx.Request) -> None:
        """A redirect to another origin (scheme, host, port) gets none of the user's `-H` /
        config headers: they may be credentials (httpx itself drops only Authorization)."""
        if (request.url.scheme, request.url.host, request.url.port) != self._home:
            for name in self._user_headers:
                request.headers.pop(name, None)
            if self.authorizer is not None:
                request.headers.pop("Authorization", None)  # the token goes to its resource only
                request.headers.pop("DPoP", None)  # and so does its proof

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with self._lock:
                responses = list(self._responses.values())
            for resp in responses:
                try:
                    resp.close()
                except Exception:  # noqa: BLE001
                    pass
            client.close()

    def end_session(self, headers: Mapping[str, str] | None = None, timeout: float = 3.0) -> int | None:
        """DELETE the legacy session (2025-11-25 "Session Management"); best effort.

        Sends the session headers; forgets the session id whatever the answer (405
        means the server does not allow clients to end sessions). Returns the HTTP
        status, or None when there was no session or the server could not be reached.
        """
        if SESSION_HEADER not in self.session_headers or self._client is None:
            return None
        all_headers = {**self.session_headers, **(headers or {}), **self._auth_headers("DELETE")}
        self._trace("request", {"method": "DELETE", "url": self.url, "headers": all_headers})
        try:
            resp = self._client.delete(self.url, headers=all_headers, timeout=timeout)
        except Exception:  # noqa: BLE001 - ending a session must never fail a run
            return None
        finally:
            self.session_headers.pop(SESSION_HEADER, None)
        self._trace("response", {"status": resp.status_code, "headers": dict(resp.headers)})
        return resp.status_code

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

    # ------------------------------------------------------------------ messages
    def request(self, message: Message, headers: Mapping[str, str] | None = None, *,
                budget: Remaining | None = None) -> Future[Message]:
        fut: Future[Message] = Future()
        thread = threading.Thread(
            target=self._run_request, args=(message, dict(headers or {}), fut, budget), name="mrtr-http", daemon=True
        )
        thread.start()
        return fut

    inline_exchange = True

    def exchange(self, message: Message, headers: Mapping[str, str] | None, remaining: Remaining) -> Message:
        return self._post(message, dict(headers or {}), remaining)

    def send(self, message: Message, headers: Mapping[str, str] | None = None, *,
             timeout: float | None = None) -> None:
        import httpx  # noqa: PLC0415

        client = self._require_client()
        body = encode_message(message)
        bound = SEND_TIMEOUT if timeout is None else timeout
        limit = httpx.Timeout(connect=min(self._connect_timeout, bound), read=bound, write=bound, pool=bound)
        retries = 0  # sign-in retries (401/403 with an OAuth hook)
        attempt = 0  # HTTP 429 retries, as for requests
        while True:
            all_headers = self._headers(headers)
            self._trace("request", {"method": "POST", "url": self.url, "headers": {**self._user_headers, **all_headers}})
            try:
                resp = client.send(client.build_request("POST", self.url, content=body, headers=all_headers,
                                                        timeout=limit), stream=True)
                try:  # nothing is expected back (202); whatever comes is read within a bound
                    acked = _read_capped(resp, 65536)
                finally:
                    resp.close()
            except httpx.TimeoutException:
                raise TransportError(f"the server at {self.url} did not acknowledge {_method(message)} "
                                     f"within {bound:g}s") from None
            except Exception as exc:  # noqa: BLE001
                raise self._connect_error(exc) from None
            self._trace("response", {"status": resp.status_code, "headers": dict(resp.headers)})
            if resp.status_code == 429:
                self._too_many_requests(resp, None, attempt, None, body=acked)  # raises past the last retry
                attempt += 1
                continue
            if resp.status_code not in (401, 403):
                self._note_nonce(resp)
                return
            retries += 1
            if retries > MAX_AUTH_RETRIES or not self._may_retry(resp, all_headers):
                raise self._auth_error(resp)

    def abort(self, request_id: Any) -> None:
        with self._lock:
            self._aborted.add(request_id)
            resp = self._responses.pop(request_id, None)
        if resp is not None:
            try:
                resp.close()
            except Exception:  # noqa: BLE001
                pass

    # ------------------------------------------------------------------ internals
    def _require_client(self) -> httpx.Client:
        if self._client is None:
            raise TransportError("the HTTP connection is closed")
        return self._client

    def _headers(self, headers: Mapping[str, str] | None) -> dict[str, str]:
        out = {"Accept": ACCEPT, "Content-Type": "application/json"}
        out.update(self.session_headers)
        out.update(headers or {})
        out.update(self._auth_headers())
        return out

    def wait_sign_in(self) -> bool:
        return self.authorizer is not None and self.authorizer.wait_idle()

    def _auth_headers(self, method: str = "POST") -> dict[str, str]:
        return self.authorizer.headers(method) if self.authorizer is not None else {}

    def _note_nonce(self, resp: httpx.Response) -> None:
        """Hand a response's `DPoP-Nonce` to the authorizer (RFC 9449 section 9)."""
        if self.authorizer is not None and "dpop-nonce" in resp.headers:
            self.authorizer.note_nonce(resp.headers["dpop-nonce"])

    def _may_retry(self, resp: httpx.Response, sent_headers: Mapping[str, str]) -> bool:
        """A 401/403 came back: True when the authorizer has a new token to send the request
        again with (sign-in, refresh, step-up: transport/authhook.py)."""
        if self.authorizer is None:
            return False
        scheme, _, token = sent_headers.get("Authorization", "").partition(" ")
        return bool(self.authorizer.challenge(resp.status_code, resp.headers.get("www-authenticate"),
                                              token if scheme in ("Bearer", "DPoP") and token else None,
                                              resp.headers.get("dpop-nonce")))

    def _trace(self, kind: str, info: dict[str, Any]) -> None:
        if self._on_http is not None:
            try:
                self._on_http(kind, info)
            except Exception:  # noqa: BLE001
                pass

    def _connect_error(self, exc: Exception) -> TransportError:
        import httpx  # noqa: PLC0415

        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
            return TransportError(f"cannot connect to {self.url}: {exc}", hint="is the server running at that address?")
        if isinstance(exc, httpx.TimeoutException):
            return TransportError(f"timed out talking to {self.url}: {exc}")
        if isinstance(exc, httpx.LocalProtocolError):
            # httpx quotes the request's header values here: never shown (they may be credentials).
            return TransportError(f"the request to {self.url} could not be sent (a header or the URL is not valid HTTP)")
        if isinstance(exc, httpx.HTTPError):
            return BrokenStream(f"the connection to {self.url} failed: {exc}")
        return TransportError(f"HTTP request to {self.url} failed: {exc}")

    def _auth_error(self, resp: httpx.Response) -> AuthError:
        challenge = resp.headers.get("www-authenticate")
        hint = ("the server refuses this signed-in request" if self.authorizer is not None else
                "pass credentials with -H 'Authorization: Bearer ...' or --bearer-token-env VAR")
        if challenge:
            hint = f"server says: WWW-Authenticate: {sanitize(challenge, single_line=True)[:300]}\n{hint}"
        verb = "refused" if resp.status_code == 403 else "required"
        return AuthError(f"HTTP {resp.status_code}: authentication {verb} by {self.url}", hint=hint)

    def _run_request(self, message: Message, headers: dict[str, str], fut: Future[Message],
                     budget: Remaining | None = None) -> None:
        try:
            result = self._post(message, headers, budget=budget)
        except BaseException as exc:  # noqa: BLE001 - everything goes to the waiting caller
            if not fut.done():
                fut.set_exception(exc if isinstance(exc, Exception) else TransportError(str(exc)))
            return
        if not fut.done():
            fut.set_result(result)

    def _post(self, message: Message, headers: dict[str, str], remaining: Remaining | None = None, *,
              budget: Remaining | None = None) -> Message:
        """POST one request and read its response (JSON, or SSE up to the final response).

        With `remaining` (an inline `exchange`), every wait is bounded by the time left:
        socket reads time out, and it is checked again after each SSE event (progress
        may have moved it). `budget` is the time the caller waits otherwise (a retry
        after HTTP 429 that would wait longer fails at once)."""
        import httpx  # noqa: PLC0415

        client = self._require_client()
        rid = message.get("id")
        body = encode_message(message)
        retries = 0  # sign-in retries (401/403 with an OAuth hook)
        attempt = 0  # HTTP 429 retries
        while True:
            all_headers = self._headers(headers)
            self._trace("request", {"method": "POST", "url": self.url, "headers": {**self._user_headers, **all_headers}})
            timeout: Any = httpx.USE_CLIENT_DEFAULT
            left = remaining() if remaining is not None else None
            if left is not None:
                if left <= 0:
                    raise RequestTimeout()
                timeout = httpx.Timeout(connect=min(self._connect_timeout, left), read=left, write=left, pool=left)
            try:
                req = client.build_request("POST", self.url, content=body, headers=all_headers, timeout=timeout)
                resp = client.send(req, stream=True)
            except Exception as exc:  # noqa: BLE001
                if _ran_out(exc, remaining):
                    raise RequestTimeout() from None
                raise self._connect_error(exc) from None
            if resp.status_code == 429:
                self._trace("response", {"status": resp.status_code, "headers": dict(resp.headers)})
                self._too_many_requests(resp, rid, attempt, remaining or budget)  # raises past the last retry
                attempt += 1
                continue
            if resp.status_code not in (401, 403) or self.authorizer is None:
                self._note_nonce(resp)
                break
            self._trace("response", {"status": resp.status_code, "headers": dict(resp.headers)})
            try:
                _read_capped(resp, 65536)  # the challenge is in the headers; the body is bounded
            except httpx.HTTPError:
                pass
            finally:
                resp.close()
            retries += 1
            if retries > MAX_AUTH_RETRIES or not self._may_retry(resp, all_headers):
                raise self._auth_error(resp)
        with self._lock:
            if rid in self._aborted:
                resp.close()
                raise BrokenStream("request aborted")
            self._responses[rid] = resp
        try:
            if self.on_response_headers is not None:
                self.on_response_headers(resp.headers)  # first: it may register a secret (session id)
            self._trace("response", {"status": resp.status_code, "headers": dict(resp.headers)})
            return self._read_response(resp, rid, all_headers, remaining=remaining)
        except httpx.HTTPError as exc:
            with self._lock:
                aborted = rid in self._aborted
            if aborted:
                raise BrokenStream("request aborted") from None
            if _ran_out(exc, remaining):
                raise RequestTimeout() from None
            raise BrokenStream(
                f"the response stream from {self.url} broke before the final response ({type(exc).__name__})"
            ) from None
        finally:
            with self._lock:
                self._responses.pop(rid, None)
            resp.close()

    def _too_many_requests(self, resp: httpx.Response, rid: Any, attempt: int, remaining: Remaining | None, *,
                           body: bytes | None = None) -> None:
        """HTTP 429: wait as the server asks (`Retry-After`), then return to send again.

        Raises:
            HttpStatusError: retried `MAX_429_RETRIES` times already, or the server asks for
                a wait longer than `MAX_RETRY_AFTER` or than the time left (exit 4).
            RequestTimeout: no time is left.
            BrokenStream: the request was aborted while waiting.
        """
        if body is None:  # `body`: the reply already read (a notification's acknowledgement)
            body = _read_capped(resp, 2048)
            resp.close()
        text = body[:2048].decode("utf-8", "replace")
        asked = retry_after_seconds(resp.headers.get("retry-after"))
        delay = asked if asked is not None else float(2 ** attempt)
        said = f" (Retry-After: {sanitize(resp.headers.get('retry-after', ''), single_line=True)[:60]})" \
            if asked is not None else ""
        left = remaining() if remaining is not None else None
        why = None
        if attempt >= MAX_429_RETRIES:
            why = f"still refused after {MAX_429_RETRIES} retries"
        elif delay > MAX_RETRY_AFTER:
            why = f"it asks to wait {delay:.0f} s, more than the {MAX_RETRY_AFTER:.0f} s mrtr waits"
        elif left is not None and delay >= left:
            why = f"it asks to wait {delay:g} s, more than the {max(left, 0):.1f} s left of --timeout"
        if why is not None:
            raise HttpStatusError(f"HTTP 429 (Too Many Requests) from {self.url}{said}: {why}", 429, text,
                                  hint=_body_hint(text) or "try again later")
        end = time.monotonic() + delay
        while (pause := end - time.monotonic()) > 0:
            with self._lock:
                if rid in self._aborted:
                    raise BrokenStream("request aborted")
            time.sleep(min(pause, 0.1))

    def _read_response(self, resp: httpx.Response, rid: Any, headers: dict[str, str],
                       remaining: Remaining | None = None) -> Message:
        had_session = SESSION_HEADER in headers
        status = resp.status_code
        ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
        if status in (401, 403):
            _read_capped(resp, 2048)
            raise self._auth_error(resp)
        if status >= 500:
            text = _error_body(resp)
            msg = _jsonrpc_error(text, rid)
            if msg is not None:
                return msg
            raise HttpStatusError(
                f"HTTP {status} from {self.url}", status, text[:2048], hint=_body_hint(text)
            )
        if status == 202:
            raise ProtocolError(f"the server accepted the request (HTTP 202) but sent no response from {self.url}")
        if ctype == "text/event-stream" and 200 <= status < 300:
            cursor = SseCursor()
            msg = self._read_events(resp, rid, cursor, remaining)
            if msg is None and self.resume_streams and cursor.last_id is not None:
                msg = self._resume(rid, cursor, headers, remaining)
            if msg is None and cursor.cut:
                raise BrokenStream(f"the response stream from {self.url} ended in the middle of an event "
                                   "(no blank line after its data), before the final response")
            if msg is None:
                raise BrokenStream(f"the response stream from {self.url} ended before the final response")
            return msg
        if 200 <= status < 300:
            if ctype != "application/json":
                _read_capped(resp, 2048)
                raise ProtocolError(
                    f"unexpected Content-Type {quote_value(ctype) if ctype else '(none)'} (HTTP {status}) from {self.url}",
                    hint="is this an MCP Streamable HTTP endpoint?",
                )
            msg = read_json_body(resp)
            if msg is None:
                raise ProtocolError(f"the server's response from {self.url} is not valid JSON")
            if not isinstance(msg, dict):
                raise ProtocolError("the server sent a JSON-RPC batch, which this protocol does not allow")
            return msg
        text = _error_body(resp)
        msg = _jsonrpc_error(text, rid)
        if status == 404 and had_session:  # whatever the body says (2025-11-25 "Session Management")
            raise SessionExpired(f"HTTP 404 from {self.url}: the session has expired", status, text[:2048])
        if msg is not None:
            return msg
        cls_hint = _body_hint(text)
        if status in (404, 405, 410):
            raise HttpStatusError(
                f"HTTP {status} from {self.url}: not an MCP endpoint?", status, text[:2048], hint=cls_hint
            )
        raise HttpStatusError(f"HTTP {status} from {self.url}", status, text[:2048], hint=cls_hint)

    def _read_events(self, resp: httpx.Response, rid: Any, cursor: SseCursor,
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
                continue  # a response to another request on this stream: not ours
        return None

    def _resume(self, rid: Any, cursor: SseCursor, headers: dict[str, str],
                remaining: Remaining | None) -> Message | None:
        """Resume the response stream of request `rid` that the server closed before the
        final response (2025-11-25 Streamable HTTP, "Resumability and Redelivery"): wait
        the server's `retry` delay (default 1 s; the client MUST respect it), then GET with
        `Last-Event-ID` and read on. Repeated while the server keeps sending events; after
        three reconnections that bring none, or a GET the server refuses, returns None.

        Raises:
            RequestTimeout: the time left is shorter than the delay.
            BrokenStream: the request was aborted meanwhile.
        """
        client = self._require_client()
        idle = 0
        while idle < 3:
            delay = (cursor.retry_ms if cursor.retry_ms is not None else 1000) / 1000
            left = remaining() if remaining is not None else None
            if left is not None and left <= delay:
                raise RequestTimeout()
            time.sleep(delay)
            with self._lock:
                if rid in self._aborted:
                    raise BrokenStream("request aborted")
            seen = cursor.last_id
            get_headers = {k: v for k, v in headers.items() if k.lower() not in ("accept", "content-type")}
            get_headers.update({"Accept": "text/event-stream", "Last-Event-ID": seen or ""})
            get_headers.update(self._auth_headers("GET"))
            self._trace("request", {"method": "GET", "url": self.url, "headers": {**self._user_headers, **get_headers}})
            try:
                resp = client.send(client.build_request("GET", self.url, headers=get_headers), stream=True)
            except Exception as exc:  # noqa: BLE001
                raise self._connect_error(exc) from None
            with self._lock:
                self._responses[rid] = resp
            try:
                self._trace("response", {"status": resp.status_code, "headers": dict(resp.headers)})
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
            all_headers = {"Accept": "text/event-stream", **self.session_headers, **headers, **self._auth_headers("GET")}
            if cursor.last_id is not None:
                all_headers["Last-Event-ID"] = cursor.last_id
            self._trace("request", {"method": "GET", "url": self.url, "headers": all_headers})
            try:
                resp = client.send(client.build_request("GET", self.url, headers=all_headers), stream=True)
            except Exception:  # noqa: BLE001 - the GET stream is optional
                return
            with self._lock:
                self._responses[key] = resp
            got = False
            try:
                self._trace("response", {"status": resp.status_code, "headers": dict(resp.headers)})
                ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
                if resp.status_code != 200 or ctype != "text/event-stream":
                    return  # e.g. 405: this server offers no GET stream
                for event in parse_sse_bytes(resp.iter_bytes(), cursor, max_event=max_message_size(strict=False)):
                    got = True
                    try:
                        msg = decode_message(event.data) if event.data.strip() else None
                    except (ValueError, InvalidMessage):  # a broken notification is dropped, the stream goes on
                        continue
                    if isinstance(msg, dict) and "method" in msg:
                        self._on_message(msg)
            except Exception:  # noqa: BLE001 - a broken or closed stream just ends (or reopens)
                pass
            finally:
                with self._lock:
                    self._responses.pop(key, None)
                resp.close()
            failures = 0 if got else failures + 1
            time.sleep(cursor.retry_ms / 1000 if cursor.retry_ms is not None else 0.5)


def _ran_out(exc: Exception, remaining: Remaining | None) -> bool:
    """An httpx timeout that happened because the caller's time ran out."""
    import httpx  # noqa: PLC0415

    if remaining is None or not isinstance(exc, httpx.TimeoutException):
        return False
    left = remaining()  # a read waits at most the time that was left when the request began
    return left is not None and (left <= 0.05 or isinstance(exc, httpx.ReadTimeout))


def _method(message: Message) -> str:
    """What a POSTed message is, for an error: its method, or "a response"."""
    method = message.get("method")
    return sanitize(method, single_line=True)[:80] if isinstance(method, str) else "a response"


def read_json_body(resp: httpx.Response, *, allow_overflow: bool = False) -> Any:
    """The JSON value of a response body (opened with `stream=True`), or None when it is
    not JSON. Also the reader of authorization replies (auth/replies.py).

    Read in blocks up to the message size limit, with one copy of the body alive at a time
    beside the parsed value (the bytes are dropped once decoded).

    Raises:
        MessageTooLarge: the body (or its announced `Content-Length`) is over the limit.
        InvalidMessage: JSON that is nested too deeply or holds a non-finite number.
    """
    import json  # noqa: PLC0415 - already loaded by the JSON reader

    body = _read_body(resp, max_message_size(strict=False))
    try:
        text = body.decode(json.detect_encoding(body), "surrogatepass")
    except (UnicodeDecodeError, LookupError):
        return None
    del body
    return decode_or_none(text, allow_overflow=allow_overflow)


def _read_body(resp: httpx.Response, limit: int) -> bytearray:
    """The body of `resp`, read in blocks.

    Raises:
        MessageTooLarge: it is (or announces, with `Content-Length`) more than `limit` bytes.
    """
    announced = resp.headers.get("content-length", "")
    if announced.isdigit() and int(announced) > limit:
        raise MessageTooLarge(int(announced), limit, exact=True)
    body = bytearray()
    for chunk in resp.iter_bytes():
        body += chunk
        if len(body) > limit:
            raise MessageTooLarge(len(body), limit)
    return body


def _read_capped(resp: httpx.Response, cap: int) -> bytes:
    """At most the first `cap` bytes of the body (the rest is not read)."""
    body = bytearray()
    for chunk in resp.iter_bytes():
        body += chunk[:cap - len(body)]
        if len(body) >= cap:
            break
    return bytes(body)


def _error_body(resp: httpx.Response) -> str:
    """The text of an HTTP error body (which may hold a JSON-RPC error), within the limit."""
    return bytes(_read_body(resp, max_message_size(strict=False))).decode("utf-8", "replace")


def _jsonrpc_error(text: str, rid: Any) -> Message | None:
    """The JSON-RPC error response in an HTTP error body, if there is one."""
    try:
        msg = decode_or_none(text)
    except InvalidMessage:
        return None
    if isinstance(msg, dict) and isinstance(msg.get("error"), dict):
        msg.setdefault("id", rid)
        return msg
    return None


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """The wait a `Retry-After` header asks for, in seconds (RFC 9110 section 10.2.3:
    a number of seconds, or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(int(value[:12]))
    from email.utils import parsedate_to_datetime  # noqa: PLC0415 - only after a 429

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _body_hint(text: str) -> str | None:
    text = text.strip()
    if not text:
        return None
    return "response body: " + sanitize(text[:300], single_line=True)


def httpx_origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of `url` as httpx reports them for a request."""
    import httpx  # noqa: PLC0415

    parsed = httpx.URL(url)
    return parsed.scheme, parsed.host, parsed.port
