"""Ending a child's process tree by stages (a stdio server), or at once. The platform's
calls (process groups, signals, Job Objects) are `platform.proctree`'s; this module is the
order they come in.

Every child `mrtr` starts (a stdio server: `transport.stdio.launch.launch`; a command whose
output it reads: `transport.stdio.boundedrun`) is started by `proctree.start`, in a tree of its
own, so a Ctrl-C at the terminal reaches `mrtr` only, and everything the child launched
can be ended with it. Shutdown of a server: its stdin is closed and it is waited for; then
it is asked to end (SIGTERM to the group; CTRL_BREAK_EVENT on Windows), wait; then the
tree is ended (SIGKILL; the Job Object terminated). A group that outlives its leader (a
wrapper such as `bash -c`, `npx`, `uv run` whose server lingers) is ended the same way,
so nothing is left running. (What left the group is `proctree.end_escaped`'s.)
"""

from __future__ import annotations

import subprocess
import time

from mrtr_cli.platform import proctree


def kill_process_group(proc: subprocess.Popen[bytes]) -> None:
    """End a child started by `proctree.start` and everything it launched (e.g. npx ->
    node) at once. Never raises; safe in a signal handler on POSIX."""
    proctree.end_now(proc)


def group_gone(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait up to `timeout` seconds for every process of `proc`'s tree to exit; True when
    none is left (the leader must already be reaped)."""
    end = time.monotonic() + timeout
    pause = 0.005
    while proctree.any_left(proc):
        if time.monotonic() >= end:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.1)
    return True


def close_stdin(proc: subprocess.Popen[bytes]) -> None:
    """Close the child's stdin (its end of input); never raises."""
    try:
        if proc.stdin:
            proc.stdin.close()
    except OSError:
        pass


def end_group(proc: subprocess.Popen[bytes], grace: float) -> None:
    """End `proc` (its stdin already closed) and its whole tree by stages, waiting up to
    `grace` seconds at each: the command's own exit, then asked to end, then ended; then
    what it left behind in the group (a server behind a wrapper that lingers), asked to
    end, then ended. Never raises."""
    # The command: stdin closed, then asked to end, then ended with its whole group.
    for stage in (None, proctree.ask_to_end, proctree.end_now):
        if stage is not None:
            stage(proc)
        if proctree.wait_exit(proc, grace):
            break
    # What it left behind in its group (a server behind a wrapper that lingers).
    for stage in (proctree.ask_to_end, proctree.end_now):
        if not stage(proc) or group_gone(proc, grace):
            break
