"""Streamable HTTP transport (2026-07-28 `basic/transports/streamable-http`): the
connection to one MCP endpoint, POSTing messages and reading each reply.

Every message is one POST. A request's response is either `application/json`
(one JSON-RPC response) or `text/event-stream` (request-scoped notifications,
then the final response). Each request runs on its own worker thread so the
caller can wait with a deadline, be interrupted by Ctrl-C, and abort: closing
the SSE response stream is the 2026-07-28 cancellation signal. Before each request
the OAuth hook (transport/http/authhook.py) gives its headers; a 401/403 may be sent again
with a new token.

For legacy (2025-11-25 and earlier) sessions the transport is its own `Sessions` face
(transport/base.py): the protocol layer adds `session_headers` (`Mcp-Session-Id`), and the
transport offers what legacy Streamable HTTP needs: `SessionExpired` for a 404 on a request that carried a
session id, `end_session` (DELETE), and the streams of transport/http/sse/streams.py
(the optional GET stream, resuming a closed response stream with `Last-Event-ID`).

Redirects are followed hop by hop, each target checked before a byte is sent to it and
credentials kept to the user's origin (transport/http/redirects.py); a 401/403 is taken as a
sign-in challenge only from that origin. A proxy's own answer (407, a refused CONNECT, a
gateway status through a forwarding proxy) names the proxy (transport/http/proxy.py).

Elsewhere: reading a reply within the size limit and the errors it raises
(transport/http/reply.py), retries after HTTP 429 (transport/http/retry.py).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from mrtr_cli.errors import AuthError, MrtrError, ProtocolError, TransportError
from mrtr_cli.limits import describe_seconds
from mrtr_cli.render.sanitize import one_line, quote_value
from mrtr_cli.transport.base import (
    Message,
    MessageHandler,
    OutgoingMessage,
    Remaining,
    RequestTimeout,
    Sessions,
    SignIn,
    Transport,
    encode_message,
)
from mrtr_cli.transport.errors import BrokenStream, SessionExpired, StatusError
from mrtr_cli.transport.future import Future
from mrtr_cli.transport.http.reply import (
    REDIRECT_STATUSES,
    SESSION_HEADER,
    body_hint,
    error_body,
    jsonrpc_error,
    read_capped,
    read_json_body,
)
from mrtr_cli.transport.http.retry import wait_to_retry
from mrtr_cli.transport.http.sse.events import SseCursor
from mrtr_cli.transport.http.sse.streams import EventStreams
from mrtr_cli.transport.http.urlrule import origin

if TYPE_CHECKING:  # pragma: no cover
    import httpx2

    from mrtr_cli.transport.http.direct import DirectLane, DirectResponse

ACCEPT = "application/json, text/event-stream"

#: New tokens one request may be sent again with (a sign-in, then step-ups: the suite
#: and the spec allow a few; the authorizer stops step-ups at 3 itself).
MAX_AUTH_RETRIES = 4
#: Seconds a notification or response POST may take to be acknowledged (202) unless
#: the caller gives its own bound: a server that takes it and never answers costs this.
SEND_TIMEOUT = 10.0


@dataclass
class _Post:
    """One message's POST as the pipeline of `HttpTransport` carries it: the message, how
    each attempt is bounded, and the retries spent on it so far (counted across the whole
    POST: a sign-in in between does not give back the 429 retries, nor the reverse).

    `acknowledge` is what a request and a notification differ in (each difference keeps
    what the transport did before the two shared one pipeline):

    - None: a request (`_post`). Sent by the direct lane when it can take it; each attempt
      bounded by `remaining` (an inline exchange: the time left; its running out is
      `RequestTimeout`); a 429 wait bounded by `remaining`, else `budget` (the time the
      caller waits). Its reply is read after the pipeline (JSON or an SSE stream), and
      traced once a step takes it: a proxy's 407 is not traced, and the final reply is
      traced after `on_response_headers`, which may first register the session id it
      carries as a secret.
    - A number of seconds: a notification or a response (`send`). Sent by httpx2, the
      POST and its reply (a 202) within that bound (its running out is a `TransportError`
      naming it); the reply read at once within 64 KB (`acked`) and traced on arrival; a
      429 wait bounded by `retry.MAX_RETRY_AFTER` only.
    """

    message: OutgoingMessage
    headers: Mapping[str, str] | None
    remaining: Remaining | None = None
    budget: Remaining | None = None
    acknowledge: float | None = None
    #: The message encoded once, sent by every attempt.
    body: bytes = field(init=False)
    #: The request's id (None for a notification or a response: aborting one names none).
    rid: object = field(init=False)
    #: A notification's reply, already read (None: a request's, unread).
    acked: bytes | None = None
    #: Sign-in retries (401/403 with an OAuth hook) and HTTP 429 retries so far.
    sign_ins: int = 0
    throttled: int = 0

    def __post_init__(self) -> None:
        self.body = encode_message(self.message)
        self.rid = self.message.get("id") if self.acknowledge is None else None


class HttpTransport(EventStreams, Transport):
    """POST JSON-RPC messages to one MCP endpoint.

    Args:
        url: the MCP endpoint, e.g. `http://127.0.0.1:8000/mcp`.
        headers: user headers (`-H`) sent on every request; values may be secrets.
        connect_timeout: seconds to establish a connection.
        on_http: optional trace hook called as `on_http(kind, info)` with kind
            "request" (method, url, headers) or "response" (status, headers).
        verify: TLS verification (True, False, or a CA bundle path).
        authorizer: the OAuth hook (`transport.base.SignIn`: `transport.http.authhook.Authorizer`), or None: its
            `headers()` go on every request (to this origin only), and a 401/403 from this
            origin asks its `challenge()` whether to send the request once more with a new
            token (one from another origin, after a redirect, is that origin's error).
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        connect_timeout: float = 10.0,
        on_http: Callable[[str, dict[str, Any]], None] | None = None,
        verify: bool | str = True,
        authorizer: SignIn | None = None,
    ):
        self.url = url
        self.label = url
        self.cancel_by_close = True
        self._user_headers = dict(headers or {})
        self._connect_timeout = connect_timeout
        self._on_http = on_http
        self._verify = verify
        self.authorizer = authorizer
        self._client: httpx2.Client | None = None
        self._on_message: MessageHandler = lambda m: None
        self._responses: dict[Any, httpx2.Response] = {}
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
        self._sent_url = url
        #: Requests' POSTs over the lane of transport/http/direct.py, or None (httpx2 alone).
        self._lane: DirectLane | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self, on_message: MessageHandler) -> None:
        import httpx2  # noqa: PLC0415 - imported only when HTTP is used (startup time)

        self._on_message = on_message
        self._sent_url = str(httpx2.URL(self.url))  # the user's URL as requests carry it (normalized)
        from mrtr_cli.transport.http.env import new_client  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.transport.http.tls import verifying_context  # noqa: PLC0415 - lazy for start-up time

        self._client = new_client(
            headers=self._user_headers,
            timeout=httpx2.Timeout(connect=self._connect_timeout, read=None, write=60.0, pool=None),
            follow_redirects=False,  # followed hop by hop, each target checked first (_send)
            # mrtr's own context (it loads the CA certificates at the first TLS handshake: a run
            # over http:// reads none); httpx2's for True would load them now.
            verify=verifying_context() if self._verify is True else self._verify,
            # No cap of our own: concurrency is bounded by the caller (`batch -j`, at most 256),
            # and a request queued for a connection would wait outside its --timeout.
            limits=httpx2.Limits(max_connections=None, max_keepalive_connections=256),
        )
        self._lane = self._direct_lane(self._client)
        # Loaded here, on the caller's thread: a worker importing a module (a redirect, a proxy's
        # answer) while the interpreter ends can crash it.
        import importlib  # noqa: PLC0415 - loaded with the interpreter

        for module in ("proxy", "redirects"):
            importlib.import_module(f"mrtr_cli.transport.http.{module}")

    def _direct_lane(self, client: httpx2.Client) -> DirectLane | None:
        """The direct lane for the user's URL (transport/http/direct.py) when nothing but plain
        HTTP/1.1 is wanted: http://, no credentials in the URL, no proxy for it, no HTTP trace.
        Made here, on the caller's thread: the lane's modules are loaded before any worker."""
        import httpx2  # noqa: PLC0415 - lazy for start-up time

        from mrtr_cli.transport.http.direct import DirectLane  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.transport.http.env import proxy_in_effect  # noqa: PLC0415 - lazy for start-up time

        url = httpx2.URL(self._sent_url)
        if self._on_http is not None or url.scheme != "http" or url.userinfo or not url.host or \
                proxy_in_effect(self._sent_url) is not None:
            return None
        target = url.raw_path.decode("ascii")
        base = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in client.headers.raw]
        host = url.raw_host.decode("ascii")
        return DirectLane(self._sent_url, host, url.port or 80, target, self._connect_timeout, base)

    def _post_once(self, body: bytes, headers: dict[str, str], left: float | None,
                   remaining: Remaining | None, *, lane_ok: bool = True) -> httpx2.Response:
        """POST `body` to the user's URL once (redirects followed), within `left` seconds
        (None: the client's own timeouts): by the direct lane when `lane_ok` and it can take
        it, else by httpx2. The response, its body unread (a lane's `DirectResponse` reads as
        an `httpx2.Response` does). Raises what `_send` raises."""
        lane = self._lane if lane_ok else None
        client = self._require_client()

        def request() -> httpx2.Request:  # httpx2's request for it: to send, or to hand a lane's reply on
            return client.build_request("POST", self.url, content=body, headers=headers,
                                        timeout=_timeouts(self._connect_timeout, left))

        head = lane.head_bytes(headers, len(body)) if lane is not None and not client.cookies.jar else None
        if lane is None or head is None:
            return self._send(request(), remaining)
        resp = lane.post(head, body, left)
        if not _needs_httpx2(resp):
            return cast("httpx2.Response", resp)
        from mrtr_cli.transport.http.direct import upgraded  # noqa: PLC0415 - loaded with the lane

        req = request()
        wrapped = upgraded(resp, req, client)
        if wrapped.status_code in REDIRECT_STATUSES and "location" in wrapped.headers:
            return self._send(req, remaining, first=wrapped)
        return wrapped

    def _send(self, request: httpx2.Request, remaining: Remaining | None = None, *,
              first: httpx2.Response | None = None) -> httpx2.Response:
        """Send `request` (streamed), following redirects by the rules of
        transport/http/redirects.py: each target checked before a byte goes there, credentials
        (`Authorization`, `DPoP`, the user's headers) to the user's origin only. `first`: the
        response the direct lane already got for it (transport/http/direct.py)."""
        from mrtr_cli.transport.http.redirects import send_following  # noqa: PLC0415 - lazy for start-up time

        return send_following(self._require_client(), request, private=self._user_headers, remaining=remaining,
                              on_hop=self._trace_hop, reproof=lambda method, url: self._auth_headers(method, url),
                              first=first)

    def _trace_hop(self, resp: httpx2.Response, hop: httpx2.Request) -> None:
        self._trace_response(resp)
        self._trace("request", {"method": hop.method, "url": str(hop.url), "headers": dict(hop.headers)})

    def _foreign(self, resp: httpx2.Response) -> bool:
        """`resp` came from another origin than the user's URL (after a redirect)."""
        return origin(str(resp.request.url)) != origin(self._sent_url)

    def _where(self, url: str) -> str:
        """`url` (as a request went to it) for a message: the user's URL, or another (after a
        redirect) with where it came from."""
        if url == self._sent_url:
            return self.url
        from mrtr_cli.transport.http.env import shown  # noqa: PLC0415 - lazy for start-up time

        return f"{shown(url)} (where {self.url} redirected)"

    def close(self) -> None:
        if self._lane is not None:
            self._lane.close()  # kept: a request that takes it now fails to connect
        client, self._client = self._client, None
        if client is not None:
            with self._lock:
                responses = list(self._responses.values())
            for resp in responses:
                try:  # noqa: SIM105 - a catch of Exception stays marked for BLE001; suppress() would hide it
                    resp.close()
                except Exception:  # noqa: BLE001 - closing: a response already broken is no error
                    pass
            client.close()

    def sessions(self) -> Sessions:
        """This transport is its own `Sessions` face (2025-11-25 Streamable HTTP sessions)."""
        return self

    def refuses_session_id(self, value: str) -> str | None:
        """Why `value` cannot go back as `Mcp-Session-Id` (visible ASCII only: 0x21 to 0x7E;
        transport/http/echoed.py), or None."""
        from mrtr_cli.transport.http.echoed import unsendable  # noqa: PLC0415 - lazy for start-up time

        return unsendable(value, spaces=False)

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
            resp = self._send(self._client.build_request("DELETE", self.url, headers=all_headers, timeout=timeout))
            resp.close()  # its body is not wanted
        except Exception:  # noqa: BLE001 - ending a session must never fail a run
            return None
        finally:
            self.session_headers.pop(SESSION_HEADER, None)
        self._trace_response(resp)
        return resp.status_code

    # ------------------------------------------------------------------ messages
    def request(self, message: OutgoingMessage, headers: Mapping[str, str] | None = None, *,
                budget: Remaining | None = None) -> Future[Message]:
        fut: Future[Message] = Future()
        # In the caller's context: what the request's errors say follows where it was made
        # (a line of `mrtr shell` names commands as typed at its prompt: render/invocation.py).
        context = contextvars.copy_context()
        thread = threading.Thread(
            target=context.run, args=(self._run_request, message, dict(headers or {}), fut, budget),
            name="mrtr-http", daemon=True,
        )
        thread.start()
        return fut

    inline_exchange = True

    def exchange(self, message: OutgoingMessage, headers: Mapping[str, str] | None, remaining: Remaining) -> Message:
        return self._post(message, dict(headers or {}), remaining)

    def send(self, message: OutgoingMessage, headers: Mapping[str, str] | None = None, *,
             timeout: float | None = None) -> None:
        self._require_client()  # raises when closed
        post = _Post(message, headers, acknowledge=SEND_TIMEOUT if timeout is None else timeout)
        resp, sent = self._send_handling_auth(post)
        if resp.status_code in (401, 403):  # no sign-in to retry it with: refused
            raise self._auth_error(resp, sent)

    def abort(self, request_id: object) -> None:
        with self._lock:
            self._aborted.add(request_id)
            resp = self._responses.pop(request_id, None)
        if resp is not None:
            try:  # noqa: SIM105 - a catch of Exception stays marked for BLE001; suppress() would hide it
                resp.close()
            except Exception:  # noqa: BLE001 - closing: a response already broken is no error
                pass

    # ------------------------------------------------------------------ internals
    def _is_aborted(self, rid: object) -> bool:
        """The request `rid` was aborted (`abort`)."""
        with self._lock:
            return rid in self._aborted

    def _require_client(self) -> httpx2.Client:
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

    def _auth_headers(self, method: str = "POST", url: str | None = None) -> dict[str, str]:
        return self.authorizer.headers(method, url) if self.authorizer is not None else {}

    def _note_nonce(self, resp: httpx2.Response) -> None:
        """Hand a response's `DPoP-Nonce` to the authorizer (RFC 9449 section 9): from the
        user's origin only (the nonce is that server's)."""
        if self.authorizer is not None and "dpop-nonce" in resp.headers and not self._foreign(resp):
            self.authorizer.note_nonce(resp.headers["dpop-nonce"])

    def _may_retry(self, resp: httpx2.Response, sent_headers: Mapping[str, str]) -> bool:
        """A 401/403 came back: True when the authorizer has a new token to send the request
        again with (sign-in, refresh, step-up: transport/http/authhook.py)."""
        if self.authorizer is None:
            return False
        scheme, _, token = sent_headers.get("Authorization", "").partition(" ")
        return bool(self.authorizer.challenge(resp.status_code, resp.headers.get("www-authenticate"),
                                              token if scheme in ("Bearer", "DPoP") and token else None,
                                              resp.headers.get("dpop-nonce")))

    def _trace(self, kind: str, info: dict[str, Any]) -> None:
        if self._on_http is not None:
            try:  # noqa: SIM105 - a catch of Exception stays marked for BLE001; suppress() would hide it
                self._on_http(kind, info)
            except Exception:  # noqa: BLE001 - a trace hook's failure must not change the request
                pass

    def _connect_error(self, exc: Exception) -> MrtrError:
        """The error of a request that failed with `exc` (one of mrtr's is itself: a refused
        redirect), naming the URL it went to (a redirect's target, after a redirect)."""
        import httpx2  # noqa: PLC0415 - lazy for start-up time

        if isinstance(exc, MrtrError):
            return exc
        try:
            url = str(exc.request.url) if isinstance(exc, httpx2.RequestError) else self._sent_url
        except RuntimeError:  # an error raised before its request was set (the direct lane's): the user's URL
            url = self._sent_url
        if isinstance(exc, httpx2.ProxyError):
            from mrtr_cli.transport.http.proxy import tunnel_refused  # noqa: PLC0415 - lazy for start-up time

            return tunnel_refused(url, exc)
        if isinstance(exc, httpx2.ConnectError | httpx2.ConnectTimeout):
            from mrtr_cli.transport.http.env import connect_failure  # noqa: PLC0415 - lazy for start-up time

            message, hint = connect_failure(url, exc, label=self._where(url))
            return TransportError(message, hint=hint)
        where = self._where(url)
        if isinstance(exc, httpx2.TimeoutException):
            return TransportError(f"timed out talking to {where}: {one_line(exc, 120)}")
        if isinstance(exc, httpx2.LocalProtocolError):
            # httpx2 quotes the request's header values here: never shown (they may be credentials).
            return TransportError(f"the request to {where} could not be sent (a header or the URL is not valid HTTP)")
        if isinstance(exc, httpx2.HTTPError):
            return BrokenStream(f"the connection to {where} failed: {one_line(exc, 120)}")
        return TransportError(f"HTTP request to {where} failed: {one_line(exc, 120)}")

    def _check_proxy(self, resp: httpx2.Response) -> None:
        """Raise the proxy's error for its own answer (HTTP 407; transport/http/proxy.py)."""
        if resp.status_code == 407:
            from mrtr_cli.transport.http.proxy import credentials_wanted  # noqa: PLC0415 - lazy for start-up time

            resp.close()
            raise credentials_wanted(str(resp.request.url))

    def _auth_error(self, resp: httpx2.Response, sent: Mapping[str, str]) -> AuthError:
        """The error of a 401/403 that is not (or no longer) retried, naming the origin that
        sent it: after a redirect to another origin, that origin's, which is sent no
        credentials and whose challenge starts no sign-in. Its hint goes by the request that
        was refused: one that carried no Authorization header is told how to pass
        credentials, one that did that they are refused (the sign-in's, or the user's). `sent`:
        the headers of the attempt besides the user's own (`_headers`)."""
        challenge = resp.headers.get("www-authenticate")
        url = str(resp.request.url)
        if self._foreign(resp):
            from mrtr_cli.transport.http.env import shown  # noqa: PLC0415 - lazy for start-up time

            hint = (f"mrtr sends no credentials after a redirect to another origin; if {shown(url)} is the MCP "
                    "endpoint, give it with --url")
        elif not any(n.lower() == "authorization" for n in (*sent, *self._user_headers)):  # what went
            hint = "pass credentials with -H 'Authorization: Bearer ...' or --bearer-token-env VAR"
        elif self.authorizer is not None and any(n.lower() == "authorization" for n in sent):  # the sign-in's token
            hint = "the server refuses this signed-in request"
        else:
            hint = "the server refuses the credentials this request carried (its Authorization header)"
        if challenge:
            hint = f"server says: WWW-Authenticate: {one_line(challenge, 300)}\n{hint}"
        verb = "refused" if resp.status_code == 403 else "required"
        return AuthError(f"HTTP {resp.status_code}: authentication {verb} by {self._where(url)}", hint=hint)

    def _run_request(self, message: OutgoingMessage, headers: dict[str, str], fut: Future[Message],
                     budget: Remaining | None = None) -> None:
        try:
            result = self._post(message, headers, budget=budget)
        except BaseException as exc:  # noqa: BLE001 - everything goes to the waiting caller
            if not fut.done():
                fut.set_exception(exc if isinstance(exc, Exception) else TransportError(str(exc)))
            return
        if not fut.done():
            fut.set_result(result)

    # ------------------------------------------------------------------ the POST pipeline
    # A message's POST goes through one step per concern (as httpx's `Client.send`):
    # `_send_handling_auth` (401/403: a new token from the OAuth hook, the POST again) ->
    # `_send_handling_429` (429: wait as `Retry-After` asks, the POST again) ->
    # `_send_single_post` (the headers of one attempt, its trace, its failure as mrtr's
    # error) -> `_post_once` (the wire: the direct lane or httpx2, redirects followed).
    # A request (`_post`) and a notification or response (`send`) differ in one parameter,
    # `_Post.acknowledge`; see `_Post`.

    def _post(self, message: OutgoingMessage, headers: dict[str, str], remaining: Remaining | None = None, *,
              budget: Remaining | None = None) -> Message:
        """POST one request and read its response (JSON, or SSE up to the final response).

        With `remaining` (an inline `exchange`), every wait is bounded by the time left:
        socket reads time out, and it is checked again after each SSE event (progress
        may have moved it). `budget` is the time the caller waits otherwise (a retry
        after HTTP 429 that would wait longer fails at once)."""
        import httpx2  # noqa: PLC0415 - lazy for start-up time

        self._require_client()  # raises when closed
        post = _Post(message, headers, remaining=remaining, budget=budget)
        resp, sent = self._send_handling_auth(post)
        rid = post.rid
        with self._lock:
            if rid in self._aborted:
                resp.close()
                raise BrokenStream("request aborted")
            self._responses[rid] = resp
        try:
            if self.on_response_headers is not None:
                self.on_response_headers(resp.headers)  # first: it may register a secret (session id)
            self._trace_response(resp)
            return self._read_response(resp, rid, sent, remaining=remaining)
        except httpx2.HTTPError as exc:
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

    def _send_handling_auth(self, post: _Post) -> tuple[httpx2.Response, dict[str, str]]:
        """Sign-in: a 401/403 from the user's origin, with an OAuth hook, is a challenge; the
        POST goes again when the hook has a new token (sign-in, refresh, step-up), at most
        `MAX_AUTH_RETRIES` times. Returns the reply that is no challenge (a 401/403 from
        another origin or without a hook is the caller's to refuse) and the headers it was
        sent with; its `DPoP-Nonce` goes to the hook.

        Raises:
            AuthError: a challenge the hook has no new token for, or one too many.
            What `_send_handling_429` raises.
        """
        import httpx2  # noqa: PLC0415 - lazy for start-up time

        while True:
            resp, sent = self._send_handling_429(post)
            if resp.status_code not in (401, 403) or self.authorizer is None or self._foreign(resp):
                self._note_nonce(resp)
                return resp, sent
            if post.acknowledge is None:  # a request's reply: traced here, its body bounded
                self._trace_response(resp)
                try:
                    read_capped(resp, 65536)  # the challenge is in the headers
                except httpx2.HTTPError:
                    pass
                finally:
                    resp.close()
            post.sign_ins += 1
            if post.sign_ins > MAX_AUTH_RETRIES or not self._may_retry(resp, sent):
                raise self._auth_error(resp, sent)

    def _send_handling_429(self, post: _Post) -> tuple[httpx2.Response, dict[str, str]]:
        """HTTP 429: the POST goes again after the wait the server asks for (transport/http/retry.py),
        within the time left (`post.remaining`, else `post.budget`). Returns the first other
        reply and the headers it was sent with. A proxy's own answer (407) is its error.

        Raises:
            StatusError: still 429 past the last retry, or a wait too long (exit 4).
            BrokenStream: the request was aborted while waiting.
            What `_send_single_post` raises; `proxy.credentials_wanted`'s error for a 407.
        """
        while True:
            resp, sent = self._send_single_post(post)
            self._check_proxy(resp)
            if resp.status_code != 429:
                return resp, sent
            if post.acknowledge is None:
                self._trace_response(resp)
            # raises past the last retry
            wait_to_retry(resp, self._where(str(resp.request.url)), post.throttled, post.remaining or post.budget,
                          lambda: self._is_aborted(post.rid), body=post.acked)
            post.throttled += 1

    def _send_single_post(self, post: _Post) -> tuple[httpx2.Response, dict[str, str]]:
        """One attempt: its headers (the hook's asked afresh: a DPoP proof is for one
        request), its trace, the POST (`_post_once`: a request by the direct lane when it can
        take it; a notification by httpx2, its reply read at once within 64 KB). Returns the
        reply and the headers sent.

        Raises:
            RequestTimeout: a request's time ran out (`post.remaining`).
            TransportError: a notification not acknowledged within `post.acknowledge`
                seconds, or the connection failed (`_connect_error`).
        """
        sent = self._headers(post.headers)
        if self._on_http is not None:
            self._trace("request", {"method": "POST", "url": self.url, "headers": {**self._user_headers, **sent}})
        left = post.acknowledge
        if post.acknowledge is None and post.remaining is not None:
            left = post.remaining()
            if left is not None and left <= 0:
                raise RequestTimeout()
        try:
            resp = self._post_once(post.body, sent, left, post.remaining, lane_ok=post.acknowledge is None)
            if post.acknowledge is not None:
                try:  # nothing is expected back (202); whatever comes is read within a bound
                    post.acked = read_capped(resp, 65536)
                finally:
                    resp.close()
        except Exception as exc:  # noqa: BLE001 - every failure becomes mrtr's error
            raise self._post_error(post, exc) from None
        if post.acknowledge is not None:
            self._trace_response(resp)
        return resp, sent

    def _post_error(self, post: _Post, exc: Exception) -> Exception:
        """The error of an attempt that failed with `exc`: `RequestTimeout` when a request's
        time ran out, a `TransportError` naming the bound when a notification's did, else
        `_connect_error`'s."""
        import httpx2  # noqa: PLC0415 - lazy for start-up time

        if post.acknowledge is not None and isinstance(exc, httpx2.TimeoutException):
            return TransportError(f"the server at {self.url} did not acknowledge {_method(post.message)} "
                                  f"within {describe_seconds(post.acknowledge)}")
        if _ran_out(exc, post.remaining):
            return RequestTimeout()
        return self._connect_error(exc)

    def _trace_response(self, resp: httpx2.Response) -> None:
        if self._on_http is not None:  # the headers are copied for a trace hook only
            self._trace("response", {"status": resp.status_code, "headers": dict(resp.headers)})

    def _read_response(self, resp: httpx2.Response, rid: object, headers: dict[str, str],
                       remaining: Remaining | None = None) -> Message:
        """The JSON-RPC message answering request `rid` in `resp` (a JSON body or an SSE
        stream), by its status: 401/403 a sign-in error, 5xx and other errors the server's
        JSON-RPC error when it sent one (else `StatusError`), 202 with no answer a
        `ProtocolError`."""
        status = resp.status_code
        where = self._where(str(resp.request.url))
        ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
        if status in (401, 403):
            read_capped(resp, 2048)
            raise self._auth_error(resp, headers)
        if status >= 500:
            return _server_error(resp, rid, where)
        if status == 202:
            raise ProtocolError(f"the server accepted the request (HTTP 202) but sent no response from {where}")
        if ctype == "text/event-stream" and 200 <= status < 300:
            return self._event_stream(resp, rid, headers, remaining, where)
        if 200 <= status < 300:
            return _json_reply(resp, rid, ctype, where)
        return _client_error(resp, rid, where, had_session=SESSION_HEADER in headers)

    def _event_stream(self, resp: httpx2.Response, rid: Any, headers: dict[str, str],
                      remaining: Remaining | None, where: str) -> Message:
        """The answer to `rid` read from an SSE response (resumed where the era allows it).

        Raises:
            BrokenStream: the stream ended before the answer (the request is lost).
        """
        cursor = SseCursor()
        msg = self._read_events(resp, rid, cursor, remaining)
        if msg is None and self.resume_streams and cursor.last_id is not None:
            msg = self._resume(rid, cursor, headers, remaining)
        if msg is None and cursor.cut:
            raise BrokenStream(f"the response stream from {where} ended in the middle of an event "
                               "(no blank line after its data), before the final response")
        if msg is None:
            raise BrokenStream(f"the response stream from {where} ended before the final response")
        return msg


