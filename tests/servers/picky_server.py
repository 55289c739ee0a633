"""A hand-written 2026-07-28 JSON-RPC server over stdio or HTTP (`--http PORT`, JSON
responses) for the tests of hostile and careless user input.

Tools:
- `pick`: asks input "code" (a form with a required string `code`); only "right" is
  accepted, any other value gets the same key asked again with the message
  "'VALUE' is wrong, try again".
- `optional_flag`: asks input "f" (an optional boolean `subscribe` with no default, an
  optional string `note`), then echoes the content as JSON.
- `visit`: asks a URL-mode input "link" whose `url` is the `url` argument as given (any
  JSON; left out when the argument is absent), then answers "visited".
- `echo`: echoes its arguments as JSON.

Usage: python picky_server.py [--http PORT] [--record FILE]
"""

from __future__ import annotations

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import announce, send_json

META = "io.modelcontextprotocol/"
TOOLS = [{"name": n, "inputSchema": {"type": "object"}} for n in ("pick", "optional_flag", "visit")] + [
    {"name": "echo", "inputSchema": {"type": "object", "properties": {
        "a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "boolean"}}}}]


def form(message: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"method": "elicitation/create", "params": {"mode": "form", "message": message, "requestedSchema": {
        "type": "object", "properties": properties, "required": required}}}


def text(value: str) -> dict[str, Any]:
    return {"resultType": "complete", "content": [{"type": "text", "text": value}]}


def asks(requests: dict[str, Any]) -> dict[str, Any]:
    return {"resultType": "input_required", "inputRequests": requests, "requestState": "s"}


def call(name: str, args: dict[str, Any], responses: dict[str, Any]) -> dict[str, Any]:
    if name == "pick":
        got = (responses.get("code") or {}).get("content", {}).get("code")
        if got == "right":
            return text("picked right")
        message = "Which code?" if got is None else f"{got!r} is wrong, try again"
        return asks({"code": form(message, {"code": {"type": "string"}}, ["code"])})
    if name == "optional_flag":
        if "f" in responses:
            return text(json.dumps(responses["f"].get("content"), sort_keys=True))
        return asks({"f": form("Options", {"subscribe": {"type": "boolean", "title": "Subscribe?"},
                                           "note": {"type": "string"}}, [])})
    if name == "visit":
        if "link" in responses:
            return text("visited")
        params: dict[str, Any] = {"mode": "url", "message": "Sign in", "elicitationId": "e1"}
        if "url" in args:
            params["url"] = args["url"]
        return asks({"link": {"method": "elicitation/create", "params": params}})
    if name == "echo":
        return text(json.dumps(args, sort_keys=True))
    raise KeyError(name)


def handle(msg: dict[str, Any]) -> dict[str, Any] | None:
    if "id" not in msg:
        return None
    method = msg.get("method")
    params = msg.get("params") or {}
    if method == "server/discover":
        result: dict[str, Any] = {"resultType": "complete", "supportedVersions": ["2026-07-28"],
                                  "capabilities": {"tools": {}}, "serverInfo": {"name": "picky", "version": "1"},
                                  "ttlMs": 0, "cacheScope": "public"}
    elif method == "tools/list":
        result = {"resultType": "complete", "tools": TOOLS, "ttlMs": 0, "cacheScope": "public"}
    elif method == "tools/call":
        try:
            result = call(params.get("name"), params.get("arguments") or {}, params.get("inputResponses") or {})
        except KeyError:
            return {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32602, "message": "unknown tool"}}
    else:
        return {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": f"Method not found: {method}"}}
    return {"jsonrpc": "2.0", "id": msg["id"], "result": result}


def record(path: str | None, line: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"raw": line}) + "\n")


def main() -> None:
    path = sys.argv[sys.argv.index("--record") + 1] if "--record" in sys.argv else None
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8")
                record(path, body)
                reply = handle(json.loads(body))
                send_json(self, 200 if reply is not None else 202,
                          json.dumps(reply).encode() if reply is not None else b"")

            def log_message(self, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        announce(server.server_address[1])
        server.serve_forever()
        return
    for line in sys.stdin:
        record(path, line.rstrip("\n"))
        reply = handle(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
