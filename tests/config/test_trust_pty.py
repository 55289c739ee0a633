"""A saved target mrtr has not reached here (config/trust.py): at a terminal the person is
shown the command and asked "Go ahead?" (default no); yes resumes the call, no refuses it
(exit 2). The question is asked through the `confirm` callable the run hands to config/
(`App.confirm`, the terminal responder), in a real pseudo-terminal."""

from __future__ import annotations

import pytest

from tests.conftest import EXAMPLE_SERVER, stdio_cmd
from tests.responders.test_forms_elicitation_pty import ENTER, Session

pytestmark = [pytest.mark.pty, pytest.mark.slow]


@pytest.mark.parametrize(("keys", "code"), [("y", 0), (ENTER, 2)])
def test_a_command_not_run_here_is_asked_about_at_the_terminal(mrtr, tmp_path, keys, code):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    first = mrtr("--stdio", stdio_cmd(EXAMPLE_SERVER), "--no-input",
                 "call", "update_work_item", "workItemId=4522", "state=Resolved", cwd=elsewhere)
    assert first.code == 5, first.stderr
    pending = tmp_path / "p.json"
    pending.write_text(first.stdout)
    s = Session(tmp_path, "resume", pending, "-a", "resolution=Fixed")  # run in the repository root
    s.expect("starts a server with a command mrtr has not run in")
    s.answer("Go ahead?", keys)
    assert s.finish() == code
    if code == 0:
        assert "4522" in s.stdout
    else:
        assert "not resumed: not approved" in s.screen
