"""The stdio transport (2026-07-28 `basic/transports/stdio`): a server that dies mid-call, its
stderr passed through or hidden, a command that does not exist."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from tests.conftest import SERVERS, stdio_cmd
from tests.support import wait_for


def test_server_dying_mid_call_exits_3_with_its_stderr(mrtr):
    r = mrtr("-q", "--stdio", stdio_cmd(SERVERS / "core_server.py"), "call", "crash")
    assert r.code == 3
    assert "exited with code 3" in r.stderr
    assert "simulated crash" in r.stderr


def test_server_stderr_is_passed_through_or_hidden(mrtr):
    r = mrtr("--stdio", stdio_cmd(SERVERS / "core_server.py"), "call", "crash")
    assert r.stderr.count("simulated crash") == 1
    r = mrtr("-q", "--stdio", stdio_cmd(SERVERS / "core_server.py"), "call", "crash")
    assert r.stderr.count("simulated crash") == 1  # only in the failure report


def test_command_not_found_exits_3(mrtr):
    r = mrtr("--stdio", "definitely-not-a-command-xyz", "call", "t")
    assert r.code == 3
    assert "command not found: definitely-not-a-command-xyz" in r.stderr


def test_a_process_that_escapes_the_servers_group_ends_with_mrtr(mrtr, tmp_path):
    # The server double-forks and calls setsid: a process outside its group. mrtr is its
    # subreaper (Linux) and ends it at shutdown.
    pidfile = tmp_path / "escaped.pid"
    server = stdio_cmd(SERVERS / "escaping_server.py", str(pidfile), direct=True)  # its process tree is the point
    try:
        r = mrtr("--protocol", "2025-11-25", "--stdio", server, "ping")
        assert r.code == 0, r.stderr
        pid = int(pidfile.read_text())
        wait_for(lambda: not _alive(pid), what=f"the escaped process {pid} to end")
    finally:
        if pidfile.exists() and _alive(int(pidfile.read_text())):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)


def _alive(pid: int) -> bool:
    """True while `pid` runs (a zombie is not running)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_the_older_protocol_hint_only_when_the_server_read_the_probe_before_failing(mrtr):
    died_at_start = mrtr("--stdio", f"{sys.executable} -c 'import sys; sys.exit(3)'", "tools")
    assert died_at_start.code == 3, died_at_start.stderr
    assert "exited with code 3" in died_at_start.stderr and "--protocol" not in died_at_start.stderr
    died_on_the_probe = mrtr("--stdio", f"{sys.executable} -c 'import sys; sys.stdin.readline(); sys.exit(3)'",
                             "tools")
    assert died_on_the_probe.code == 3, died_on_the_probe.stderr
    assert "if this server speaks an older protocol, try --protocol 2025-11-25" in died_on_the_probe.stderr
