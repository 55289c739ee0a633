"""At a real pseudo-terminal (pexpect): `--timeout` and the slow-server notice count the
server's time, not the time a person takes to answer, in both eras."""

from __future__ import annotations

import time

import pytest

from tests.conftest import SERVERS, stdio_cmd
from tests.support import ENTER, growing_bound, spawn

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.pty

DUAL = SERVERS / "dual_server.py"
BOOKED = "Booked a table for 4 (indoor) on Friday."


@pytest.mark.parametrize("protocol", ["2026-07-28", "2025-11-25"])
def test_timeout_pauses_while_a_person_answers(tmp_path, protocol):
    # A person thinks for longer than --timeout; the deadline must not run while the form
    # waits. The server's time (mrtr's start-up, the calls) must fit in --timeout for the
    # run to say anything: the test knows an upper bound of it (everything but the
    # thinking), and a run that ended in exit 7 with that bound at or over --timeout is
    # a loaded machine, not a finding: the bound grows. Exit 7 with the server's time
    # well inside --timeout is the clock running during the form.
    def attempt(bound: float) -> bool | None:
        started = time.monotonic()
        child, out = spawn(tmp_path, "--stdio", stdio_cmd(DUAL), "--protocol", protocol, "--timeout", f"{bound:g}",
                           "call", "book_table", "date=Friday")
        child.expect("Party size")
        before = time.monotonic() - started
        time.sleep(bound + 1)  # the person thinking
        resumed = time.monotonic()
        child.send("4" + ENTER)
        if child.expect(["Seating", pexpect.EOF]) == 0:
            child.send(ENTER)
            if child.expect(["Send these answers\\?", pexpect.EOF]) == 0:
                child.send(ENTER)
                child.expect(pexpect.EOF)
        server_time = before + time.monotonic() - resumed
        child.close()
        if child.exitstatus == 7 and server_time >= bound:
            return None
        assert child.exitstatus == 0, (child.before, server_time)
        assert out.read_text().startswith(BOOKED)
        return True

    growing_bound(attempt, 4, what="a run whose server time fit in --timeout", limit=64)


NOTICE = 2.0  # MRTR_WAIT_NOTICE_SECONDS in the test below


@pytest.mark.parametrize(("protocol", "transport"), [("2026-07-28", "stdio"), ("2025-11-25", "stdio"),
                                                     ("2026-07-28", "http"), ("2025-11-25", "http")])
def test_no_slow_server_notice_for_the_time_a_person_answers(tmp_path, protocol, transport, http_servers):
    # The person takes longer than the notice's silence; the notice may come only once the
    # server has been silent that long after the answer was sent (seen on this side at
    # least NOTICE seconds after the key that sent it), never while the form is on screen.
    target = (["--stdio", stdio_cmd(DUAL)] if transport == "stdio" else ["--url", http_servers.start(DUAL)])
    child, out = spawn(tmp_path, *target, "--protocol", protocol, "call", "book_table", "date=Friday",
                       env={"MRTR_WAIT_NOTICE_SECONDS": f"{NOTICE:g}"})
    child.expect("Party size")
    child.send("4" + ENTER)
    child.expect("Seating")
    child.send(ENTER)
    child.expect("Send these answers\\?")
    child.expect("Cancel")
    time.sleep(NOTICE + 1)  # the person thinking, the form on screen
    with pytest.raises(pexpect.TIMEOUT):
        child.expect("still waiting", timeout=0.1)
    sent = time.monotonic()
    child.send(ENTER)
    if child.expect(["has not answered", pexpect.EOF]) == 0:
        assert time.monotonic() - sent >= NOTICE, "the notice counted the time the form was on screen"
        child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert out.read_text().startswith(BOOKED)


def test_timeout_still_bounds_the_server(tmp_path):
    child, out = spawn(tmp_path, "--stdio", stdio_cmd(SERVERS / "slow_server.py"), "--timeout", "1",
                       "call", "hang")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 7
