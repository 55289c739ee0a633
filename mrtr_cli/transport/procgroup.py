"""A child process in a group of its own, and ending that group (by stages, for a stdio
server). The one module with the platform's process-group calls (signals and `killpg` on
POSIX; `CREATE_NEW_PROCESS_GROUP`, `CTRL_BREAK_EVENT` and `taskkill /T /F` on Windows).

Every child `mrtr` starts (a stdio server: `transport.launch.launch`; a command whose
output it reads: `transport.boundedrun`) is started with `NEW_GROUP`: a session (process
group) of its own, so a Ctrl-C at the terminal reaches `mrtr` only, and everything the
child launched can be ended with it. Shutdown of a server: its stdin is closed and it is
waited for; then `TERM` to the whole group, wait; then `KILL` to the group. A group that
outlives its leader (a wrapper such as `bash -c`, `npx`, `uv run` whose server lingers)
is ended the same way, so nothing is left running. (What left the group with a double
fork and `setsid` is found by transport/reaper.py.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any  # not imported at run time: a server starts before `typing` loads

_WINDOWS = sys.platform == "win32"

#: The keyword arguments of `subprocess.Popen` that start a child in a process group of its
#: own: a new session on POSIX, a new process group on Windows (where `TERM` reaches it
#: as CTRL_BREAK_EVENT).
NEW_GROUP: dict[str, Any] = (
    {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)} if _WINDOWS else {"start_new_session": True})
#: Asking the group to end (SIGTERM; on Windows CTRL_BREAK_EVENT), and ending it (SIGKILL;
#: on Windows `taskkill /T /F`, the process and every process it started).
TERM: int = signal.SIGTERM
KILL: int = getattr(signal, "SIGKILL", 9)
#: How long `taskkill` may take (seconds).
_TASKKILL_TIMEOUT = 10.0


def kill_process_group(proc: subprocess.Popen[bytes]) -> None:
    """End a child started with `NEW_GROUP` and everything it launched (its process group;
    e.g. npx -> node) at once: SIGKILL, or on Windows `taskkill /T /F`. Never raises; safe
    in a signal handler on POSIX."""
    signal_group(proc, KILL)


def signal_group(proc: subprocess.Popen[bytes], signum: int) -> bool:
    """Send `signum` (`TERM`, `KILL`, or 0 to ask whether any member is left) to the
    process group of `proc` (started with `NEW_GROUP`; the group outlives its leader while
    any member is left); without process groups, to `proc` alone. Returns False when
    nobody was left to receive it. Never raises."""
    if _WINDOWS:
        return _signal_windows(proc, signum)
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


def _signal_windows(proc: subprocess.Popen[bytes], signum: int) -> bool:
    """`signal_group` on Windows: 0 asks whether the child is running; `TERM` is
    CTRL_BREAK_EVENT to its process group; `KILL` is `taskkill /T /F` on its tree."""
    if proc.poll() is not None and signum != KILL:
        return False
    try:
        if signum == 0:
            return True
        if signum == KILL:
            subprocess.run(["taskkill", "/T", "/F", "/PID", str(proc.pid)], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=_TASKKILL_TIMEOUT,
                           check=False)
            if proc.poll() is None:
                proc.kill()
            return True
        os.kill(proc.pid, getattr(signal, "CTRL_BREAK_EVENT", signum))
        return True
    except (OSError, subprocess.SubprocessError):
        return False


def group_gone(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait up to `timeout` seconds for every process of `proc`'s group to exit; True when
    none is left (the leader must already be reaped)."""
    end = time.monotonic() + timeout
    pause = 0.005
    while signal_group(proc, 0):
        if time.monotonic() >= end:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.1)
    return True


def wait_exit(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait up to `timeout` seconds for `proc` to exit (and reap it); True when it did.

    On Linux the wait wakes the moment the process exits (a pidfd); elsewhere it is
    `Popen.wait`, which polls with growing sleeps."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is not None and proc.returncode is None:
        try:
            fd = pidfd_open(proc.pid)
        except OSError:  # already reaped, or not supported by the kernel
            pass
        else:
            import select  # noqa: PLC0415 - lazy for start-up time

            try:
                ready, _, _ = select.select([fd], [], [], timeout)
            finally:
                os.close(fd)
            if not ready:
                return False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return True


def close_stdin(proc: subprocess.Popen[bytes]) -> None:
    """Close the child's stdin (its end of input); never raises."""
    try:
        if proc.stdin:
            proc.stdin.close()
    except OSError:
        pass


def end_group(proc: subprocess.Popen[bytes], grace: float) -> None:
    """End `proc` (its stdin already closed) and its whole process group by stages, waiting
    up to `grace` seconds at each: the command's own exit, then SIGTERM, then SIGKILL to the
    group; then what it left behind in the group (a server behind a wrapper that lingers),
    SIGTERM then SIGKILL. Never raises."""
    # The command: stdin closed, then SIGTERM and SIGKILL to its whole group.
    for signum in (None, TERM, KILL):
        if signum is not None:
            signal_group(proc, signum)
        if wait_exit(proc, grace):
            break
    # What it left behind in its group (a server behind a wrapper that lingers).
    for signum in (TERM, KILL):
        if not signal_group(proc, signum) or group_gone(proc, grace):
            break
