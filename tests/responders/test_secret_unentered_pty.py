"""A secret typed into a form field but not Entered when Ctrl-C or SIGTERM comes is never
saved, and stderr says so, as for a secret that was Entered: once, naming the field
(docs/answers.md, "Secrets"). `sign_in`'s PIN is a secret by its schema (`writeOnly`);
a field secret by its name alone is the same to the form (`FormField.secret`). In a real
pseudo-terminal (pexpect), against the elicitation test server."""

from __future__ import annotations

import io
import signal
from pathlib import Path

import pytest

from tests.conftest import PY, ROOT, Target, clean_env
from tests.responders.test_forms_elicitation_pty import ENTER, Session, _shows_pin, _signed_in
from tests.support import SAFETY
from tests.terminals import spawn_pty

pytestmark = pytest.mark.pty

NOTE = "login.pin is a secret: not written to the pending document; give it again on resume"


class Direct(Session):
    """`Session`'s run of `mrtr` as the pseudo-terminal's own process (no `sh -c` between:
    a signal sent to the child reaches `mrtr`); its stdout is the terminal too."""

    def __init__(self, tmp_path: Path, *args: str):
        self.log = io.StringIO()
        self.child = spawn_pty(PY, ["-m", "mrtr_cli", *map(str, args)], cwd=str(ROOT), encoding="utf-8",
                               timeout=SAFETY, env=clean_env(tmp_path, {"TERM": "xterm-256color"}),
                               dimensions=(50, 160))
        self.child.logfile_read = self.log


@pytest.mark.parametrize("stop", ["ctrl-c", "sigterm"])
def test_a_secret_typed_but_not_entered_is_named_as_not_written(tmp_path, forms: Target, stop):
    first = Direct(tmp_path, *forms.args, "call", "sign_in")
    first.answer("User *", "ada" + ENTER)
    first.answer("PIN *", "2468")
    first.expect("****")  # typed masked, not Entered
    if stop == "ctrl-c":
        first.child.send("\x03")
    else:
        first.child.kill(signal.SIGTERM)
    _, content = _signed_in(first)
    assert content.get("pin") is None and content["user"] == "ada", content
    assert first.screen.count(NOTE) == 1, first.screen
    assert not _shows_pin(first.screen), first.screen
