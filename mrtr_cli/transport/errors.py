"""The kinds of error a transport raises, whichever it is (stdio, Streamable HTTP): the
protocol layer catches these, never an error of one transport's own. The HTTP transport
maps what its replies say to them (transport/http/transport.py, transport/http/reply.py);
the stdio transport raises `TransportError` itself and the message errors of
transport/base.py. Exit codes are the errors' own (`mrtr_cli.errors.ExitStatus`).

The tree (defined here unless another module is named):

    MrtrError                          mrtr_cli/errors.py
    ├── TransportError                 mrtr_cli/errors.py: the server cannot be started or
    │   │                              reached, or went away (exit 3)
    │   ├── BrokenStream               a reply ended or failed before the final response
    │   │                              (a broken connection or SSE stream; an aborted request)
    │   └── StatusError                the server refused a message with a status and no
    │       │                          JSON-RPC error (HTTP 4xx/5xx; exit 4 for a 4xx but
    │       │                          404, 405, 410)
    │       └── SessionExpired         the session the message named is gone (2025-11-25:
    │                                  HTTP 404 to a request with `Mcp-Session-Id`)
    ├── ProtocolError                  mrtr_cli/errors.py: a message breaks the protocol (exit 4)
    │   └── InvalidMessage             transport/base.py: JSON no server may send
    │       ├── MessageTooLarge        over --max-message-size
    │       ├── MessageTooDeep         nested past limits.MAX_DEPTH
    │       ├── NonFiniteMessage       NaN, Infinity, a number beyond a float
    │       └── NumberTooLongMessage   an integer of too many digits
    └── AuthError                      mrtr_cli/errors.py: refused for want of credentials
                                       (HTTP 401/403; exit 8)
    RequestTimeout (Exception)         transport/base.py: `Transport.exchange` ran out of
                                       the time its caller gave it
"""

from __future__ import annotations

from mrtr_cli.errors import ExitStatus, TransportError


class BrokenStream(TransportError):
    """The reply ended or failed before the final JSON-RPC response (the connection or
    the SSE response stream broke, or the request was aborted)."""


class StatusError(TransportError):
    """The server refused a message with a status and without a JSON-RPC error body (the
    HTTP transport's non-2xx replies; spec: 2026-07-28 `basic/transports/streamable-http`).

    Attributes:
        status: the status code (HTTP's).
        body: up to 2 KB of the reply's body, for era detection and diagnostics.
    """

    def __init__(self, message: str, status: int, body: str, *, hint: str | None = None):
        super().__init__(message, hint=hint)
        self.status = status
        self.body = body
        if 400 <= status < 500 and status not in (404, 405, 410):
            # The server is there and answered, but not with anything we understand.
            self.exit_status = ExitStatus.PROTOCOL


class SessionExpired(StatusError):
    """The session a request named is gone (2025-11-25 Streamable HTTP "Session
    Management": HTTP 404 to a request that carried `Mcp-Session-Id`); the client must
    `initialize` again without it."""
