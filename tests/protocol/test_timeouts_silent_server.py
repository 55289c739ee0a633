"""A server that takes a connection and never answers must not hold mrtr: `--timeout`
ends the run with exit 7, one SIGTERM/SIGINT with 130, and a notification POST the
server never acknowledges costs a bound, not a hang (transport/http/transport.py `send`).

The servers here never answer, so an unbounded wait in mrtr blocks until the test's
safety bound (subprocess timeout) fails it."""

from __future__ import annotations

import signal
import subprocess

import pytest

from mrtr_cli.limits import describe_seconds
from tests.conftest import PY, ROOT, SERVERS, clean_env
from tests.listening import reported_port
from tests.prefork import stop_group
from tests.support import SAFETY, LineWatch, growing_bound

HANG = SERVERS / "hang_http_server.py"


@pytest.fixture
def hang_server():
    """`start(mode)` starts hang_http_server.py: (its URL, a LineWatch of the methods it
    received, one a line as each arrives)."""
    procs = []

    def start(mode: str = "all") -> tuple[str, LineWatch]:
        proc = subprocess.Popen([PY, str(HANG), "--http", "0", "--hang", mode], start_new_session=True,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        procs.append(proc)
        watch = LineWatch(proc.stdout)
        watch.wait_until(lambda lines: reported_port(lines) is not None)
        return f"http://127.0.0.1:{reported_port(watch.lines)}/mcp", watch

    yield start
    for proc in procs:
        stop_group(proc, grace=5)


def received(watch: LineWatch) -> list[str]:
    """The methods the server has received so far (its first line said where it listens)."""
    return [line.strip() for line in list(watch.lines)[1:]]


def run(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "mrtr_cli", *args], input="", capture_output=True, text=True,
                          env=clean_env(tmp_path), cwd=ROOT, timeout=SAFETY)


@pytest.mark.parametrize(("args", "says"), [
    (["call", "x"], "the server did not answer server/discover (the era probe) within --timeout ({bound})"),
    (["--protocol", "2025-11-25", "ping"], "timed out after {bound} waiting for initialize"),
    (["--protocol", "2025-11-25", "tools"], "timed out after {bound} waiting for initialize"),
], ids=["auto-call", "legacy-ping", "legacy-tools"])
def test_timeout_ends_a_run_against_a_server_that_never_answers(hang_server, tmp_path, args, says):
    # The first request never gets an answer, whenever --timeout strikes: no time to size.
    # The probe's own bound (--probe-timeout) is far longer, so --timeout is what ends it.
    url, _ = hang_server("all")
    proc = run(tmp_path, "--url", url, *args, "--timeout", "2", "--probe-timeout", f"{SAFETY:g}")
    assert proc.returncode == 7, proc.stderr
    assert proc.stderr == f"mrtr: error: {says.format(bound=describe_seconds(2))}\n"


def test_timeout_after_the_probe_fell_back_names_initialize(hang_server, tmp_path):
    # The probe (1 s) falls back to initialize, which then waits for the rest of --timeout.
    # A loaded machine can spend --timeout before initialize is sent (the message then
    # names the probe): the bound grows until the server received initialize.
    url, methods = hang_server("all")

    def attempt(bound: float) -> bool | None:
        methods.lines.clear()
        proc = run(tmp_path, "--url", url, "call", "x", "--timeout", f"{bound:g}", "--probe-timeout", "1")
        assert proc.returncode == 7, proc.stderr
        if "initialize" not in received(methods):
            return None
        said = describe_seconds(bound)
        assert proc.stderr == f"mrtr: error: timed out after {said} waiting for initialize\n", proc.stderr
        return True

    growing_bound(attempt, 3, what="a run that sent initialize")


def test_an_unacknowledged_notification_is_bounded_by_timeout(hang_server, tmp_path):
    url, methods = hang_server("notifications")  # answers initialize, never acks notifications/initialized

    # --timeout ends the wait for the acknowledgement; the bound grows until a run got as
    # far as sending the notification (start-up and initialize count against it).
    def attempt(bound: float) -> bool | None:
        methods.lines.clear()
        proc = run(tmp_path, "--url", url, "--protocol", "2025-11-25", "tools", "--timeout", f"{bound:g}")
        assert proc.returncode == 7, proc.stderr
        if "notifications/initialized" not in received(methods):
            return None
        assert proc.stderr == (f"mrtr: error: timed out after {describe_seconds(bound)} waiting for the server to "
                               "acknowledge notifications/initialized\n"), proc.stderr
        return True

    growing_bound(attempt, 2, what="a run that sent notifications/initialized")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_one_signal_stops_a_run_waiting_for_initialize(hang_server, tmp_path, sig):
    url, server = hang_server("all")
    proc = subprocess.Popen([PY, "-m", "mrtr_cli", "--url", url, "--protocol", "2025-11-25", "tools"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=clean_env(tmp_path), cwd=ROOT)
    try:
        server.wait_until(lambda lines: "initialize\n" in lines)  # the request is in flight
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=SAFETY)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_a_probe_cut_short_by_timeout_names_server_discover_not_initialize(hang_server, tmp_path, kind):
    # --timeout (1 s) is shorter than the probe timeout (SAFETY): the silence is no evidence of
    # the legacy era, so mrtr must not fall back to initialize (which this stdio server
    # would answer at once) but say server/discover did not answer within --timeout.
    if kind == "stdio":
        target = ["--stdio", f"{PY} {SERVERS / 'legacy_server.py'} --silent-discover"]
    else:
        target = ["--url", hang_server("all")[0]]
    proc = run(tmp_path, *target, "tools", "--timeout", "1", "--probe-timeout", f"{SAFETY:g}")
    assert proc.returncode == 7, proc.stderr
    assert "did not answer server/discover (the era probe) within --timeout (1 s)" in proc.stderr
    assert "initialize" not in proc.stderr
