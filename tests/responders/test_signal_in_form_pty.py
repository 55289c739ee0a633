"""A stop signal (SIGTERM, SIGHUP, SIGINT) that comes while a form is drawn ends the run as
Ctrl-C does, whatever the form is doing then (drawing a key just typed, a burst of keys
being read): exit 130, the pending document written, and never prompt_toolkit's "Unhandled
exception in event loop ... Press ENTER to continue..." waiting for a key (docs/platforms.md,
"Signals"). In a real pseudo-terminal (pexpect), against the elicitation test server; the
signal is sent right after keys, so that it lands while prompt_toolkit reads and redraws."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

from tests.conftest import Target
from tests.responders.test_forms_elicitation_pty import DOWN, ENTER
from tests.responders.test_secret_unentered_pty import Direct

pytestmark = pytest.mark.pty

#: Keys typed at once right before the signal: each is read, handled and redrawn in
#: prompt_toolkit's event loop, where the signal comes.
BURST = 40
SIGNALS = ["SIGTERM", "SIGHUP", "SIGINT"]


def _stopped(run: Direct) -> None:
    """`run` ended by its signal as by Ctrl-C: exit 130, its pending document written, no
    prompt_toolkit exception screen."""
    status = run.finish()
    screen = run.screen
    assert "Press ENTER" not in screen and "Unhandled exception" not in screen, screen
    assert status == 130, screen
    match = re.search(r"mrtr resume (\S+\.json)", screen)
    assert match and Path(match.group(1)).is_file(), screen


@pytest.mark.parametrize("name", SIGNALS)
def test_a_signal_while_a_text_field_redraws_ends_the_run(tmp_path, forms: Target, name):
    for round_ in range(3):  # the signal lands at a different moment of the keys' handling each time
        run = Direct(tmp_path, *forms.args, "call", "sign_in")
        run.expect("User *")
        run.child.send("a" * (BURST * (round_ + 1)))
        run.child.kill(getattr(signal, name))
        _stopped(run)


@pytest.mark.parametrize("name", SIGNALS)
def test_a_signal_while_a_choice_redraws_ends_the_run(tmp_path, forms: Target, name):
    for round_ in range(3):
        run = Direct(tmp_path, *forms.args, "call", "sign_in")
        run.answer("User *", "ada" + ENTER)
        run.answer("PIN *", "2468" + ENTER)
        run.expect("Remember")
        run.child.send(DOWN * (BURST * (round_ + 1) // 4))
        run.child.kill(getattr(signal, name))
        _stopped(run)
