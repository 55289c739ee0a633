"""A small Server-Sent Events parser (WHATWG HTML "event stream" rules).

Used for Streamable HTTP responses of type `text/event-stream`: each event's
`data` is one JSON-RPC message. Comment lines (starting with `:`) are keep-alives
and are ignored; `id` and `retry` are parsed but 2026-07-28 has no resumption.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass
class SseEvent:
    """One dispatched event: `event` type (default "message"), joined `data`, last `id`."""

    event: str
    data: str
    id: str | None = None


def parse_sse(lines: Iterable[str]) -> Iterator[SseEvent]:
    """Yield events from an iterable of lines (without their line terminators).

    An event is dispatched at each blank line when it has data; a final event
    without a trailing blank line is dispatched at the end of the stream.
    """
    event_type = ""
    data: list[str] = []
    last_id: str | None = None
    for line in lines:
        if line == "":
            if data:
                yield SseEvent(event_type or "message", "\n".join(data), last_id)
            event_type, data = "", []
            continue
        if line.startswith(":"):
            continue
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event_type = value
        elif name == "id":
            if "\0" not in value:
                last_id = value
        # "retry" and unknown fields are ignored.
    if data:
        yield SseEvent(event_type or "message", "\n".join(data), last_id)
