"""Every pseudo-terminal child a test starts (tests/terminals.py `spawn_pty`) is ended with
its test, also when the test fails by a timeout: a `mrtr call` left waiting at a form would
hold a worker's processes for the rest of the run. Checked in a pytest run of its own, with
the plugin tests/terminals.py as this suite's conftest loads it: a test that times out at a
form, then one that looks for its `mrtr`."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT, SAFETY, clean_env

pytest.importorskip("pexpect")

pytestmark = pytest.mark.pty

INNER = '''
from tests.conftest import SERVERS, stdio_cmd
from tests.support import running, spawn

PID = {pid!r}


def test_times_out_at_a_form(tmp_path):
    child, _ = spawn(tmp_path, "--stdio", stdio_cmd(SERVERS / "picky_server.py"), "call", "pick")
    with open(PID, "w") as fh:
        fh.write(str(child.pid))
    child.expect("never shown", timeout=1)


def test_its_mrtr_is_gone():
    assert not running(int(open(PID).read()))
'''


def test_a_child_of_a_test_that_timed_out_is_ended_with_the_test(tmp_path):
    pid = tmp_path / "pid.txt"
    inner = tmp_path / "test_inner.py"
    inner.write_text(INNER.format(pid=str(pid)), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.terminals", "-p", "no:cacheprovider",
                          "-n", "0", "-q", "-o", "addopts=", str(inner)],
                         cwd=str(ROOT), env={**clean_env(tmp_path), "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=SAFETY * 2)
    assert "1 failed, 1 passed" in run.stdout, run.stdout + run.stderr
    assert "TIMEOUT" in run.stdout
