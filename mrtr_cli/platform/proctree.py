"""A child process and everything it starts, as one tree `mrtr` can ask to end and end.

Every child `mrtr` starts (a stdio server: `transport.stdio.launch`; a command whose output it
reads: `transport.stdio.boundedrun`) is started by `start`: in a process group of its own, so a
Ctrl-C at the terminal reaches `mrtr` only, and so that the child and what it launched
(`npx` -> `node`, `uv run` -> `python`) can be ended together.

| | POSIX (Linux, macOS) | Windows |
|---|---|---|
| the group | a new session (`start_new_session`) | a new process group (`CREATE_NEW_PROCESS_GROUP`) and a Job Object holding the child and its descendants |
| `ask_to_end` | SIGTERM to the group | CTRL_BREAK_EVENT to the group |
| `end_now` | SIGKILL to the group | `TerminateJobObject` (`taskkill /T /F` when no job could be made) |
| `any_left` | signal 0 to the group | the job's active processes |
| `end_escaped` | Linux: what left the group (double fork and `setsid`) and was reparented to `mrtr`, its child subreaper; macOS: nothing | the job's handle closed (the job ends whatever is left in it) |

The staging (stdin closed, wait, ask, wait, end) is `transport.stdio.procgroup`'s.
"""  # noqa: E501 - a Markdown table: a row is one line

from __future__ import annotations

import os
import subprocess
import sys
import time

if sys.platform == "win32":
    from mrtr_cli.platform._windows import proctree as _impl
else:
    from mrtr_cli.platform._posix import proctree as _impl

#: The environment variable marking a stdio server and its descendants (`end_escaped`).
MARK = "MRTR_STDIO_RUN"
#: Starts a child in a tree of its own, as `subprocess.Popen` (`start(argv, **popen_kwargs)`).
start = _impl.start
#: Asks the tree to end (SIGTERM; CTRL_BREAK_EVENT). False when nobody was left.
ask_to_end = _impl.ask_to_end
#: Ends the whole tree at once (SIGKILL; the Job Object terminated). Safe in a signal handler.
end_now = _impl.end_now
#: True while any process of the tree is running (the leader must be reaped first).
any_left = _impl.any_left


def run_mark() -> str:
    """A value of `MARK` for a child this process starts (unique to the start)."""
    return f"{os.getpid()}-{time.monotonic_ns()}"


def wait_exit(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait up to `timeout` seconds for the child itself to exit (and reap it); True when
    it did. On Linux the wait wakes the moment it exits (a pidfd); elsewhere it is
    `Popen.wait`, which polls with growing sleeps."""
    if proc.returncode is None and not _impl.exited_within(proc, timeout):
        return False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return True


def end_escaped(proc: subprocess.Popen[bytes], mark: str, grace: float) -> None:
    """After the child is gone, end what escaped its tree (Linux: the orphans whose
    environment holds `MARK=mark`) or is left in it (Windows: its job), waiting up to
    `grace` seconds. Never raises."""
    _impl.end_escaped(proc, f"{MARK}={mark}" if mark else "", grace)
