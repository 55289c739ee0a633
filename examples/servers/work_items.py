"""An example MCP server (official Python SDK) whose tools ask questions with MRTR.

Run it over stdio (the default) or Streamable HTTP:

    python examples/servers/work_items.py              # stdio
    python examples/servers/work_items.py --http 8000  # http://127.0.0.1:8000/mcp
    python examples/servers/work_items.py --http 8000 --background  # the same, in the background

What it offers:

- tool `update_work_item(workItemId, state)`: setting state "Resolved" asks for a
  resolution (round 1); answering "Duplicate" then asks for the original item's
  id (round 2), carrying the first answer in `requestState`. An id that does not
  exist is asked again.
- tool `delete_work_item(workItemId)`: one round, a yes/no confirmation.
- tool `list_work_items()`: no questions.
- prompt `triage(workItemId)`: asks who the summary is for.
- resource template `workitems://{workItemId}/export`: asks for the export format.

`requestState` is sealed with a fixed key, so a call stopped after round 1 can be
finished by `mrtr resume` against a new server process.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp_types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    TextContent,
)

# A fixed demo key: state minted by one process is accepted by the next (resume).
DEMO_KEY = b"mrtr-example-work-items-demo-key-0123456789"

WORK_ITEMS: dict[int, dict[str, Any]] = {
    4301: {"title": "Login button unresponsive on Safari", "state": "Active"},
    4522: {"title": "Login fails on Safari after update", "state": "Active"},
    4600: {"title": "Add dark mode", "state": "New"},
}

RESOLUTIONS = ["Fixed", "Won't Fix", "Duplicate", "By Design"]

mcp = MCPServer(
    "work-items",
    title="Work Items (mrtr example)",
    version="1.0.0",
    request_state_security=RequestStateSecurity(keys=[DEMO_KEY], ttl=3600),
)


def ask(key: str, message: str, schema: dict[str, Any], state: dict[str, Any]) -> InputRequiredResult:
    """One form elicitation under `key`, with `state` carried (sealed) in requestState."""
    return InputRequiredResult(
        input_requests={
            key: ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema)),
        },
        request_state=json.dumps(state),
    )


def accepted(ctx: Context, key: str) -> dict[str, Any] | None:
    """The accepted content for `key` in this round's inputResponses, else None."""
    response = (ctx.input_responses or {}).get(key)
    if response is None or getattr(response, "action", None) != "accept":
        return None
    return dict(getattr(response, "content", None) or {})


def action_of(ctx: Context, key: str) -> str | None:
    response = (ctx.input_responses or {}).get(key)
    return getattr(response, "action", None) if response is not None else None


def done(text: str, item_id: int) -> CallToolResult:
    item = WORK_ITEMS[item_id]
    structured = {"workItemId": item_id, **item}
    return CallToolResult(content=[TextContent(text=text)], structured_content=structured)


@mcp.tool()
async def update_work_item(workItemId: int,  # noqa: N803 - the argument's name on the wire (camelCase)
                           state: str, ctx: Context) -> CallToolResult | InputRequiredResult:
    """Change a work item's state. Resolving asks for a resolution (and, for duplicates, the original)."""
    if workItemId not in WORK_ITEMS:
        return CallToolResult(content=[TextContent(text=f"No work item {workItemId}")], is_error=True)
    if state != "Resolved":
        WORK_ITEMS[workItemId]["state"] = state
        return done(f"Work item {workItemId} is now {state}.", workItemId)

    carried = json.loads(ctx.request_state) if ctx.request_state else {}
    if action_of(ctx, "resolution") in ("decline", "cancel") or action_of(ctx, "duplicateOfId") in (
        "decline",
        "cancel",
    ):
        return CallToolResult(content=[TextContent(text=f"Work item {workItemId} was not changed.")])

    resolution = carried.get("resolution")
    answer = accepted(ctx, "resolution")
    if answer is not None:
        resolution = answer.get("resolution")
    if resolution not in RESOLUTIONS:
        return ask(
            "resolution",
            f"How was work item {workItemId} ({WORK_ITEMS[workItemId]['title']}) resolved?",
            {
                "type": "object",
                "properties": {
                    "resolution": {"type": "string", "title": "Resolution", "enum": RESOLUTIONS},
                    "comment": {"type": "string", "title": "Comment", "description": "Optional note"},
                },
                "required": ["resolution"],
            },
            {"step": "resolution"},
        )

    if resolution == "Duplicate":
        original = accepted(ctx, "duplicateOfId")
        original_id = original.get("duplicateOfId") if original else None
        if original_id not in WORK_ITEMS or original_id == workItemId:
            prefix = f"There is no work item {original_id}. " if original_id is not None else ""
            return ask(
                "duplicateOfId",
                f"{prefix}Which work item does {workItemId} duplicate?",
                {
                    "type": "object",
                    "properties": {
                        "duplicateOfId": {"type": "integer", "title": "Original work item id", "minimum": 1},
                    },
                    "required": ["duplicateOfId"],
                },
                {"resolution": resolution},
            )
        WORK_ITEMS[workItemId].update(state="Resolved", resolution="Duplicate", duplicateOf=original_id)
        return done(f"Work item {workItemId} resolved as a duplicate of {original_id}.", workItemId)

    WORK_ITEMS[workItemId].update(state="Resolved", resolution=resolution)
    WORK_ITEMS[workItemId].pop("duplicateOf", None)  # no longer a duplicate
    return done(f"Work item {workItemId} resolved: {resolution}.", workItemId)


