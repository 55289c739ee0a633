"""Ending a stdio server: its process group, by stages.

The server runs in a session (process group) of its own (`transport.launch.launch`,
`start_new_session=True`). Shutdown: its stdin is closed and it is waited for; then
SIGTERM to the whole group, wait; then SIGKILL to the group. A group that outlives its
leader (a wrapper such as `bash -c`, `npx`, `uv run` whose server lingers) is ended the
same way, so nothing is left running. (What left the group with a double fork and
`setsid` is found by transport/reaper.py.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import time


def kill_process_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL a child started with `start_new_session=True` and everything it launched
    (its process group; e.g. npx -> node). Never raises; safe in a signal handler."""
    signal_group(proc, signal.SIGKILL)


def signal_group(proc: subprocess.Popen[bytes], signum: int) -> bool:
    """Send `signum` to the process group of `proc` (started with `start_new_session=True`;
    the group outlives its leader while any member is left); without process groups, to
    `proc` alone. Returns False when nobody was left to receive it. Never raises."""
    try:
        os.killpg(proc.pid, signum)  # type: ignore[attr-defined]
        return True
    except ProcessLookupError:
        return False
    except (OSError, AttributeError):  # AttributeError: no process groups on this platform
        try:
            proc.send_signal(signum)
            return True
        except OSError:
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
    for signum in (None, signal.SIGTERM, signal.SIGKILL):
        if signum is not None:
            signal_group(proc, signum)
        if wait_exit(proc, grace):
            break
    # What it left behind in its group (a server behind a wrapper that lingers).
    for signum in (signal.SIGTERM, signal.SIGKILL):
        if not signal_group(proc, signum) or group_gone(proc, grace):
            break
