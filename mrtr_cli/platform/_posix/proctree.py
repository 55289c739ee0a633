"""`proctree` on Linux and macOS: sessions, signals to the process group, and (Linux) the
child subreaper that catches what left the group.

A server that double-forks and calls `setsid` leaves its group and would outlive `mrtr`. On
Linux `mrtr` makes itself the *child subreaper* of what it starts
(`prctl(PR_SET_CHILD_SUBREAPER)`, before the first child starts), so such a process, once
its parent exits, becomes `mrtr`'s child instead of init's. The child is started with
`MARK` in its environment (a value of this start's own), which its descendants inherit;
`end_escaped` sends SIGTERM, then SIGKILL, to every child of `mrtr` that carries the mark
and reaps it (`/proc` is searched only while `mrtr` has a child: one with none left has
had nothing reparented to it). A process that clears its environment, or escapes while
`mrtr` is not running, is not found; on macOS nothing of this is done.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

# POSIX only (the platform facade picks the Windows module); the type checker skips the rest on Windows.
assert sys.platform != "win32", "POSIX only"

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any  # not imported at run time: a server starts before `typing` loads

#: PR_SET_CHILD_SUBREAPER (linux/prctl.h).
_PR_SET_CHILD_SUBREAPER = 36
_subreaper: bool | None = None


def start(argv: list[str], **popen: Any) -> subprocess.Popen[bytes]:
    """`subprocess.Popen(argv, **popen)` in a session (process group) of its own; `mrtr`
    becomes the subreaper of its descendants first (Linux).

    Raises:
        OSError: the command cannot be started (FileNotFoundError, PermissionError, ...).
    """
    _become_subreaper()
    return subprocess.Popen(argv, start_new_session=True, **popen)


def _become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants (Linux; once per process).
    Returns True when it is. Never raises."""
    global _subreaper  # noqa: PLW0603 - the process's one subreaper state, set once
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


def _signal_group(proc: subprocess.Popen[bytes], signum: int) -> bool:
    """Send `signum` to the process group of `proc` (which outlives its leader while any
    member is left), or to `proc` alone when that fails; False when nobody was left to
    receive it. Never raises."""
    try:
        os.killpg(proc.pid, signum)
        return True
    except ProcessLookupError:
        return False
    except OSError:
        try:
            proc.send_signal(signum)
            return True
        except OSError:
            return False


def ask_to_end(proc: subprocess.Popen[bytes]) -> bool:
    """SIGTERM to the group; False when nobody was left. Never raises."""
    return _signal_group(proc, signal.SIGTERM)


def end_now(proc: subprocess.Popen[bytes]) -> bool:
    """SIGKILL to the group; False when nobody was left. Never raises; safe in a signal handler."""
    return _signal_group(proc, signal.SIGKILL)


def any_left(proc: subprocess.Popen[bytes]) -> bool:
    """True while any process of the group is running (signal 0 reaches one)."""
    return _signal_group(proc, 0)


def exited_within(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """False when `proc` is still running after `timeout` seconds, woken the moment it
    exits (a pidfd, Linux); True when it exited, or when that cannot be waited for here
    (the caller's `Popen.wait` then does the waiting)."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is None:
        return True
    try:
        fd = pidfd_open(proc.pid)
    except OSError:  # already reaped, or not supported by the kernel
        return True
    import select  # noqa: PLC0415 - lazy for start-up time

    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def _has_children() -> bool:
    """False when this process has no child at all, running or unreaped (then no orphan was
    reparented to it, and `/proc` need not be searched: `waitid` with `WNOWAIT` reaps
    nothing); True when it has one, or when that cannot be asked. Never raises."""
    waitid = getattr(os, "waitid", None)
    if waitid is None:  # pragma: no cover - every Linux Python has it
        return True
    try:
        waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    except OSError:  # pragma: no cover - not expected from waitid
        return True
    return True


def _marked_orphans(marking: str) -> list[int]:
    """The children of this process (orphans reparented to it) whose environment holds
    `marking` (`MARK=value`). Linux only (an empty list elsewhere); never raises."""
    me = os.getpid()
    found: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    needle = marking.encode()
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


def end_escaped(proc: subprocess.Popen[bytes], marking: str, grace: float) -> None:
    """After `proc` is gone: SIGTERM every orphan whose environment holds `marking`, wait up to
    `grace` seconds for them to exit, SIGKILL what is left, and reap them all (again for
    orphans they leave in turn). Only where
    `mrtr` is the subreaper (Linux). Never raises."""
    if not _subreaper or not marking:
        return
    for _ in range(8):  # an orphan's own orphans come to us when it dies
        # No child left: nothing was reparented to us (one system call instead of reading
        # every process's /proc entry).
        pids = _marked_orphans(marking) if _has_children() else []
        if not pids:
            return
        for signum in (signal.SIGTERM, signal.SIGKILL):
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signum)
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
