"""What a flood of server messages inside one call puts on stderr, against
tests/servers/raw_server.py writing the flood before its result: a response for no request
in flight is noted once at `-v` (its id cut) and the rest counted; log notifications
are shown up to `LOG_LINES_SHOWN` per request, then counted on one line, at the CLI and in
`mrtr shell` alike. `--json` and `--trace FILE` lose nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from mrtr_cli.render.live.logs import LOG_LINES_SHOWN
from tests.conftest import SERVERS, stdio_cmd

OK = {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}
#: An id far longer than a note may quote, with a terminal control in it.
LONG_ID = "gone-\x1b[31m-" + "x" * 500
STRAYS = 3000
LOGS = 3000
LOG = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "flood line"}}


def server(tmp_path: Path, *floods: dict) -> list[str]:
    """`--stdio` words for a raw server whose tool `t` writes `floods` before its result."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"calls": {"t": [{"before": list(floods), "result": OK}]}}))
    return ["--stdio", stdio_cmd(SERVERS / "raw_server.py", str(script))]


def trace_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_responses_for_no_request_are_noted_once_at_v_and_kept_in_the_trace(mrtr, tmp_path):
    stray = {"jsonrpc": "2.0", "id": LONG_ID, "result": {}}
    target = server(tmp_path, {"message": stray, "times": STRAYS})
    trace = tmp_path / "trace.jsonl"
    r = mrtr(*target, "-v", "--trace", trace, "call", "t")
    assert r.code == 0, r.stderr[-3000:]
    assert r.stdout == "ok\n"
    notes = [line for line in r.stderr.splitlines() if "which no request waits for here" in line]
    assert len(notes) == 1, r.stderr[-3000:]
    assert "\x1b" not in notes[0] and "x" * 200 not in notes[0] and "…" in notes[0]
    assert f"-- ... and {STRAYS - 1:,} more responses no request waited for (not shown; --trace FILE keeps them)" \
        in r.stderr.splitlines()
    assert len(r.stderr.splitlines()) < 50  # never one line per message
    kept = [rec for rec in trace_records(trace) if rec.get("message", {}).get("id") == LONG_ID]
    assert len(kept) == STRAYS
    quiet = mrtr(*target, "call", "t")  # without -v: not a word
    assert quiet.code == 0 and quiet.stderr == "", quiet.stderr


def test_a_flood_of_logs_is_shown_up_to_the_bound_then_counted(mrtr, tmp_path):
    target = server(tmp_path, {"message": LOG, "times": LOGS})
    trace = tmp_path / "trace.jsonl"
    r = mrtr(*target, "--trace", trace, "--json", "call", "t")
    assert r.code == 0, r.stderr[-3000:]
    assert json.loads(r.stdout) == OK
    lines = r.stderr.splitlines()
    assert lines.count("[server info] flood line") == LOG_LINES_SHOWN
    assert lines[-1] == (f"mrtr: ... and {LOGS - LOG_LINES_SHOWN:,} more log messages from the server "
                         "(not shown; --trace FILE keeps them all)")
    assert len(lines) == LOG_LINES_SHOWN + 1
    logged = [rec for rec in trace_records(trace) if rec.get("message", {}).get("method") == "notifications/message"]
    assert len(logged) == LOGS


def test_the_log_bound_holds_per_request_in_the_shell(mrtr, tmp_path):
    target = server(tmp_path, {"message": LOG, "times": LOGS})
    r = mrtr(*target, "shell", input="call t\ncall t\n")
    assert r.code == 0, r.stderr[-3000:]
    assert r.stdout.splitlines() == ["ok", "ok"]
    lines = r.stderr.splitlines()
    assert lines.count("[server info] flood line") == 2 * LOG_LINES_SHOWN
    summary = (f"mrtr: ... and {LOGS - LOG_LINES_SHOWN:,} more log messages from the server "
               "(not shown; --trace FILE keeps them all)")
    assert lines.count(summary) == 2, r.stderr[-3000:]


def test_the_log_bound_counts_lines_and_characters_not_messages(mrtr, tmp_path):
    from mrtr_cli.render.live.logs import LOG_CHARS_SHOWN, LOG_MESSAGE_LINES

    tall = {"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "error", "data": "\n".join(f"line{k}" for k in range(3000))}}
    wide = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "error", "data": "w" * 3900}}
    for flood, times in ((tall, 500), (wide, 500)):
        r = mrtr(*server(tmp_path, {"message": flood, "times": times}), "call", "t")
        assert r.code == 0 and r.stdout == "ok\n", r.stderr[-3000:]
        lines = r.stderr.splitlines()
        assert len(lines) <= LOG_LINES_SHOWN + 1, len(lines)  # the bound, then the count line
        assert len(r.stderr) <= LOG_CHARS_SHOWN + 200, len(r.stderr)
        assert lines[-1].startswith("mrtr: ... and ") and lines[-1].endswith(
            " more log messages from the server (not shown; --trace FILE keeps them all)"), lines[-1]
    tall_run = mrtr(*server(tmp_path, {"message": tall, "times": 1}), "call", "t")
    shown = tall_run.stderr.splitlines()
    assert shown[0] == "[server error] line0" and len(shown) == LOG_MESSAGE_LINES, tall_run.stderr
    assert shown[-1] == f"  line{LOG_MESSAGE_LINES - 1} … ({3000 - LOG_MESSAGE_LINES:,} more lines)", shown[-1]
