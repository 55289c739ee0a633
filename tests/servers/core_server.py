"""A 2026-07-28 test server on the official SDK's lowlevel `Server` (no requestState sealing),
so tests see exactly the `requestState` they were sent and control every odd case.

Tools:
- `big_state {size}`: round 1 sends a non-ASCII requestState of `size` characters with one
  question; round 2 answers "state ok" only if the exact state came back.
- `no_state`: asks a question without any requestState; reports whether the retry had one.
- `shed`: round 1 is requestState only (load shedding); round 2 completes.
- `loop`: asks forever.
- `typed`: one form with integer, number, boolean and enum fields; echoes the content.
- `two_forms`: two input requests in one round.
- `needs_sampling`: -32021 unless the request declares sampling.
- `slow_progress {steps}`: progress notifications, then a result.
- `crash`: writes to stderr and exits mid-call.
- `hang`: never answers.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    ListToolsResult,
    TextContent,
    Tool,
)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import parse_args, serve

STATE_UNIT = "Zürich ☃ 東京 \"quoted\" \\ "


def big_state(size: int) -> str:
    return (STATE_UNIT * (size // len(STATE_UNIT) + 1))[:size]


def form(message: str, properties: dict, required: list[str]) -> ElicitRequest:
    return ElicitRequest(params=ElicitRequestFormParams(
        message=message, requested_schema={"type": "object", "properties": properties, "required": required}))


def text(value: str, *, is_error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=value)], is_error=is_error)


TOOLS = [
    Tool(name=name, input_schema={"type": "object", "properties": props})
    for name, props in [
        ("big_state", {"size": {"type": "integer"}}),
        ("no_state", {}),
        ("shed", {}),
        ("loop", {}),
        ("typed", {}),
        ("two_forms", {}),
        ("needs_sampling", {}),
        ("slow_progress", {"steps": {"type": "integer"}}),
        ("crash", {}),
        ("hang", {}),
        ("ünïcode tool", {}),
    ]
]


async def list_tools(ctx, params) -> ListToolsResult:
    return ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    name = params.name
    args = params.arguments or {}
    responses = params.input_responses or {}
    state = params.request_state
    if name == "big_state":
        expected = big_state(int(args.get("size", 100)))
        if not responses:
            return InputRequiredResult(
                input_requests={"ok": form("Continue?", {"ok": {"type": "boolean"}}, ["ok"])},
                request_state=expected,
            )
        return text("state ok" if state == expected else f"state mismatch ({len(state or '')} chars)",
                    is_error=state != expected)
    if name == "no_state":
        if not responses:
            return InputRequiredResult(input_requests={"q": form("Name?", {"name": {"type": "string"}}, ["name"])})
        return text(f"requestState present: {state is not None}")
    if name == "shed":
        if state is None:
            return InputRequiredResult(request_state="try-again-1")
        return text(f"shed ok ({state}, inputResponses: {bool(responses)})")
    if name == "loop":
        return InputRequiredResult(
            input_requests={"again": form("Again?", {"go": {"type": "boolean"}}, ["go"])}, request_state="x")
    if name == "typed":
        if "f" not in responses:
            return InputRequiredResult(input_requests={"f": form("Fill in", {
                "count": {"type": "integer", "minimum": 0, "maximum": 10},
                "ratio": {"type": "number"},
                "flag": {"type": "boolean"},
                "color": {"type": "string", "enum": ["red", "green"]},
            }, ["count"])})
        return text(json.dumps(responses["f"].content, sort_keys=True))
    if name == "two_forms":
        if not responses:
            return InputRequiredResult(input_requests={
                "first": form("First?", {"a": {"type": "string"}}, ["a"]),
                "second": form("Second?", {"b": {"type": "integer"}}, ["b"]),
            }, request_state="two")
        return text(json.dumps({k: v.content for k, v in sorted(responses.items())}, sort_keys=True))
    if name == "needs_sampling":
        caps = ctx.session.client_capabilities
        if caps is None or caps.sampling is None:
            raise MCPError(code=-32021, message="Server requires the sampling capability for this request",
                           data={"requiredCapabilities": {"sampling": {}}})
        return text("sampling declared")
    if name == "slow_progress":
        steps = int(args.get("steps", 3))
        for i in range(steps):
            await ctx.session.report_progress(i + 1, steps, f"step {i + 1}")
            await asyncio.sleep(0.1)
        return text("slow done")
    if name == "crash":
        print("about to fail: simulated crash", file=sys.stderr, flush=True)
        os._exit(3)
    if name == "hang":
        await asyncio.sleep(3600)
    return text(f"unknown tool {name}", is_error=True)


server = Server("core-test", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)

if __name__ == "__main__":
    serve(server, parse_args(__doc__), lowlevel=True)
