"""`pipes` on Linux and macOS: `select`, `poll`, `FIONREAD`, pidfds."""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import threading

# POSIX only (the platform facade picks the Windows module); the type checker skips the rest on Windows.
assert sys.platform != "win32", "POSIX only"

#: Bytes a write to an empty pipe always takes at once on Linux (a pipe holds at least one page).
_EMPTY_PIPE_TAKES = 4096


def wait_readable(fd: int, timeout: float) -> bool:
    """False when nothing can be read from `fd` within `timeout` seconds; True when it can,
    or when `fd` cannot be waited on (the read then blocks, as a file's would)."""
    try:
        return bool(select.select([fd], [], [], max(timeout, 0.0))[0])
    except (OSError, ValueError):
        return True


def unread_bytes(fd: int) -> int | None:
    """Bytes in the pipe `fd` not yet read by the other end (FIONREAD), or None."""
    try:
        import fcntl  # noqa: PLC0415 - lazy for start-up time
        import struct  # noqa: PLC0415 - lazy for start-up time
        import termios  # noqa: PLC0415 - lazy for start-up time

        return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])
    except (OSError, ValueError):
        return None


def takes_at_once(fd: int, size: int) -> bool:
    """Whether writing `size` bytes to the pipe `fd` cannot block: on Linux, when the pipe
    is empty (FIONREAD on the write end) and `size` is at most a page; elsewhere False
    (macOS answers FIONREAD on the write end with 0 whatever the pipe holds)."""
    return sys.platform.startswith("linux") and size <= _EMPTY_PIPE_TAKES and unread_bytes(fd) == 0


class ExitWatch:
    """Waits for a child's output and its exit together: a descriptor that becomes
    readable when the child exits (`owned` are closed by `close`), polled beside stdout
    (`poll`, not `select`: descriptors above 1023 work too)."""

    def __init__(self, exit_fd: int, owned: list[int]):
        self._exit_fd = exit_fd
        self._owned = owned
        self._poller: tuple[int, select.poll] | None = None

    def exited(self, fd: int) -> bool:
        """Block until `fd` has output (False) or the child has exited (True)."""
        if self._poller is None or self._poller[0] != fd:
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            poller.register(self._exit_fd, select.POLLIN)
            self._poller = (fd, poller)
        return self._exit_fd in {got for got, _ in self._poller[1].poll()}

    def drain(self, fd: int, block: int, blocks: int) -> list[bytes]:
        """What is in `fd` now, without waiting: at most `blocks` reads of `block` bytes
        (a process the child left behind may write on)."""
        os.set_blocking(fd, False)
        out: list[bytes] = []
        for _ in range(blocks):
            try:
                data = os.read(fd, block)
            except (BlockingIOError, OSError):
                data = b""
            if not data:
                break
            out.append(data)
        return out

    def close(self) -> None:
        for fd in self._owned:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._owned = []


def watch_exit(proc: subprocess.Popen[bytes]) -> ExitWatch | None:
    """An `ExitWatch` of `proc`: a pidfd on Linux, else a pipe a waiting thread closes
    when `proc` exits; None when neither can be had."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is not None:
        try:
            fd = pidfd_open(proc.pid)
            return ExitWatch(fd, [fd])
        except OSError:
            pass
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None

    def wait() -> None:
        try:
            proc.wait()
        finally:
            with contextlib.suppress(OSError):
                os.close(write_end)

    threading.Thread(target=wait, name="mrtr-stdio-wait", daemon=True).start()
    return ExitWatch(read_end, [read_end])
