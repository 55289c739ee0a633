"""An MCPServer (official SDK) that seals `requestState` with the SDK's default key: a key made
when the process starts. A call stopped after round 1 cannot be resumed against a new process:
the SDK answers the resumed retry with -32602 "Invalid or expired requestState".

Tool `confirm_once`: one round asking "go"; the result says what was answered.
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import parse_args, serve

mcp = MCPServer("sealed-test")


@mcp.tool()
async def confirm_once(ctx: Context) -> str | InputRequiredResult:
    """Ask one yes/no question, carrying state sealed with this process's key."""
    response = (ctx.input_responses or {}).get("go")
    if response is None:
        return InputRequiredResult(
            input_requests={"go": ElicitRequest(params=ElicitRequestFormParams(
                message="Go ahead?", requested_schema={"type": "object", "properties": {"go": {"type": "boolean"}},
                                                       "required": ["go"]}))},
            request_state="asked-once",
        )
    return f"answered {response.action} (state {ctx.request_state})"


if __name__ == "__main__":
    serve(mcp, parse_args(__doc__), lowlevel=False)
