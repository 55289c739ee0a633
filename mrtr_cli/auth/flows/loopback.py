"""The loopback redirect listener of the authorization code flow (RFC 8252 section 7.3;
2026-07-28 basic/authorization/security-considerations "Open Redirection").

It listens on 127.0.0.1 (port 0 unless one is given) from before the browser opens to
the end of the flow, on an unguessable path; a callback whose `state` is not the flow's
is ignored (answered 400, the wait goes on); the browser gets a short page saying the
tab may be closed.
"""

from __future__ import annotations

import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from mrtr_cli.errors import AuthError
from mrtr_cli.limits import describe_seconds

_DONE = b"""<!doctype html><meta charset="utf-8"><title>mrtr</title>
<p>Signed in. You may close this tab and return to the terminal.</p>"""
_IGNORED = b"""<!doctype html><meta charset="utf-8"><title>mrtr</title>
<p>This sign-in response does not belong to the sign-in mrtr is waiting for; it was ignored.</p>"""


class NoResponse(AuthError):
    """No authorization response reached mrtr in time (the browser never came back)."""


def same_state(got: str, want: str) -> bool:
    """Whether the `state` of a response is the flow's, in constant time; compared as UTF-8
    bytes, so that any text (non-ASCII included) is just a mismatch."""
    return secrets.compare_digest(got.encode("utf-8", "surrogatepass"), want.encode("utf-8", "surrogatepass"))


class Loopback:
    """A one-shot redirect receiver.

    Args:
        state: the flow's `state`; only a callback carrying it ends the wait.
        port: the port to listen on (0: any free one).
        path: the callback path (default: a new random one).

    Raises:
        AuthError: the port cannot be bound (in use, not allowed).
    """

    def __init__(self, state: str, port: int = 0, path: str | None = None):
        self.state = state
        self.path = path or "/callback/" + secrets.token_urlsafe(16)
        self._result: dict[str, str] | None = None
        self._error: BaseException | None = None
        self._event = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urlsplit(self.path)
                if url.path != outer.path:
                    self._answer(404, b"not found")
                    return
                try:
                    params = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
                    taken = outer.accept(params)
                except Exception as exc:  # noqa: BLE001 - a bug must end the flow, never hang it
                    outer.fail(exc)
                    self._answer(500, b"internal error")
                    return
                if not taken:
                    self._answer(400, _IGNORED)
                    return
                self._answer(200, _DONE)

            def _answer(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        try:
            self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        except OSError as exc:
            raise AuthError(f"cannot listen on 127.0.0.1:{port} for the sign-in redirect: {exc.strerror or exc}",
                            hint="choose another --redirect-port" if port else None) from None
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="mrtr-oauth-loopback", daemon=True)
        self._thread.start()

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    def accept(self, params: dict[str, str]) -> bool:
        """Take an authorization response (query parameters) if its `state` is the flow's;
        the first one taken ends the wait. Also used for a pasted redirect URL."""
        if self._event.is_set() or not same_state(params.get("state", ""), self.state):
            return False
        self._result = params
        self._event.set()
        return True

    def done(self) -> bool:
        """Whether the wait has ended (a response was taken, or `fail` was called)."""
        return self._event.is_set()

    def fail(self, error: BaseException) -> None:
        """End the wait with `error`, which `wait` raises in the flow's thread: a pasted
        address that is not this sign-in's, or any exception in a listener or paste thread
        (so the flow ends with its exit code, never hangs)."""
        if not self._event.is_set():
            self._error = error
            self._event.set()

    def wait(self, timeout: float) -> dict[str, str]:
        """The authorization response's parameters, waiting at most `timeout` seconds
        (in short steps, so that Ctrl-C is seen).

        Raises:
            NoResponse: nothing arrived in time (exit 8).
            BaseException: whatever ended a listener or paste thread (see `fail`).
            KeyboardInterrupt: Ctrl-C.
        """
        import time  # noqa: PLC0415 - lazy for start-up time

        end = time.monotonic() + timeout
        while not self._event.wait(min(0.25, max(0.0, end - time.monotonic()))):
            if time.monotonic() >= end:
                raise NoResponse(f"no sign-in response within {describe_seconds(timeout)}",
                                hint="sign in again; MRTR_AUTH_WAIT sets how long mrtr waits")
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
