"""What a stdio server says besides its messages: its stderr, and the lines of its stdout
that are no JSON-RPC message (noise).

Each stderr line is passed on to the run's stderr (sanitised, cut at `STDERR_LINE_MAX`
characters) or hidden; noise on stdout is warned about a few times, the rest counted
and summarised once. The last `STDERR_TAIL_LINES` lines of both are kept to explain a
crash (`describe_failure`).
"""

from __future__ import annotations

import collections
from collections.abc import Callable

from mrtr_cli.render.sanitize import sanitize
from mrtr_cli.transport.stdio.pipes import LineSplitter, read_to_end

STDERR_TAIL_LINES = 20
#: Characters of one stderr line shown (the rest of a longer line is dropped).
STDERR_LINE_MAX = 8192


class ServerStderr:
    """The server's stderr and stdout noise of one stdio transport.

    Args:
        sink: called with each sanitised stderr line and each warning; None hides them
            (they are still kept for `describe_failure`).
    """

    def __init__(self, sink: Callable[[str], None] | None):
        self.sink = sink
        self.tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        from mrtr_cli.render.live.repeats import RepeatedNotes  # noqa: PLC0415 - lazy for start-up time

        self._noise = RepeatedNotes("lines on the server's stdout that mrtr could not use")

    def pump(self, fd: int) -> None:
        """Read the server's stderr (`fd`) in blocks until it ends and pass it on one line at
        a time (a line is cut at `STDERR_LINE_MAX` characters)."""
        read_to_end(fd, LineSplitter(STDERR_LINE_MAX * 4, self._line, lambda size: None, keep_cut=True))

    def _line(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").rstrip("\r")
        if len(text) > STDERR_LINE_MAX:
            text = text[:STDERR_LINE_MAX] + " [...]"
        text = sanitize(text, drop_colours=True)
        self.tail.append(text)
        if self.sink is not None:
            self.sink(text)

    def note_noise(self, text: str, what: str = "a non-JSON line") -> None:
        """Keep `text` (a line of stdout mrtr could not use) for the crash report and warn
        about it: the first few times only, the rest counted and summarised by
        `summarise_noise`."""
        self.tail.append("(stdout) " + sanitize(text[:200]))
        if self.sink is not None and self._noise.take():
            self.sink(f"mrtr: warning: server wrote {what} to stdout: " + sanitize(text[:200], single_line=True))

    def summarise_noise(self) -> None:
        """Say how many warnings about the server's stdout were left out (`note_noise`)."""
        line = self._noise.summary()
        if line is not None and self.sink is not None:
            self.sink(line)

    def describe_failure(self) -> str | None:
        """The last lines of the server's stderr, to explain a crash; None when there are
        none, or when they were shown live (they are already on screen)."""
        if not self.tail or self.sink is not None:
            return None
        return "last lines of the server's stderr:\n" + "\n".join("  " + line for line in self.tail)
