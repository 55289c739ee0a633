"""Shared plumbing for the test servers: run over stdio or HTTP, and record what arrives.

`--record FILE` makes a server append every raw incoming message to FILE, one JSON
object per line: over stdio the exact line read from stdin (`{"raw": ...}`), over
HTTP the method, headers and exact body of each request.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
from typing import Any


def parse_args(description: str = "test server") -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve HTTP on 127.0.0.1:PORT (0: any free one)")
    parser.add_argument("--record", metavar="FILE")
    parser.add_argument("--json-response", action="store_true", help="HTTP: answer with application/json")
    args, _ = parser.parse_known_args()
    return args


def send_json(handler: Any, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
    """Answer an `http.server` request with `status` and the JSON bytes `data` (Content-Type
    application/json, Content-Length, then each of `headers`). For the raw HTTP servers and
    the HTTP doubles of the tests (tests/auth_support.py)."""
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def record_stdin(path: str) -> None:
    """Tee every line arriving on fd 0 into `path` before the server reads it."""
    read_end, write_end = os.pipe()
    original = os.dup(0)
    os.dup2(read_end, 0)
    os.close(read_end)

    def pump() -> None:
        with os.fdopen(original, "rb") as src, os.fdopen(write_end, "wb", buffering=0) as dst, \
                open(path, "a", encoding="utf-8") as log:
            for line in iter(src.readline, b""):
                log.write(json.dumps({"raw": line.decode("utf-8", "replace").rstrip("\n")}) + "\n")
                log.flush()
                dst.write(line)

    threading.Thread(target=pump, daemon=True).start()


async def rewrite_json_response(app: Any, scope: Any, receive: Any, send: Any, change: Any) -> None:
    """Run the ASGI `app` for one request and send its response on, the JSON body of a 200
    replaced by `change(document)` (Content-Length set again); any other status as it was."""
    start: dict[str, Any] = {}
    body = b""

    async def capture(message: Any) -> None:
        nonlocal body
        if message["type"] == "http.response.start":
            start.update(message)
        else:
            body += message.get("body", b"")

    await app(scope, receive, capture)
    if start.get("status") == 200:
        body = json.dumps(change(json.loads(body))).encode()
    headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
    await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def read_body(receive: Any) -> tuple[list[Any], bytes, Any]:
    """Read a whole ASGI request body; returns (messages, body, receive) where the new
    `receive` replays the messages read before passing on to the original one."""
    messages: list[Any] = []
    body = b""
    while True:
        message = await receive()
        messages.append(message)
        body += message.get("body", b"")
        if not message.get("more_body"):
            break

    async def replay() -> Any:
        if messages:
            return messages.pop(0)
        return await receive()

    return list(messages), body, replay


class RecordingApp:
    """ASGI middleware appending each HTTP request (method, headers, body) to a file."""

    def __init__(self, app: Any, path: str):
        self.app = app
        self.path = path
        self.lock = threading.Lock()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        _, body, replay = await read_body(receive)
        record = {
            "method": scope["method"],
            "path": scope["path"],
            "headers": {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]},
            "body": body.decode("utf-8", "replace"),
        }
        with self.lock, open(self.path, "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
        await self.app(scope, replay, send)


def list_tools_handler(specs: dict[str, dict[str, Any]]) -> Any:
    """An `on_list_tools` handler for a lowlevel `Server` listing one tool per entry of
    `specs` (tool name -> `inputSchema` properties)."""
    from mcp_types import ListToolsResult, Tool

    tools = [Tool(name=name, input_schema={"type": "object", "properties": props}) for name, props in specs.items()]

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=tools)

    return list_tools


def serve(server: Any, args: argparse.Namespace, *, lowlevel: bool, wrap: Any = None) -> None:
    """Run an SDK server (MCPServer or lowlevel Server) over stdio or HTTP (`--http PORT`,
    0: a free port the server binds itself and `announce`s; `wrap`: optional ASGI
    middleware factory for the HTTP app)."""
    if args.http is not None:
        app = server.streamable_http_app(json_response=args.json_response)
        if wrap is not None:
            app = wrap(app)
        serve_apps([(app, listen(args.http)[0])], ready_file=None, ready={}, record=args.record)
        return
    if args.record:
        record_stdin(args.record)
    if lowlevel:
        import anyio
        from mcp.server.stdio import stdio_server

        async def main() -> None:
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())

        anyio.run(main)
    else:
        server.run()


def announce(port: int) -> None:
    """Tell the test that started this server where it listens: the line
    `listening on http://127.0.0.1:PORT` on stdout (tests/listening.py waits for it).

    A test starts an HTTP server with port 0 and reads the port back, never the other way
    round: a port the test picked and the server bound later could be taken by another
    process in between, and the test would then talk to that process."""
    print(f"listening on http://127.0.0.1:{port}", flush=True)


def listen(port: int = 0) -> tuple[Any, int]:
    """A socket listening on 127.0.0.1:`port` (0: any free one; SO_REUSEADDR, so that a
    restarted server gets its port back at once) and its port."""
    import socket

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    return sock, sock.getsockname()[1]


def serve_apps(apps: list[tuple[Any, Any]], *, ready_file: str | None, ready: dict[str, Any],
               record: str | None = None) -> None:
    """Serve each (ASGI app, listening socket) pair with uvicorn in this process until it is
    ended or its parent process goes away (a killed test run leaves no server behind).
    Once all listen, each socket's port is `announce`d, and `ready` plus `"pid"` is written
    to `ready_file` (atomically: a reader never sees half of it). With `record`, every HTTP
    request is appended to that file."""
    import asyncio

    import uvicorn

    async def main() -> None:
        servers = [uvicorn.Server(uvicorn.Config(RecordingApp(app, record) if record else app, log_level="warning",
                                                 lifespan="auto")) for app, _ in apps]
        tasks = [asyncio.create_task(s.serve(sockets=[sock])) for s, (_, sock) in zip(servers, apps, strict=True)]
        while not all(s.started for s in servers) and not any(t.done() for t in tasks):
            await asyncio.sleep(0.02)
        parent = os.getppid()

        async def orphaned() -> None:
            while os.getppid() == parent:
                await asyncio.sleep(1)
            for server in servers:
                server.should_exit = True

        watchdog = asyncio.create_task(orphaned())
        if all(s.started for s in servers):
            for _, sock in apps:
                announce(sock.getsockname()[1])
        if ready_file and all(s.started for s in servers):
            with open(ready_file + ".tmp", "w", encoding="utf-8") as f:
                json.dump({**ready, "pid": os.getpid()}, f)
            os.replace(ready_file + ".tmp", ready_file)
        await asyncio.gather(*tasks)
        watchdog.cancel()

    asyncio.run(main())
