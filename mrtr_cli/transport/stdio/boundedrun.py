"""Running a command whose output `mrtr` reads (an assertion or ID-token command, the
sampling command), bounded while it runs: in a process tree of its own
(`platform.proctree.start`), its stdout read in blocks up to a limit, its stderr
kept to a limit, within a time bound; the whole group ended at the end, whatever way
the run ended.

Rules (docs/limits.md, "Commands whose output mrtr reads"):
- stdout: once more than `stdout_limit` bytes arrive, reading stops and the group is
  ended (`OutputTooLarge`): a command printing without end costs `mrtr` at most the limit
  (and one block);
- stderr: read to its end, but only its last `stderr_limit` bytes are kept (a command
  logging without end costs no memory; the time bound ends it);
- the time bound (`timeout`) counts from the start; past it the group is ended
  (`CommandTimedOut`). A command that exits but leaves a process holding its stdout (in
  its group: ended with it; out of it: waited for up to the bound) ends the same way;
- afterwards nothing of the group is left running (`procgroup.kill_process_group`), and
  the command is reaped. Ctrl-C (or any exception) while it runs ends the group too.

Reading runs on threads (pipes cannot be polled on Windows), one per stream, and one
writes `stdin` (a command that never reads it blocks only that thread).
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO

from mrtr_cli.limits import describe_seconds
from mrtr_cli.platform import proctree
from mrtr_cli.transport.stdio.procgroup import kill_process_group

#: Bytes read from a pipe at a time.
_BLOCK = 1 << 16
#: How long the command may take to exit once its group is ended (seconds): SIGKILL cannot
#: be ignored, so only a process stuck in the kernel takes that long (it is left unreaped).
_REAP = 5.0


class OutputTooLarge(Exception):
    """The command printed more than `limit` bytes on stdout; reading stopped there and its
    process group was ended."""

    def __init__(self, limit: int):
        super().__init__(f"printed more than {limit} bytes")
        self.limit = limit


class CommandTimedOut(Exception):
    """The command did not finish (exit, and close its output) within `timeout` seconds;
    its process group was ended."""

    def __init__(self, timeout: float):
        super().__init__(f"did not finish within {describe_seconds(timeout)}")
        self.timeout = timeout


@dataclass(frozen=True)
class Finished:
    """A command that ran to its end within the bounds.

    Attributes:
        returncode: its exit status (negative: killed by that signal, POSIX).
        stdout: all it printed (at most `stdout_limit` bytes).
        stderr: the last `stderr_limit` bytes of its stderr.
        stderr_dropped: how many bytes of stderr came before those and were not kept.
    """

    returncode: int
    stdout: bytes
    stderr: bytes
    stderr_dropped: int = 0


class _Reader(threading.Thread):
    """Reads one pipe to its end in blocks: keeps at most `limit` bytes, from the start
    (`overflow` set, and reading stopped, when more arrive) or, with `tail`, the last ones
    (the rest counted in `dropped`)."""

    def __init__(self, stream: IO[bytes], limit: int, tail: bool, changed: threading.Event):
        super().__init__(name="mrtr-child-output", daemon=True)
        self.stream = stream
        self.limit = limit
        self.tail = tail
        self.changed = changed
        self.data = bytearray()
        self.dropped = 0
        self.overflow = False
        self.ended = False

    def run(self) -> None:
        try:
            while True:
                block = self.stream.read1(_BLOCK)  # type: ignore[attr-defined]  # a pipe is a BufferedReader; IO[bytes] has no read1
                if not block:
                    break
                self.data += block
                if len(self.data) > self.limit:
                    if not self.tail:
                        self.overflow = True
                        break
                    extra = len(self.data) - self.limit
                    del self.data[:extra]
                    self.dropped += extra
        except (OSError, ValueError):  # the pipe closed under us (the run is over)
            pass
        finally:
            self.ended = True
            self.changed.set()


def _feed(stream: IO[bytes], data: bytes) -> None:
    """Write `data` to the command's stdin and close it; a command that exits (or is ended)
    without reading it all is no error."""
    with contextlib.suppress(OSError, ValueError):
        stream.write(data)
    with contextlib.suppress(OSError, ValueError):
        stream.close()


def run_bounded(argv: list[str], *, stdout_limit: int, stderr_limit: int, timeout: float | None,
                stdin: bytes | None = None, env: Mapping[str, str] | None = None) -> Finished:
    """Run `argv` (no shell) under the rules of the module docstring.

    Args:
        stdout_limit: the most bytes of stdout accepted.
        stderr_limit: the most bytes of stderr kept (its last ones).
        timeout: seconds the command may take, or None for no bound.
        stdin: bytes for its stdin (then closed), or None for no input (the null device).
        env: its environment, or None for mrtr's own.

    Raises:
        FileNotFoundError, PermissionError, OSError: it cannot be started.
        OutputTooLarge: more than `stdout_limit` bytes on stdout.
        CommandTimedOut: not finished within `timeout`.
    """
    proc = proctree.start(argv, stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    end = None if timeout is None else time.monotonic() + timeout
    changed = threading.Event()
    out = _Reader(proc.stdout, stdout_limit, False, changed)
    err = _Reader(proc.stderr, stderr_limit, True, changed)
    try:
        out.start()
        err.start()
        if stdin is not None and proc.stdin is not None:
            threading.Thread(target=_feed, args=(proc.stdin, stdin), name="mrtr-child-input", daemon=True).start()
        while True:  # the state is checked before each wait: no wake-up is lost
            if out.overflow:
                raise OutputTooLarge(stdout_limit)
            if out.ended and err.ended:
                break
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                raise CommandTimedOut(timeout or 0.0)
            changed.wait(left)
            changed.clear()
        if end is None:
            proc.wait()
        elif not proctree.wait_exit(proc, max(end - time.monotonic(), 0.0)):  # its output closed, but it runs on
            raise CommandTimedOut(timeout or 0.0)
    finally:
        _end(proc, (out, err))
    return Finished(proc.returncode, bytes(out.data), bytes(err.data), err.dropped)


def _end(proc: subprocess.Popen[bytes], readers: tuple[_Reader, ...]) -> None:
    """End the command's whole group (what it left running too) and reap the command; a
    pipe whose reader has finished is closed (one a process that left the group still
    holds is left to its reader thread, which ends with `mrtr`). Never raises."""
    kill_process_group(proc)
    proctree.wait_exit(proc, _REAP)
    proctree.end_escaped(proc, "", 0)  # Windows: the job's handle closed
    for reader in readers:
        if reader.ended:
            with contextlib.suppress(OSError):
                reader.stream.close()
