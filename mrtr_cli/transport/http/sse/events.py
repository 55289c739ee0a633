"""A small Server-Sent Events parser (WHATWG HTML "event stream" rules).

Used for Streamable HTTP responses of type `text/event-stream`: each event's
`data` is one JSON-RPC message. Comment lines (starting with `:`) are keep-alives
and are ignored. `id` and `retry` go to an optional `SseCursor`, so a legacy (2025-11-25)
stream that the server closes early can be resumed; 2026-07-28 has no resumption.

The parser reads the raw bytes as they arrive and keeps one copy of a data line at
a time (a 50 MB result in one event is not held as chunks, line, field value and
event data at once), decoding the event's data only when it is dispatched.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

#: The longest reconnection delay (an SSE `retry` field, milliseconds) mrtr waits before
#: resuming a stream; a server asking for longer gets no resumption (docs/limits.md).
MAX_RETRY_MS = 30_000


def retry_ms(value: bytes | bytearray) -> int | None:
    """The reconnection delay of an SSE `retry` field's value, in milliseconds, bounded:
    a value over `MAX_RETRY_MS` (of any length: 20 digits, or 5000) reads as
    `MAX_RETRY_MS + 1`, so no wait computed from it can overflow a timestamp.

    Returns:
        None when the value is not only ASCII digits (WHATWG: the field is then ignored).
    """
    if not value.isdigit():
        return None
    significant = value.lstrip(b"0")  # leading zeros do not make a value longer
    if len(significant) > len(str(MAX_RETRY_MS)):
        return MAX_RETRY_MS + 1
    return min(int(significant or b"0"), MAX_RETRY_MS + 1)


@dataclass
class SseEvent:
    """One dispatched event: `event` type (default "message"), joined `data`, last `id`."""

    event: str
    data: str
    id: str | None = None


@dataclass
class SseCursor:
    """Where a stream got to, for resuming it (2025-11-25 Streamable HTTP, "Resumability
    and Redelivery"): the last event id seen (`Last-Event-ID`), and the reconnection
    delay the server asked for with a `retry` field, in milliseconds (None: not given;
    bounded by `retry_ms`: any value over `MAX_RETRY_MS` reads as `MAX_RETRY_MS + 1`).
    Both are updated as the fields are read, also for events that carry no data."""

    last_id: str | None = None
    retry_ms: int | None = None
    #: The stream ended in the middle of an event (data read, but not the blank line
    #: that ends the event): that event was discarded, as the WHATWG rules say.
    cut: bool = False


def parse_sse(lines: Iterable[str]) -> Iterator[SseEvent]:
    """Yield events from an iterable of lines (without their line terminators).

    An event is dispatched at each blank line when it has data; a final event
    without a trailing blank line is incomplete and discarded at the end of the stream.
    """
    return parse_sse_bytes(line.encode("utf-8") + b"\n" for line in lines)


def parse_sse_bytes(chunks: Iterable[bytes], cursor: SseCursor | None = None, *,
                    max_event: int | None = None) -> Iterator[SseEvent]:
    """Yield events from the raw bytes of a stream, in chunks of any size (lines may end
    with CRLF, LF or CR, and may be split across chunks); `id` and `retry` fields are
    also recorded in `cursor` when one is given.

    An event ends at a blank line. One the stream leaves unfinished (data, then the end
    of the stream) is discarded, never dispatched (WHATWG: "If the file ends in the middle
    of an event, before the final empty line, the incomplete event is not dispatched"), and
    `cursor.cut` is set: the caller reports a broken stream, not a message cut short.

    Raises:
        MessageTooLarge: with `max_event`, a line or the data of one event grew past
            `max_event` bytes (reading stops there).
    """
    state = _EventState(cursor)
    if cursor is not None:
        cursor.cut = False
    line = bytearray()
    limit = max_event if max_event is not None else -1
    after_cr = False  # the last chunk ended with CR: a LF starting the next one is its pair
    for chunk in chunks:
        start = 0
        if after_cr and chunk[:1] == b"\n":
            start = 1
        after_cr = False
        while start < len(chunk):
            end = _line_end(chunk, start)
            if end < 0:
                line += chunk[start:]
                if 0 <= limit < len(line) + state.size:
                    _too_large(len(line) + state.size, limit)
                break
            line += chunk[start:end]
            if 0 <= limit < len(line) + state.size:
                _too_large(len(line) + state.size, limit)
            event = state.take(line)
            line = bytearray()
            if event is not None:
                yield event
            if chunk[end:end + 1] == b"\r":
                if end + 1 == len(chunk):
                    after_cr = True
                elif chunk[end + 1:end + 2] == b"\n":
                    end += 1
            start = end + 1
    if line:
        state.take(line)  # a last line without its end: never a dispatch (it is not blank)
    if state.has_data and cursor is not None:
        cursor.cut = True


def _too_large(size: int, limit: int) -> None:
    from mrtr_cli.transport.base import MessageTooLarge  # noqa: PLC0415 - the parser itself needs no transport

    raise MessageTooLarge(size, limit)


def _line_end(chunk: bytes, start: int) -> int:
    """The index of the first CR or LF at or after `start`, or -1."""
    lf, cr = chunk.find(b"\n", start), chunk.find(b"\r", start)
    if lf < 0 or (0 <= cr < lf):
        return cr
    return lf


class _EventState:
    """The fields of the event being read."""

    def __init__(self, cursor: SseCursor | None = None) -> None:
        self.cursor = cursor
        self.event_type = ""
        #: The event's data lines joined by "\n" as they come (one buffer: what is held is
        #: what is counted, however many lines there are, even empty ones).
        self.data = bytearray()
        self.has_data = False
        self.last_id: str | None = None
        #: Bytes of data gathered for the event being read.
        self.size = 0

    def take(self, line: bytearray) -> SseEvent | None:
        """Handle one complete line (owned by the parser: it may be kept as data)."""
        if not line:
            return self._dispatch()
        if line[:1] == b":":
            return None
        colon = line.find(b":")
        if colon < 0:
            name, value = bytes(line), bytearray()
        else:
            name = bytes(line[:colon])
            del line[:colon + 1]  # in place: the value is what is left of the line
            if line[:1] == b" ":
                del line[:1]
            value = line
        if name == b"data":
            if self.has_data:
                self.data += b"\n"
            self.data += value
            self.has_data = True
            self.size += len(value) + 1
        elif name == b"event":
            self.event_type = value.decode("utf-8", "replace")
        elif name == b"id":
            if b"\0" not in value:
                self.last_id = value.decode("utf-8", "replace")
                if self.cursor is not None:
                    self.cursor.last_id = self.last_id
        elif name == b"retry":
            retry = retry_ms(value)
            if retry is not None and self.cursor is not None:
                self.cursor.retry_ms = retry
        # Unknown fields are ignored.
        return None

    def _dispatch(self) -> SseEvent | None:
        if not self.has_data:
            self.event_type = ""
            return None
        raw, self.data, self.has_data = self.data, bytearray(), False
        self.size = 0
        event = SseEvent(self.event_type or "message", raw.decode("utf-8", "replace"), self.last_id)
        self.event_type = ""
        return event
