"""A hand-written handshake-era stdio server (raw JSON-RPC, no SDK), for the
legacy-era tests.

Usage: python legacy_server.py [--version 2025-06-18] [--silent-discover] [--silent-ping] [--record FILE]
       [--ping-result JSON] [--start-delay SECONDS]

It speaks one protocol version (default 2025-06-18; `--version 2025-11-25` adds URL
elicitation), answers `initialize` with that version whatever the client offers, and
asks its questions the pre-2026 way: server-initiated requests in the middle of a call.
Before `initialize` it answers `ping`, and `server/discover` (or any other request) with
`-32601`, or not at all with `--silent-discover` (as some legacy servers do).
With `--silent-ping` a `ping` after `initialize` is never answered (a hung server);
`--ping-result JSON` answers it with that result instead of `{}` (a server that gets it
wrong); `--start-delay SECONDS` reads nothing for that long first (a slow start).
Every line received is appended to `--record FILE` as `{"raw": LINE, "at": SECONDS}`, `at`
being the system's monotonic clock when it arrived (comparable across processes).

Tools:
- `book_table {date}`: asks the same form as tests/servers/dual_server.py and answers
  with the same result, so every era can be compared.
- `echo {text}`: no questions.
- `structured`: an object `structuredContent` (the only kind 2025-11-25 allows).
- `ask_roots`: sends `roots/list`; returns the root URIs.
- `ask_sampling`: sends `sampling/createMessage`; returns the reply text.
- `ping_client`: pings the client first.
- `note_form {path}`: asks a form with one text field, `note`, and sends a log message
  ("the file is there") once the file PATH exists, while the form waits; answers with the note.
- `slow {steps}`: progress notifications (when a progressToken came) and a log message.
- `visit_url` (2025-11-25): URL-mode elicitation, then `notifications/elicitation/complete`.
- `needs_link` (2025-11-25): fails with `-32042` until a URL elicitation was accepted.
Resources: `resources/read` of anything but `legacy://hello` is `-32002` (not found).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

ARGS = sys.argv[1:]
VERSION = ARGS[ARGS.index("--version") + 1] if "--version" in ARGS else "2025-06-18"
SILENT = "--silent-discover" in ARGS
SILENT_PING = "--silent-ping" in ARGS
RECORD = ARGS[ARGS.index("--record") + 1] if "--record" in ARGS else None
PING_RESULT = json.loads(ARGS[ARGS.index("--ping-result") + 1]) if "--ping-result" in ARGS else {}
START_DELAY = float(ARGS[ARGS.index("--start-delay") + 1]) if "--start-delay" in ARGS else 0.0

BOOKING_SCHEMA = {
    "properties": {
        "partySize": {"maximum": 12, "minimum": 1, "title": "Party size", "type": "integer"},
        "seating": {"enum": ["indoor", "outdoor"], "title": "Seating", "type": "string"},
    },
    "required": ["partySize", "seating"],
    "title": "Booking",
    "type": "object",
}
TOOLS = [
    {"name": "book_table", "inputSchema": {"type": "object", "properties": {"date": {"type": "string"}},
                                           "required": ["date"]}},
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
    {"name": "structured", "inputSchema": {"type": "object"}},
    {"name": "ask_roots", "inputSchema": {"type": "object"}},
    {"name": "ask_sampling", "inputSchema": {"type": "object"}},
    {"name": "ping_client", "inputSchema": {"type": "object"}},
    {"name": "note_form", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}},
    {"name": "slow", "inputSchema": {"type": "object", "properties": {"steps": {"type": "integer"}}}},
    {"name": "visit_url", "inputSchema": {"type": "object"}},
    {"name": "needs_link", "inputSchema": {"type": "object"}},
]

state = {"initialized": False, "next_id": 0, "linked": False}


def read() -> dict | None:
    line = sys.stdin.readline()
    if not line:
        return None
    if RECORD:
        with open(RECORD, "a", encoding="utf-8") as log:
            log.write(json.dumps({"raw": line.rstrip("\n"), "at": time.monotonic()}) + "\n")
    return json.loads(line)


WRITING = threading.Lock()  # a log sent from another thread while a request waits


def write(msg: dict) -> None:
    with WRITING:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", **msg}) + "\n")
        sys.stdout.flush()


def log_when(path: str, text: str) -> None:
    """Send log message `text` once file `path` exists."""
    while not os.path.exists(path):
        time.sleep(0.05)
    write({"method": "notifications/message", "params": {"level": "info", "data": text}})


def ask_client(method: str, params: dict | None = None) -> dict:
    """Send a server-initiated request and wait for its response (answering pings meanwhile)."""
    state["next_id"] += 1
    rid = f"s{state['next_id']}"
    write({"id": rid, "method": method, **({"params": params} if params is not None else {})})
    while True:
        msg = read()
        if msg is None:
            sys.exit(0)
        if msg.get("id") == rid and "method" not in msg:
            return msg
        if msg.get("method") == "ping" and "id" in msg:
            write({"id": msg["id"], "result": {}})


def text_result(text: str, **extra: object) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": False, **extra}


def call_tool(params: dict) -> dict:
    name = params.get("name")
    args = params.get("arguments") or {}
    token = (params.get("_meta") or {}).get("progressToken")
    if name == "book_table":
        reply = ask_client("elicitation/create", {
            "message": f"Book a table on {args.get('date')}?", "requestedSchema": BOOKING_SCHEMA})
        outcome = reply.get("result") or {}
        action = outcome.get("action", "cancel")
        if action == "accept":
            content = outcome.get("content") or {}
            text = f"Booked a table for {content.get('partySize')} ({content.get('seating')}) on {args.get('date')}."
        else:
            text = f"No table booked ({action})."
        return {"result": text_result(text, structuredContent={"result": text})}
    if name == "note_form":
        threading.Thread(target=log_when, args=(str(args.get("path")), "the file is there"), daemon=True).start()
        reply = ask_client("elicitation/create", {"message": "Leave a note", "requestedSchema": {
            "type": "object", "properties": {"note": {"type": "string", "title": "Note"}}, "required": ["note"]}})
        content = (reply.get("result") or {}).get("content") or {}
        return {"result": text_result(f"note: {content.get('note')}")}
    if name == "echo":
        return {"result": text_result(str(args.get("text", "")))}
    if name == "structured":
        return {"result": text_result("see structuredContent", structuredContent={"count": 3, "ok": True})}
    if name == "ask_roots":
        reply = ask_client("roots/list")
        if "error" in reply:
            return {"result": text_result(f"roots error {reply['error'].get('code')}")}
        return {"result": text_result(" ".join(r.get("uri", "?") for r in reply["result"].get("roots", [])))}
    if name == "ask_sampling":
        reply = ask_client("sampling/createMessage", {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}],
            "maxTokens": 20})
        if "error" in reply:
            return {"result": text_result(f"sampling error {reply['error'].get('code')}")}
        return {"result": text_result("model said: " + reply["result"]["content"]["text"])}
    if name == "ping_client":
        reply = ask_client("ping")
        return {"result": text_result(f"ping answered: {reply.get('result')}")}
    if name == "slow":
        steps = int(args.get("steps", 2))
        for i in range(steps):
            if token is not None:
                write({"method": "notifications/progress",
                       "params": {"progressToken": token, "progress": i + 1, "total": steps}})
        write({"method": "notifications/message", "params": {"level": "info", "data": "slow work done"}})
        return {"result": text_result("slow done")}
    if name == "visit_url" and VERSION >= "2025-11-25":
        reply = ask_client("elicitation/create", {
            "mode": "url", "elicitationId": "el-1", "url": "https://example.com/connect?state=abc",
            "message": "Connect your account"})
        action = (reply.get("result") or {}).get("action")
        if action == "accept":
            write({"method": "notifications/elicitation/complete", "params": {"elicitationId": "el-1"}})
        return {"result": text_result(f"url elicitation: {action}")}
    if name == "needs_link" and VERSION >= "2025-11-25":
        if not state["linked"]:
            state["linked"] = True  # the next attempt succeeds, as if the person linked the account
            return {"error": {"code": -32042, "message": "This request requires more information.", "data": {
                "elicitations": [{"mode": "url", "elicitationId": "el-2", "url": "https://example.com/link",
                                  "message": "Link your example.com account"}]}}}
        return {"result": text_result("linked and done")}
    return {"error": {"code": -32602, "message": f"Unknown tool: {name}"}}


def handle(msg: dict) -> dict | None:
    method = msg.get("method")
    params = msg.get("params") or {}
    if method == "ping":
        if not state["initialized"]:
            return {"result": {}}
        return None if SILENT_PING else {"result": PING_RESULT}
    if method == "initialize":
        state["initialized"] = True
        caps = {"tools": {}, "resources": {}, "logging": {}}
        return {"result": {"protocolVersion": VERSION, "capabilities": caps,
                           "serverInfo": {"name": "legacy-test", "title": f"Legacy {VERSION} test server",
                                          "version": "0.9"},
                           "instructions": "A hand-written server for mrtr's tests."}}
    if not state["initialized"]:
        if SILENT:
            return None
        return {"error": {"code": -32601, "message": f"Method not found: {method}"}}
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "tools/call":
        return call_tool(params)
    if method == "logging/setLevel":
        return {"result": {}}
    if method == "resources/read":
        if params.get("uri") == "legacy://hello":
            return {"result": {"contents": [{"uri": "legacy://hello", "text": "hello from the past"}]}}
        return {"error": {"code": -32002, "message": "Resource not found", "data": {"uri": params.get("uri")}}}
    return {"error": {"code": -32601, "message": f"Method not found: {method}"}}


def main() -> None:
    if START_DELAY:
        import time

        time.sleep(START_DELAY)
    while True:
        msg = read()
        if msg is None:
            return
        if "id" not in msg or "method" not in msg:
            continue  # notifications and stray responses
        reply = handle(msg)
        if reply is not None:
            write({"id": msg["id"], **reply})


if __name__ == "__main__":
    main()
