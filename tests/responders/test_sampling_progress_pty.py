"""Sampling and progress in a real pseudo-terminal (pexpect): interactive sampling (review,
edit, decline), the live progress bar on stderr while stdout (a file) holds only the result, and Ctrl-C."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SERVERS, read_records, stdio_cmd
from tests.support import DOWN, ENTER, spawn

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.pty


def sampling_server(tmp_path: Path) -> tuple[list[str], Path]:
    record = tmp_path / "record.jsonl"
    return ["--stdio", stdio_cmd(SERVERS / "sampling_server.py", "--record", str(record))], record


def finish(child: pexpect.spawn) -> int | None:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def test_interactive_sampling_shows_the_request_and_sends_a_reviewed_reply(tmp_path):
    args, record = sampling_server(tmp_path)
    child, out = spawn(tmp_path, *args, "call", "ask_model", "question=Capital of France?", "--json")
    child.expect("asks \\(tools/call ask_model, input __main__:question\\)")
    child.expect("The server asks for a model reply \\(sampling\\)")
    child.expect("system prompt: You are a helpful assistant.")
    child.expect("user: Capital of France\\?")
    child.expect("model preferences: hints claude-3-sonnet; intelligence 0.8; speed 0.5; cost 0.3")
    child.expect("maxTokens: 100")
    child.expect("temperature: 0.1")
    child.expect("Your reply \\(as the assistant\\)")
    child.send("Lyon" + ENTER)
    child.expect('Review: "Lyon"')
    child.expect("model: human, about 1 tokens \\(maxTokens 100\\)")
    child.expect("Send this reply\\?")
    child.send(DOWN + ENTER)  # Edit
    child.expect("Your reply \\(as the assistant\\)")
    child.send("\x08" * 4 + "Paris" + ENTER)
    child.expect('Review: "Paris"')
    child.expect("Send this reply\\?")
    child.send(ENTER)
    assert finish(child) == 0
    text = json.loads(out.read_text())["content"][0]["text"]
    assert json.loads(text) == {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "human",
                                "stopReason": "endTurn"}
    calls = [m for m in read_records(record) if m.get("method") == "tools/call"]
    assert calls[0]["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["sampling"] == {}


def test_declining_a_sampling_request_exits_6_without_retrying(tmp_path):
    args, record = sampling_server(tmp_path)
    child, out = spawn(tmp_path, *args, "call", "ask_model", "question=Anything?")
    child.expect("Your reply")
    child.send("no" + ENTER)
    child.expect("Send this reply\\?")
    child.send(DOWN + DOWN + ENTER)  # Send -> Edit -> Decline
    child.expect("you declined the sampling request")
    assert finish(child) == 6
    assert out.read_text() == ""
    assert len([m for m in read_records(record) if m.get("method") == "tools/call"]) == 1


def test_progress_bar_renders_on_the_terminal_while_stdout_holds_only_the_result(tmp_path):
    marker = tmp_path / "marker.jsonl"
    server = stdio_cmd(SERVERS / "slow_server.py", "--marker", str(marker))
    child, out = spawn(tmp_path, "--stdio", server, "call", "slow", "steps:=6", "delay:=0.4", "--log-level", "info")
    # The bar shows the latest progress when it is redrawn: which steps a busy machine
    # lets it show is not the behaviour, that it shows them live is.
    child.expect("tools/call slow: step [1-6]")
    child.expect("[1-6]/6 \\(\\d+%\\)")
    child.expect("\\[server \\S*info\\S* worker\\] finished step [1-6]")  # logs print above the bar (coloured)
    assert finish(child) == 0
    assert out.read_text().startswith("slow done\n")
    assert "progress" not in out.read_text()
    assert "mrtr: progress" not in child.before  # the live bar, not plain lines


def test_ctrl_c_in_a_terminal_cancels_and_exits_130(tmp_path):
    marker = tmp_path / "marker.jsonl"
    server = stdio_cmd(SERVERS / "slow_server.py", "--marker", str(marker))
    # Long enough that no busy machine lets it finish first; the bar shows whichever progress
    # it last drew (which step is not the behaviour; that the call is running when Ctrl-C
    # comes is).
    child, out = spawn(tmp_path, "--stdio", server, "call", "spin", "steps:=100000", "delay:=0.2")
    child.expect("tools/call spin: fetched \\d+ rows")
    child.sendintr()
    child.expect("mrtr: cancelling tools/call spin")
    child.expect("mrtr: interrupted")
    assert finish(child) == 130
    assert "Traceback" not in child.before
    assert out.read_text() == ""
    assert [json.loads(line)["event"] for line in marker.read_text().splitlines()] == ["started", "cancelled"]
