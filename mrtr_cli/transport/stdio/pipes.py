"""Reading a child process's pipes: in blocks, cut into lines of bounded length.

The stdio transport reads the server's stdout (one JSON-RPC message a line, at most the
message size limit: transport/limits.py) and its stderr this way, each on a thread of
its own. Reading stdout stops once the command itself has exited and what it wrote is
read, even if a process it started still holds the pipe.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable

from mrtr_cli.platform.pipes import watch_exit

#: Bytes asked for by one read of the server's stdout or stderr.
READ_BLOCK = 1 << 20
#: Reads of what is left in stdout once the command has exited.
DRAIN_BLOCKS = 16


class LineSplitter:
    """Cuts a byte stream into lines of at most `limit` bytes.

    `on_line(bytes)` gets each line without its newline; a line that grows past `limit`
    is reported once to `on_too_large(size seen)` and dropped up to its newline, or, with
    `keep_cut`, passed to `on_line` cut at `limit` (the rest dropped).
    """

    def __init__(self, limit: int, on_line: Callable[[bytes], None], on_too_large: Callable[[int], None],
                 *, keep_cut: bool = False):
        self.limit = limit
        self.on_line = on_line
        self.on_too_large = on_too_large
        self.keep_cut = keep_cut
        self.buf = bytearray()
        self.dropping = False

    def feed(self, block: bytes) -> None:
        """Take the next block of the stream."""
        start = 0
        while start < len(block):
            newline = block.find(b"\n", start)
            stop = len(block) if newline < 0 else newline
            if not self.dropping:
                if len(self.buf) + stop - start > self.limit:
                    size = len(self.buf) + stop - start
                    if self.keep_cut:
                        self.buf += block[start:start + self.limit - len(self.buf)]
                        self.on_line(bytes(self.buf))
                    else:
                        self.on_too_large(size)
                    self.buf = bytearray()
                    self.dropping = True
                else:
                    self.buf += block[start:stop]
            if newline < 0:
                return
            if not self.dropping:
                line, self.buf = bytes(self.buf), bytearray()
                self.on_line(line)
            self.dropping = False
            start = newline + 1

    def end(self) -> None:
        """The stream ended: a last line without a newline is still a line."""
        if self.buf and not self.dropping:
            line, self.buf = bytes(self.buf), bytearray()
            self.on_line(line)
        self.buf = bytearray()


def read_stdout(proc: subprocess.Popen[bytes], lines: LineSplitter) -> None:
    """Read `proc`'s stdout in blocks into `lines` until it ends, or until the command has
    exited and what it wrote is read (a process it started may hold the pipe open for ever;
    where the platform cannot watch the exit beside the pipe, `platform.pipes.watch_exit`,
    only stdout's end is seen)."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    watch = watch_exit(proc)
    try:
        while True:
            if watch is not None and watch.exited(fd):  # the command exited: read what it left, then stop
                # What is in the pipe was written before the exit (a writer blocks on a
                # full pipe); a process it left behind may write on, so it is bounded.
                for block in watch.drain(fd, READ_BLOCK, DRAIN_BLOCKS):
                    lines.feed(block)
                lines.end()
                return
            try:
                block = os.read(fd, READ_BLOCK)
            except BlockingIOError:
                continue
            except OSError:  # closed under us (close(), or a broken pipe)
                block = b""
            if not block:
                lines.end()
                return
            lines.feed(block)
    finally:
        if watch is not None:
            watch.close()


def read_to_end(fd: int, lines: LineSplitter) -> None:
    """Read `fd` in blocks into `lines` until it ends (a read error ends it too)."""
    try:
        while True:
            block = os.read(fd, READ_BLOCK)
            if not block:
                break
            lines.feed(block)
        lines.end()
    except (OSError, ValueError):
        pass
