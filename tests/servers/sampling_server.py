"""A 2026-07-28 test server (official SDK `MCPServer`) whose tools ask for sampling and roots
through the SDK's own resolvers (`Resolve` with `Elicit`, `Sample`, `ListRoots`), which batch
every question of a round into one `InputRequiredResult` and answer -32021 when the client
did not declare the capability a question needs.

Input request keys are the resolvers' wire keys, `__main__:<resolver name>` (e.g. `__main__:draft`).

Tools:
- `brief {topic}`: one round asking a form (`style`), a sampling request (`draft`) and the
  roots (`workspace`) at once; returns the three answers as JSON.
- `ask_model {question}`: one sampling request with a system prompt, model preferences and
  maxTokens; returns the CreateMessageResult it got, as JSON.
- `weather_agent`: a sampling request offering a tool (needs `sampling.tools`); returns the
  CreateMessageResult it got, as JSON.
- `show_roots`: asks for the roots; returns them as JSON.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated

from mcp.server.mcpserver import Context, ListRoots, MCPServer, Resolve, Sample
from mcp.server.mcpserver.resolve import Elicit
from mcp.server.request_state import RequestStateSecurity
from mcp_types import (
    CreateMessageResult,
    CreateMessageResultWithTools,
    ListRootsResult,
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    TextContent,
    Tool,
)
from pydantic import BaseModel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import parse_args, serve

# A fixed key: requestState minted by one process is accepted by the next (resume over stdio).
mcp = MCPServer("sampling-test", title="Sampling and roots test server", version="1.0",
                request_state_security=RequestStateSecurity(keys=[b"mrtr-tests-sampling-server-key-0123456789"],
                                                            ttl=3600))


class Style(BaseModel):
    tone: str


def style(topic: str) -> Elicit[Style]:
    return Elicit(f"Which tone for the brief on {topic}?", Style)


def draft(topic: str) -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(text=f"Write one sentence about {topic}."))],
        max_tokens=60,
        system_prompt="You write briefs.",
    )


def workspace() -> ListRoots:
    return ListRoots()


def dump(value: object) -> str:
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, mode="json", exclude_none=True)
    return value


@mcp.tool()
async def brief(
    topic: str,
    tone: Annotated[Style, Resolve(style)],
    text: Annotated[CreateMessageResult, Resolve(draft)],
    roots: Annotated[ListRootsResult, Resolve(workspace)],
) -> str:
    """Ask for a tone, a model draft and the roots, all in one round."""
    return json.dumps({"tone": tone.tone, "draft": dump(text), "roots": dump(roots)["roots"]}, sort_keys=True)


def question(question: str) -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(text=question))],
        max_tokens=100,
        system_prompt="You are a helpful assistant.",
        temperature=0.1,
        model_preferences=ModelPreferences(hints=[ModelHint(name="claude-3-sonnet")], intelligence_priority=0.8,
                                           speed_priority=0.5, cost_priority=0.3),
    )


@mcp.tool()
async def ask_model(question: str, answer: Annotated[CreateMessageResult, Resolve(question)]) -> str:
    """Sample the client's model once."""
    return json.dumps(dump(answer), sort_keys=True)


WEATHER = Tool(name="get_weather", description="Current weather for a city",
               input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})


def forecast() -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(text="What's the weather in Paris?"))],
        max_tokens=200,
        tools=[WEATHER],
    )


@mcp.tool()
async def weather_agent(reply: Annotated[CreateMessageResultWithTools, Resolve(forecast)]) -> str:
    """Sample with a tool offered (needs sampling.tools)."""
    return json.dumps(dump(reply), sort_keys=True)


def listed() -> ListRoots:
    return ListRoots()


@mcp.tool()
async def show_roots(roots: Annotated[ListRootsResult, Resolve(listed)], ctx: Context) -> str:
    """Return the client's roots."""
    return json.dumps(dump(roots)["roots"], sort_keys=True)


if __name__ == "__main__":
    serve(mcp, parse_args(__doc__), lowlevel=False)
