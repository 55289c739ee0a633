"""A server's own words in an error, a hint or a log entry are sanitised and cut by one rule
(render/sanitize.py `one_line`, `cut_text`; docs/limits.md, "Server values in messages");
`--json` keeps the error as the server sent it. The hostile servers of tests/hostile/cases.py
(`error_message_huge`, `log_huge`, `task_status_huge`) check the same end to end."""

from __future__ import annotations

import io
import json

from hypothesis import example, given
from hypothesis import strategies as st

from mrtr_cli.env import Environment
from mrtr_cli.errors import JsonRpcError, ProtocolError
from mrtr_cli.render.errors import print_error
from mrtr_cli.render.live.logs import MAX_LOG_CHARS, format_log
from mrtr_cli.render.sanitize import LINE_CHARS, SERVER_TEXT_CHARS

#: Text a hostile server may send: controls, bidi overrides, line breaks, lone surrogates, and plenty of it.
_WORDS = st.lists(st.sampled_from(["w", "é", "\x1b[31m", "\r", "\n", "\u202e", "\x07", "\ud800", "\x9b", " ",
                                    "w" * 700]), max_size=40).map("".join)


def _printed(err: Exception, *, json_mode: bool) -> str:
    env = Environment(stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO())
    print_error(env, err, json_mode=json_mode)  # type: ignore[arg-type]
    assert not env.stdout.getvalue()  # type: ignore[attr-defined]
    return env.stderr.getvalue()  # type: ignore[attr-defined]


def _inert(text: str) -> bool:
    return not any(ch in text for ch in "\x1b\r\x07\u202e\ud800\x9b")


@given(message=_WORDS, hint=_WORDS)
def test_a_servers_error_is_one_bounded_inert_line_and_whole_in_json(message, hint):
    err = JsonRpcError(-32000, message, {"why": message}, hint=hint)
    lines = _printed(err, json_mode=False).splitlines()
    assert lines[0].startswith("mrtr: error: server error -32000: ")
    assert len(lines[0]) <= len("mrtr: error: server error -32000: ") + SERVER_TEXT_CHARS
    assert all(len(line) <= 2 + LINE_CHARS and _inert(line) for line in lines)
    assert len(lines) == 1 + len(hint.splitlines())
    if len(message) > SERVER_TEXT_CHARS:
        assert lines[0].endswith("…")
    shown = json.loads(_printed(err, json_mode=True))["error"]
    assert (shown["message"], shown["data"]) == (message, {"why": message})


def test_mrtrs_own_message_is_bounded_too():
    lines = _printed(ProtocolError("x" * 10 * LINE_CHARS, hint="y" * 10 * LINE_CHARS), json_mode=False).splitlines()
    assert [len(line) for line in lines] == [len("mrtr: error: ") + LINE_CHARS, 2 + LINE_CHARS]


@given(logger=_WORDS, data=_WORDS, level=_WORDS)
@example(logger="\x1b[31m" * 5000, data="d" * 50_000, level="\u202e" * 5000)
def test_a_log_entry_is_bounded_and_inert(logger, data, level):
    shown = format_log({"level": level, "logger": logger, "data": data})
    assert _inert(shown)
    assert len(shown) <= 200 + SERVER_TEXT_CHARS + MAX_LOG_CHARS * 1.5 + 100


def test_structured_log_data_is_encoded_only_as_far_as_it_is_shown():
    shown = format_log({"level": "info", "data": {"k": ["v" * 1000] * 10_000}})
    assert shown.startswith('[server info] {"k": ["vvv') and shown.endswith("…")
    assert len(shown) < MAX_LOG_CHARS + 100
