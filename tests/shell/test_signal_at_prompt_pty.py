"""A stop signal (SIGTERM, SIGHUP) that comes while the shell's line editor handles keys
(each key typed starts its history suggestion as a task of prompt_toolkit's event loop)
ends the shell as it does at an idle prompt: "ended by SIGNAL", exit 130, and never
prompt_toolkit's "Unhandled exception in event loop ... Press ENTER to continue...". The
signal is sent right after a burst of keys, at a different moment of their handling in each
run (responders/stopping.py). In a real pseudo-terminal, against the shell test server."""

from __future__ import annotations

import signal

import pexpect
import pytest

from tests.conftest import HttpServers
from tests.shell.test_pty import started
from tests.support import SAFETY

pytestmark = pytest.mark.pty


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_stop_signal_while_keys_are_handled_ends_the_shell(tmp_path, http_servers: HttpServers, signame):
    for burst in (10, 40, 120):
        s, _ = started("stdio", tmp_path, http_servers)
        s.run("call echo text=one")  # a history line: each key typed after it looks for a suggestion
        s.type("call echo text=" + "o" * burst)
        s.child.kill(getattr(signal, signame))
        s.child.expect(pexpect.EOF, timeout=SAFETY)
        s.child.close()
        shown = s.log.getvalue() + (s.child.before or "")
        assert "Press ENTER" not in shown and "Unhandled exception" not in shown, shown
        assert s.child.exitstatus == 130, shown
        assert f"mrtr: shell: ended by {signame}" in shown, shown
