"""A 2026-07-28 test server (official SDK, lowlevel `Server`) with long, paginated lists,
typed tools, `x-mcp-header` annotations and optional bearer-token auth.

Lists (tools, prompts, resources, templates) come in pages of 2 (override with
`--page-size N`); the first page's `nextCursor` is the empty string, which is a
valid cursor, and later cursors are "p2", "p3"...

Tools:
- `echo_args`: returns its `arguments` as JSON text (and as structuredContent), so a
  test sees exactly which JSON types arrived. Its schema has string, integer, number,
  boolean, nullable, array, nested-object and enum properties.
- `region_query {region, priority?, dry?, target.zone?, query}`: `x-mcp-header` on
  region, priority, dry and target.zone; returns the `Mcp-Param-*` headers it got.
  With `--header-flag FILE`, the annotations exist only while FILE exists (the tool's
  schema changes under a client's cached list).
- `bad_header`: an invalid `x-mcp-header` (on a number): clients on HTTP leave it out.
- `whoami`: returns the Authorization header it received (a careless server).
- `proc_info`: returns this process's argv and its `MRTR_TEST_*` environment variables.
- `t01`..: filler so that there are several pages.

`--strict-headers` makes the HTTP header check use region_query's annotated schema
even while its listed schema has no annotations (a server that can never be satisfied).

Options: `--ttl MS` and `--scope public|private` set the cache hints of every list;
`--require-token TOKEN` answers HTTP 401 (with a challenge that echoes the token it
was sent, as a careless server might) unless `Authorization: Bearer TOKEN` is sent.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from mcp.server.caching import CacheHint
from mcp.server.lowlevel import Server
from mcp_types import (
    CallToolResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    Prompt,
    PromptArgument,
    Resource,
    ResourceTemplate,
    TextContent,
    Tool,
)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import parse_args, serve

extra = argparse.ArgumentParser()
extra.add_argument("--page-size", type=int, default=2)
extra.add_argument("--ttl", type=int, default=0)
extra.add_argument("--scope", default="private")
extra.add_argument("--require-token")
extra.add_argument("--header-flag")
extra.add_argument("--label")
extra.add_argument("--strict-headers", action="store_true")
OPTS, _ = extra.parse_known_args()

ECHO_SCHEMA = {
    "type": "object",
    "properties": {
        "zip": {"type": "string", "description": "A postal code (leading zeros matter)"},
        "count": {"type": "integer", "minimum": 0, "description": "How many"},
        "big": {"type": "integer"},
        "ratio": {"type": "number", "default": 0.5},
        "flag": {"type": "boolean"},
        "note": {"type": ["string", "null"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "ids": {"type": "array", "items": {"type": "integer"}},
        "color": {"type": "string", "enum": ["red", "green", "blue"]},
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "zip": {"type": "string"},
                           "floor": {"type": "integer"}},
            "required": ["city"],
        },
        "text": {"type": "string"},
        "payload": {"type": "object"},
    },
    "required": ["zip"],
    "additionalProperties": False,
}


def region_schema(annotated: bool | None = None) -> dict:
    if annotated is None:
        annotated = OPTS.header_flag is None or os.path.exists(OPTS.header_flag)

    def h(name: str) -> dict:
        return {"x-mcp-header": name} if annotated else {}

    return {
        "type": "object",
        "properties": {
            "region": {"type": "string", **h("Region")},
            "priority": {"type": "integer", **h("Priority")},
            "dry": {"type": "boolean", **h("Dry-Run")},
            "target": {"type": "object", "properties": {"zone": {"type": "string", **h("Zone")}}},
            "query": {"type": "string"},
        },
        "required": ["region", "query"],
    }


def tools() -> list[Tool]:
    return [
        Tool(name="echo_args", title="Echo arguments", description="Returns its arguments as JSON.\nSecond line.",
             input_schema=ECHO_SCHEMA),
        Tool(name="region_query", description="Runs a query in a region", input_schema=region_schema()),
        Tool(name="bad_header", description="Has an invalid x-mcp-header annotation",
             input_schema={"type": "object", "properties": {"weight": {"type": "number", "x-mcp-header": "Weight"}}}),
        Tool(name="whoami", description="Echoes the Authorization header", input_schema={"type": "object"}),
        Tool(name="proc_info", description="argv and MRTR_TEST_* variables", input_schema={"type": "object"}),
        *[Tool(name=f"t{i:02d}", description=f"Filler tool {i}", input_schema={"type": "object"}) for i in range(1, 5)],
    ]


PROMPTS = [Prompt(name=f"prompt_{i}", description=f"Prompt number {i}",
                  arguments=[PromptArgument(name="topic", required=i % 2 == 0)]) for i in range(1, 6)]
RESOURCES = [Resource(uri=f"mem://doc/{i}", name=f"doc{i}", mime_type="text/plain") for i in range(1, 6)]
TEMPLATES = [ResourceTemplate(uri_template=f"mem://tpl{i}/{{id}}", name=f"tpl{i}") for i in range(1, 6)]


def page(items: list, params) -> tuple[list, str | None]:
    """Cursor "" is page 1, "pN" is page N; no cursor is page 0."""
    cursor = getattr(params, "cursor", None) if params is not None else None
    index = 0 if cursor is None else 1 if cursor == "" else int(cursor[1:])
    size = OPTS.page_size
    chunk = items[index * size:(index + 1) * size]
    more = (index + 1) * size < len(items)
    return chunk, ("" if index == 0 else f"p{index + 1}") if more else None


async def list_tools(ctx, params) -> ListToolsResult:
    chunk, cursor = page(tools(), params)
    return ListToolsResult(tools=chunk, next_cursor=cursor)


async def list_prompts(ctx, params) -> ListPromptsResult:
    chunk, cursor = page(PROMPTS, params)
    return ListPromptsResult(prompts=chunk, next_cursor=cursor)


async def list_resources(ctx, params) -> ListResourcesResult:
    chunk, cursor = page(RESOURCES, params)
    return ListResourcesResult(resources=chunk, next_cursor=cursor)


async def list_templates(ctx, params) -> ListResourceTemplatesResult:
    chunk, cursor = page(TEMPLATES, params)
    return ListResourceTemplatesResult(resource_templates=chunk, next_cursor=cursor)


def _headers(ctx) -> dict:
    request = getattr(ctx, "request", None)
    return {k.lower(): v for k, v in request.headers.items()} if request is not None else {}


async def call_tool(ctx, params):
    args = params.arguments or {}
    if params.name == "echo_args":
        return CallToolResult(content=[TextContent(text=json.dumps(args, sort_keys=True))], structured_content=args)
    if params.name == "region_query":
        got = {k: v for k, v in _headers(ctx).items() if k.startswith("mcp-param-")}
        return CallToolResult(content=[TextContent(text=json.dumps(got, sort_keys=True))])
    if params.name == "proc_info":
        env = {k: v for k, v in os.environ.items() if k.startswith("MRTR_TEST_")}
        return CallToolResult(content=[TextContent(text=json.dumps({"argv": sys.argv[1:], "env": env}))])
    if params.name == "whoami":
        return CallToolResult(content=[TextContent(text=f"you sent: {_headers(ctx).get('authorization')}")])
    return CallToolResult(content=[TextContent(text=f"{params.name} ok")])


hint = CacheHint(ttl_ms=OPTS.ttl, scope=OPTS.scope)
server = Server(
    "catalog-test", version="2.0", title="Catalog Test Server", instructions="Lists in pages.\nTry tools.",
    on_list_tools=list_tools, on_call_tool=call_tool, on_list_prompts=list_prompts,
    on_list_resources=list_resources, on_list_resource_templates=list_templates,
    get_tool_input_schema=(lambda name: region_schema(True) if name == "region_query" else None)
    if OPTS.strict_headers else None,
    cache_hints={m: hint for m in ("tools/list", "prompts/list", "resources/list", "resources/templates/list")},
)


class RequireToken:
    """ASGI middleware: HTTP 401 unless `Authorization: Bearer TOKEN`."""

    def __init__(self, app, token: str):
        self.app = app
        self.token = token

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            sent = headers.get("authorization", "")
            if sent != f"Bearer {self.token}":
                body = json.dumps({"error": f"bad credentials: {sent!r}"}).encode()
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate",
                     f'Bearer error="invalid_token", error_description="{sent} is not valid"'.encode()),
                ]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


if __name__ == "__main__":
    serve(server, parse_args(__doc__), lowlevel=True,
          wrap=(lambda app: RequireToken(app, OPTS.require_token)) if OPTS.require_token else None)
