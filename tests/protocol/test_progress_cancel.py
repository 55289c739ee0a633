"""Progress, server logs and cancellation against real SDK servers over stdio and
HTTP: progress tokens, progress lines on stderr, `--timeout` extended by progress up to
`--max-timeout`, `--log-level`, and Ctrl-C / timeouts cancelling the request (exit 130 / 7)."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from mrtr_cli.limits import describe_seconds
from tests.conftest import SERVERS, HttpServers, Target, read_records, stdio_cmd, url_args
from tests.support import SAFETY, growing_bound, start_mrtr, wait_for
from tests.support import running as _running

SLOW = SERVERS / "slow_server.py"


def slow_target(kind: str, tmp_path: Path, http_servers: HttpServers, *,
                direct: bool = False) -> tuple[list[str], Path, Path]:
    """A fresh slow_server (args, record file, marker file); over stdio with `direct`, run
    as itself, not forked from the zygote (a test that checks the server is gone when mrtr
    has ended: a zygote's fork is ended by its keeper after mrtr's kill, on its own time)."""
    record, marker = tmp_path / "record.jsonl", tmp_path / "marker.jsonl"
    extra = ("--record", str(record), "--marker", str(marker))
    if kind == "stdio":
        return ["--stdio", stdio_cmd(SLOW, *extra, direct=direct)], record, marker
    return url_args(http_servers.start(SLOW, *extra)), record, marker


def events(marker: Path) -> list[dict]:
    return [json.loads(line) for line in marker.read_text().splitlines()] if marker.exists() else []





# ---------------------------------------------------------------------- progress
def test_every_request_has_its_own_progress_token(mrtr, core: Target):
    core.reset()
    r = mrtr(*core.args, "call", "two_forms", "-a", "a=x", "-a", "b=2")
    assert r.code == 0, r.stderr
    requests = core.requests()
    tokens = [m["params"]["_meta"]["progressToken"] for m in requests]
    assert len(core.calls()) == 2  # the first call and its retry (tools/list may come first)
    assert len(set(tokens)) == len(requests)
    for msg, token in zip(requests, tokens, strict=True):
        assert token == f"mrtr-{msg['id']}"


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_progress_lines_on_stderr_and_only_the_result_on_stdout(mrtr, tmp_path, http_servers, kind):
    args, _, _ = slow_target(kind, tmp_path, http_servers)
    start = time.monotonic()
    r = mrtr(*args, "call", "slow", "steps:=3", "delay:=0.1")
    took = time.monotonic() - start
    assert r.code == 0, r.stderr
    assert r.stdout.startswith("slow done\n")
    # Not a terminal: a plain line, at most one every 2 seconds (the three steps take 0.3 s:
    # one line, unless a busy machine spread them over more than 2 s).
    assert "mrtr: progress 1/3 (33%) tools/call slow: step 1" in r.stderr
    assert 1 <= r.stderr.count("mrtr: progress") <= 1 + int(took // 2)
    r = mrtr(*args, "call", "spin", "steps:=2", "delay:=0.05")
    assert "mrtr: progress 10 tools/call spin: fetched 10 rows" in r.stderr
    r = mrtr(*args, "-q", "call", "slow", "steps:=2", "delay:=0.05")
    assert r.code == 0 and "progress" not in r.stderr


def test_progress_extends_the_timeout_up_to_max_timeout(mrtr, tmp_path, http_servers):
    # Over HTTP the server is up before the clock starts (a stdio server's start-up counts).
    args, _, _ = slow_target("http", tmp_path, http_servers)

    def call(window: float) -> tuple[str, ...]:
        # works for twice the --timeout window (server time: longer still on a busy
        # machine), with a progress notification every 0.1 s
        return ("call", "slow", f"steps:={20 * int(window)}", "delay:=0.1")

    # Without --max-timeout progress extends nothing: the window ends the call.
    r = mrtr(*args, *call(2), "--timeout", "2")
    assert r.code == 7, r.stderr

    # With it, the call outlasts its window. A loaded machine can spend a whole window on
    # start-up and the connection, or between two notifications: such a run ends in exit 7
    # and shows nothing, and the window grows until a run completes (which it can only
    # do if progress extended the window: the call works for twice as long).
    def completes(window: float) -> bool | None:
        r = mrtr(*args, *call(window), "--timeout", f"{window:g}", "--max-timeout", "600")
        if r.code == 7:
            return None
        assert r.code == 0, r.stderr
        assert r.stdout.startswith("slow done")
        return True

    growing_bound(completes, 2, what="a call kept alive by progress past its --timeout", limit=64)

    # Capped: the timeout message names the time really allowed, not the first window. A
    # run in which no notification came in time to extend the window shows nothing.
    def capped(window: float) -> bool | None:
        r = mrtr(*args, *call(window), "--timeout", f"{window:g}", "--max-timeout", f"{window + 1:g}")
        assert r.code == 7, r.stderr
        if "extended by progress" not in r.stderr:
            return None
        assert (f"timed out after {describe_seconds(window + 1)} (--timeout {describe_seconds(window)}, "
                f"extended by progress up to --max-timeout {describe_seconds(window + 1)})") in r.stderr, r.stderr
        return True

    growing_bound(capped, 2, what="a call whose --timeout progress extended to --max-timeout", limit=64)


# ---------------------------------------------------------------------- logs
@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_log_level_asks_for_logs_and_they_are_printed_sanitised(mrtr, tmp_path, http_servers, kind):
    args, record, _ = slow_target(kind, tmp_path, http_servers)
    r = mrtr(*args, "call", "noisy", "--log-level", "WARNING")
    assert r.code == 0, r.stderr
    assert r.stdout.startswith("noisy done")
    lines = r.stderr.splitlines()
    assert "[server warning noisy] a warning message" in lines
    assert "[server emergency noisy] a emergency message" in lines
    assert not any(word in r.stderr for word in ("a debug message", "a info message", "a notice message"))
    assert '[server warning db] {"disk": "full", "free": 0}' in lines
    # Escape sequences from the server are made visible, continuation lines indented.
    assert "\x1b" not in r.stderr and "\x07" not in r.stderr
    assert "[server error x\\x1b[31m] evil \\x1b[2J\\x1b]0;pwned\\x07 text" in lines
    assert "  second line" in lines
    calls = [m for m in read_records(record) if m.get("method") == "tools/call"]
    assert calls[-1]["params"]["_meta"]["io.modelcontextprotocol/logLevel"] == "warning"


def test_no_log_level_no_logs_and_a_bad_level_exits_2(mrtr, tmp_path, http_servers):
    args, record, _ = slow_target("stdio", tmp_path, http_servers)
    r = mrtr(*args, "call", "noisy")
    assert r.code == 0, r.stderr
    assert "[server" not in r.stderr
    calls = [m for m in read_records(record) if m.get("method") == "tools/call"]
    assert "io.modelcontextprotocol/logLevel" not in calls[-1]["params"]["_meta"]
    r = mrtr(*args, "call", "noisy", "--log-level", "loud")
    assert r.code == 2
    assert "--log-level loud" in r.stderr and "debug, info" in r.stderr


# ---------------------------------------------------------------------- cancellation
def tools_call_id(record: Path) -> object:
    (call,) = [m for m in read_records(record) if m.get("method") == "tools/call"]
    return call["id"]


def cancellations(record: Path) -> list[dict]:
    return [m for m in read_records(record) if m.get("method") == "notifications/cancelled"]


@pytest.mark.parametrize("sig, again", [(signal.SIGINT, "press Ctrl-C again to stop at once"),
                                        (signal.SIGTERM, "a second SIGTERM or Ctrl-C stops at once"),
                                        (signal.SIGHUP, "a second SIGHUP or Ctrl-C stops at once")],
                         ids=["SIGINT", "SIGTERM", "SIGHUP"])
def test_ctrl_c_on_stdio_sends_cancelled_and_exits_130(tmp_path, http_servers, sig, again):
    args, record, marker = slow_target("stdio", tmp_path, http_servers, direct=True)  # its end is checked
    proc = start_mrtr(tmp_path, *args, "call", "hang")
    wait_for(lambda: any(e["event"] == "started" for e in events(marker)))
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=SAFETY)
    assert proc.returncode == 130, err
    assert out == ""
    assert "Traceback" not in err
    # The hint names what stops it at once; SIGTERM (a CI job cancelled) suggests no key.
    assert f"mrtr: cancelling tools/call hang ({again})" in err
    assert "mrtr: interrupted" in err
    assert "" not in err.splitlines(), err  # no stray blank line between them
    (cancel,) = cancellations(record)
    assert cancel["params"]["requestId"] == tools_call_id(record)
    assert cancel["params"]["reason"] == "user interrupted (Ctrl-C)"
    assert "cancelled" in [e["event"] for e in events(marker)]  # the SDK stopped the tool
    assert not _running(events(marker)[0]["pid"])  # and no server is left behind


def test_timeout_on_stdio_sends_cancelled_and_exits_7(mrtr, tmp_path, http_servers):
    args, record, marker = slow_target("stdio", tmp_path, http_servers)

    # `hang` never ends: --timeout is the only way out. The server's start-up counts
    # against --timeout: the bound grows until a run's call reached the tool.
    def attempt(bound: float) -> str | None:
        record.unlink(missing_ok=True)
        marker.unlink(missing_ok=True)
        r = mrtr(*args, "call", "hang", "--timeout", f"{bound:g}")
        assert r.code == 7, r.stderr
        if not any(e["event"] == "started" for e in events(marker)):
            return None
        assert f"timed out after {describe_seconds(bound)} waiting for tools/call" in r.stderr
        return r.stderr

    growing_bound(attempt, 5, what="a run whose call started the tool")
    (cancel,) = cancellations(record)
    assert cancel["params"] == {"requestId": tools_call_id(record), "reason": "timeout"}
    assert [e["event"] for e in events(marker)] == ["started", "cancelled"]


def test_http_cancels_by_closing_the_stream_on_ctrl_c(tmp_path, http_servers):
    args, record, marker = slow_target("http", tmp_path, http_servers)
    proc = start_mrtr(tmp_path, *args, "call", "hang")
    wait_for(lambda: any(e["event"] == "started" for e in events(marker)))
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=SAFETY)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    # The server saw the stream close and cancelled the tool; no notification was POSTed.
    wait_for(lambda: "cancelled" in [e["event"] for e in events(marker)])
    assert cancellations(record) == []


def test_http_cancels_by_closing_the_stream_on_timeout(mrtr, tmp_path, http_servers):
    args, record, marker = slow_target("http", tmp_path, http_servers)

    # `hang` never ends: --timeout is the only way out; the bound grows until a run's call
    # reached the tool (mrtr's start-up and the connection count against --timeout).
    def attempt(bound: float) -> bool | None:
        marker.unlink(missing_ok=True)
        r = mrtr(*args, "call", "hang", "--timeout", f"{bound:g}")
        assert r.code == 7, r.stderr
        assert "Traceback" not in r.stderr
        return True if any(e["event"] == "started" for e in events(marker)) else None

    growing_bound(attempt, 3, what="a run whose call started the tool")
    # The server saw the stream close and cancelled the tool; no notification was POSTed.
    wait_for(lambda: "cancelled" in [e["event"] for e in events(marker)])
    assert cancellations(record) == []


def test_second_ctrl_c_exits_at_once_and_kills_a_stubborn_server(tmp_path):
    # The server ignores stdin EOF and SIGTERM. After the first Ctrl-C, mrtr's graceful
    # close ends its stdin, waits 2 s, sends SIGTERM, waits 2 s, then kills the group; a
    # second Ctrl-C must kill it at once, so the SIGTERM never comes. That is seen in what
    # the server received, not in how long anything took. A run in which the test's second
    # Ctrl-C came after the SIGTERM was sent (a loaded machine can delay the test by 2 s)
    # shows nothing, and the test runs again: a mrtr that waited out the close after a
    # second Ctrl-C sends SIGTERM in every run.
    for attempt in range(5):
        record, pidfile, signals = (tmp_path / f"{name}-{attempt}" for name in ("record.jsonl", "pid", "signals"))
        server = stdio_cmd(SERVERS / "stubborn_server.py", "--record", str(record), "--pidfile", str(pidfile),
                           "--signals", str(signals))
        proc = start_mrtr(tmp_path, "--stdio", server, "call", "never")
        # (each wait_for runs its check within this iteration: the loop variables are current)
        wait_for(lambda: any(m.get("method") == "tools/call" for m in read_records(record)))  # noqa: B023 - see above
        pid = int(pidfile.read_text())
        proc.send_signal(signal.SIGINT)
        wait_for(lambda: bool(cancellations(record)))  # noqa: B023 - checked at once, as above
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=SAFETY)
        assert proc.returncode == 130, err
        assert "interrupted again" in err and "Traceback" not in err
        wait_for(lambda: not _running(pid))  # noqa: B023 - checked at once, as above
        assert cancellations(record)[0]["params"]["requestId"] == tools_call_id(record)
        if "SIGTERM" not in (signals.read_text() if signals.exists() else ""):
            return
    pytest.fail("the server got SIGTERM in every run: the second Ctrl-C let the graceful close go on")


def test_first_ctrl_c_alone_still_stops_a_stubborn_server(tmp_path):
    record, pidfile = tmp_path / "record.jsonl", tmp_path / "pid"
    # Run as itself: mrtr's kill of its group is what ends it (a zygote's fork would be
    # ended by its keeper after mrtr's kill, on its own time, and could outlive mrtr).
    server = stdio_cmd(SERVERS / "stubborn_server.py", "--record", str(record), "--pidfile", str(pidfile),
                       direct=True)
    proc = start_mrtr(tmp_path, "--stdio", server, "call", "never", "--json")
    wait_for(lambda: any(m.get("method") == "tools/call" for m in read_records(record)))
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=SAFETY)
    assert proc.returncode == 130, err
    assert out == ""
    # Closing took the grace periods (stdin EOF, SIGTERM, both ignored), then SIGKILL.
    assert not _running(int(pidfile.read_text()))
    assert json.loads(err.strip().splitlines()[-1]) == {"error": {"exitCode": 130, "code": None,
                                                                 "message": "interrupted", "data": None}}