@mcp.tool()
async def delete_work_item(workItemId: int,  # noqa: N803 - the argument's name on the wire (camelCase)
                           ctx: Context) -> CallToolResult | InputRequiredResult:
    """Delete a work item after a yes/no confirmation (one round)."""
    if workItemId not in WORK_ITEMS:
        return CallToolResult(content=[TextContent(text=f"No work item {workItemId}")], is_error=True)
    answer = accepted(ctx, "confirm")
    if answer is None and action_of(ctx, "confirm") is None:
        return ask(
            "confirm",
            f"Delete work item {workItemId} ({WORK_ITEMS[workItemId]['title']})?",
            {"type": "object", "properties": {"confirm": {"type": "boolean", "title": "Delete it"}},
             "required": ["confirm"]},
            {},
        )
    if answer is not None and answer.get("confirm") is True:
        del WORK_ITEMS[workItemId]
        return CallToolResult(content=[TextContent(text=f"Deleted work item {workItemId}.")])
    return CallToolResult(content=[TextContent(text=f"Work item {workItemId} was kept.")])


@mcp.tool()
def list_work_items() -> list[dict[str, Any]]:
    """All work items, no questions asked."""
    return [{"workItemId": k, **v} for k, v in sorted(WORK_ITEMS.items())]


@mcp.prompt()
async def triage(workItemId: str, ctx: Context) -> str | InputRequiredResult:  # noqa: N803 - its name on the wire
    """A triage prompt for one work item; asks who the summary is for."""
    answer = accepted(ctx, "audience")
    if answer is None:
        return ask(
            "audience",
            "Who is the triage summary for?",
            {"type": "object",
             "properties": {"audience": {"type": "string", "title": "Audience",
                                         "oneOf": [{"const": "eng", "title": "Engineers"},
                                                   {"const": "pm", "title": "Product managers"}]}},
             "required": ["audience"]},
            {},
        )
    item = WORK_ITEMS.get(int(workItemId), {"title": "(unknown)", "state": "?"})
    who = "an engineer" if answer.get("audience") == "eng" else "a product manager"
    return f"Summarise work item {workItemId} ({item['title']}, {item['state']}) for {who}."


@mcp.resource("workitems://{workItemId}/export", mime_type="application/json")
async def export_work_item(workItemId: str,  # noqa: N803 - the template variable's name (camelCase)
                           ctx: Context) -> str | InputRequiredResult:
    """Export one work item; asks whether to include the history."""
    answer = accepted(ctx, "options")
    if answer is None:
        return ask(
            "options",
            f"Export work item {workItemId}: include its history?",
            {"type": "object", "properties": {"includeHistory": {"type": "boolean", "title": "Include history",
                                                                 "default": False}},
             "required": ["includeHistory"]},
            {},
        )
    item = {"workItemId": int(workItemId), **WORK_ITEMS.get(int(workItemId), {})}
    if answer.get("includeHistory"):
        item["history"] = ["created", "triaged"]
    return json.dumps(item)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT/mcp")
    parser.add_argument("--background", action="store_true",
                        help="with --http: serve in the background (output to a log file), print how to stop it")
    args = parser.parse_args()
    if args.background and args.http is not None:
        from background import serve_in_background  # noqa: PLC0415 - only --background needs it (examples/servers/background.py)

        serve_in_background(__file__, args.http)
    elif args.http is not None:
        mcp.run(transport="streamable-http", host="127.0.0.1", port=args.http)
    else:
        mcp.run()


if __name__ == "__main__":
    main()
