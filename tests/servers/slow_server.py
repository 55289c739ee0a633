"""A 2026-07-28 test server (official SDK `MCPServer`) with long-running tools: progress
notifications, log notifications and cancellation.

Usage: python slow_server.py [--http PORT] [--record FILE] [--marker FILE]

`--marker FILE` makes tools append what happened to FILE, one JSON object per line:
`{"event": "started", "tool": ..., "pid": ...}` when a tool starts and
`{"event": "cancelled", "tool": ...}` when the SDK cancels it (a `notifications/cancelled`
on stdio, a closed response stream on HTTP).

Tools:
- `slow {steps, delay}`: `steps` progress notifications (progress i of `steps`, message
  "step i") `delay` seconds apart, an info log each step, then "slow done".
- `spin {steps, delay}`: progress without a total.
- `hang`: never finishes (until cancelled).
- `noisy`: log notifications at every level, with a logger name, structured data and
  escape sequences, then "noisy done".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import warnings

from mcp.server.mcpserver import Context, MCPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import parse_args, serve

warnings.simplefilter("ignore")  # the SDK flags logging as deprecated (SEP-2577)

mcp = MCPServer("slow-test", title="Slow test server", version="1.0")
MARKER: str | None = None


def mark(event: str, tool: str) -> None:
    if MARKER:
        with open(MARKER, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"event": event, "tool": tool, "pid": os.getpid()}) + "\n")


async def watched(tool: str, body) -> str:
    mark("started", tool)
    try:
        return await body
    except asyncio.CancelledError:
        mark("cancelled", tool)
        raise


@mcp.tool()
async def slow(ctx: Context, steps: int = 3, delay: float = 0.2) -> str:
    """Report progress `steps` times, `delay` seconds apart."""

    async def body() -> str:
        for i in range(1, steps + 1):
            await asyncio.sleep(delay)
            await ctx.report_progress(i, steps, f"step {i}")
            await ctx.log("info", f"finished step {i}", logger_name="worker")
        return "slow done"

    return await watched("slow", body())


@mcp.tool()
async def spin(ctx: Context, steps: int = 3, delay: float = 0.2) -> str:
    """Progress with no total."""

    async def body() -> str:
        for i in range(1, steps + 1):
            await asyncio.sleep(delay)
            await ctx.report_progress(i * 10, None, f"fetched {i * 10} rows")
        return "spin done"

    return await watched("spin", body())


@mcp.tool()
async def hang() -> str:
    """Never finishes."""

    async def body() -> str:
        await asyncio.sleep(3600)
        return "woke up"

    return await watched("hang", body())


@mcp.tool()
async def noisy(ctx: Context) -> str:
    """Logs at every level."""
    for level in ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"):
        await ctx.log(level, f"a {level} message", logger_name="noisy")
    await ctx.log("warning", {"disk": "full", "free": 0}, logger_name="db")
    await ctx.log("error", "evil \x1b[2J\x1b]0;pwned\x07 text\nsecond line", logger_name="x\x1b[31m")
    return "noisy done"


if __name__ == "__main__":
    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--marker")
    MARKER = extra.parse_known_args()[0].marker
    serve(mcp, parse_args(__doc__), lowlevel=False)
