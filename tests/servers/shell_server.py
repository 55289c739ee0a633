"""A 2026-07-28 test server (official SDK `MCPServer`) for `mrtr shell`: a tool list that
changes, a tool that never finishes until cancelled, a form, a secret argument, and a way
to die.

Usage: python shell_server.py [--http PORT] [--events FILE]

`--events FILE` appends one JSON object per line: `{"event": "start", "pid": ...}` when the
process starts (so a test can count starts), `{"event": "started", "tool": "hang"}` and
`{"event": "cancelled", "tool": "hang"}` around a cancelled call.

Tools:
- `echo {text}`: the text back.
- `set_state {item, state}`: `state` is one of New, Active, Resolved, Closed (an enum).
- `login {user, code_word}`: `code_word` is `writeOnly` in the inputSchema (a secret by
  its schema, not its name); answers "welcome USER".
- `unlock`: asks a form with one field, `password` (a secret by its name), then answers
  "unlocked".
- `hang`: never finishes (until cancelled).
- `add_tool {name}`: adds a tool NAME (echoing "NAME here") and says the list changed.
- `add_tool_when {name, path}`: answers at once; once the file PATH exists, adds a tool
  NAME and says the list changed (a change that arrives between commands).
- `pid`: this process's id.
- `die`: the process exits with code 3 in the middle of the call.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    TextContent,
)
from pydantic import Field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import parse_args, serve

mcp = MCPServer("shell-test", title="Shell test server", version="1.0")
EVENTS: str | None = None


def note(event: str, **more: Any) -> None:
    if EVENTS:
        with open(EVENTS, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"event": event, "pid": os.getpid(), **more}) + "\n")


@mcp.tool(structured_output=False)
def echo(text: str) -> str:
    """Say it back."""
    return text


@mcp.tool(structured_output=False)
def set_state(item: int, state: Literal["New", "Active", "Resolved", "Closed"]) -> str:
    """Set an item's state."""
    return f"item {item} is {state}"


@mcp.tool(structured_output=False)
def login(user: str, code_word: Annotated[str, Field(json_schema_extra={"writeOnly": True})]) -> str:
    """Sign in with a code word."""
    return f"welcome {user}"


@mcp.tool(structured_output=False)
async def unlock(ctx: Context) -> CallToolResult | InputRequiredResult:
    """Ask for a password, then unlock."""
    response = (ctx.input_responses or {}).get("secret")
    if response is None or getattr(response, "action", None) != "accept":
        return InputRequiredResult(input_requests={"secret": ElicitRequest(params=ElicitRequestFormParams(
            message="The password, please",
            requested_schema={"type": "object", "properties": {"password": {"type": "string"}},
                              "required": ["password"]}))})
    return CallToolResult(content=[TextContent(text="unlocked")])


@mcp.tool(structured_output=False)
async def hang() -> str:
    """Never finishes."""
    note("started", tool="hang")
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        note("cancelled", tool="hang")
        raise
    return "woke up"


@mcp.tool(structured_output=False)
async def add_tool(name: str, ctx: Context) -> str:
    """Add a tool NAME and say the tool list changed."""
    def added() -> str:
        return f"{name} here"

    mcp.add_tool(added, name=name, description=f"added at run time: {name}", structured_output=False)
    await ctx.notify_tools_changed()
    return f"added {name}"


@mcp.tool(structured_output=False)
async def add_tool_when(name: str, path: str, ctx: Context) -> str:
    """Once the file PATH exists, add a tool NAME and say the tool list changed."""
    async def later() -> None:
        while not os.path.exists(path):
            await asyncio.sleep(0.05)
        mcp.add_tool(lambda: f"{name} here", name=name, description=f"added later: {name}", structured_output=False)
        await ctx.notify_tools_changed()

    WAITING.add(asyncio.get_running_loop().create_task(later()))
    return f"{name} comes when {path} exists"


WAITING: set[asyncio.Task[None]] = set()


@mcp.tool(structured_output=False)
def pid() -> str:
    """This server process's id."""
    return str(os.getpid())


@mcp.tool(structured_output=False)
def die() -> str:
    """Exit in the middle of the call."""
    sys.stdout.flush()
    os._exit(3)


if __name__ == "__main__":
    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--events")
    EVENTS = extra.parse_known_args()[0].events
    note("start")
    serve(mcp, parse_args(__doc__), lowlevel=False)
