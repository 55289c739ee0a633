"""Helpers shared by the tests: waiting on events (never on the clock), and watching a
background `mrtr`'s output as it comes.

Tests must not depend on the machine's speed: wait for what a process says or does, with a
generous deadline only as a safety net. Where a time bound *is* the behaviour (`--timeout`
ended the run), `growing_bound` sizes it so that the run reaches the event it bounds.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from tests.conftest import PY, ROOT, SAFETY, clean_env
from tests.probe_bound import check_probe_bound
from tests.terminals import spawn_pty

T = TypeVar("T")


def growing_bound(attempt: Callable[[float], T | None], first: float, *, what: str, limit: float = 160.0) -> T:
    """For a check whose time bound is the behaviour (`--timeout N` ends a call that would
    never end; the clock stops while a person answers): `attempt(bound)` runs it with
    `bound` seconds and returns None when the run did not reach the event the bound is
    about (mrtr's start-up and its first connection count against `--timeout`, and a loaded
    machine can spend the whole bound on them: that run shows nothing). Then it runs again
    with twice the bound, up to `limit` (a test whose attempts take longer than the bound,
    or that makes several such checks, sets a lower one, so that the attempts together
    stay well inside the test's own bound, pytest-timeout's 600 s). Returns what the first
    conclusive attempt returned; AssertionError naming `what` if none was.

    An attempt decides from an event (the server recorded the request, polled the task,
    started the command), or from an upper bound of the time that counted (all but a
    person's thinking), never from how long the run took; and asserts everything else
    itself, so that a broken bound fails every attempt."""
    bound = first
    while True:
        result = attempt(bound)
        if result is not None:
            return result
        if bound * 2 > limit:
            raise AssertionError(f"{what}: no run reached it, the last with a bound of {bound:g}s")
        bound *= 2


def timed_out_polling(mrtr: Callable[..., Any], target: Any) -> str:
    """`call slow seconds:=3600 --timeout N` against a task test server (`target`, a
    conftest.Target whose server records requests): the task works for an hour, so
    --timeout is the only way the call ends (exit 7). The bound grows (`growing_bound`)
    until a run got as far as polling its task. Returns that run's stderr."""
    def attempt(bound: float) -> str | None:
        target.reset()
        r = mrtr(*target.args, "call", "slow", "seconds:=3600", "--timeout", f"{bound:g}")
        assert r.code == 7, r.stderr
        return r.stderr if any(m.get("method") == "tasks/get" for m in target.requests()) else None

    return growing_bound(attempt, 5, what="a run that polled its task")


def wait_for(predicate: Callable[[], object], timeout: float = SAFETY, what: str = "condition") -> None:
    """Return once `predicate()` is true; AssertionError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not met within {timeout:g}s")
        time.sleep(0.05)


def children_of(pid: int) -> list[int]:
    """The process ids whose parent is `pid` (Linux: /proc/PID/task/*/children)."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            out += [int(p) for p in (task / "children").read_text().split()]
    return out


def command_line(pid: int) -> str:
    """The command line of process `pid` ("" once it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


class LineWatch:
    """Collects the lines a process writes to a pipe (its stderr, say) in a background thread,
    so a test can wait for a line and still read everything at the end.

    Args:
        stream: the text pipe (`proc.stderr` of a `Popen(..., text=True)`).
    """

    def __init__(self, stream) -> None:
        self.lines: list[str] = []
        self._cv = threading.Condition()
        self._done = False
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream) -> None:
        for line in stream:
            with self._cv:
                self.lines.append(line)
                self._cv.notify_all()
        with self._cv:
            self._done = True
            self._cv.notify_all()

    def wait_until(self, predicate: Callable[[list[str]], bool], timeout: float = SAFETY) -> None:
        """Return once `predicate(lines so far)` is true; AssertionError if the stream ends
        first or after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while not predicate(self.lines):
                left = deadline - time.monotonic()
                if self._done or left <= 0:
                    raise AssertionError("the awaited output did not come; got:\n" + "".join(self.lines))
                self._cv.wait(left)

    def text(self, timeout: float = SAFETY) -> str:
        """Everything written, once the stream has ended."""
        self._thread.join(timeout)
        with self._cv:
            return "".join(self.lines)


def communicate(proc: subprocess.Popen[str], watch: LineWatch, timeout: float = SAFETY) -> tuple[str, str]:
    """Wait for `proc` to end: (its stdout, its stderr as `watch` collected it)."""
    out = proc.stdout.read() if proc.stdout else ""
    proc.wait(timeout)
    return out, watch.text()


def end_script(proc: subprocess.Popen[str], last: str, watch: LineWatch, timeout: float = SAFETY) -> tuple[str, str]:
    """The end of a script fed to `proc` (`mrtr shell` reading its stdin as it comes): `last`
    (its last lines) written, stdin closed, and `communicate`: (its stdout, its stderr as
    `watch` collected it)."""
    proc.stdin.write(last)
    proc.stdin.close()
    return communicate(proc, watch, timeout)


# ---------------------------------------------------------------------- processes
def running(pid: int) -> bool:
    """True when `pid` is alive (a zombie waiting to be reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as fh:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in fh)
    except FileNotFoundError:
        return False
    except OSError:  # pragma: no cover - no /proc
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def start_mrtr(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    """`mrtr ARGS` as a background process with the default Ctrl-C behaviour."""
    check_probe_bound(args)
    return subprocess.Popen(
        [PY, "-m", "mrtr_cli", *map(str, args)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=clean_env(tmp_path), cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )

def read_line(proc: subprocess.Popen[str], timeout: float = SAFETY) -> str:
    """The next stdout line of `proc`, waiting at most `timeout` seconds (a safety net: a
    process that hangs fails the test instead of hanging it)."""
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()
    try:
        return lines.get(timeout=timeout)
    except queue.Empty:
        proc.kill()
        raise AssertionError(f"no output line within {timeout}s") from None


# ---------------------------------------------------------------------- a real pseudo-terminal (pexpect)
DOWN = "\x1b[B"
ENTER = "\r"


def spawn(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> tuple[Any, Path]:
    """`mrtr ARGS` in a 140-column pseudo-terminal, its stdout redirected to a file: (the pexpect
    child, that file). `env`: variables added to `clean_env`'s."""
    out = tmp_path / "stdout.txt"
    # exec: mrtr itself is the terminal's process (Ctrl-C reaches it, its exit status is the child's).
    command = "exec " + " ".join(shlex.quote(a) for a in [PY, "-m", "mrtr_cli", *args]) + f" > {shlex.quote(str(out))}"
    child = spawn_pty("/bin/sh", ["-c", command], cwd=str(ROOT), env=clean_env(tmp_path, env),
                      encoding="utf-8", timeout=SAFETY, dimensions=(40, 140))
    return child, out
