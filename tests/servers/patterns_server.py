"""A 2026-07-28 test server (official SDK lowlevel `Server`) whose schemas carry patterns
that a backtracking engine takes exponential time to match.

Tools:
- `ask_word {pattern}`: a form ("word") whose one required field, `word`, has the given
  `pattern`; echoes the accepted word ("got WORD") or the action.
- `broken {word}`: its `inputSchema` gives `word` the pattern `(unclosed`, no regular
  expression; it echoes the word.
- `pythonic {word}`: its `inputSchema` gives `word` the pattern `(?i)^[a-z]+$`, Python's
  syntax and no ECMA-262 regular expression; it echoes the word.
- `ecma {code, pair}`: `code` has the pattern `^\\d+$` and `pair` `^(?<c>[a-z])\\k<c>$`
  (ECMA-262: `\\d` is `[0-9]`; a named backreference); it echoes its arguments.
- `checked {word}`: its `inputSchema` gives `word` the pattern `^(a|a)*$` (and a
  `patternProperties` of the same), its `outputSchema` gives the result's `word` the same
  pattern; it answers `structuredContent` `{"word": WORD}` with the word it was given.
"""

from __future__ import annotations

import json
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

#: Exponential for a backtracking engine on "a" * n + "!", also for `regex`.
SLOW = "^(a|a)*$"

TOOLS = [
    Tool(name="ask_word", input_schema={"type": "object", "properties": {"pattern": {"type": "string"}},
                                        "required": ["pattern"]}),
    Tool(name="checked",
         input_schema={"type": "object", "properties": {"word": {"type": "string", "pattern": SLOW}},
                       "patternProperties": {SLOW: {"type": "string"}}, "required": ["word"]},
         output_schema={"type": "object", "properties": {"word": {"type": "string", "pattern": SLOW}},
                        "required": ["word"]}),
    Tool(name="broken", input_schema={"type": "object", "properties": {
        "word": {"type": "string", "pattern": "(unclosed"}}}),
    Tool(name="pythonic", input_schema={"type": "object", "properties": {
        "word": {"type": "string", "pattern": "(?i)^[a-z]+$"}}}),
    Tool(name="ecma", input_schema={"type": "object", "properties": {
        "code": {"type": "string", "pattern": r"^\d+$"},
        "pair": {"type": "string", "pattern": r"^(?<c>[a-z])\k<c>$"}}}),
]


async def list_tools(ctx, params) -> ListToolsResult:
    return ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    args = params.arguments or {}
    responses = params.input_responses or {}
    if params.name == "ask_word":
        if "word" not in responses:
            schema = {"type": "object", "properties": {"word": {"type": "string", "pattern": args.get("pattern")}},
                      "required": ["word"]}
            return InputRequiredResult(input_requests={"word": ElicitRequest(params=ElicitRequestFormParams(
                message="A word, please", requested_schema=schema))}, request_state="word-state")
        answer = responses["word"]
        said = f"got {answer.content.get('word')}" if answer.action == "accept" else f"action: {answer.action}"
        return CallToolResult(content=[TextContent(text=said)])
    if params.name == "checked":
        word = args.get("word")
        return CallToolResult(content=[TextContent(text=json.dumps({"word": word}))],
                              structured_content={"word": word})
    if params.name in ("broken", "pythonic", "ecma"):
        return CallToolResult(content=[TextContent(text=json.dumps(args, sort_keys=True))])
    return CallToolResult(content=[TextContent(text=f"unknown tool {params.name}")], is_error=True)


server = Server("patterns-test", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)

if __name__ == "__main__":
    serve(server, parse_args(__doc__), lowlevel=True)
