"""A stateless 2026-07-28 test server (official SDK lowlevel `Server`) for `mrtr batch`.

Tools:
- `echo {text}`: the text back.
- `add {a, b}` (integers, required): the sum, as text and `structuredContent`.
- `fail {reason}`: an `isError: true` result.
- `ask`: round 1 asks form "name" (`name`, required) with requestState "ask-1"; then "Hello NAME".
- `two_step`: round 1 asks "color" (red/green), round 2 asks "size" (integer) with a state
  carrying the colour; then "COLOR SIZE".
- `slow {ms, until?, gate?}`: sleeps `ms`, or with `until` only until that many calls are in
  flight at once, or with `gate` (a path) only until that file exists (each at most `ms`);
  returns the most calls this process ever had in flight at once.
- `pid`: this server's process id.
- `crash`: exits mid-call (a server that dies).
Prompt `greet {name}` ("Say hello to NAME"); resources `mem://N` (text "resource N").
"""

from __future__ import annotations

import asyncio
import os
import sys

from mcp.server.lowlevel import Server
from mcp_types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    GetPromptResult,
    InputRequiredResult,
    ListPromptsResult,
    Prompt,
    PromptArgument,
    PromptMessage,
    ReadResourceResult,
    TextContent,
    TextResourceContents,
)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import list_tools_handler, parse_args, serve

TOOLS = {
    "echo": {"text": {"type": "string"}},
    "add": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "fail": {"reason": {"type": "string"}},
    "ask": {},
    "two_step": {},
    "slow": {"ms": {"type": "integer"}, "until": {"type": "integer"}, "gate": {"type": "string"}},
    "pid": {},
    "crash": {},
}
IN_FLIGHT = {"now": 0, "peak": 0}


def form(message: str, properties: dict, required: list[str]) -> ElicitRequest:
    return ElicitRequest(params=ElicitRequestFormParams(
        message=message, requested_schema={"type": "object", "properties": properties, "required": required}))


def text(value: str, *, is_error: bool = False, structured: dict | None = None) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=value)], is_error=is_error, structured_content=structured)


def content(responses: dict, key: str) -> dict:
    response = responses.get(key)
    return dict(getattr(response, "content", None) or {}) if response is not None else {}


async def call_tool(ctx, params):
    name, args = params.name, params.arguments or {}
    responses, state = params.input_responses or {}, params.request_state
    if name == "echo":
        return text(str(args.get("text", "")))
    if name == "add":
        total = int(args["a"]) + int(args["b"])
        return text(str(total), structured={"sum": total})
    if name == "fail":
        return text(f"failed: {args.get('reason', '')}", is_error=True)
    if name == "ask":
        if state != "ask-1" or "name" not in responses:
            return InputRequiredResult(input_requests={"name": form("Your name?", {"name": {"type": "string"}},
                                                                   ["name"])}, request_state="ask-1")
        return text(f"Hello {content(responses, 'name').get('name')}")
    if name == "two_step":
        if state is None:
            return InputRequiredResult(input_requests={"color": form(
                "Colour?", {"color": {"type": "string", "enum": ["red", "green"]}}, ["color"])}, request_state="s1")
        if state == "s1":
            color = content(responses, "color").get("color")
            return InputRequiredResult(input_requests={"size": form("Size?", {"size": {"type": "integer"}}, ["size"])},
                                       request_state=f"s2:{color}")
        return text(f"{state[3:]} {content(responses, 'size').get('size')}")
    if name == "slow":
        IN_FLIGHT["now"] += 1
        IN_FLIGHT["peak"] = max(IN_FLIGHT["peak"], IN_FLIGHT["now"])
        try:
            seconds, until, gate = int(args.get("ms", 100)) / 1000, args.get("until"), args.get("gate")
            if gate is not None:  # an event: the test opens the gate (creates the file)
                deadline = asyncio.get_running_loop().time() + seconds
                while not os.path.exists(gate) and asyncio.get_running_loop().time() < deadline:
                    await asyncio.sleep(0.01)
            elif until is None:
                await asyncio.sleep(seconds)
            else:  # an event, not a time: the calls that are in flight together
                deadline = asyncio.get_running_loop().time() + seconds
                while IN_FLIGHT["peak"] < until and asyncio.get_running_loop().time() < deadline:
                    await asyncio.sleep(0.01)
        finally:
            IN_FLIGHT["now"] -= 1
        return text(str(IN_FLIGHT["peak"]), structured={"peak": IN_FLIGHT["peak"]})
    if name == "pid":
        return text(str(os.getpid()))
    if name == "crash":
        print("batch server: crashing on purpose", file=sys.stderr, flush=True)
        os._exit(3)
    return text(f"unknown tool {name}", is_error=True)


async def list_prompts(ctx, params) -> ListPromptsResult:
    return ListPromptsResult(prompts=[Prompt(name="greet", arguments=[PromptArgument(name="name", required=True)])])


async def get_prompt(ctx, params) -> GetPromptResult:
    who = (params.arguments or {}).get("name", "nobody")
    return GetPromptResult(messages=[PromptMessage(role="user", content=TextContent(text=f"Say hello to {who}"))])


async def read_resource(ctx, params) -> ReadResourceResult:
    uri = str(params.uri)
    return ReadResourceResult(contents=[TextResourceContents(uri=uri, text=f"resource {uri.split('//')[-1]}")])


server = Server("batch-test", version="1.0", on_list_tools=list_tools_handler(TOOLS), on_call_tool=call_tool,
                on_list_prompts=list_prompts, on_get_prompt=get_prompt, on_read_resource=read_resource)

if __name__ == "__main__":
    serve(server, parse_args(__doc__), lowlevel=True)