def _server_error(resp: httpx2.Response, rid: Any, where: str) -> Message:
    """A 5xx answer: the server's JSON-RPC error when its body is one; else the proxy's
    error (502, 503, 504 from a proxy) or `StatusError`, raised."""
    status = resp.status_code
    text = error_body(resp)
    msg = jsonrpc_error(text, rid)
    if msg is not None:
        return msg
    from mrtr_cli.transport.http.proxy import proxy_answer  # noqa: PLC0415 - lazy for start-up time

    through = proxy_answer(str(resp.request.url), status)  # the proxy's, maybe (502, 503, 504)
    if through is not None:
        said = body_hint(text)  # whoever sent it
        through.hint = f"{said}\n{through.hint}" if said else through.hint
        raise through
    raise StatusError(f"HTTP {status} from {where}", status, text[:2048], hint=body_hint(text))


def _json_reply(resp: httpx2.Response, rid: Any, ctype: str, where: str) -> Message:
    """A 2xx JSON answer to `rid`.

    Raises:
        ProtocolError: not JSON, a batch, or the answer to another request.
    """
    status = resp.status_code
    if ctype != "application/json":
        read_capped(resp, 2048)
        raise ProtocolError(
            f"unexpected Content-Type {quote_value(ctype) if ctype else '(none)'} (HTTP {status}) from {where}",
            hint="is this an MCP Streamable HTTP endpoint?",
        )
    msg = read_json_body(resp)
    if msg is None:
        raise ProtocolError(f"the server's response from {where} is not valid JSON")
    if not isinstance(msg, dict):
        raise ProtocolError("the server sent a JSON-RPC batch, which this protocol does not allow")
    got = msg.get("id")
    if "method" not in msg and got != rid and not (got is None and "error" in msg):
        # JSON-RPC: a response carries the id of the request it answers (an error
        # about a request the server could not read has a null id).
        raise ProtocolError(f"the server's response from {where} answers the request id "
                            f"{quote_value(got)}, not {quote_value(rid)}")
    return msg


