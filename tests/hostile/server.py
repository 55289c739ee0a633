"""A raw MCP server that misbehaves in one way, named by a case of `cases.py`.

Usage:
    python -m tests.hostile.server CASE ERA        (stdio; ERA: modern or legacy)
    python -m tests.hostile.server --http PORT     (HTTP: POST /CASE/ERA/NONCE/mcp; NONCE
                                                   keeps the state of one test apart; PORT 0:
                                                   any free one, said on stdout)

The server speaks just enough MCP: `server/discover` (modern), `initialize` (legacy;
HTTP sessions get an `Mcp-Session-Id`), `tools/list` (one tool `t` taking anything), and
hands `tools/call` (and anything the case wants) to the case's `reply`. A reply is a
`Reply`: a message to send, raw bytes, an HTTP status and headers, or an action.

With `HOSTILE_PIDS=FILE` in its environment, the stdio server appends its pid (and the
pid of every process it starts) to FILE, so a test can check that none is left running.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.hostile.cases import CASES, MODERN_VERSION, Ctx, Reply, note_pid


def answer(case: Any, msg: dict[str, Any], ctx: Ctx) -> Reply | None:
    """The reply to one request (None: a notification, nothing to send)."""
    method = msg.get("method")
    if "id" not in msg and method in case.methods:  # a notification the case answers itself (HTTP)
        return case.reply(msg, ctx)
    if "id" not in msg or method is None:  # a notification, or mrtr's answer to a request of ours
        return None
    ctx.calls[method] = ctx.calls.get(method, 0) + 1
    custom = case.reply(msg, ctx) if (method == "tools/call" or method in case.methods) else None
    if custom is not None:
        return custom
    if method == "server/discover" and case.era == "modern":
        return Reply.result(msg, {"resultType": "complete", "supportedVersions": [MODERN_VERSION],
                                  "capabilities": {"tools": {}}, "serverInfo": {"name": "hostile", "version": "1"},
                                  "ttlMs": 0, "cacheScope": "public"})
    if method == "initialize" and case.era == "legacy":
        return Reply.result(msg, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                  "serverInfo": {"name": "hostile", "version": "1"}}, session=True)
    if method == "tools/list":
        result: dict[str, Any] = {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
        if case.era == "modern":
            result.update(resultType="complete", ttlMs=0, cacheScope="public")
        return Reply.result(msg, result)
    return Reply.message({"jsonrpc": "2.0", "id": msg["id"],
                          "error": {"code": -32601, "message": f"Method not found: {method}"}})


# ---------------------------------------------------------------------- stdio
def serve_stdio(name: str, era: str) -> None:
    case = dataclasses.replace(CASES[name], era=era)
    note_pid(os.getpid())
    ctx = Ctx(name)
    case.on_start(ctx)
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        reply = answer(case, msg, ctx)
        if reply is None:
            continue
        reply.run_stdio(out, ctx)
    case.on_stdin_closed(ctx)


# ---------------------------------------------------------------------- HTTP
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    states: dict[str, Ctx] = {}
    lock = threading.Lock()

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _case(self) -> tuple[Any, Ctx] | None:
        parts = self.path.strip("/").split("/")
        if len(parts) != 4 or parts[0] not in CASES:
            return None
        with self.lock:
            ctx = self.states.setdefault(parts[2], Ctx(parts[0], nonce=parts[2]))
        return dataclasses.replace(CASES[parts[0]], era=parts[1]), ctx

    def do_POST(self) -> None:
        found = self._case()
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if found is None:
            self._send(404, {}, b"no such case")
            return
        case, ctx = found
        msg = json.loads(body)
        ctx.headers = dict(self.headers)
        reply = answer(case, msg, ctx)
        if reply is None:
            self._send(202, {}, b"")
            return
        reply.run_http(self, ctx)

    def do_GET(self) -> None:
        self._send(405, {}, b"")

    def do_DELETE(self) -> None:
        self._send(200, {}, b"")

    def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve_http(port: int) -> None:
    """Serve HTTP on 127.0.0.1:`port` (0: any free one), `announce`d on stdout."""
    from tests.servers.common import announce

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    announce(server.server_address[1])
    server.serve_forever()


if __name__ == "__main__":
    if sys.argv[1] == "--http":
        serve_http(int(sys.argv[2]))
    else:
        serve_stdio(sys.argv[1], sys.argv[2])
