"""What a server sends while the shell waits between commands (tests/servers/idle_asker_server.py
over stdio): its requests are refused at once (never kept for the next command), said
once however many come; a list that changes again and again is said to change once.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import PY, ROOT, SERVERS, clean_env, stdio_cmd
from tests.support import SAFETY, LineWatch, end_script

IDLE_ASKER = SERVERS / "idle_asker_server.py"
NOTICE = "mrtr: refused the server's request"


def replies(record: Path) -> dict[str, dict]:
    """The responses the server recorded, by the id of its request."""
    lines = record.read_text(encoding="utf-8").splitlines() if record.exists() else []
    return {msg["id"]: msg for msg in map(json.loads, lines)}


def wait_for_replies(record: Path, ids: set[str]) -> dict[str, dict]:
    """The server's recorded responses once those to `ids` are all there (SAFETY seconds at most)."""
    deadline = time.monotonic() + SAFETY
    while not ids <= set(got := replies(record)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return got


def start_shell(tmp_path: Path, *server_args: str) -> tuple[subprocess.Popen[str], LineWatch, Path]:
    record = tmp_path / "replies.jsonl"
    proc = subprocess.Popen([PY, "-m", "mrtr_cli", "--stdio", stdio_cmd(IDLE_ASKER, str(record), *server_args),
                             "shell"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=clean_env(tmp_path), cwd=ROOT)
    return proc, LineWatch(proc.stderr), record


@pytest.mark.parametrize(("era", "code"), [("legacy", -32600), ("modern", -32601)])
def test_a_request_between_commands_is_refused_at_once_and_said_once(tmp_path, era, code):
    """No command is waiting: the server's form (a flood of them) is answered with an error
    before the next command is even typed, one line says so, and the next command gets its
    own result, not the server's old question."""
    proc, errors, record = start_shell(tmp_path, "--era", era, "--count", "20")
    try:
        errors.wait_until(lambda lines: any(NOTICE in line for line in lines))
        got = wait_for_replies(record, {f"e{n}" for n in range(1, 21)} | {"p1"})
        assert {f"e{n}" for n in range(1, 21)} <= set(got), errors.text()
        assert all(got[f"e{n}"]["error"]["code"] == code for n in range(1, 21))
        if era == "legacy":
            assert got["p1"]["result"] == {}  # a ping is answered as ever
        out, err = end_script(proc, "call x\n", errors)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert out.splitlines() == ["x result"]
    assert err.count(NOTICE) == 1, err
    assert '"elicitation/create"' in err


def test_a_list_said_to_change_again_and_again_is_said_once_until_fetched(tmp_path, mrtr):
    """The server says its tool list changed 50 times after the first `tools/list`: one line
    says so; the second `call` fetches the list again."""
    record = tmp_path / "replies.jsonl"
    run = mrtr("--stdio", stdio_cmd(IDLE_ASKER, str(record), "--count", "0", "--changes", "50"), "shell",
               input="call x\ncall x\n")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines() == ["x result", "x result"]
    assert run.stderr.count("the server's tool list changed") == 1, run.stderr


def test_a_question_asked_while_listing_the_tools_is_pending_for_the_call(tmp_path, mrtr):
    """A 2025-11-25 server asks while answering the `tools/list` a `call x` needs first:
    the pending document and the hint name `call x`, not the list."""
    record = tmp_path / "replies.jsonl"
    target = ["--stdio", stdio_cmd(IDLE_ASKER, str(record), "--count", "0", "--ask-in-list")]
    run = mrtr(*target, "call", "x")
    assert run.code == 5, run.stderr
    doc = json.loads(run.stdout)
    assert doc["method"] == "tools/call" and doc["params"] == {"name": "x"}
    assert "result" not in doc  # the list's result is no result of the call
    assert " call x --protocol 2025-11-25 --answers ANSWERS.json" in run.stderr, run.stderr
    run = mrtr(*target, "shell", input="call x\n")
    assert run.code == 5, run.stderr
    assert "call None" not in run.stderr and "--protocol" not in run.stderr
    assert "  call x -a FIELD=VALUE" in run.stderr, run.stderr


@pytest.mark.parametrize("given", [True, False])
def test_a_legacy_roots_request_after_initialized_is_answered_with_the_roots_given(tmp_path, given):
    """A 2025-11-25 server that lists the client's roots right after `notifications/initialized`
    (no request of mrtr's in flight) gets the `--root` roots: their answer needs no person, so
    the request waits for the next request and is answered there. With no roots declared it is
    refused, as any other request between requests."""
    record = tmp_path / "replies.jsonl"
    roots = ["--root", str(tmp_path)] if given else []
    done = subprocess.run([PY, "-m", "mrtr_cli", *roots, "--stdio",
                           stdio_cmd(IDLE_ASKER, str(record), "--count", "0", "--roots"), "call", "x"],
                          capture_output=True, text=True, env=clean_env(tmp_path), cwd=ROOT, timeout=SAFETY)
    assert done.returncode == 0, done.stderr
    assert "x result" in done.stdout
    got = wait_for_replies(record, {"r1"})
    if given:
        assert got["r1"]["result"]["roots"] == [{"uri": tmp_path.as_uri()}], got
    else:
        assert got["r1"]["error"]["code"] == -32600, got
