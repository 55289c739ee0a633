"""A stateless 2026-07-28 test server (official SDK lowlevel `Server`) whose one tool, `odd`,
has property names and enum values that `KEY=VALUE` items read in their own way: `k=v`
(an `=`), a top-level `x.y` (a dot, read as nesting), `-dash` (an option), `a:` (read as
`a:=`), `a:=b`, and names an item can give as typed: `plain`, `with space`, `@at`, `col:on`,
`nested.inner`, and names a login shell reads in its own way unless quoted (`it's`,
`#hash`, `back\\slash`); enum values that are typed as they stand (`fast`, `In Progress`, `a=b`) and
one that is not (`@file`, read as a file); `level` (integer or string) whose enum `1` cannot
be typed as `level=1` (that is the string "1") but `"2"` can.

`odd` answers with its arguments as JSON (text); `pid` with this server's process id; `-x`
and `--json` (names read as options unless after `--`) like `odd`.
"""

from __future__ import annotations

import json
import os
import sys

from mcp.server.lowlevel import Server
from mcp_types import CallToolResult, TextContent

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import list_tools_handler, parse_args, serve

STRING = {"type": "string"}
PROPERTIES = {
    "k=v": STRING, "x.y": STRING, "-dash": STRING, "a:": STRING, "a:=b": STRING,
    "plain": STRING, "with space": STRING, "@at": STRING, "col:on": STRING,
    "nested": {"type": "object", "properties": {"inner": STRING}},
    "mode": {"type": "string", "enum": ["fast", "In Progress", "a=b", "@file"]},
    "level": {"type": ["integer", "string"], "enum": [1, "2"]},
    "it's": STRING, "#hash": STRING, "back\\slash": STRING,
}
TOOLS = {"odd": PROPERTIES, "pid": {}, "-x": {}, "--json": {}}


async def call_tool(ctx, params):
    if params.name == "pid":
        return CallToolResult(content=[TextContent(text=str(os.getpid()))])
    return CallToolResult(content=[TextContent(text=json.dumps(params.arguments or {}, sort_keys=True))])


server = Server("odd-names", version="1.0", on_list_tools=list_tools_handler(TOOLS), on_call_tool=call_tool)

if __name__ == "__main__":
    serve(server, parse_args(__doc__), lowlevel=True)
