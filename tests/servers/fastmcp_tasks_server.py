"""A real implementation of the tasks extension: FastMCP with `fastmcp-tasks` (PyPI), in memory.

Usage: python fastmcp_tasks_server.py [--http PORT]

Every tool runs as a background task (`TaskConfig(mode="required")`) on the
in-memory Docket backend (`FASTMCP_DOCKET_URL=memory://`), polled every 250 ms.
Task tools ask for input with the guard pattern: they return an
`InputRequiredResult` and read the answers from `ctx.input_responses` when
fastmcp-tasks re-runs them after `tasks/update`. fastmcp-tasks surfaces each
input request under a fresh random key, so answers are matched by field name
(`-a FIELD=VALUE`, `fields` in an answer file) or typed at the terminal.

Tools:
- `slow {seconds}`: sleeps, reporting progress (statusMessage), then "slept Ns".
- `steps {count}`: reports "step I of COUNT" (statusMessage) for each step, and goes on to
  the next only once a `tasks/get` that came after the report has been answered: every
  step is seen by a poll, however slow the machine; then "done in COUNT steps".
- `greet`: asks for a name once: "hello NAME".
- `greet_twice`: asks for a name, then a colour: "NAME likes COLOR".
- `pair`: asks two questions at once (one tasks/update answers both): "a=A b=B".
- `unlock`: asks for a code until it is "42" (a wrong answer is asked again): "unlocked".
- `explode`: raises a JSON-RPC error: the task fails.
- `oops`: raises a tool error: the task completes with `isError: true`.
"""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import timedelta

os.environ.setdefault("FASTMCP_DOCKET_URL", "memory://")

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension
from mcp.shared.exceptions import MCPError

TASK = TaskConfig(mode="required", poll_interval=timedelta(milliseconds=250))



class Gets:
    """How many `tasks/get` requests have begun, and how many have been answered."""

    begun = 0
    answered = 0


class CountingTasksExtension(TasksExtension):
    """fastmcp-tasks' extension as it ships, counting the `tasks/get` requests (`Gets`)."""

    async def _handle_get(self, ctx, params):  # type: ignore[no-untyped-def]
        Gets.begun += 1
        try:
            return await super()._handle_get(ctx, params)
        finally:
            Gets.answered += 1


mcp = FastMCP("fastmcp-tasks-test")
mcp.add_extension(CountingTasksExtension())


def form(message: str, properties: dict, required: list[str]) -> mcp_types.ElicitRequest:
    return mcp_types.ElicitRequest(params=mcp_types.ElicitRequestFormParams(
        message=message, requested_schema={"type": "object", "properties": properties, "required": required}))


def ask(**requests: mcp_types.ElicitRequest) -> mcp_types.InputRequiredResult:
    return mcp_types.InputRequiredResult(input_requests=requests)


def content(ctx: Context, key: str) -> dict | None:
    answer = (ctx.input_responses or {}).get(key)
    return answer.content if answer is not None and answer.action == "accept" else None


@mcp.tool(task=TASK)
async def slow(ctx: Context, seconds: float = 1.0) -> str:
    steps = max(1, int(seconds / 0.25))
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1} of {steps}")
        await asyncio.sleep(seconds / steps)
    return f"slept {seconds:g}s"


@mcp.tool(task=TASK)
async def steps(ctx: Context, count: int = 3) -> str:
    for i in range(count):
        await ctx.report_progress(i + 1, count, f"step {i + 1} of {count}")
        before = Gets.begun
        while Gets.begun <= before or Gets.answered < Gets.begun:  # a poll after the report, answered
            await asyncio.sleep(0.01)
    return f"done in {count} steps"


@mcp.tool(task=TASK)
async def greet(ctx: Context) -> str:
    answer = content(ctx, "name")
    if answer is None:
        return ask(name=form("Who should be greeted?", {"name": {"type": "string"}}, ["name"]))
    return f"hello {answer['name']}"


@mcp.tool(task=TASK)
async def greet_twice(ctx: Context) -> str:
    state = ctx.request_state
    name = content(ctx, "name")
    if state is None and name is None:
        return ask(name=form("Your name?", {"name": {"type": "string"}}, ["name"]))
    if state is None:
        return mcp_types.InputRequiredResult(
            input_requests={"color": form("Favourite colour?", {
                "color": {"type": "string", "enum": ["red", "green"]}}, ["color"])},
            request_state=name["name"])
    color = content(ctx, "color")
    return f"{state} likes {color['color'] if color else 'nothing'}"


@mcp.tool(task=TASK)
async def pair(ctx: Context) -> str:
    a, b = content(ctx, "a"), content(ctx, "b")
    if a is None or b is None:
        return ask(a=form("First value?", {"a": {"type": "string"}}, ["a"]),
                   b=form("Second value?", {"b": {"type": "integer"}}, ["b"]))
    return f"a={a['a']} b={b['b']}"


@mcp.tool(task=TASK)
async def unlock(ctx: Context) -> str:
    answer = content(ctx, "code")
    if answer is not None and answer.get("code") == "42":
        return "unlocked"
    message = "Enter the code" if answer is None else "Wrong code; try again"
    return ask(code=form(message, {"code": {"type": "string"}}, ["code"]))


@mcp.tool(task=TASK)
async def explode() -> str:
    raise MCPError(code=-32001, message="the reactor overheated", data={"core": 7})


@mcp.tool(task=TASK)
async def oops() -> str:
    raise ToolError("the tool failed politely")


if __name__ == "__main__":
    if "--http" in sys.argv:
        from common import listen, serve_apps

        port = int(sys.argv[sys.argv.index("--http") + 1])
        serve_apps([(mcp.http_app(), listen(port)[0])], ready_file=None, ready={})
    else:
        mcp.run(show_banner=False, log_level="warning")
