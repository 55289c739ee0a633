"""A server that takes a connection and never answers must not hold mrtr: `--timeout`
ends the run with exit 7, one SIGTERM/SIGINT with 130, and a notification POST the
server never acknowledges costs a bound, not a hang (transport/http.py `send`).

The servers here never answer, so an unbounded wait in mrtr blocks until the test's
safety bound (subprocess timeout) fails it."""

from __future__ import annotations

import signal
import subprocess

import pytest

from tests.conftest import PY, ROOT, SERVERS, clean_env, free_port, wait_for_port

HANG = SERVERS / "hang_http_server.py"
SAFETY = 60  # seconds: far above every bound under test; reaching it means a hang


@pytest.fixture
def hang_server():
    procs = []

    def start(mode: str = "all") -> tuple[str, subprocess.Popen[str]]:
        port = free_port()
        proc = subprocess.Popen([PY, str(HANG), "--http", str(port), "--hang", mode],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        procs.append(proc)
        wait_for_port(port, proc)  # type: ignore[arg-type]
        return f"http://127.0.0.1:{port}/mcp", proc

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


def run(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "mrtr_cli", *args], input="", capture_output=True, text=True,
                          env=clean_env(tmp_path), cwd=ROOT, timeout=SAFETY)


@pytest.mark.parametrize(("args", "says"), [
    (["call", "x", "--timeout", "2"], "the server did not answer server/discover (the era probe) within --timeout (2s)"),
    (["call", "x", "--timeout", "3", "--probe-timeout", "1"],  # the probe falls back; initialize waits
     "timed out after 3s waiting for initialize"),
    (["--protocol", "2025-11-25", "ping", "--timeout", "2"], "timed out after 2s waiting for initialize"),
    (["--protocol", "2025-11-25", "tools", "--timeout", "2"], "timed out after 2s waiting for initialize"),
], ids=["auto-call", "auto-initialize", "legacy-ping", "legacy-tools"])
def test_timeout_ends_a_run_against_a_server_that_never_answers(hang_server, tmp_path, args, says):
    url, _ = hang_server("all")
    proc = run(tmp_path, "--url", url, *args)
    assert proc.returncode == 7, proc.stderr
    assert proc.stderr == f"mrtr: error: {says}\n"


def test_an_unacknowledged_notification_is_bounded_by_timeout(hang_server, tmp_path):
    url, _ = hang_server("notifications")  # answers initialize, never acks notifications/initialized
    proc = run(tmp_path, "--url", url, "--protocol", "2025-11-25", "tools", "--timeout", "2")
    assert proc.returncode == 7, proc.stderr  # --timeout ended the wait for the acknowledgement
    assert proc.stderr == ("mrtr: error: timed out after 2s waiting for the server to acknowledge "
                           "notifications/initialized\n"), proc.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_one_signal_stops_a_run_waiting_for_initialize(hang_server, tmp_path, sig):
    url, server = hang_server("all")
    proc = subprocess.Popen([PY, "-m", "mrtr_cli", "--url", url, "--protocol", "2025-11-25", "tools"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=clean_env(tmp_path), cwd=ROOT)
    try:
        assert server.stdout.readline().strip() == "initialize"  # the request is in flight
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=SAFETY)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_a_probe_cut_short_by_timeout_names_server_discover_not_initialize(hang_server, tmp_path, kind):
    # --timeout (1 s) is shorter than the probe timeout (2 s): the silence is no evidence of
    # the legacy era, so mrtr must not fall back to initialize (which this stdio server
    # would answer at once) but say server/discover did not answer within --timeout.
    if kind == "stdio":
        target = ["--stdio", f"{PY} {SERVERS / 'legacy_server.py'} --silent-discover"]
    else:
        target = ["--url", hang_server("all")[0]]
    proc = run(tmp_path, *target, "tools", "--timeout", "1")
    assert proc.returncode == 7, proc.stderr
    assert "did not answer server/discover (the era probe) within --timeout (1s)" in proc.stderr
    assert "initialize" not in proc.stderr
