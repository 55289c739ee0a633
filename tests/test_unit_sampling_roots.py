"""Unit tests of issue 6's pure functions: roots parsing and URI checks, CreateMessageResult
checks, the sampling request summary, log formatting, progress text and the deadline."""

from __future__ import annotations

import io
import time

import pytest

from mrtr_cli.env import Environment
from mrtr_cli.errors import UsageError
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.render.logs import LogPrinter, format_log
from mrtr_cli.render.progress import ProgressDisplay, progress_amount, progress_text
from mrtr_cli.responders.roots import check_root_uri, parse_root_flag, resolve_root_entries
from mrtr_cli.responders.sampling import describe_request
from mrtr_cli.responders.shapes import roots_result_problems, sampling_result_problems


def test_root_flags(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "x=y").mkdir()
    assert parse_root_flag("src") == {"uri": (tmp_path / "src").as_uri()}
    assert parse_root_flag("./src/../src=My Src") == {"uri": (tmp_path / "src").as_uri(), "name": "My Src"}
    assert parse_root_flag("x=y") == {"uri": (tmp_path / "x=y").as_uri()}
    assert parse_root_flag("x=y=Name=2") == {"uri": (tmp_path / "x=y").as_uri(), "name": "Name=2"}
    with pytest.raises(UsageError, match=r"--root gone=N: the root 'gone' does not exist"):
        parse_root_flag("gone=N")
    with pytest.raises(UsageError, match="needs a path"):
        parse_root_flag("")


def test_root_entries_from_files(tmp_path):
    (tmp_path / "a b").mkdir()
    uri = (tmp_path / "a b").as_uri()
    assert "%20" in uri
    roots = resolve_root_entries(["a b", {"uri": uri, "name": "A", "_meta": {"k": 1}}, {"path": "a b"}],
                                 "f.json: roots", str(tmp_path))
    assert roots == [{"uri": uri}]  # duplicates dropped, the first wins
    with pytest.raises(UsageError, match=r"f.json: roots\[0\]: name must be a string"):
        resolve_root_entries([{"path": "a b", "name": 3}], "f.json: roots", str(tmp_path))
    with pytest.raises(UsageError, match=r"roots\[0\]: expected a path"):
        resolve_root_entries([3], "roots", None)


@pytest.mark.parametrize(("uri", "problem"), [
    ("file:///home/me/project", None),
    ("file://localhost/srv", None),
    ("file:///a%20b", None),
    ("file:///a/../etc", "path traversal"),
    ("file:///a/%2e%2e/etc", "path traversal"),
    ("file:///a/./b", "path traversal"),
    ("file://evil.example/share", "local path"),
    ("file:relative/path", "absolute path"),
    ("http://example.com/", "file:// URI"),
    ("file:///a?x=1", "query"),
    (7, "must be a string"),
])
def test_check_root_uri(uri, problem):
    found = check_root_uri(uri)
    assert (found is None) if problem is None else (problem in found)


def test_roots_result_problems():
    assert roots_result_problems({"roots": [{"uri": "file:///x", "name": "X"}]}) == []
    assert roots_result_problems({"roots": [{"uri": "file:///x/../y"}]})[0].startswith("roots[0].uri must not")
    assert roots_result_problems({"roots": [{"uri": "file:///x", "name": None}]}) == ["roots[0].name must be a string"]
    assert roots_result_problems([]) == ['expected a ListRootsResult object {"roots": [...]}']


def test_sampling_result_problems():
    ok = {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}
    assert sampling_result_problems(ok, {"messages": [], "maxTokens": 5}) == []
    assert sampling_result_problems({**ok, "content": {"type": "text", "text": None}}) == [
        "content: a text block needs 'text' (string)"]
    assert sampling_result_problems({**ok, "content": [{"type": "image", "data": "AA=="}]}) == [
        "content[0]: a image block needs 'mimeType' (string)"]
    assert "unknown content type 'video'" in sampling_result_problems({**ok, "content": {"type": "video"}})[0]
    use = {"type": "tool_use", "id": "1", "name": "get_weather", "input": {}}
    tools = {"tools": [{"name": "get_weather", "inputSchema": {"type": "object"}}]}
    assert sampling_result_problems({**ok, "content": [use], "stopReason": "toolUse"}, tools) == []
    assert sampling_result_problems({**ok, "content": [use]}, {}) == [
        "tool_use blocks are only allowed when the request offers tools"]
    assert "which the request does not offer" in sampling_result_problems(
        {**ok, "content": [{**use, "name": "rm"}]}, tools)[0]
    assert sampling_result_problems({**ok, "stopReason": "toolUse"}, tools) == [
        'stopReason is "toolUse" but the content has no tool_use block']
    assert sampling_result_problems("text") == ["expected a CreateMessageResult object, got string"]


