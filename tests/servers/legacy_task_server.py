"""A hand-written MCP 2025-11-25 server with core tasks (raw JSON-RPC, no SDK).

Usage: python legacy_task_server.py [--http PORT] [--record FILE] [--no-list] [--page-size N] [--per-session]
       [--dash-ids] (task ids that start with "-")

The official SDK (`mcp` 2.3.0) leaves the 2025-11-25 `tasks/*` methods out on purpose,
so this server implements `basic/utilities/tasks` (2025-11-25) itself:

- `initialize` answers 2025-11-25 with `capabilities.tasks = {list, cancel,
  requests.tools.call}` (`--no-list` leaves out `list`, and `tasks/list` is then -32601);
- tools declare `execution.taskSupport`; a `required` tool called without `task` and a
  `forbidden` (or undeclared) one called with it get -32601;
- a task-augmented `tools/call` returns a CreateTaskResult `{"task": Task}` (`ttl` and
  `pollInterval` in milliseconds, `ttl` as requested);
- `tasks/get` returns `Result & Task`; `tasks/list` pages `--page-size` tasks (default 2)
  behind an opaque cursor (a bad cursor is -32602);
- `tasks/result` blocks until the task is terminal and returns exactly what `tools/call`
  would have (the CallToolResult, with `_meta["io.modelcontextprotocol/related-task"]`,
  or the JSON-RPC error); while it blocks, the task's questions are sent to the client as
  `elicitation/create` requests tagged with `related-task`, on that request's stream
  (stdio: stdout; HTTP: the SSE response of the `tasks/result` POST);
- `tasks/cancel` moves a running task to `cancelled` and returns it; a terminal one is -32602;
- status `failed` covers a tool result with `isError: true` (2025-11-25 semantics).

Transports: stdio (one JSON message per line), or legacy Streamable HTTP on
127.0.0.1:PORT/mcp with `--http PORT` (an `Mcp-Session-Id` minted on `initialize`, 404
for an unknown one, JSON responses except `tasks/result` which streams SSE, the client's
responses POSTed back and answered 202, GET 405, DELETE ends the session). Tasks live in
memory: over HTTP they outlive a client connection (with `--per-session`, each HTTP session
has its own tasks, which end with it: a DELETE or another session cannot see them). `--record FILE` appends every raw
incoming message (stdio lines as `{"raw": ...}`, HTTP requests with method and headers).

Tools (`R` required, `O` optional, `-` no task support):
- R `countdown {polls}`: working ("step i of N") until the N-th `tasks/get`, then completed
  with "done after N polls" (only polls move it on: `tasks/result` on it would block).
- R `approve {item, work}`: input_required at once; asks (through `tasks/result`) "Approve
  ITEM?" for `approver` (string, required) and `note` (string); accepted -> working for
  `work` seconds (default 0.3), then "ITEM approved by APPROVER"; declined or cancelled ->
  "ITEM not approved (ACTION)".
- R `explode`: failed; `tasks/result` returns the JSON-RPC error -32001 "the build exploded".
- R `check {value}`: failed with a CallToolResult whose `isError` is true.
- R `slow {seconds}`: working ("Ns of M") for that many seconds, then "slept Ms".
- O `quick {text}`: "quick: TEXT", at once or (with `task`) as a task completed on its first poll.
- - `echo {text}`: "TEXT" (no execution.taskSupport: forbidden by default).
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import sys
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

ARGS = sys.argv[1:]
RECORD = ARGS[ARGS.index("--record") + 1] if "--record" in ARGS else None
HTTP_PORT = int(ARGS[ARGS.index("--http") + 1]) if "--http" in ARGS else None
PER_SESSION = "--per-session" in ARGS
PAGE_SIZE = int(ARGS[ARGS.index("--page-size") + 1]) if "--page-size" in ARGS else 2
WITH_LIST = "--no-list" not in ARGS
DASH_IDS = "--dash-ids" in ARGS  # task ids that start with "-" (as base64url ids may)
VERSION = "2025-11-25"
RELATED = "io.modelcontextprotocol/related-task"
POLL_MS = 200
DEFAULT_TTL = 60_000
METHOD_NOT_FOUND, INVALID_PARAMS = -32601, -32602
TERMINAL = {"completed", "failed", "cancelled"}

Emit = Callable[[dict], None]


def schema(**props: str) -> dict:
    return {"type": "object", "properties": {k: {"type": v} for k, v in props.items()}}


def tool(name: str, support: str | None, **props: str) -> dict:
    spec = {"name": name, "inputSchema": schema(**props)}
    if support:
        spec["execution"] = {"taskSupport": support}
    return spec


TOOLS = [
    tool("countdown", "required", polls="integer"),
    tool("approve", "required", item="string", work="number"),
    tool("explode", "required"),
    tool("check", "required", value="string"),
    tool("slow", "required", seconds="number"),
    tool("quick", "optional", text="string"),
    tool("echo", None, text="string"),
]
SUPPORT = {t["name"]: (t.get("execution") or {}).get("taskSupport", "forbidden") for t in TOOLS}
APPROVAL = {"type": "object", "required": ["approver"], "properties": {
    "approver": {"type": "string", "title": "Approver"}, "note": {"type": "string", "title": "Note"}}}


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def text_result(text: str, *, is_error: bool = False) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def error(code: int, message: str) -> dict:
    return {"error": {"code": code, "message": message}}


class Task:
    """One task: its public `Task` fields, its outcome, and the questions it waits on."""

    def __init__(self, name: str, args: dict, ttl: int | None):
        self.task_id = f"{'-' if DASH_IDS else ''}{name}-{uuid.uuid4().hex[:12]}"
        self.name, self.args = name, args
        self.status, self.message = "working", None
        self.created = self.updated = now()
        self.ttl = ttl if ttl is not None else DEFAULT_TTL
        self.polls = 0
        self.outcome: dict | None = None  # {"result": ...} or {"error": ...} once terminal
        self.asks: list[tuple[str, dict, dict]] = []  # (method, params, slot) not yet sent
        self.cond = threading.Condition()

    def wire(self) -> dict:
        out = {"taskId": self.task_id, "status": self.status, "createdAt": self.created,
               "lastUpdatedAt": self.updated, "ttl": self.ttl, "pollInterval": POLL_MS}
        if self.message:
            out["statusMessage"] = self.message
        return out

    def set(self, status: str, message: str | None = None, outcome: dict | None = None) -> None:
        with self.cond:
            if self.status in TERMINAL:
                return  # a terminal task never changes (a cancelled one stays cancelled)
            self.status, self.message, self.updated = status, message, now()
            if outcome is not None:
                self.outcome = outcome
            self.cond.notify_all()

    def finish(self, result: dict) -> None:
        """completed, or failed for a tool result with isError (2025-11-25 semantics)."""
        self.set("failed" if result.get("isError") else "completed", None, {"result": result})

    def ask(self, method: str, params: dict) -> dict:
        """Queue a question for the client (sent through `tasks/result`); wait for its response."""
        slot: dict = {}
        with self.cond:
            self.asks.append((method, params, slot))
            self.cond.notify_all()
        self.set("input_required", "waiting for approval")
        with self.cond:
            self.cond.wait_for(lambda: "reply" in slot or self.status in TERMINAL)
        self.set("working", "approval received")
        return slot.get("reply", {"error": {"code": -32603, "message": "task ended"}})


class Core:
    """The protocol, independent of the transport: `handle(msg, emit)` returns the response
    to one request; `emit` sends a message on that request's stream (server requests)."""

    def __init__(self) -> None:
        self.tasks: dict[str, Task] = {}
        self.lock = threading.Lock()
        self.replies: dict[str, dict] = {}
        self.reply_cond = threading.Condition()
        self.ids = itertools.count(1)

    # ------------------------------------------------------------------ client replies
    def deliver(self, msg: dict) -> None:
        with self.reply_cond:
            self.replies[str(msg.get("id"))] = msg
            self.reply_cond.notify_all()

    def ask_client(self, method: str, params: dict, emit: Emit) -> dict:
        rid = f"srv-{next(self.ids)}"
        emit({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        with self.reply_cond:
            self.reply_cond.wait_for(lambda: rid in self.replies)
            return self.replies.pop(rid)

    # ------------------------------------------------------------------ requests
    def handle(self, msg: dict, emit: Emit) -> dict:
        method, params = msg.get("method"), msg.get("params") or {}
        if method == "initialize":
            caps: dict[str, Any] = {"cancel": {}, "requests": {"tools": {"call": {}}}}
            if WITH_LIST:
                caps["list"] = {}
            reply = {"result": {"protocolVersion": VERSION, "capabilities": {"tools": {}, "tasks": caps},
                                "serverInfo": {"name": "legacy-tasks", "version": "0.1"}}}
        elif method == "ping":
            reply = {"result": {}}
        elif method == "tools/list":
            reply = {"result": {"tools": TOOLS}}
        elif method == "tools/call":
            reply = self.call(params)
        elif method in ("tasks/get", "tasks/result", "tasks/cancel"):
            task = self.tasks.get(params.get("taskId"))
            if task is None:
                reply = error(INVALID_PARAMS, "Failed to retrieve task: Task not found")
            else:
                reply = getattr(self, method.replace("tasks/", "task_"))(task, emit)
        elif method == "tasks/list" and WITH_LIST:
            reply = self.list(params.get("cursor"))
        else:
            reply = error(METHOD_NOT_FOUND, f"Method not found: {method}")
        return {"jsonrpc": "2.0", "id": msg["id"], **reply}

    def call(self, params: dict) -> dict:
        name, args = params.get("name"), params.get("arguments") or {}
        if name not in SUPPORT:
            return error(INVALID_PARAMS, f"Unknown tool: {name}")
        augmented = isinstance(params.get("task"), dict)
        support = SUPPORT[name]
        if support == "required" and not augmented:
            return error(METHOD_NOT_FOUND, f"Tool {name} requires task augmentation")
        if support == "forbidden" and augmented:
            return error(METHOD_NOT_FOUND, f"Tool {name} does not support task augmentation")
        if not augmented:
            return {"result": text_result(f"quick: {args.get('text')}" if name == "quick" else str(args.get("text")))}
        task = Task(name, args, params["task"].get("ttl"))
        with self.lock:
            self.tasks[task.task_id] = task
        created = task.wire()  # every task begins "working"
        if name in ("approve", "slow"):
            threading.Thread(target=getattr(self, f"run_{name}"), args=(task,), daemon=True).start()
        elif name == "explode":
            task.set("failed", "exploded", {"error": {"code": -32001, "message": "the build exploded"}})
        elif name == "check":
            task.finish(text_result(f"check failed: {args.get('value')}", is_error=True))
        return {"result": {"task": created,
                           "_meta": {"io.modelcontextprotocol/model-immediate-response": f"{name} started"}}}

    def run_approve(self, task: Task) -> None:
        item = task.args.get("item")
        reply = task.ask("elicitation/create", {"message": f"Approve {item}?", "requestedSchema": APPROVAL,
                                                "_meta": {RELATED: {"taskId": task.task_id}}})
        outcome = reply.get("result") or {}
        if outcome.get("action") == "accept":
            time.sleep(float(task.args.get("work", 0.3)))  # work after the answer: "working" again meanwhile
            task.finish(text_result(f"{item} approved by {(outcome.get('content') or {}).get('approver')}"))
        else:
            task.finish(text_result(f"{item} not approved ({outcome.get('action', 'error')})"))

    def run_slow(self, task: Task) -> None:
        seconds = float(task.args.get("seconds", 1))
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            task.set("working", f"{int(time.monotonic() - start)}s of {seconds:g}s")
            time.sleep(0.25)
        task.finish(text_result(f"slept {seconds:g}s"))

    def task_get(self, task: Task, emit: Emit) -> dict:
        with task.cond:
            task.polls += 1
        if task.name == "countdown":
            total = int(task.args.get("polls", 1))
            if task.polls >= total:
                task.finish(text_result(f"done after {total} polls"))
            else:
                task.set("working", f"step {task.polls} of {total}")
        elif task.name == "quick":
            task.finish(text_result(f"quick: {task.args.get('text')}"))
        with task.cond:
            return {"result": task.wire()}

    def task_result(self, task: Task, emit: Emit) -> dict:
        """Block until terminal, sending the task's questions to the client meanwhile."""
        while True:
            with task.cond:
                task.cond.wait_for(lambda: task.asks or task.status in TERMINAL)
                if task.status in TERMINAL:
                    outcome = task.outcome or {"error": {"code": -32603, "message": "Task was cancelled"}}
                    break
                method, params, slot = task.asks.pop(0)
            reply = self.ask_client(method, params, emit)
            with task.cond:
                slot["reply"] = reply
                task.cond.notify_all()
        if "result" in outcome:
            result = dict(outcome["result"])
            result["_meta"] = {**(result.get("_meta") or {}), RELATED: {"taskId": task.task_id}}
            return {"result": result}
        return {"error": outcome["error"]}

    def task_cancel(self, task: Task, emit: Emit) -> dict:
        with task.cond:
            if task.status in TERMINAL:
                return error(INVALID_PARAMS, f"Cannot cancel task: already {task.status}")
        task.set("cancelled", "The task was cancelled by request.",
                 {"error": {"code": -32603, "message": "Task was cancelled"}})
        with task.cond:
            return {"result": task.wire()}

    def list(self, cursor: Any) -> dict:
        with self.lock:
            tasks = sorted(self.tasks.values(), key=lambda t: (t.created, t.task_id))
        start = 0
        if cursor is not None:
            try:
                start = int(base64.urlsafe_b64decode(str(cursor).encode()).decode().removeprefix("page:"))
            except ValueError:
                return error(INVALID_PARAMS, "Invalid cursor")
        page = tasks[start:start + PAGE_SIZE]
        result: dict[str, Any] = {"tasks": [t.wire() for t in page]}
        if start + PAGE_SIZE < len(tasks):
            result["nextCursor"] = base64.urlsafe_b64encode(f"page:{start + PAGE_SIZE}".encode()).decode()
        return {"result": result}


# ---------------------------------------------------------------------- stdio
def serve_stdio(core: Core) -> None:
    write_lock = threading.Lock()

    def emit(msg: dict) -> None:
        with write_lock:
            sys.stdout.write(json.dumps(msg) + "\n")
            sys.stdout.flush()

    for line in sys.stdin:
        if RECORD:
            with open(RECORD, "a", encoding="utf-8") as log:
                log.write(json.dumps({"raw": line.rstrip("\n")}) + "\n")
        msg = json.loads(line)
        if "method" not in msg:
            core.deliver(msg)  # the client's response to one of our requests
        elif "id" in msg:
            threading.Thread(target=lambda m=msg: emit(core.handle(m, emit)), daemon=True).start()


# ---------------------------------------------------------------------- legacy Streamable HTTP
class HttpApp:
    """Raw ASGI app: legacy (2025-11-25) Streamable HTTP with sessions."""

    def __init__(self, core: Core):
        self.shared = core
        self.sessions: dict[str, Core] = {}

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        session = headers.get("mcp-session-id")
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if scope["method"] == "DELETE":
            self.sessions.pop(session or "", None)
            return await self.plain(send, 200)
        if scope["method"] != "POST":
            return await self.plain(send, 405)
        msg = json.loads(body)
        if msg.get("method") == "initialize":
            session = uuid.uuid4().hex
            self.sessions[session] = Core() if PER_SESSION else self.shared
            reply = self.sessions[session].handle(msg, lambda m: None)
            return await self.json(send, reply, [(b"mcp-session-id", session.encode())])
        if session not in self.sessions:
            return await self.plain(send, 404 if session else 400)
        core = self.sessions[session]
        if "method" not in msg:
            core.deliver(msg)
            return await self.plain(send, 202)
        if "id" not in msg:
            return await self.plain(send, 202)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()

        def emit(m: dict) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, m)

        threading.Thread(target=lambda: emit(core.handle(msg, emit)), daemon=True).start()
        if msg["method"] != "tasks/result":
            return await self.json(send, await queue.get())
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]})
        while True:
            out = await queue.get()
            await send({"type": "http.response.body", "more_body": True,
                        "body": f"event: message\ndata: {json.dumps(out)}\n\n".encode()})
            if out.get("id") == msg["id"] and "method" not in out:
                break
        await send({"type": "http.response.body", "body": b""})

    @staticmethod
    async def plain(send: Any, status: int) -> None:
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    @staticmethod
    async def json(send: Any, msg: dict, extra: list | None = None) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), *(extra or [])]})
        await send({"type": "http.response.body", "body": json.dumps(msg).encode()})


def main() -> None:
    core = Core()
    if HTTP_PORT is None:
        serve_stdio(core)
        return
    import os

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from common import listen, serve_apps

    serve_apps([(HttpApp(core), listen(HTTP_PORT)[0])], ready_file=None, ready={}, record=RECORD)


if __name__ == "__main__":
    main()
