"""A pending document holding what a server sent with lone surrogates (its requestState,
an input key) is printed as JSON, and `mrtr resume` sends them back exactly."""

from __future__ import annotations

import json
import shlex

from tests.conftest import PY

SERVER = shlex.join([PY, "-m", "tests.hostile.server", "surrogate_echo", "modern"])


def test_a_pending_document_with_lone_surrogates_resumes(mrtr, tmp_path):
    first = mrtr("--stdio", SERVER, "--protocol", "2026-07-28", "--no-input", "call", "t")
    assert first.code == 5, first.stderr
    doc = json.loads(first.stdout)
    assert doc["requestState"] == "st\ud800ate"
    pending = tmp_path / "pending.json"
    pending.write_text(first.stdout, encoding="utf-8")
    done = mrtr("resume", str(pending), "-a", "f=v", "--stdio", SERVER)
    assert done.code == 0, done.stderr
    assert done.stdout.strip() == "echo ok"
    assert "Traceback" not in first.stderr + done.stderr