def test_describe_request_is_complete_and_sanitised():
    lines = describe_request({
        "systemPrompt": "Be\x1b[31m brief",
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "line 1\nline 2"}},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "w", "input": {"a": 1}}]},
            {"role": "user", "content": [{"type": "tool_result", "toolUseId": "c1",
                                          "content": [{"type": "text", "text": "18C"}]}]},
            {"role": "user", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}},
        ],
        "modelPreferences": {"hints": [{"name": "claude"}], "costPriority": 0.25},
        "maxTokens": 50, "temperature": 0, "stopSequences": ["END"], "includeContext": "thisServer",
        "tools": [{"name": "w"}], "metadata": {"k": "v"},
    })
    assert lines == [
        "system prompt: Be\\x1b[31m brief",
        "user: line 1\n      line 2",
        'assistant: [tool_use w {"a": 1} id=c1]',
        "user: [tool_result for c1: 18C]",
        "user: [image image/png, 3 B]",
        "model preferences: hints claude; cost 0.25",
        "maxTokens: 50",
        "temperature: 0",
        'stop sequences: ["END"]',
        "includeContext: thisServer (mrtr shares no other context)",
        "tools offered: w",
        'metadata: {"k": "v"}',
    ]


def test_format_log_and_level_filter():
    assert format_log({"level": "warning", "logger": "db", "data": {"a": 1}}) == '[server warning db] {"a": 1}'
    assert format_log({"level": "info", "data": "x\ny\x07"}) == "[server info] x\n  y\\x07"
    assert format_log({"level": "error", "data": "e"}, colour=True) == "[server \x1b[1;31merror\x1b[0m] e"
    assert format_log({"level": "info", "data": "z" * 10}, limit=4) == "[server info] zzzz… (10 chars)"
    err = io.StringIO()
    printer = LogPrinter(Environment(stderr=err), "error")
    for level in ("info", "error", "emergency", "bogus"):
        printer({"level": level, "data": level})
    assert err.getvalue().splitlines() == ["[server error] error", "[server emergency] emergency"]


def test_progress_text_and_plain_display():
    assert progress_amount({"progress": 3, "total": 4}) == "3/4 (75%)"
    assert progress_amount({"progress": 0.5, "total": 1.0}) == "0.5/1 (50%)"
    assert progress_amount({"progress": 12}) == "12"
    assert progress_text("tools/call x", {"message": "a\x1b[2Jb\nc"}) == "tools/call x: a\\x1b[2Jb\\nc"
    assert len(progress_text("t", {"message": "m" * 200})) == 60
    err = io.StringIO()
    display = ProgressDisplay(Environment(stderr=err), live=False, plain_interval=60)
    display.update("t1", {"progress": 1, "total": 2, "message": "one"}, "tools/call x")
    display.update("t1", {"progress": 2, "total": 2, "message": "two"}, "tools/call x")  # throttled
    display.end("t1")
    display.update("t1", {"progress": 3, "total": 2}, "tools/call x")  # late: ignored
    display.update("t2", {"progress": 1}, "prompts/get p")
    assert err.getvalue().splitlines() == ["mrtr: progress 1/2 (50%) tools/call x: one",
                                           "mrtr: progress 1 prompts/get p"]


def test_deadline_extension_is_capped():
    d = Deadline(0.2, 0.5)
    time.sleep(0.15)
    d.on_progress()
    assert d.extended and d.remaining() > 0.15
    time.sleep(0.3)
    d.on_progress()
    assert d.remaining() <= 0.06  # capped at 0.5 s after the start
    plain = Deadline(0.2)
    plain.on_progress()
    assert not plain.extended


def test_live_display_routes_other_lines_above_it_and_stops_for_good():
    err = io.StringIO()
    env = Environment(stderr=err)
    display = ProgressDisplay(env, live=True)
    display.update("t1", {"progress": 1, "total": 4, "message": "one"}, "tools/call x")
    assert env.stderr is not err  # lines now go through the live console
    env.err("[server info] hello")
    display.end("t1")
    assert env.stderr is err
    assert "[server info] hello" in err.getvalue()
    display.update("t1", {"progress": 2, "total": 4}, "tools/call x")  # late notification
    assert env.stderr is err
