"""A minimal raw-JSON MCP server (standard library only) for the benchmarks.

    python benchmarks/min_server.py               # stdio: one JSON-RPC message per line
    python benchmarks/min_server.py --http PORT   # Streamable HTTP on 127.0.0.1:PORT/mcp (JSON responses)
    python benchmarks/min_server.py --http PORT --sse   # the same, each response as one SSE event
    python benchmarks/min_server.py --http PORT --protected   # also /guarded/mcp, which wants a token
    python benchmarks/min_server.py --ttl-ms 60000   # tools/list says it stays valid that long (default 0)

It does as little as a server can, so the figures measure the clients:
- `tools/call echo {text}`: the text back;
- `tools/call resolve {workItemId}`: two MRTR rounds, like the example server's
  `update_work_item`: `resolution` (requestState "r1"), then, for "Duplicate",
  `duplicateOfId` (requestState "r2"); then a result;
- `resources/read big://N`: one text resource of N bytes (ASCII);
- `server/discover` (the 2026-07-28 era probe);
- `initialize` / `notifications/initialized` / `ping`, so clients of the 2025-11-25
  handshake (e.g. `fastmcp call`, the MCP Inspector CLI) can call `echo` too.
Every 2026-07-28 `_meta` is accepted and ignored.

With `--protected`, `/guarded/mcp` serves the same tools but answers 401 (with
`WWW-Authenticate: Bearer resource_metadata=...`) unless the request carries
`Authorization: Bearer <the token>`; the server is also its own authorization server, as
little of one as lets a client sign in once: RFC 9728 metadata for `/guarded/mcp`, RFC 8414
metadata, and a token endpoint granting `client_credentials` to any client, with one token
valid for a day (benchmarks/auth_call.py signs in once, then measures calls with it).
`/bound/mcp` is the same with a DPoP-bound token (RFC 9449): a token request that carries
a `DPoP` header gets another token, of type DPoP, which `/bound/mcp` takes as
`Authorization: DPoP <token>` with a `DPoP` proof header (present, not verified: the
figures measure the client's cost of making proofs).
"""

from __future__ import annotations

import json
import secrets
import sys
from urllib.parse import parse_qs

TOOLS = [
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
    {"name": "resolve", "inputSchema": {"type": "object", "properties": {"workItemId": {"type": "integer"}},
                                        "required": ["workItemId"]}},
]


def _form(key: str, prop: dict) -> dict:
    return {"method": "elicitation/create", "params": {
        "message": f"{key}?", "requestedSchema": {"type": "object", "properties": {key: prop}, "required": [key]}}}


def _text(text: str) -> dict:
    return {"resultType": "complete", "content": [{"type": "text", "text": text}]}


def _resolve(params: dict) -> dict:
    state = params.get("requestState")
    answers = params.get("inputResponses") or {}
    item = (params.get("arguments") or {}).get("workItemId")
    if state is None:
        return {"resultType": "input_required", "requestState": "r1", "inputRequests": {
            "resolution": _form("resolution", {"type": "string", "enum": ["Fixed", "Duplicate"]})}}
    if state == "r1":
        resolution = ((answers.get("resolution") or {}).get("content") or {}).get("resolution")
        if resolution != "Duplicate":
            return _text(f"Work item {item} resolved: {resolution}.")
        return {"resultType": "input_required", "requestState": "r2", "inputRequests": {
            "duplicateOfId": _form("duplicateOfId", {"type": "integer"})}}
    original = ((answers.get("duplicateOfId") or {}).get("content") or {}).get("duplicateOfId")
    return _text(f"Work item {item} resolved as a duplicate of {original}.")


_BIG: dict[int, str] = {}
#: `ttlMs` of the tools/list result (`--ttl-ms N`): how long a client may keep the list.
TTL_MS = int(sys.argv[sys.argv.index("--ttl-ms") + 1]) if "--ttl-ms" in sys.argv[:-1] else 0


