"""A dual-era test server (official SDK, lowlevel `Server`) that sends change notifications.

2026-07-28: `subscriptions/listen` is served by the SDK's `ListenHandler`; once a stream is
open, the server publishes the events given with `--emit` (comma-separated: `tools`,
`prompts`, `resources`, `resource:URI`) on its bus, in order, and then sends nothing more
(the stream stays open) unless `--close-after`, which ends every stream gracefully
(the listen request's result). 2025-11-25 (initialize handshake): `resources/subscribe URI`
answers after sending `--emit`'s events as notifications (a `resource:` event only for the
subscribed URI).

`--events FILE` appends one line per lifecycle event: `listen-open`, `listen-cancelled`
(the client closed the stream or cancelled the request), `listen-ended` (graceful),
`subscribe URI`, `unsubscribe URI`.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ToolsListChanged,
)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import list_tools_handler, parse_args, serve

extra = argparse.ArgumentParser()
extra.add_argument("--emit", default="tools,resource:test://watched")
extra.add_argument("--close-after", action="store_true")
extra.add_argument("--events")
OPTS, _ = extra.parse_known_args()
EMIT = [e for e in OPTS.emit.split(",") if e]


def note(line: str) -> None:
    if OPTS.events:
        with open(OPTS.events, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")


bus = InMemorySubscriptionBus()
handler = ListenHandler(bus)


def event_of(spec: str) -> Any:
    if spec.startswith("resource:"):
        return ResourceUpdated(uri=spec.split(":", 1)[1])
    return {"tools": ToolsListChanged, "prompts": PromptsListChanged, "resources": ResourcesListChanged}[spec]()


async def publish_when_open() -> None:
    while not handler._streams:  # the SDK registers a stream before it sends the ack
        await anyio.sleep(0.01)
    for spec in EMIT:
        await bus.publish(event_of(spec))
    if OPTS.close_after:
        await anyio.sleep(0.05)  # let the stream drain what was published
        handler.close()


async def listen(ctx: Any, params: types.SubscriptionsListenRequestParams) -> Any:
    note("listen-open")
    graceful = False
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(publish_when_open)
            result = await handler(ctx, params)
            graceful = True
            tg.cancel_scope.cancel()
        return result
    finally:
        note("listen-ended" if graceful else "listen-cancelled")


async def subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
    uri = str(params.uri)
    note(f"subscribe {uri}")
    for spec in EMIT:
        if spec.startswith("resource:"):
            if spec.split(":", 1)[1] != uri:
                continue
            params = types.ResourceUpdatedNotificationParams(uri=uri)
            notification: Any = types.ResourceUpdatedNotification(params=params)
        else:
            notification = {"tools": types.ToolListChangedNotification, "prompts": types.PromptListChangedNotification,
                            "resources": types.ResourceListChangedNotification}[spec]()
        await ctx.session.send_notification(notification, related_request_id=ctx.request_id)
    return types.EmptyResult()


async def unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    note(f"unsubscribe {params.uri}")
    return types.EmptyResult()


async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[types.Resource(uri="test://watched", name="watched")])


server = Server("listen-test", on_list_tools=list_tools_handler({"noop": {}}), on_list_resources=list_resources,
                on_subscriptions_listen=listen, on_subscribe_resource=subscribe,
                on_unsubscribe_resource=unsubscribe)
# Handshake-era capabilities: tools/prompts/resources listChanged (2026-07-28 derives them
# from subscriptions/listen being served).
server.create_initialization_options = functools.partial(  # type: ignore[method-assign]
    Server.create_initialization_options, server, NotificationOptions(prompts_changed=True, resources_changed=True,
                                                                      tools_changed=True))

if __name__ == "__main__":
    serve(server, parse_args("listen test server"), lowlevel=True)
