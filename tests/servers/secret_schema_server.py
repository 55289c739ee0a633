"""A 2026-07-28 test server (official SDK lowlevel `Server`) whose tool marks its secret
arguments (`writeOnly`, `format: password`) everywhere but directly on `properties.X`.

Tool `hidden`: each argument is a secret by a subschema that reaches it another way:
- `k`: `$ref` to `#/$defs/sec` (`writeOnly`, at least 12 characters);
- `o`: `anyOf` of a `writeOnly` string (starting with "z") and an integer;
- `k2`: `allOf` of the root holding `properties.k2` (`writeOnly`);
- `s_*`: `patternProperties` `^s_` (`writeOnly`, at most 20 characters);
- any other name: `additionalProperties` (`format: password`);
- `box.inner`: a nested object's member through `$ref` to `#/$defs/wrap`;
- `keys`: an array whose `items` `$ref` `#/$defs/sec`;
- `gate`: `if`/`then` whose `then` marks it;
- `n` (an integer) is the one argument that is no secret.

Without input responses it asks the form "confirm" (`ok`, a boolean), so that a call
with `--no-input` stops with a pending document; answered, it says "done".
"""

from __future__ import annotations

import os
import sys

from mcp.server.lowlevel import Server
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

SCHEMA = {
    "type": "object",
    "$defs": {"sec": {"type": "string", "writeOnly": True, "minLength": 12},
              "wrap": {"type": "object", "properties": {"inner": {"$ref": "#/$defs/sec"}}}},
    "properties": {
        "k": {"$ref": "#/$defs/sec"},
        "o": {"anyOf": [{"type": "string", "writeOnly": True, "pattern": "^z"}, {"type": "integer"}]},
        "box": {"$ref": "#/$defs/wrap"},
        "keys": {"type": "array", "items": {"$ref": "#/$defs/sec"}},
        "gate": {"if": {"type": "string"}, "then": {"format": "password"}},
        "n": {"type": "integer"},
    },
    "allOf": [{"properties": {"k2": {"type": "string", "writeOnly": True}}}],
    "patternProperties": {"^s_": {"type": "string", "writeOnly": True, "maxLength": 20}},
    "additionalProperties": {"type": "string", "format": "password"},
    "required": ["n"],
}

TOOLS = [Tool(name="hidden", input_schema=SCHEMA)]


async def list_tools(ctx, params) -> ListToolsResult:
    return ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    responses = params.input_responses or {}
    if "confirm" not in responses:
        form = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
        return InputRequiredResult(input_requests={"confirm": ElicitRequest(params=ElicitRequestFormParams(
            message="Go on?", requested_schema=form))}, request_state="hidden-state")
    return CallToolResult(content=[TextContent(text="done")])


server = Server("secret-schema-test", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)

if __name__ == "__main__":
    serve(server, parse_args(__doc__), lowlevel=True)
