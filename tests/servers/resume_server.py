"""A hand-written legacy (2025-11-25) Streamable HTTP server (raw JSON-RPC, no SDK) for the
two stream behaviours the official conformance suite checks: server requests sent on the
standalone GET stream, and a response stream the server closes before the final response
("Resumability and Redelivery", SEP-1699).

Usage: python resume_server.py --http PORT [--record FILE]   (PORT 0: any free one, printed on stdout)

Every request is appended to `--record FILE` as {"method", "headers", "body", "t"} (t: Unix
time in seconds), and each early close of a response stream as {"closed": EVENT_ID, "t"}.

Tools:
- `ask_on_get`: sends `elicitation/create` (a required string `name`) on the GET stream
  (not on the call's own stream), waits for the client's answer (POSTed back), and returns
  the answer's content as JSON text.
- `nan_then_ask_on_get`: the same, after a log notification holding NaN on the GET stream.
- `resume`: opens an SSE response with a priming event (`id: p1`, `retry: 300`) and closes
  it; a GET with `Last-Event-ID: p1` gets the final response ("resumed ok").
- `resume_refused`: the same early close, but GETs with `Last-Event-ID` get 405.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import announce, send_json

ARGS = sys.argv[1:]
PORT = int(ARGS[ARGS.index("--http") + 1])
RECORD = ARGS[ARGS.index("--record") + 1] if "--record" in ARGS else None
SESSION = "resume-session-1"
TOOLS = [{"name": name, "inputSchema": {"type": "object"}}
         for name in ("ask_on_get", "nan_then_ask_on_get", "resume", "resume_refused")]

lock = threading.Lock()
get_stream: queue.Queue[dict] = queue.Queue()  # server requests for the standalone GET stream
answers: dict[str, dict] = {}
answered = threading.Condition(lock)
parked: dict[str, dict] = {}  # event id -> the response to deliver on a resumed stream
refused: set[str] = set()


def record(entry: dict) -> None:
    if RECORD:
        with lock, open(RECORD, "a", encoding="utf-8") as log:
            log.write(json.dumps({**entry, "t": time.time()}) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def _record(self, body: str) -> None:
        record({"method": self.command, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})

    def _json(self, status: int, doc: dict | None) -> None:
        send_json(self, status, json.dumps(doc).encode() if doc is not None else b"", {"Mcp-Session-Id": SESSION})

    def _sse_start(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Mcp-Session-Id", SESSION)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _event(self, data: str, event_id: str | None = None, retry: int | None = None) -> None:
        head = (f"id: {event_id}\n" if event_id else "") + (f"retry: {retry}\n" if retry is not None else "")
        self.wfile.write(f"{head}data: {data}\n\n".encode())
        self.wfile.flush()

    def do_DELETE(self) -> None:
        self._record("")
        self._json(200, None)

    def do_GET(self) -> None:
        self._record("")
        last = self.headers.get("Last-Event-ID")
        if last is not None:
            if last in refused or last not in parked:
                self._json(405, None)
                return
            self._sse_start()
            self._event(json.dumps(parked.pop(last)), event_id="p2")
            return
        self._sse_start()
        try:
            while True:
                try:
                    msg = get_stream.get(timeout=0.5)
                except queue.Empty:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    continue
                self._event(json.dumps(msg))
        except OSError:
            return  # the client went away

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        self._record(body)
        msg = json.loads(body)
        method, rid = msg.get("method"), msg.get("id")
        if method is None:  # the client's answer to a server request
            with answered:
                answers[str(rid)] = msg
                answered.notify_all()
            self._json(202, None)
        elif rid is None:
            self._json(202, None)
        elif method == "initialize":
            self._json(200, {"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "resume-test", "version": "1.0"}}})
        elif method == "tools/list":
            self._json(200, {"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
        elif method == "tools/call":
            self._call(rid, msg["params"]["name"])
        else:
            self._json(200, {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})

    def _call(self, rid: object, name: str) -> None:
        if name in ("ask_on_get", "nan_then_ask_on_get"):
            if name == "nan_then_ask_on_get":  # a broken notification first (json.dumps writes NaN)
                get_stream.put({"jsonrpc": "2.0", "method": "notifications/message",
                                "params": {"level": "info", "data": float("nan")}})
            get_stream.put({"jsonrpc": "2.0", "id": "srv-1", "method": "elicitation/create", "params": {
                "message": "Your name?", "requestedSchema": {
                    "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}})
            self._sse_start()
            with answered:
                # The client's answer, however long a loaded machine takes to send it (the
                # tests' SAFETY bound): a shorter wait returned no content to a test not about it.
                answered.wait_for(lambda: "srv-1" in answers, timeout=300)
                answer = answers.pop("srv-1", {})
            content = (answer.get("result") or {}).get("content")
            self._event(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {
                "content": [{"type": "text", "text": json.dumps(content)}]}}))
            return
        # resume / resume_refused: a priming event, then the stream is closed.
        parked["p1"] = {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "resumed ok"}]}}
        if name == "resume_refused":
            refused.add("p1")
        self._sse_start()
        self._event("", event_id="p1", retry=300)
        record({"closed": "p1"})


server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
server.daemon_threads = True
announce(server.server_address[1])
server.serve_forever()
