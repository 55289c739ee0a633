"""A dual-era test server on the official SDK's `MCPServer`: its tool asks a form through a
`Resolve(...)`/`Elicit` resolver, which the SDK turns into an MRTR `InputRequiredResult` for a
2026-07-28 request and into a server-initiated `elicitation/create` request on a connection
opened with `initialize` (2025-11-25 and earlier). The same tool therefore asks the same
question in both eras.

`--legacy-only` (HTTP): answer like a server built on a 2025-era SDK would: a POST that
is not `initialize` and carries no `Mcp-Session-Id` gets 400 with a `-32600` body, so
a modern request (or the `server/discover` probe) is refused.

`--expire-first-call` (HTTP): the first `tools/call` is sent on to the SDK with an unknown
session id, so it answers 404 as for an expired session.

`--fail METHOD` (HTTP): a POST of METHOD (e.g. `server/discover`, `initialize`) gets
HTTP 500 with a plain-text body (a server that breaks on what it does not expect).

`--slow-first SECONDS` (HTTP): the first request is answered only after SECONDS (a server
slow on its first connection, e.g. a cold start).

Tools:
- `book_table {date}`: asks "Book a table on DATE" (party size 1-12, seating indoor/outdoor);
  an accepted form books it, a declined or cancelled one books nothing.
- `echo {text}`: no questions.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import AcceptedElicitation, Elicit, ElicitationResult, MCPServer, Resolve
from mcp.server.request_state import RequestStateSecurity
from pydantic import BaseModel, Field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import parse_args, read_body, serve


class Booking(BaseModel):
    partySize: int = Field(title="Party size", ge=1, le=12)  # noqa: N815 - wire name
    seating: Literal["indoor", "outdoor"] = Field(title="Seating")


# A fixed key, so a call stopped after round 1 can be resumed against a new process.
mcp = MCPServer("dual-test", title="Dual-era test server", version="1.0.0",
                request_state_security=RequestStateSecurity(keys=[b"mrtr-dual-era-test-key-0123456789abcdef"],
                                                            ttl=3600))


def ask_booking(date: str) -> Elicit[Booking]:
    return Elicit(f"Book a table on {date}?", Booking)


@mcp.tool()
async def book_table(date: str, booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]) -> str:
    """Book a table; asks for the party size and seating."""
    if isinstance(booking, AcceptedElicitation):
        return f"Booked a table for {booking.data.partySize} ({booking.data.seating}) on {date}."
    return f"No table booked ({booking.action})."


@mcp.tool()
async def echo(text: str) -> str:
    """Echo the text back."""
    return text


def _method(body: bytes) -> Any:
    try:
        return json.loads(body).get("method")
    except (ValueError, AttributeError):
        return None


class LegacyOnlyApp:
    """ASGI middleware refusing sessionless non-initialize POSTs as mcp 1.x servers do."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or []) if scope["type"] == "http" else {}
        if scope["type"] != "http" or scope["method"] != "POST" or b"mcp-session-id" in headers:
            await self.app(scope, receive, send)
            return
        _, body, replay = await read_body(receive)
        if _method(body) == "initialize":
            await self.app(scope, replay, send)
            return
        error = {"jsonrpc": "2.0", "id": "server-error",
                 "error": {"code": -32600, "message": "Bad Request: Missing session ID"}}
        await send({"type": "http.response.start", "status": 400,
                    "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": json.dumps(error).encode()})


class ExpireFirstCallApp:
    """ASGI middleware making the first sessioned `tools/call` look like one on an expired session."""

    def __init__(self, app: Any):
        self.app = app
        self.done = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or []) if scope["type"] == "http" else {}
        if self.done or scope["type"] != "http" or scope["method"] != "POST" or b"mcp-session-id" not in headers:
            await self.app(scope, receive, send)
            return
        _, body, replay = await read_body(receive)
        if _method(body) == "tools/call":
            self.done = True
            scope = {**scope, "headers": [(k, b"expired-session" if k == b"mcp-session-id" else v)
                                          for k, v in scope["headers"]]}
        await self.app(scope, replay, send)


class SlowFirstApp:
    """ASGI middleware holding the first request back for a while."""

    def __init__(self, app: Any, seconds: float):
        self.app = app
        self.seconds = seconds
        self.first = True

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and self.first:
            self.first = False
            import asyncio

            await asyncio.sleep(self.seconds)
        await self.app(scope, receive, send)


class FailMethodApp:
    """ASGI middleware answering one method's POSTs with HTTP 500."""

    def __init__(self, app: Any, method: str):
        self.app = app
        self.method = method

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        _, body, replay = await read_body(receive)
        if _method(body) != self.method:
            await self.app(scope, replay, send)
            return
        await send({"type": "http.response.start", "status": 500, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"Internal Server Error"})


def wrap(app: Any) -> Any:
    if "--fail" in sys.argv:
        app = FailMethodApp(app, sys.argv[sys.argv.index("--fail") + 1])
    if "--slow-first" in sys.argv:
        app = SlowFirstApp(app, float(sys.argv[sys.argv.index("--slow-first") + 1]))
    if "--legacy-only" in sys.argv:
        app = LegacyOnlyApp(app)
    if "--expire-first-call" in sys.argv:
        app = ExpireFirstCallApp(app)
    return app


if __name__ == "__main__":
    serve(mcp, parse_args(__doc__), lowlevel=False, wrap=wrap)
