"""The terminal closes under `mrtr shell` (a terminal window closed, an ssh connection
dropped): the shell gets SIGHUP and the end of its input at once, and the signal wins over
the end of input, whichever the line editor or a form saw first (responders/stopping.py):
the shell ends as interrupted by SIGHUP, exit 130, a call at a form saved as a pending
document, never as Ctrl-D (exit 0) or a form left empty. The terminal is closed for real:
the test closes the controller side of the pseudo-terminal, and the kernel does the rest."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from tests.shell.test_pty import started
from tests.support import SAFETY

pytestmark = pytest.mark.pty


def hang_up(child: Any) -> int | None:
    """Close the controller side of pexpect `child`'s pseudo-terminal (its session gets
    SIGHUP, its reads the end of input) and wait for `child` to end; its exit code."""
    child.ptyproc.fileobj.close()
    ended = threading.Thread(target=child.ptyproc.wait, daemon=True)
    ended.start()
    ended.join(SAFETY)
    assert not ended.is_alive(), "mrtr did not end when its terminal closed"
    child.close()
    return child.exitstatus


def saved(tmp_path) -> list[dict]:
    """The pending documents saved in the state directory."""
    folder = tmp_path / "state" / "mrtr" / "pending"
    return [json.loads(p.read_text(encoding="utf-8")) for p in folder.iterdir()] if folder.exists() else []


def test_the_terminal_closing_at_the_shell_prompt_ends_it_as_sighup(tmp_path, http_servers):
    s, _ = started("stdio", tmp_path, http_servers)
    s.run("call echo text=one")
    assert hang_up(s.child) == 130  # end of input alone would be Ctrl-D's exit 0


def test_the_terminal_closing_at_a_form_in_the_shell_saves_the_call_and_ends_it_as_sighup(tmp_path, http_servers):
    s, _ = started("stdio", tmp_path, http_servers)
    s.submit("call unlock")
    s.expect("The password, please")
    s.type("hun")
    s.expect_line("password * hun")  # the field is drawn and has taken keys: the form is running
    assert hang_up(s.child) == 130  # end of input alone would end the form and let the shell go on
    (doc,) = saved(tmp_path)
    assert doc["params"]["name"] == "unlock"
