"""A tasks test server on the official SDK's extension hooks (`MCPServer(extensions=[...])`).

Usage: python task_server.py [--http PORT] [--record FILE] [--store FILE] [--variant ext|sep2322|sep2322ms]

`--variant ext` (default) serves the `io.modelcontextprotocol/tasks` extension:
`tools/call` answers with a flat CreateTaskResult (`resultType: "task"`), `tasks/get`
inlines `inputRequests`, `result` and `error`, `tasks/update` takes answers and
`tasks/cancel` cancels. `--variant sep2322` serves the SEP-2322 "persistent
workflow" instead: `tasks/get` says `input_required` or `completed` without
`inputRequests`/`result` and uses the SEP's `ttl`/`pollInterval` names;
`tasks/result` returns the input requests (or the final result, or the error);
`tasks/input_response` carries the answers with the task id only in
`_meta["io.modelcontextprotocol/related-task"]`. `--variant sep2322ms` is the same
workflow with the extension's `ttlMs`/`pollIntervalMs` names, so a client can only
tell it apart by what `tasks/get` leaves out.

A task's status is a pure function of its stored record (creation time, polls seen,
answers, cancel flag), so with `--store FILE` tasks outlive a stdio connection: a
new server process started on the same file carries on where the last one stopped.

Tools (each becomes a task; `deploy` goes through an MRTR round first):
- `countdown {polls}`: working ("step i of N") until the N-th `tasks/get`, then completed.
- `slow {seconds}`: working for `seconds` of wall time, then completed.
- `ask_once`: input `name-1` (a name), then "hello NAME".
- `ask_twice`: input `name-1`, then `color-1`, then "NAME likes COLOR".
- `reask`: input `code-1`, `code-2`, ... until an answer has code "42"; a declined or
  wrong answer is asked again under a new key.
- `two_at_once`: inputs `a-1` and `b-1` together; the result says how many updates carried them.
- `fail`: failed with a JSON-RPC error after the first poll.
- `cancel_self`: cancelled by the server after the first poll.
- `expire {ttlMs}`: working forever; after `ttlMs` the task is gone (`-32602`).
- `intervals`: `pollIntervalMs` changes on every poll (200, 700, 300, 300); completed after
  four polls with the measured gaps between polls in `structuredContent`.
- `error_result`: completed with a tool result that has `isError: true`.
- `deploy`: MRTR round `env` (with requestState), then a task that asks `approve-1`.
- `slow_get {polls}`: like `countdown` (default 2 polls), but each `tasks/get` takes 3 s.
- `sign_in`: input `login-1` (a form: `user`, and `password`, a secret), then "signed in USER".
- `vanish`: asks like `ask_once`, but the task is gone (`-32602`) when the answer arrives.
- `sloppy`: like `countdown` with 2 polls, but its `tasks/get` results say `resultType: "task"`
  (as ext-tasks' own examples do), which a client must tolerate.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.server import require_client_extension
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult, RequestParams
from pydantic import Field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import parse_args, serve

TASKS = "io.modelcontextprotocol/tasks"
RELATED = "io.modelcontextprotocol/related-task"
INTERVALS = [200, 700, 300, 300]
DEFAULT_POLL_MS = 200
DEFAULT_TTL_MS = 600_000


def parse_extra() -> tuple[str | None, str]:
    argv = sys.argv
    store = argv[argv.index("--store") + 1] if "--store" in argv else None
    variant = argv[argv.index("--variant") + 1] if "--variant" in argv else "ext"
    return store, variant


# ---------------------------------------------------------------------- storage
class Store:
    """Task records in memory, or in a JSON file shared by successive server processes."""

    def __init__(self, path: str | None):
        self.path = path
        self.memory: dict[str, Any] = {}
        self.lock = threading.Lock()

    @contextlib.contextmanager
    def edit(self) -> Iterator[dict[str, Any]]:
        with self.lock:
            tasks = self.memory
            if self.path and os.path.exists(self.path):
                with open(self.path, encoding="utf-8") as fh:
                    tasks = json.load(fh)
            yield tasks
            if self.path:
                tmp = self.path + ".tmp"
                with open(tmp, "w", encoding="utf-8") as fh:
                    json.dump(tasks, fh)
                os.replace(tmp, self.path)
            else:
                self.memory = tasks


def form(message: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"method": "elicitation/create", "params": {
        "mode": "form", "message": message,
        "requestedSchema": {"type": "object", "properties": properties, "required": required}}}


def text_result(text: str, *, is_error: bool = False, structured: Any = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": is_error}
    if structured is not None:
        result["structuredContent"] = structured
    return result


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).isoformat()


def accepted(response: Any) -> dict[str, Any] | None:
    """The content of an accept answer, else None."""
    if isinstance(response, dict) and response.get("action") == "accept":
        return response.get("content") or {}
    return None


# ---------------------------------------------------------------------- scenarios
def evaluate(task: dict[str, Any], now: float) -> dict[str, Any]:
    """The task's current state: {status, statusMessage?, inputRequests?, result?, error?}."""
    if task.get("cancelled"):
        return {"status": "cancelled", "statusMessage": "cancelled at the client's request"}
    tool, args, answers = task["tool"], task["args"], task["answers"]
    polls = len(task["gets"])
    if tool in ("countdown", "sloppy", "slow_get"):
        total = int(args.get("polls", 3 if tool == "countdown" else 2))
        if polls >= total:
            return {"status": "completed", "result": text_result(f"done after {polls} polls")}
        return {"status": "working", "statusMessage": f"step {polls} of {total}"}
    if tool == "slow":
        seconds = float(args.get("seconds", 2))
        elapsed = now - task["created"]
        if elapsed >= seconds:
            return {"status": "completed", "result": text_result(f"slept {seconds:g}s")}
        return {"status": "working", "statusMessage": f"working: {int(elapsed)}s of {seconds:g}s"}
    if tool in ("ask_once", "vanish"):
        if "name-1" not in answers:
            return {"status": "input_required", "statusMessage": "waiting for a name",
                    "inputRequests": {"name-1": form("Who should be greeted?", {"name": {"type": "string"}},
                                                     ["name"])}}
        content = accepted(answers["name-1"])
        return {"status": "completed", "result": text_result(f"hello {content['name']}" if content else "no name")}
    if tool == "sign_in":
        if "login-1" not in answers:
            return {"status": "input_required", "inputRequests": {"login-1": form(
                "Sign in", {"user": {"type": "string"}, "password": {"type": "string"}}, ["user", "password"])}}
        content = accepted(answers["login-1"]) or {}
        return {"status": "completed", "result": text_result(f"signed in {content.get('user')}")}
    if tool == "ask_twice":
        if "name-1" not in answers:
            return {"status": "input_required",
                    "inputRequests": {"name-1": form("Your name?", {"name": {"type": "string"}}, ["name"])}}
        if "color-1" not in answers:
            return {"status": "input_required", "inputRequests": {"color-1": form(
                "Favourite colour?", {"color": {"type": "string", "enum": ["red", "green"]}}, ["color"])}}
        name = (accepted(answers["name-1"]) or {}).get("name")
        color = (accepted(answers["color-1"]) or {}).get("color")
        return {"status": "completed", "result": text_result(f"{name} likes {color}")}
    if tool == "reask":
        attempt = 1
        while f"code-{attempt}" in answers:
            if (accepted(answers[f"code-{attempt}"]) or {}).get("code") == "42":
                return {"status": "completed", "result": text_result(f"unlocked after {attempt} attempts")}
            attempt += 1
        message = "Enter the code" if attempt == 1 else f"Wrong or missing code; try again (attempt {attempt})"
        return {"status": "input_required", "inputRequests": {
            f"code-{attempt}": form(message, {"code": {"type": "string"}}, ["code"])}}
    if tool == "two_at_once":
        outstanding = {k: v for k, v in {
            "a-1": form("First value?", {"a": {"type": "string"}}, ["a"]),
            "b-1": form("Second value?", {"b": {"type": "integer"}}, ["b"]),
        }.items() if k not in answers}
        if outstanding:
            return {"status": "input_required", "inputRequests": outstanding}
        a = (accepted(answers["a-1"]) or {}).get("a")
        b = (accepted(answers["b-1"]) or {}).get("b")
        updates = len([u for u in task["updates"] if u])
        return {"status": "completed", "result": text_result(f"a={a} b={b} in {updates} update(s)")}
    if tool == "fail":
        if polls >= 1:
            return {"status": "failed", "statusMessage": "the build broke",
                    "error": {"code": -32000, "message": "the build broke at the link step",
                              "data": {"step": "link"}}}
        return {"status": "working"}
    if tool == "cancel_self":
        if polls >= 1:
            return {"status": "cancelled", "statusMessage": "cancelled by an operator"}
        return {"status": "working"}
    if tool == "expire":
        return {"status": "working", "statusMessage": "this will never finish"}
    if tool == "intervals":
        if polls >= len(INTERVALS):
            times = [task["created"], *task["gets"]]
            gaps = [round((b - a) * 1000) for a, b in zip(times, times[1:], strict=False)]  # each with the next
            announced = [DEFAULT_POLL_MS] + INTERVALS[: len(gaps) - 1]
            return {"status": "completed", "result": text_result(
                "intervals done", structured={"gapsMs": gaps, "announcedMs": announced})}
        return {"status": "working", "statusMessage": f"poll {polls}"}
    if tool == "error_result":
        return {"status": "completed", "result": text_result("tool failed politely", is_error=True)}
    if tool == "deploy":
        env = task["args"].get("env")
        if "approve-1" not in answers:
            return {"status": "input_required", "inputRequests": {"approve-1": form(
                f"Approve the deployment to {env}?", {"approve": {"type": "boolean"}}, ["approve"])}}
        approve = (accepted(answers["approve-1"]) or {}).get("approve")
        return {"status": "completed", "result": text_result(f"deployed to {env}, approved={approve}")}
    return {"status": "failed", "error": {"code": -32603, "message": f"unknown tool {tool}"}}


