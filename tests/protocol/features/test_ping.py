"""`mrtr ping`: `ping` to a 2025-11-25 server, `server/discover` to a 2026-07-28
one (which has no ping), -c / -i like ping(8), exit 0 / 3 / 7 / 130."""

from __future__ import annotations

import json
import signal

import pytest

from tests.conftest import SERVERS, read_records, stdio_cmd, url_args
from tests.support import SAFETY, growing_bound, read_line, start_mrtr

LEGACY = SERVERS / "legacy_server.py"
SKILLS = SERVERS / "skills_server.py"


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_modern_ping_times_server_discover(mrtr, kind, http_servers, tmp_path):
    record = tmp_path / "record.jsonl"
    where = (["--stdio", stdio_cmd(SKILLS, "--record", str(record))] if kind == "stdio"
             else url_args(http_servers.start(SKILLS, "--record", str(record))))
    run = mrtr("--protocol", "2026-07-28", *where, "ping", "-c", "3", "-i", "0")
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 3
    for seq, line in enumerate(lines, 1):
        assert line.startswith(f"reply from skills-test: server/discover seq={seq} time=") and line.endswith(" ms")
    assert "3 replies, round trip min/avg/max = " in run.stderr
    sent = [m["method"] for m in read_records(record, probe=True) if "id" in m]
    assert sent == ["server/discover"] * 3 and "ping" not in sent


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_legacy_ping_sends_ping_and_json_is_one_line_each(mrtr, kind, http_servers, tmp_path):
    record = tmp_path / "record.jsonl"
    where = (["--stdio", stdio_cmd(LEGACY, "--record", str(record))] if kind == "stdio"  # hand-written
             else url_args(http_servers.start(SERVERS / "listen_server.py", "--record", str(record))))  # SDK
    run = mrtr("--protocol", "2025-11-25", *where, "ping", "-c", "2", "-i", "0", "--json")
    assert run.code == 0, run.stderr
    docs = [json.loads(line) for line in run.stdout.splitlines()]
    assert [(d["seq"], d["method"], d["result"]) for d in docs] == [(1, "ping", {}), (2, "ping", {})]
    assert all(isinstance(d["timeMs"], float) and d["timeMs"] >= 0 for d in docs)
    assert [m["method"] for m in read_records(record) if "id" in m].count("ping") == 2


def test_one_ping_by_default_and_no_summary(mrtr):
    run = mrtr("--protocol", "2025-11-25", "--stdio", stdio_cmd(LEGACY), "ping")
    assert run.code == 0, run.stderr
    assert len(run.stdout.splitlines()) == 1 and "replies" not in run.stderr


def test_unreachable_is_exit_3(mrtr, refused_port):
    run = mrtr("--url", f"http://127.0.0.1:{refused_port}/mcp", "ping")
    assert run.code == 3
    assert run.stdout == "" and "cannot connect" in run.stderr


def test_no_reply_within_timeout_is_exit_7(mrtr):
    run = mrtr("--protocol", "2025-11-25", "--timeout", "2", "--stdio", stdio_cmd(LEGACY, "--silent-ping"), "ping")
    assert run.code == 7, run.stderr
    assert "timed out" in run.stderr and "ping" in run.stderr


def test_a_reply_that_never_comes_is_exit_7_without_timeout(mrtr):
    # ping(8)'s -W: each reply has a default bound (10 s), so a hung server never holds ping
    run = mrtr("--protocol", "2025-11-25", "--stdio", stdio_cmd(LEGACY, "--silent-ping"), "ping", timeout=SAFETY)
    assert run.code == 7, run.stderr
    assert "timed out after 10 s waiting for ping" in run.stderr


def test_ping_help_says_one_thing_about_timeout(mrtr):
    run = mrtr("ping", "--help")
    assert run.code == 0
    assert "Seconds to wait for each reply" in run.stdout and "default 10" in run.stdout
    assert "Overall time bound" not in run.stdout
    assert "--max-timeout" not in run.stdout  # a per-reply bound is not extended by progress


def test_count_zero_pings_until_ctrl_c(tmp_path):
    proc = start_mrtr(tmp_path, "--protocol", "2025-11-25", "--stdio", stdio_cmd(LEGACY), "ping", "-c", "0", "-i",
                      "0.05")
    try:
        assert read_line(proc).startswith("reply from ")
        assert read_line(proc).startswith("reply from ")  # it goes on past one
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=SAFETY)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "replies, round trip min/avg/max" in err and "Traceback" not in err


@pytest.mark.parametrize("args", [["-c", "-1"], ["-i", "nan"], ["-i", "-1"], ["-c", "x"]])
def test_bad_count_or_interval_is_a_usage_error(mrtr, args):
    run = mrtr("--stdio", stdio_cmd(LEGACY), "ping", *args)
    assert run.code == 2 and "Traceback" not in run.stderr


@pytest.mark.parametrize(("result", "named"), [
    ({"task": {"taskId": "t1", "status": "working", "ttl": 1000, "createdAt": "2025-01-01T00:00:00Z"}},
     "a task (CreateTaskResult)"),
    ({"pong": True}, "a result with members (pong) where an empty one belongs"),
    ({"resultType": "input_required", "inputRequests": {}}, "resultType 'input_required'"),
])
def test_a_reply_that_is_not_an_empty_result_is_exit_4(mrtr, result, named):
    server = stdio_cmd(LEGACY, "--ping-result", json.dumps(result))
    run = mrtr("--protocol", "2025-11-25", "--stdio", server, "ping")
    assert run.code == 4, run.stderr
    assert run.stdout == ""
    assert f"the server answered ping with {named}" in run.stderr


def test_a_slow_start_does_not_count_against_the_ping_timeout(mrtr):
    # The server reads nothing for 1 s longer than --timeout, which bounds the ping once the
    # session is open. The ping itself must fit in --timeout: a run in which a loaded
    # machine made it run out there (timed out waiting for ping) shows nothing, and the
    # bound grows.
    def attempt(bound: float) -> bool | None:
        run = mrtr("--protocol", "2025-11-25", "--timeout", f"{bound:g}",
                   "--stdio", stdio_cmd(LEGACY, "--start-delay", f"{bound + 1:g}"), "ping")
        if run.code == 7 and "waiting for ping" in run.stderr:
            return None
        assert run.code == 0, run.stderr
        assert run.stdout.startswith("reply from ")
        return True

    growing_bound(attempt, 3, what="a ping that fit in --timeout")


def test_a_probe_cut_short_names_the_bound_that_cut_it():
    # `mrtr ping` bounds opening a stdio server's session by its own start-up bound, not
    # by --timeout (which bounds each reply): the message must name the one that ran out.
    from mrtr_cli.protocol.deadline import Deadline
    from mrtr_cli.protocol.era.probe import _probe_timeout_error

    class Heard:
        def process(self) -> Heard:
            return self

        def heard_from(self) -> bool:
            return True

    ping_open = _probe_timeout_error(Heard(), Deadline(60, bound="the time mrtr ping allows for opening a session"))
    assert ping_open.message == ("the server did not answer server/discover (the era probe) within the time "
                                 "mrtr ping allows for opening a session (60 s)")
    assert _probe_timeout_error(Heard(), Deadline(2)).message == (
        "the server did not answer server/discover (the era probe) within --timeout (2 s)")
