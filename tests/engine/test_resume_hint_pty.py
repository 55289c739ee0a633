"""Ctrl-C at a form of a named server's call saves the call; the `mrtr resume FILE` its
message names is one that works from where it is read: with the `--config FILE` that
found the server (the document names the server, not the file)."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import PY, SERVERS
from tests.support import spawn

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.pty

SHELL_SERVER = SERVERS / "shell_server.py"


def test_the_resume_named_after_ctrl_c_at_a_named_servers_form_finds_its_config(tmp_path):
    config = tmp_path / "elsewhere.json"
    config.write_text(json.dumps({"mcpServers": {"locked": {"command": PY, "args": [str(SHELL_SERVER)]}}}))
    child, _ = spawn(tmp_path, "--config", str(config), "-s", "locked", "call", "unlock")
    child.expect("The password, please")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    text = re.sub(r"\s*\n\s*", " ", child.before)
    resume = re.search(r"(mrtr (?:\S+ )*?resume \S+)", text)
    assert resume is not None, text
    words = resume.group(1).split()[1:]
    child, out = spawn(tmp_path, *words, "-a", "password=open-sesame")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert out.read_text() == "unlocked\n"