def _client_error(resp: httpx2.Response, rid: Any, where: str, *, had_session: bool) -> Message:
    """Any other status (3xx not followed, 4xx): the server's JSON-RPC error when its body is
    one; else raised: `SessionExpired` (404 to a request in a session), `StatusError`."""
    status = resp.status_code
    text = error_body(resp)
    msg = jsonrpc_error(text, rid)
    if status == 404 and had_session:  # whatever the body says (2025-11-25 "Session Management")
        raise SessionExpired(f"HTTP 404 from {where}: the session has expired", status, text[:2048])
    if msg is not None:
        return msg
    cls_hint = body_hint(text)
    if status in (404, 405, 410):
        raise StatusError(f"HTTP {status} from {where}: not an MCP endpoint?", status, text[:2048], hint=cls_hint)
    raise StatusError(f"HTTP {status} from {where}", status, text[:2048], hint=cls_hint)

def _timeouts(connect: float, left: float | None) -> Any:
    """httpx2's timeouts for a request with `left` seconds left (None: the client's own)."""
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    if left is None:
        return httpx2.USE_CLIENT_DEFAULT
    return httpx2.Timeout(connect=min(connect, left), read=left, write=left, pool=left)


def _needs_httpx2(resp: DirectResponse) -> bool:
    """A lane's response httpx2 must read: cookies to keep, a redirect to follow, a compressed body."""
    headers = resp.headers
    return ("set-cookie" in headers or (resp.status_code in REDIRECT_STATUSES and "location" in headers)
            or (headers.get("content-encoding") or "identity").strip().lower() != "identity")


def _ran_out(exc: Exception, remaining: Remaining | None) -> bool:
    """An httpx2 timeout that happened because the caller's time ran out."""
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    if remaining is None or not isinstance(exc, httpx2.TimeoutException):
        return False
    left = remaining()  # a read waits at most the time that was left when the request began
    return left is not None and (left <= 0.05 or isinstance(exc, httpx2.ReadTimeout))


def _method(message: OutgoingMessage) -> str:
    """What a POSTed message is, for an error: its method, or "a response"."""
    method = message.get("method")
    return one_line(method, 80) if isinstance(method, str) else "a response"

