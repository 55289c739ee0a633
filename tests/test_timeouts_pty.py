"""At a real pseudo-terminal (pexpect): `--timeout` counts the server's time, not the
time a person takes to answer (tester's finding 4), in both eras."""

from __future__ import annotations

import time

import pytest

from tests.conftest import SERVERS, stdio_cmd
from tests.support import ENTER, spawn

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.pty

DUAL = SERVERS / "dual_server.py"
BOOKED = "Booked a table for 4 (indoor) on Friday."


@pytest.mark.parametrize("protocol", ["2026-07-28", "2025-11-25"])
def test_timeout_pauses_while_a_person_answers(tmp_path, protocol):
    child, out = spawn(tmp_path, "--stdio", stdio_cmd(DUAL), "--protocol", protocol, "--timeout", "8",
                       "call", "book_table", "date=Friday")
    child.expect("Party size")
    # A person thinking for longer than --timeout (8 s: start-up and the calls must fit in
    # it on a loaded machine; the deadline must not run while the form waits).
    time.sleep(9)
    child.send("4" + ENTER)
    child.expect("Seating")
    child.send(ENTER)
    child.expect("Send these answers\\?")
    child.send(ENTER)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert out.read_text().startswith(BOOKED)


def test_timeout_still_bounds_the_server(tmp_path):
    child, out = spawn(tmp_path, "--stdio", stdio_cmd(SERVERS / "slow_server.py"), "--timeout", "1",
                       "call", "hang")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 7
