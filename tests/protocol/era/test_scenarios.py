"""The same user-visible scenarios in every protocol era: a form asked mid-call,
answered from a file, interactively, and refused with `--no-input`, against

- the SDK's dual-era server reached in modern mode (`--protocol auto` probes and finds 2026-07-28),
- the same server pinned to the legacy handshake over stdio,
- the same server pinned to the legacy handshake over HTTP (SSE responses),
- a hand-written 2025-06-18-only stdio server that answers `server/discover` with -32601.

Results and exit codes are the same in every era.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import SERVERS, HttpServers, Target, read_records, stdio_cmd

DUAL = SERVERS / "dual_server.py"
LEGACY = SERVERS / "legacy_server.py"
CALL = ["call", "book_table", "date=Friday"]
# structuredContent {"result": <the same text>} adds nothing: said once
BOOKED = 'Booked a table for 4 (indoor) on Friday.\n'
ERAS = ["modern-stdio", "legacy-stdio", "legacy-http", "handwritten-2025-06-18"]


@pytest.fixture(scope="module", params=ERAS)
def era(request: pytest.FixtureRequest, http_servers: HttpServers, tmp_path_factory: pytest.TempPathFactory) -> Target:
    """One server in one era; `kind` is the era id, `record` what the server received."""
    record = tmp_path_factory.mktemp("era") / "record.jsonl"
    if request.param == "modern-stdio":
        args = ["--stdio", stdio_cmd(DUAL, "--record", str(record))]
    elif request.param == "legacy-stdio":
        args = ["--stdio", stdio_cmd(DUAL, "--record", str(record)), "--protocol", "2025-11-25"]
    elif request.param == "legacy-http":
        args = ["--url", http_servers.start(DUAL, "--record", str(record)), "--protocol", "2025-11-25"]
    else:
        args = ["--stdio", stdio_cmd(LEGACY, "--record", str(record))]
    return Target(request.param, args, record)


def assert_era(era: Target) -> None:
    """The server really was spoken to in the era under test."""
    methods = [m.get("method") for m in read_records(era.record, probe=True)]
    if era.kind == "modern-stdio":
        assert methods[0] == "server/discover" and "initialize" not in methods
    elif era.kind == "handwritten-2025-06-18":
        assert methods[:2] == ["server/discover", "initialize"]
    else:
        assert methods[0] == "initialize" and "server/discover" not in methods


def test_form_answered_from_a_file(mrtr, era: Target, tmp_path):
    era.reset()
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"fields": {"partySize": 4, "seating": "indoor"}}))
    r = mrtr(*era.args, *CALL, "--answers", answers)
    assert r.code == 0, r.stderr
    assert r.stdout == BOOKED
    assert_era(era)


def test_no_input_exits_5_then_the_filled_template_finishes(mrtr, era: Target, tmp_path):
    r = mrtr(*era.args, *CALL, "--no-input")
    assert r.code == 5, r.stderr
    doc = r.json()
    assert doc["mrtr"] == "pending/1"
    [key] = doc["missing"]
    assert doc["inputRequests"][key]["params"]["message"] == "Book a table on Friday?"
    template = doc["answersTemplate"]
    assert template["inputResponses"][key] == {"action": "accept", "content": {"partySize": None, "seating": None}}
    template["inputResponses"][key]["content"] = {"partySize": 4, "seating": "indoor"}
    filled = tmp_path / "filled.json"
    filled.write_text(json.dumps(template))
    pending = tmp_path / "pending.json"
    pending.write_text(r.stdout)
    if era.kind == "modern-stdio":
        assert "requestState" in doc and "resumable" not in doc
        r = mrtr("resume", pending, "--answers", filled)
    else:
        # A legacy server asked mid-call and was told "cancel"; what it returned is kept.
        assert doc["resumable"] is False and doc["era"] == "legacy"
        assert "requestState" not in doc
        assert doc["result"]["content"][0]["text"] == "No table booked (cancel)."
        assert "start it again" in r.stderr and f"--protocol {doc['protocolVersion']}" in r.stderr
        refused = mrtr("resume", pending, "--answers", filled)
        assert refused.code == 2
        assert "cannot be resumed" in refused.stderr and "--answers" in refused.stderr
        r = mrtr(*era.args, *CALL, "--answers", filled)
    assert r.code == 0, r.stderr
    assert r.stdout == BOOKED


def test_decline_from_flags_and_files_exits_6(mrtr, era: Target, tmp_path):
    # Both eras' keys in one file: `__main__:ask_booking` (the SDK's MRTR key) and
    # `elicitation-1` (the first server-initiated elicitation of a legacy run).
    answers = tmp_path / "decline.json"
    answers.write_text(json.dumps({"inputResponses": {
        "__main__:ask_booking": {"action": "decline"}, "elicitation-1": {"action": "decline"}}}))
    r = mrtr(*era.args, *CALL, "--answers", answers)
    assert r.code == 6, r.stderr
    assert r.stdout.startswith("No table booked (decline).")


def test_save_answers_replays_in_the_same_era(mrtr, era: Target, tmp_path):
    saved = tmp_path / "saved.json"
    r = mrtr(*era.args, *CALL, "-a", "partySize=4", "-a", "seating=indoor", "--save-answers", saved)
    assert r.code == 0, r.stderr
    doc = json.loads(saved.read_text())
    [(key, answer)] = doc["inputResponses"].items()
    assert answer == {"action": "accept", "content": {"partySize": 4, "seating": "indoor"}}
    r = mrtr(*era.args, *CALL, "--answers", saved, "--no-input")
    assert r.code == 0, r.stderr
    assert r.stdout == BOOKED


# ---------------------------------------------------------------------- a person at a terminal
pexpect = pytest.importorskip("pexpect")
from tests.support import DOWN, ENTER, spawn  # noqa: E402 - after the pexpect check


@pytest.mark.pty
def test_form_answered_at_the_terminal(era: Target, tmp_path):
    child, out = spawn(tmp_path, *map(str, era.args), *CALL)
    child.expect("asks \\(tools/call book_table, input ")
    child.expect("Book a table on Friday\\?")
    child.expect("Party size")
    child.send("x" + ENTER)
    child.expect("expected an integer")
    child.send("\x08" + "4" + ENTER)
    child.expect("Seating")
    child.send(ENTER)  # indoor
    child.expect("Send these answers\\?")
    child.send(ENTER)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert out.read_text() == BOOKED


@pytest.mark.pty
def test_decline_at_the_terminal(era: Target, tmp_path):
    child, out = spawn(tmp_path, *map(str, era.args), *CALL)
    child.expect("Party size")
    child.send("2" + ENTER)
    child.expect("Seating")
    child.send(DOWN + ENTER)  # outdoor
    child.expect("Send these answers\\?")
    child.send(DOWN + DOWN + ENTER)  # Send -> Edit -> Decline
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 6
    assert out.read_text().startswith("No table booked (decline).")


@pytest.mark.pty
def test_ctrl_c_at_a_legacy_prompt_answers_the_server_and_cancels(tmp_path):
    record = tmp_path / "rec.jsonl"
    child, out = spawn(tmp_path, "--stdio", stdio_cmd(LEGACY, "--record", str(record)), *CALL)
    child.expect("Party size")
    child.sendcontrol("c")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert out.read_text() == ""
    messages = read_records(record)
    call = next(m for m in messages if m.get("method") == "tools/call")
    answer = next(m for m in messages if m.get("id") == "s1")
    assert answer["error"]["message"] == "the client stopped before answering"
    cancelled = next(m for m in messages if m.get("method") == "notifications/cancelled")
    assert cancelled["params"]["requestId"] == call["id"]