def poll_interval(task: dict[str, Any]) -> int:
    if task["tool"] == "intervals":
        polls = len(task["gets"])
        return INTERVALS[min(polls, len(INTERVALS)) - 1] if polls else DEFAULT_POLL_MS
    return DEFAULT_POLL_MS


# ---------------------------------------------------------------------- the extension
class TaskIdParams(RequestParams):
    task_id: str = Field(alias="taskId")


class UpdateParams(RequestParams):
    task_id: str = Field(alias="taskId")
    input_responses: dict[str, Any] = Field(alias="inputResponses", default_factory=dict)


class InputResponseParams(RequestParams):
    input_responses: dict[str, Any] = Field(alias="inputResponses", default_factory=dict)


class TestTasks(Extension):
    """Serves the tasks extension (or the SEP-2322 variant) over the SDK's extension hooks."""

    identifier = TASKS

    def __init__(self, store: Store, variant: str):
        self.store = store
        self.sep = variant.startswith("sep2322")
        self.sep_names = variant == "sep2322"

    def methods(self) -> list[MethodBinding]:
        bindings = [
            MethodBinding("tasks/get", TaskIdParams, self.get),
            MethodBinding("tasks/cancel", TaskIdParams, self.cancel),
        ]
        if self.sep:
            bindings += [MethodBinding("tasks/result", TaskIdParams, self.result),
                         MethodBinding("tasks/input_response", InputResponseParams, self.input_response)]
        else:
            bindings.append(MethodBinding("tasks/update", UpdateParams, self.update))
        return bindings

    # ------------------------------------------------------------------ tools/call
    async def intercept_tool_call(self, params: Any, ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        require_client_extension(ctx, TASKS)
        args = dict(params.arguments or {})
        if params.name == "deploy":
            responses = params.input_responses or {}
            answer = responses.get("env")
            content = answer.content if answer is not None and answer.action == "accept" else None
            if not content:
                return InputRequiredResult(
                    input_requests={"env": ElicitRequest(params=ElicitRequestFormParams(
                        message="Deploy where?",
                        requested_schema={"type": "object", "properties": {
                            "env": {"type": "string", "enum": ["staging", "production"]}}, "required": ["env"]}))},
                    request_state="deploy-round-1")
            args["env"] = content["env"]
        now = time.time()
        task_id = f"{params.name}-{secrets.token_urlsafe(12)}"
        ttl_ms = int(args.get("ttlMs", DEFAULT_TTL_MS)) if params.name == "expire" else DEFAULT_TTL_MS
        with self.store.edit() as tasks:
            tasks[task_id] = {"tool": params.name, "args": args, "created": now, "ttlMs": ttl_ms,
                              "answers": {}, "updates": [], "gets": [], "cancelled": False}
        handle = self.task_fields(task_id, tasks[task_id], {"status": "working",
                                                             "statusMessage": f"{params.name} started"}, now)
        return {"resultType": "task", **handle}

    # ------------------------------------------------------------------ helpers
    def task_fields(self, task_id: str, task: dict[str, Any], state: dict[str, Any], now: float) -> dict[str, Any]:
        fields: dict[str, Any] = {"taskId": task_id, "status": state["status"], "createdAt": iso(task["created"]),
                                  "lastUpdatedAt": iso(now)}
        if state.get("statusMessage"):
            fields["statusMessage"] = state["statusMessage"]
        if self.sep_names:
            fields.update(ttl=task["ttlMs"], pollInterval=poll_interval(task))
        else:
            fields.update(ttlMs=task["ttlMs"], pollIntervalMs=poll_interval(task))
        return fields

    def lookup(self, tasks: dict[str, Any], task_id: str, now: float) -> dict[str, Any]:
        task = tasks.get(task_id)
        if task is None or now > task["created"] + task["ttlMs"] / 1000:
            raise MCPError(code=-32602, message=f"Task {task_id} not found (unknown or expired)")
        return task

    # ------------------------------------------------------------------ tasks/*
    async def get(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
        require_client_extension(ctx, TASKS)
        now = time.time()
        with self.store.edit() as tasks:
            task = self.lookup(tasks, params.task_id, now)
            task["gets"].append(now)
            state = evaluate(task, now)
            fields = self.task_fields(params.task_id, task, state, now)
        if not self.sep:
            for key in ("inputRequests", "result", "error"):
                if key in state:
                    fields[key] = state[key]
        if task["tool"] == "sloppy":
            fields["resultType"] = "task"
        if task["tool"] == "slow_get":
            import anyio

            await anyio.sleep(3)  # a tasks/get that takes its time
        return fields

    async def update(self, ctx: ServerRequestContext[Any, Any], params: UpdateParams) -> dict[str, Any]:
        require_client_extension(ctx, TASKS)
        self.answer(params.task_id, params.input_responses)
        return {}

    async def cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
        require_client_extension(ctx, TASKS)
        now = time.time()
        with self.store.edit() as tasks:
            task = self.lookup(tasks, params.task_id, now)
            if evaluate(task, now)["status"] not in ("completed", "failed", "cancelled"):
                task["cancelled"] = True
        return {}

    def answer(self, task_id: str, responses: dict[str, Any]) -> None:
        now = time.time()
        with self.store.edit() as tasks:
            task = self.lookup(tasks, task_id, now)
            if task["tool"] == "vanish":  # gone by the time the answer arrives
                del tasks[task_id]
                raise MCPError(code=-32602, message=f"Task {task_id} not found (unknown or expired)")
            outstanding = evaluate(task, now).get("inputRequests") or {}
            used = [k for k in responses if k in outstanding and k not in task["answers"]]
            for key in used:
                task["answers"][key] = responses[key]
            task["updates"].append(used)

    # ------------------------------------------------------------------ SEP-2322
    async def result(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
        now = time.time()
        with self.store.edit() as tasks:
            state = evaluate(self.lookup(tasks, params.task_id, now), now)
        related = {"_meta": {RELATED: {"taskId": params.task_id}}}
        if state["status"] == "input_required":
            return {"resultType": "input_required", "inputRequests": state["inputRequests"], **related}
        if state["status"] == "completed":
            return {"resultType": "complete", **state["result"], **related}
        if state["status"] == "failed":
            raise MCPError(code=state["error"]["code"], message=state["error"]["message"],
                           data=state["error"].get("data"))
        raise MCPError(code=-32602, message=f"Task {params.task_id} has no result yet ({state['status']})")

    async def input_response(self, ctx: ServerRequestContext[Any, Any], params: InputResponseParams) -> dict[str, Any]:
        meta = params.meta if isinstance(params.meta, dict) else {}
        related = meta.get(RELATED) or {}
        task_id = related.get("taskId")
        if not task_id:
            raise MCPError(code=-32602, message="tasks/input_response needs _meta related-task taskId")
        self.answer(task_id, params.input_responses)
        return {"_meta": {RELATED: {"taskId": task_id}}}


def build_server(store: Store, variant: str) -> MCPServer:
    mcp = MCPServer("task-test", version="1.0", extensions=[TestTasks(store, variant)])

    # The bodies never run: the extension's interceptor turns every call into a task.
    @mcp.tool()
    def countdown(polls: int = 3) -> str: ...
    @mcp.tool()
    def slow(seconds: float = 2) -> str: ...
    @mcp.tool()
    def ask_once() -> str: ...
    @mcp.tool()
    def ask_twice() -> str: ...
    @mcp.tool()
    def reask() -> str: ...
    @mcp.tool()
    def two_at_once() -> str: ...
    @mcp.tool()
    def fail() -> str: ...
    @mcp.tool()
    def cancel_self() -> str: ...
    @mcp.tool()
    def expire(ttlMs: int = 1000) -> str: ...  # noqa: N803
    @mcp.tool()
    def intervals() -> str: ...
    @mcp.tool()
    def error_result() -> str: ...
    @mcp.tool()
    def deploy() -> str: ...
    @mcp.tool()
    def sloppy() -> str: ...
    @mcp.tool()
    def vanish() -> str: ...
    @mcp.tool()
    def sign_in() -> str: ...
    @mcp.tool()
    def slow_get(polls: int = 2) -> str: ...

    return mcp


if __name__ == "__main__":
    store_path, variant_name = parse_extra()
    serve(build_server(Store(store_path), variant_name), parse_args(__doc__), lowlevel=False)