def _big(size: int) -> str:
    if size not in _BIG:
        unit = "0123456789abcdefghijklmnopqrstuvwxyz-mrtr-benchmark-payload\n"
        _BIG.clear()
        _BIG[size] = (unit * (size // len(unit) + 1))[:size]
    return _BIG[size]


def handle(msg: dict) -> dict | None:
    """The response to one JSON-RPC message (None for a notification or a response)."""
    if "id" not in msg or "method" not in msg:
        return None
    method, params = msg["method"], msg.get("params") or {}
    result: dict | None = None
    if method == "tools/call":
        if params.get("name") == "resolve":
            result = _resolve(params)
        else:
            result = _text((params.get("arguments") or {}).get("text", ""))
    elif method == "tools/list":
        result = {"resultType": "complete", "tools": TOOLS, "ttlMs": TTL_MS, "cacheScope": "public"}
    elif method == "server/discover":  # the era probe of `--protocol auto`
        result = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                  "ttlMs": 0, "cacheScope": "public"}
    elif method == "resources/read":
        uri = str(params.get("uri"))
        size = int(uri.split("//", 1)[1]) if uri.startswith("big://") else 0
        result = {"resultType": "complete", "contents": [{"uri": uri, "mimeType": "text/plain", "text": _big(size)}]}
    elif method == "initialize":
        result = {"protocolVersion": params.get("protocolVersion", "2025-11-25"),
                  "capabilities": {"tools": {}, "resources": {}}, "serverInfo": {"name": "min-server", "version": "1"}}
    elif method == "ping":
        result = {}
    if result is None:
        return {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}}
    return {"jsonrpc": "2.0", "id": msg["id"], "result": result}


def serve_stdio() -> None:
    for line in sys.stdin:
        reply = handle(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


GUARDED = "/guarded/mcp"
BOUND = "/bound/mcp"
TOKEN = "bench-" + secrets.token_hex(16)
DPOP_TOKEN = "bench-dpop-" + secrets.token_hex(16)


def auth_documents(origin: str) -> dict[str, dict]:
    """The GET documents of `--protected`: protected resource and authorization server metadata."""
    return {
        "/.well-known/oauth-protected-resource" + GUARDED: {
            "resource": origin + GUARDED, "authorization_servers": [origin]},
        "/.well-known/oauth-protected-resource" + BOUND: {
            "resource": origin + BOUND, "authorization_servers": [origin]},
        "/.well-known/oauth-authorization-server": {
            "issuer": origin, "token_endpoint": origin + "/token", "authorization_endpoint": origin + "/authorize",
            "grant_types_supported": ["client_credentials"], "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"]},
    }


def token_reply(body: bytes, dpop: bool) -> tuple[int, dict, dict[str, str]]:
    """The token endpoint's (status, JSON body, headers) for a token request `body`: the
    client credentials grant only; a DPoP-bound token when the request has a DPoP proof."""
    grant = parse_qs(body.decode()).get("grant_type", [""])[0]
    if grant != "client_credentials":
        return 400, {"error": "unsupported_grant_type"}, {}
    token = ({"access_token": DPOP_TOKEN, "token_type": "DPoP"} if dpop
             else {"access_token": TOKEN, "token_type": "Bearer"})
    return 200, {**token, "expires_in": 86400}, {"Cache-Control": "no-store"}


def serve_http(port: int, sse: bool = False, protected: bool = False) -> None:
    # The stdio server (whose start-up the benchmarks time) does not load the HTTP server.
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer  # noqa: PLC0415 - stdio start-up time

    origin = f"http://127.0.0.1:{port}"
    documents = auth_documents(origin) if protected else {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: one connection serves many requests
        disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms delayed-ACK stalls

        def send_json(self, status: int, doc: dict, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = self.path.split("?", 1)[0]
            if protected and path == "/token":
                self.send_json(*token_reply(body, dpop=bool(self.headers.get("DPoP"))))
                return
            if protected and ((path == GUARDED and self.headers.get("Authorization") != f"Bearer {TOKEN}") or (
                    path == BOUND and (self.headers.get("Authorization") != f"DPoP {DPOP_TOKEN}"
                                       or not self.headers.get("DPoP")))):
                metadata = origin + "/.well-known/oauth-protected-resource" + path
                self.send_json(401, {"error": "invalid_token"},
                               {"WWW-Authenticate": f'Bearer resource_metadata="{metadata}"'})
                return
            reply = handle(json.loads(body))
            if reply is None:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = json.dumps(reply).encode()
            if sse:
                data = b"event: message\ndata: " + data + b"\n\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream" if sse else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            doc = documents.get(self.path.split("?", 1)[0])
            if doc is not None:
                self.send_json(200, doc)
                return
            self.send_response(405 if self.path.split("?", 1)[0] in ("/mcp", GUARDED, BOUND) else 404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_DELETE(self) -> None:
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 128

        def handle_error(self, request: object, client_address: object) -> None:
            if not isinstance(sys.exc_info()[1], ConnectionError):  # a client closing its keep-alive is no error
                super().handle_error(request, client_address)

    Server(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--http":
        serve_http(int(sys.argv[2]), sse="--sse" in sys.argv[3:], protected="--protected" in sys.argv[3:])
    else:
        serve_stdio()
