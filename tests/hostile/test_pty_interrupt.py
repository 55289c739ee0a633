"""Ctrl-C at a prompt saves the pending call: also when what the server sent
holds lone surrogates (its requestState, an input key, its message). In a real
pseudo-terminal (pexpect)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from tests.conftest import PY, ROOT, clean_env
from tests.support import SAFETY
from tests.terminals import spawn_pty

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.pty


def test_ctrl_c_saves_a_pending_document_holding_lone_surrogates(tmp_path: Path) -> None:
    server = shlex.join([PY, "-m", "tests.hostile.server", "surrogate_echo", "modern"])
    out = tmp_path / "stdout.txt"
    command = "exec " + shlex.join([PY, "-m", "mrtr_cli", "--stdio", server, "--protocol", "2026-07-28",
                                    "call", "t"]) + f" > {shlex.quote(str(out))}"
    child = spawn_pty("/bin/sh", ["-c", command], cwd=str(ROOT), env=clean_env(tmp_path),
                      encoding="utf-8", codec_errors="replace", timeout=SAFETY, dimensions=(40, 140))
    child.expect("say")
    child.expect("f")  # the field's prompt
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    shown = child.before or ""
    assert child.exitstatus == 130, shown
    assert "Traceback" not in shown
    saved = list((tmp_path / "state" / "mrtr" / "pending").glob("*.json"))
    assert len(saved) == 1, shown
    doc = json.loads(saved[0].read_text(encoding="utf-8"))
    assert doc["requestState"] == "st\ud800ate"
    assert "k\udc00" in json.dumps(doc, ensure_ascii=False)
