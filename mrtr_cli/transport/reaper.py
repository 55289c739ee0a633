"""Ending what a stdio server started and that left its process group (Linux).

A server that double-forks and calls `setsid` leaves the group `transport/procgroup.py` ends
at shutdown, and would outlive `mrtr`. On Linux `mrtr` makes itself the *child subreaper*
of what it starts (`prctl(PR_SET_CHILD_SUBREAPER)`, set before the server is spawned), so
such a process, once its parent exits, becomes `mrtr`'s child instead of init's. The
server is started with `MARK` in its environment (a value of this run's own), which its
descendants inherit; at shutdown every child of `mrtr` that carries the mark and is not a
process `mrtr` started itself gets SIGTERM, then SIGKILL, and is reaped. A process that
clears its environment, or escapes while `mrtr` is not running, is not found.
Elsewhere (macOS, Windows) nothing of this is done: only the server's process group is
ended (docs/limits.md).
"""

from __future__ import annotations

import os
import signal
import sys
import time

#: The environment variable marking a stdio server and its descendants.
MARK = "MRTR_STDIO_RUN"
#: PR_SET_CHILD_SUBREAPER (linux/prctl.h).
_PR_SET_CHILD_SUBREAPER = 36
_subreaper: bool | None = None


def become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants (Linux; once per process).
    Returns True when it is. Never raises."""
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        if sys.platform.startswith("linux"):
            try:
                import ctypes  # noqa: PLC0415 - lazy for start-up time

                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError):
                _subreaper = False
    return _subreaper


def run_mark() -> str:
    """The value of `MARK` for a server this process starts (unique to the start)."""
    return f"{os.getpid()}-{time.monotonic_ns()}"


def marked_orphans(mark: str) -> list[int]:
    """The children of this process (orphans reparented to it) whose environment has
    `MARK=mark`. Linux only (an empty list elsewhere); never raises."""
    me = os.getpid()
    found: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    needle = f"{MARK}={mark}".encode()
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
            if ppid != me:
                continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if needle in environ:
            found.append(int(entry))
    return found


def end_orphans(mark: str, grace: float) -> None:
    """SIGTERM every marked orphan (`marked_orphans`), wait up to `grace` seconds for them
    to exit, SIGKILL what is left, and reap them all (again for orphans they leave in
    turn). Never raises."""
    if not _subreaper:
        return
    for _ in range(8):  # an orphan's own orphans come to us when it dies
        pids = marked_orphans(mark)
        if not pids:
            return
        for signum in (signal.SIGTERM, signal.SIGKILL):
            for pid in pids:
                try:
                    os.kill(pid, signum)
                except OSError:
                    pass
            pids = _reap(pids, grace if signum == signal.SIGTERM else 5.0)
            if not pids:
                break


def _reap(pids: list[int], timeout: float) -> list[int]:
    """Reap those of `pids` that exit within `timeout` seconds; the ones left running."""
    end = time.monotonic() + timeout
    pause = 0.005
    left = list(pids)
    while left:
        for pid in list(left):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                left.remove(pid)
        if not left or time.monotonic() >= end:
            break
        time.sleep(pause)
        pause = min(pause * 2, 0.1)
    return left
