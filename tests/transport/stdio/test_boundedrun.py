"""Running a command whose output mrtr reads (mrtr_cli/transport/stdio/boundedrun.py; the
assertion, ID-token and sampling commands use it, end to end in auth/test_identity.py
and responders/test_sampling_roots.py): stdout read only up to its limit, stderr kept to its last
part, a time bound that holds even when a process that left the group keeps the pipe
open, and the command's whole process group ended however the run ends (Ctrl-C too).

The command is tests/servers/flood_command.py, run directly: it writes its pid and its
child's first (the event the tests wait on), so each test can check that both are gone.
Linux: the checks read /proc."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from pathlib import Path

import pytest

from mrtr_cli.transport.stdio.boundedrun import CommandTimedOut, OutputTooLarge, run_bounded
from tests.conftest import SERVERS
from tests.servers.flood_command import FLOOD as FLOOD_TEXT
from tests.support import SAFETY, growing_bound, running, wait_for

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

FLOOD = [sys.executable, str(SERVERS / "flood_command.py")]
ENDLESS = str(1 << 50)  # bytes: no end a test would see
KiB = 1024


def group_ended(pids: Path) -> None:
    for pid in map(int, pids.read_text().split()):
        wait_for(lambda pid=pid: not running(pid), what=f"process {pid} of the command's group to end")


def bounded(*args: object, **kw: object) -> object:
    """`run_bounded(...)` on a thread, joined within SAFETY: a hang fails the test instead
    of holding it. Returns the result, or the exception it raised."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(run_bounded(*args, **kw))  # type: ignore[arg-type]
        except Exception as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(SAFETY)
    assert outcome, "run_bounded did not return (a hang)"
    return outcome[0]


def test_stdout_past_its_limit_stops_the_reading_and_ends_the_group(tmp_path):
    pids = tmp_path / "pids"
    got = bounded([*FLOOD, str(pids), "stdout", ENDLESS], stdout_limit=64 * KiB, stderr_limit=KiB, timeout=SAFETY)
    assert isinstance(got, OutputTooLarge) and got.limit == 64 * KiB, got
    group_ended(pids)


def test_stderr_is_kept_to_its_last_part_and_the_group_ended_after_a_clean_exit(tmp_path):
    pids = tmp_path / "pids"
    got = bounded([*FLOOD, str(pids), "stderr", str(4 << 20), json.dumps("answer")], stdout_limit=KiB,
                  stderr_limit=64 * KiB, timeout=SAFETY)
    assert not isinstance(got, Exception), got
    assert got.returncode == 0 and got.stdout == b'"answer"\n'  # type: ignore[attr-defined]
    assert len(got.stderr) == 64 * KiB and got.stderr_dropped == (4 << 20) - 64 * KiB  # type: ignore[attr-defined]
    written = (FLOOD_TEXT * ((4 << 20) // len(FLOOD_TEXT) + 1))[:4 << 20]
    assert got.stderr == written[-64 * KiB:]  # type: ignore[attr-defined] # its last part, exactly
    group_ended(pids)  # the child it left behind went with its group


@pytest.mark.parametrize("stream", ["none", "stderr"])
def test_a_command_that_never_ends_is_ended_at_the_time_bound(tmp_path, stream):
    # The bound counts from the start of the command: one that ran out before the command
    # had written its pids (a loaded machine's interpreter start-up) shows nothing of its
    # group, and the bound grows.
    def attempt(bound: float) -> Path | None:
        pids = tmp_path / f"pids-{bound:g}"
        got = bounded([*FLOOD, str(pids), stream, ENDLESS if stream == "stderr" else "0"], stdout_limit=KiB,
                      stderr_limit=KiB, timeout=bound)
        assert isinstance(got, CommandTimedOut) and got.timeout == bound, got
        return pids if pids.exists() and len(pids.read_text().split()) == 2 else None

    group_ended(growing_bound(attempt, 1.0, what="a run whose command wrote its pids", limit=40))


def test_a_pipe_held_open_outside_the_group_does_not_outlast_the_time_bound(tmp_path):
    """`sh` exits at once, but a process that left its group (setsid) holds stdout: the
    wait for the end of the output ends at the time bound all the same."""
    pidfile = tmp_path / "escaped.pid"
    try:
        got = bounded(["sh", "-c", f"setsid sleep 600 & echo $! > {pidfile}; echo done"], stdout_limit=KiB,
                      stderr_limit=KiB, timeout=1.0)
        assert isinstance(got, CommandTimedOut), got
    finally:
        wait_for(lambda: pidfile.exists() and pidfile.read_text().strip(), what="the escaped pid")
        os.kill(int(pidfile.read_text()), 9)


def test_input_the_command_never_reads_blocks_nothing(tmp_path):
    pids = tmp_path / "pids"
    got = bounded([*FLOOD, str(pids), "none", "0", json.dumps("ok")], stdin=b"x" * (8 << 20), stdout_limit=KiB,
                  stderr_limit=KiB, timeout=SAFETY)
    assert not isinstance(got, Exception), got
    assert got.stdout == b'"ok"\n'  # type: ignore[attr-defined]
    group_ended(pids)


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread()
                    or signal.getsignal(signal.SIGINT) is not signal.default_int_handler,
                    reason="needs SIGINT to raise KeyboardInterrupt in this thread")
def test_ctrl_c_while_it_runs_ends_the_group(tmp_path):
    pids = tmp_path / "pids"

    def interrupt() -> None:  # Ctrl-C once the command has started (it wrote its pids)
        wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2, what="the command to start")
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        run_bounded([*FLOOD, str(pids), "none", "0"], stdout_limit=KiB, stderr_limit=KiB, timeout=SAFETY)
    group_ended(pids)


def test_a_missing_command_is_the_os_error():
    with pytest.raises(FileNotFoundError):
        run_bounded(["no-such-command-b1f0c7e2"], stdout_limit=KiB, stderr_limit=KiB, timeout=SAFETY)
