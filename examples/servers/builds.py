"""An example MCP server with long-running tools that become tasks (the tasks extension,
served by FastMCP with `fastmcp-tasks`, in memory).

Run it over stdio (the default) or Streamable HTTP:

    python examples/servers/builds.py                           # stdio
    python examples/servers/builds.py --http 8001               # http://127.0.0.1:8001/mcp
    python examples/servers/builds.py --http 8001 --background  # the same, in the background

Over stdio a task lives in the server process, which `mrtr` stops when it exits; over
HTTP the server keeps running, so `mrtr task wait ID` can follow a task later.

Tools (each call becomes a task, polled every 250 ms):

- `build {target, seconds=3}`: compiles for a few seconds, reporting progress in the
  task's statusMessage ("step 2 of 6"), then "built TARGET".
- `release {version}`: asks who approves the release (a form: `approver`, required;
  `note`), then "VERSION released (approved by APPROVER)"; a decline gives "VERSION not
  released".
- `soak {minutes=60}`: a long soak test that runs until it ends or is cancelled
  (`mrtr task cancel ID`).
"""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import timedelta

os.environ.setdefault("FASTMCP_DOCKET_URL", "memory://")

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension

TASK = TaskConfig(mode="required", poll_interval=timedelta(milliseconds=250))

mcp = FastMCP("builds")
mcp.add_extension(TasksExtension())


@mcp.tool(task=TASK)
async def build(ctx: Context, target: str, seconds: float = 3.0) -> str:
    """Build TARGET, reporting progress; takes about `seconds`."""
    steps = 6
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1} of {steps}")
        await asyncio.sleep(seconds / steps)
    return f"built {target}"


@mcp.tool(task=TASK)
async def release(ctx: Context, version: str) -> str:
    """Release VERSION once someone approves it (asks for the approver)."""
    answer = (ctx.input_responses or {}).get("approval")
    if answer is None:
        schema = {"type": "object", "required": ["approver"], "properties": {
            "approver": {"type": "string", "title": "Approver", "description": "Who approves the release"},
            "note": {"type": "string", "title": "Note"}}}
        return mcp_types.InputRequiredResult(input_requests={"approval": mcp_types.ElicitRequest(
            params=mcp_types.ElicitRequestFormParams(message=f"Release {version}?", requested_schema=schema))})
    if answer.action != "accept":
        return f"{version} not released"
    return f"{version} released (approved by {answer.content['approver']})"


@mcp.tool(task=TASK)
async def soak(ctx: Context, minutes: float = 60.0) -> str:
    """A soak test that runs for `minutes` (cancel it with `mrtr task cancel ID`)."""
    seconds = int(minutes * 60)
    for second in range(seconds):
        if second % 5 == 0:
            await ctx.report_progress(second, seconds, f"soaking: {second}s of {seconds}s")
        await asyncio.sleep(1)
    return f"soaked for {minutes:g} minutes"


def main() -> None:
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        if "--background" in sys.argv:
            from background import serve_in_background  # noqa: PLC0415 - only --background needs it (examples/servers/background.py)

            serve_in_background(__file__, port)
            return
        mcp.run(transport="http", host="127.0.0.1", port=port, show_banner=False, log_level="warning")
    else:
        mcp.run(show_banner=False, log_level="warning")


if __name__ == "__main__":
    main()
