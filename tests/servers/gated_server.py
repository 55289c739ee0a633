"""A 2026-07-28 test server (official SDK, lowlevel `Server`) whose lists depend on the
client capabilities each request declares, and which offers completions.

Tools: `echo` always; `summarize` only to a request declaring `sampling`; `scan_roots`
only to one declaring `roots`. Calling a gated tool without its capability answers
`-32021`.

Prompts: `review {language*, framework}` and `greet {name*}`; resource template
`repo://{owner}/{name}`.

Completions (`completion/complete`): `review` `language` from a fixed list by prefix;
`framework` from the list for `context.arguments.language`; the template's `owner` by
prefix and `name` from the list for `context.arguments.owner`. `--slow-complete` makes
every completion wait an hour (a server that never answers in time); `--hostile-complete`
answers `review` `language` with hostile values: escape sequences and control characters
(`HOSTILE`) before the plain values, a value of 5,000 characters and 80 more after them;
`--no-complete` offers no completions at all. `--ttl MS --scope public|private` set the lists' cache hints.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from mcp.server.caching import CacheHint
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CallToolResult,
    CompleteResult,
    Completion,
    GetPromptResult,
    ListPromptsResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    Prompt,
    PromptArgument,
    PromptMessage,
    ResourceTemplate,
    TextContent,
    Tool,
)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import parse_args, serve

extra = argparse.ArgumentParser()
extra.add_argument("--slow-complete", action="store_true")
extra.add_argument("--no-complete", action="store_true")
extra.add_argument("--hostile-complete", action="store_true")
extra.add_argument("--ttl", type=int, default=0)
extra.add_argument("--scope", default="private")
extra.add_argument("--linger", metavar="FILE", help="outlive stdin's end; on SIGTERM note it in FILE and live on")
OPTS, _ = extra.parse_known_args()

LANGUAGES = ["python", "pytorch", "pyside", "rust", "ruby", "go"]
FRAMEWORKS = {"python": ["flask", "fastapi", "django"], "rust": ["actix", "axum"]}
OWNERS = ["alice", "albert", "bob"]
REPOS = {"alice": ["wonderland", "looking-glass"], "albert": ["relativity"], "bob": ["builder"]}
SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}}
#: `--hostile-complete`: what `review` `language` suggests before the plain values, and after them.
HOSTILE = ["py\x1b[2J\x1b[Hcleared", "py\x1b]0;owned\x07title", "py\rback", "py\nnext", "py\x9b31mred"]
BULK = ["py" + "x" * 5000, *(f"py-many-{i:04d}" for i in range(80))]  # the SDK sends at most 100 values


def _caps(ctx: Any) -> Any:
    return ctx.session.client_capabilities


def _offered(ctx: Any) -> list[Tool]:
    caps = _caps(ctx)
    tools = [Tool(name="echo", input_schema=SCHEMA)]
    if caps is not None and caps.sampling is not None:
        tools.append(Tool(name="summarize", description="needs sampling", input_schema=SCHEMA))
    if caps is not None and caps.roots is not None:
        tools.append(Tool(name="scan_roots", description="needs roots", input_schema=SCHEMA))
    return tools


async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
    return ListToolsResult(tools=_offered(ctx))


async def call_tool(ctx: Any, params: Any) -> CallToolResult:
    if params.name not in {t.name for t in _offered(ctx)}:
        need = {"summarize": "sampling", "scan_roots": "roots"}.get(params.name)
        if need:
            raise MCPError(code=-32021, message=f"{params.name} needs {need}",
                           data={"requiredCapabilities": {need: {}}})
        raise MCPError(code=-32602, message=f"unknown tool {params.name}")
    text = (params.arguments or {}).get("text", "")
    return CallToolResult(content=[TextContent(type="text", text=f"{params.name}: {text}")])


PROMPTS = [
    Prompt(name="review", description="Review code", arguments=[
        PromptArgument(name="language", required=True), PromptArgument(name="framework")]),
    Prompt(name="greet", description="Say hello", arguments=[PromptArgument(name="name", required=True)]),
]


async def list_prompts(ctx: Any, params: Any) -> ListPromptsResult:
    return ListPromptsResult(prompts=PROMPTS)


async def get_prompt(ctx: Any, params: Any) -> GetPromptResult:
    args = params.arguments or {}
    text = f"{params.name}: " + ", ".join(f"{k}={v}" for k, v in sorted(args.items()))
    return GetPromptResult(messages=[PromptMessage(role="user", content=TextContent(type="text", text=text))])


async def list_templates(ctx: Any, params: Any) -> ListResourceTemplatesResult:
    return ListResourceTemplatesResult(resource_templates=[
        ResourceTemplate(name="repo", uri_template="repo://{owner}/{name}", description="A repository")])


async def complete(ctx: Any, params: Any) -> CompleteResult:
    if OPTS.slow_complete:
        await asyncio.sleep(3600)
    ref, arg = params.ref, params.argument
    context = (params.context.arguments if params.context else None) or {}
    if getattr(ref, "type", "") == "ref/prompt" and ref.name == "review":
        pool = LANGUAGES if arg.name == "language" else FRAMEWORKS.get(context.get("language", ""), [])
    elif getattr(ref, "type", "") == "ref/resource" and ref.uri == "repo://{owner}/{name}":
        pool = OWNERS if arg.name == "owner" else REPOS.get(context.get("owner", ""), [])
    else:
        raise MCPError(code=-32602, message="nothing to complete there")
    values = [v for v in pool if v.startswith(arg.value)]
    if OPTS.hostile_complete and arg.name == "language":
        values = [*HOSTILE, *values, *BULK]
    return CompleteResult(completion=Completion(values=values, total=len(values), has_more=False))


server = Server("gated-test", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool,
                on_list_prompts=list_prompts, on_get_prompt=get_prompt,
                on_list_resource_templates=list_templates,
                on_completion=None if OPTS.no_complete else complete,
                cache_hints={m: CacheHint(ttl_ms=OPTS.ttl, scope=OPTS.scope)
                             for m in ("tools/list", "prompts/list", "resources/templates/list")})

if __name__ == "__main__":
    if OPTS.linger:
        import signal
        import time

        def _noted(signum: int, frame: Any) -> None:
            with open(OPTS.linger, "a", encoding="utf-8") as fh:
                fh.write("SIGTERM\n")

        signal.signal(signal.SIGTERM, _noted)
    serve(server, parse_args(__doc__), lowlevel=True)
    if OPTS.linger:
        with open(OPTS.linger, "a", encoding="utf-8") as fh:
            fh.write("stdin closed\n")
        while True:
            time.sleep(60)
