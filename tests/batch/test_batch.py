"""`mrtr batch`: per-line records, the overall exit code, --resume, --fail-fast,
a server that dies, tasks, and one shared session.

Servers: tests/servers/batch_server.py (stateless tools, prompts, resources; over stdio
and HTTP, recording what arrives) and tests/servers/task_server.py (the tasks extension).
"""

from __future__ import annotations

import json
import signal
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mrtr_cli.limits import describe_seconds
from tests.conftest import PY, ROOT, SERVERS, Target, clean_env, recording_target, stdio_cmd
from tests.support import SAFETY, growing_bound, wait_for

BATCH_SERVER = SERVERS / "batch_server.py"


@pytest.fixture(scope="module", params=["stdio", "http"])
def server(request: pytest.FixtureRequest, http_servers, tmp_path_factory) -> Target:
    return recording_target(request.param, BATCH_SERVER, http_servers, tmp_path_factory)


def write_lines(path: Path, lines: list[Any]) -> Path:
    """Write batch input: dicts as JSON, strings as they are."""
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines),
                    encoding="utf-8")
    return path


def records(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def text_of(record: dict[str, Any]) -> str:
    result = record["result"]
    if "content" in result:
        return result["content"][0]["text"]
    if "messages" in result:
        return result["messages"][0]["content"]["text"]
    return result["contents"][0]["text"]


# ---------------------------------------------------------------------- 200 mixed lines
def mixed_line(i: int, answers_file: str) -> tuple[Any, int, str | None]:
    """Line `i` (1-based) of the mixed batch: (the line, its expected exit code, expected text)."""
    kind = i % 12
    if kind == 1:
        return {"id": f"echo-{i}", "call": "echo", "arguments": {"text": f"hello {i}"}}, 0, f"hello {i}"
    if kind == 2:
        return {"id": f"add-{i}", "call": "add", "arguments": {"a": i, "b": 1}}, 0, str(i + 1)
    if kind == 3:
        return {"id": f"fail-{i}", "call": "fail", "arguments": {"reason": str(i)}}, 1, f"failed: {i}"
    if kind == 4:
        return {"id": f"ask-{i}", "call": "ask", "answers": {"fields": {"name": f"N{i}"}}}, 0, f"Hello N{i}"
    if kind == 5:
        return {"id": f"askf-{i}", "call": "ask", "answersFile": answers_file}, 0, "Hello FromFile"
    if kind == 6:
        return {"id": f"pending-{i}", "call": "ask"}, 5, None
    if kind == 7:
        return '{"id": "broken-%d", "call": ' % i, 2, None
    if kind == 8:
        return {"id": f"typo-{i}", "call": "echo", "argument": {"text": "x"}}, 2, None
    if kind == 9:
        return {"id": f"badarg-{i}", "call": "add", "arguments": {"a": "x", "b": 1}}, 2, None
    if kind == 10:
        return {"id": f"prompt-{i}", "prompt": "greet", "arguments": {"name": f"P{i}"}}, 0, f"Say hello to P{i}"
    if kind == 11:
        return {"id": f"read-{i}", "read": f"mem://{i}"}, 0, f"resource {i}"
    two = {"color": {"action": "accept", "content": {"color": "green"}},
           "size": {"action": "accept", "content": {"size": i}}}
    return {"call": "two_step", "answers": {"inputResponses": two}}, 0, f"green {i}"


def test_two_hundred_mixed_lines(mrtr, server: Target, tmp_path):
    (tmp_path / "answers").mkdir()
    (tmp_path / "answers" / "name.json").write_text(json.dumps({"fields": {"name": "FromFile"}}))
    lines, expected = [], []
    for i in range(1, 201):
        line, code, text = mixed_line(i, "answers/name.json")
        lines.append(line)
        expected.append((i, code, text))
    batch = write_lines(tmp_path / "batch.jsonl", lines)
    server.reset()
    run = mrtr(*server.args, "batch", str(batch), "-j", "8", cwd=tmp_path)

    got = records(run.stdout)
    assert [r["line"] for r in got] == list(range(1, 201))  # input order, one record per line
    for record, (i, code, text) in zip(got, expected, strict=True):
        assert record["exitCode"] == code, record
        if code in (0, 1):
            assert text_of(record) == text
        if i % 12 == 0:
            assert record["id"] == i  # no id: the line number
    by_kind: dict[int, dict[str, Any]] = {}
    for r in got:
        by_kind.setdefault(r["line"] % 12, r)  # the first line of each kind
    pending = by_kind[6]["pending"]
    assert pending["mrtr"] == "pending/1" and pending["missing"] == ["name"]
    assert pending["requestState"] == "ask-1" and pending["params"] == {"name": "ask", "arguments": {}}
    broken = by_kind[7]
    assert broken["id"] == 7 and broken["error"]["message"].startswith("line 7: not valid JSON")
    assert broken["error"]["exitCode"] == 2 and broken["error"]["code"] is None
    assert by_kind[8]["error"]["message"] == "line 8: unknown member 'argument'"
    assert by_kind[8]["error"]["hint"] == "did you mean 'arguments'?"
    assert "argument a: expected integer" in by_kind[9]["error"]["message"]
    assert by_kind[2]["result"]["structuredContent"] == {"sum": 3}  # lossless
    # the first failing line in input order is line 3 (a tool error)
    assert run.code == 1
    counts = Counter(code for _, code, _ in expected)
    assert counts == {0: 116, 1: 17, 2: 50, 5: 17}
    assert "200 lines: 116 ok, 17 tool error (1), 50 usage (2), 17 input required (5)" in run.stderr
    assert "line 7: not valid JSON" in run.stderr  # malformed lines are named on stderr
    # one session: the tool list was read once, and every tools/call went to the same server
    assert sum(1 for m in server.requests() if m.get("method") == "tools/list") == 1


def test_malformed_lines_are_reported_with_their_numbers(mrtr, server: Target, tmp_path):
    batch = write_lines(tmp_path / "b.jsonl", [
        {"id": "ok", "call": "echo", "arguments": {"text": "a"}},
        "",  # blank lines are skipped but still counted
        "[1, 2]",
        {"id": "x", "call": "echo", "read": "mem://1"},
        {"id": "ok", "call": "echo", "arguments": {"text": "dup"}},
        {"id": True, "call": "echo"},
        {"id": "r", "read": "mem://1", "arguments": {"a": 1}},
        {"id": "f", "call": "echo", "answersFile": "missing.json"},
        {"id": "last", "call": "echo", "arguments": {"text": "still runs"}},
    ])
    run = mrtr(*server.args, "batch", str(batch))
    got = {r["line"]: r for r in records(run.stdout)}
    assert sorted(got) == [1, 3, 4, 5, 6, 7, 8, 9]
    assert got[3]["error"]["message"] == "line 3: expected a JSON object, not an array"
    assert "exactly one of" in got[4]["error"]["message"] and got[4]["id"] == "x"
    assert got[5]["error"]["message"] == "line 5: the id \"ok\" is already used by line 1"
    assert got[6]["error"]["message"].startswith("line 6: the id must be a string or an integer")
    assert "takes no \"arguments\"" in got[7]["error"]["message"]
    assert "cannot read answer file" in got[8]["error"]["message"] and "missing.json" in got[8]["error"]["message"]
    assert text_of(got[9]) == "still runs" and got[1]["exitCode"] == 0
    assert run.code == 2


# ---------------------------------------------------------------------- the exit code
def test_exit_code_is_the_first_failure_in_input_order(mrtr, server: Target, tmp_path):
    # Line 2 (exit 1) finishes last in time; line 3 (exit 2, malformed) at once. Input order decides.
    batch = write_lines(tmp_path / "b.jsonl", [
        {"id": 1, "call": "echo", "arguments": {"text": "a"}},
        {"id": 2, "call": "fail", "arguments": {"reason": "slow"}},
        "{nope",
        {"id": 4, "call": "slow", "arguments": {"ms": 300}},
    ])
    for extra in ([], ["--unordered"]):
        run = mrtr(*server.args, "batch", str(batch), "-j", "4", "--json", *extra)
        assert run.code == 1, run.stderr
        summary = json.loads(run.stderr.strip().splitlines()[-1])["batch"]
        assert summary["firstFailure"] == {"line": 2, "id": 2, "exitCode": 1}
        assert summary["exitCodes"] == {"0": 2, "1": 1, "2": 1} and summary["exitCode"] == 1
    unordered = records(run.stdout)
    assert unordered[-1]["line"] == 4  # the slow line finishes last

    ok = write_lines(tmp_path / "ok.jsonl", [{"call": "echo", "arguments": {"text": "a"}}, {"read": "mem://2"}])
    run = mrtr(*server.args, "batch", str(ok), "-j", "2")
    assert run.code == 0 and "2 lines: 2 ok" in run.stderr


def test_fail_fast_starts_no_more_lines(mrtr, server: Target, tmp_path):
    lines = [{"id": i, "call": "fail" if i == 3 else "echo", "arguments": {"reason" if i == 3 else "text": "x"}}
             for i in range(1, 31)]
    run = mrtr(*server.args, "batch", str(write_lines(tmp_path / "b.jsonl", lines)), "--fail-fast")
    assert [r["id"] for r in records(run.stdout)] == [1, 2, 3]
    assert run.code == 1 and "27 without a record" in run.stderr


# ---------------------------------------------------------------------- shared session
def test_lines_share_one_stdio_server_and_run_concurrently(mrtr, tmp_path):
    lines = [{"id": f"pid-{i}", "call": "pid"} for i in range(10)]
    # Each slow call waits (up to 30 s) until 8 calls are in flight: only lines run at once get there.
    lines += [{"id": f"slow-{i}", "call": "slow", "arguments": {"ms": 30000, "until": 8}} for i in range(8)]
    batch = write_lines(tmp_path / "b.jsonl", lines)
    run = mrtr("--stdio", stdio_cmd(BATCH_SERVER), "batch", str(batch), "-j", "8", timeout=SAFETY)
    got = records(run.stdout)
    assert run.code == 0
    assert len({text_of(r) for r in got if r["id"].startswith("pid-")}) == 1  # one server process
    assert max(r["result"]["structuredContent"]["peak"] for r in got if r["id"].startswith("slow-")) > 1
    # not one after the other: all 8 slow lines were in flight at once (was: wall time < 3.2 s)
    assert max(r["result"]["structuredContent"]["peak"] for r in got if r["id"].startswith("slow-")) == 8


def test_per_line_timeout(mrtr, server: Target, tmp_path):
    batch = write_lines(tmp_path / "b.jsonl", [
        {"id": "slow", "call": "slow", "arguments": {"ms": 3_600_000}},  # ends only by --timeout
        {"id": "fast", "call": "echo", "arguments": {"text": "quick"}},
    ])

    # The fast line must fit in the bound; a loaded machine can make it run out there too
    # (that run shows nothing): the bound grows until the fast line made it.
    def attempt(bound: float) -> bool | None:
        run = mrtr(*server.args, "batch", str(batch), "-j", "2", "--timeout", f"{bound:g}")
        got = {r["id"]: r for r in records(run.stdout)}
        assert got["slow"]["exitCode"] == 7
        assert got["slow"]["error"]["message"].startswith(f"timed out after {describe_seconds(bound)}")
        assert run.code == 7
        if got["fast"]["exitCode"] == 7:
            return None
        assert got["fast"]["exitCode"] == 0, got["fast"]
        return True

    growing_bound(attempt, 5, what="a batch whose fast line fit in --timeout")


def test_batch_answers_apply_to_every_line_and_lines_win(mrtr, server: Target, tmp_path):
    shared = tmp_path / "shared.json"
    shared.write_text(json.dumps({"fields": {"name": "Shared"}}))
    batch = write_lines(tmp_path / "b.jsonl", [
        {"id": "a", "call": "ask"},
        {"id": "b", "call": "ask", "answers": {"fields": {"name": "Own"}}},
        {"id": "c", "call": "two_step", "answers": {"fields": {"color": "red"}}},
    ])
    run = mrtr(*server.args, "batch", str(batch), "--answers", str(shared), "-a", "size=4")
    got = {r["id"]: r for r in records(run.stdout)}
    assert text_of(got["a"]) == "Hello Shared" and text_of(got["b"]) == "Hello Own"
    assert text_of(got["c"]) == "red 4"
    assert run.code == 0


def test_input_is_never_prompted_and_url_mode_is_not_declared(mrtr, server: Target, tmp_path):
    batch = write_lines(tmp_path / "b.jsonl", [{"id": "q", "call": "ask"}])
    server.reset()
    run = mrtr(*server.args, "batch", str(batch), input="Somebody\n")
    assert records(run.stdout)[0]["exitCode"] == 5 and run.code == 5
    call = [m for m in server.requests() if m.get("method") == "tools/call"][0]
    caps = call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert caps["elicitation"] == {"form": {}}


def test_batch_from_stdin(mrtr, server: Target):
    run = mrtr(*server.args, "batch", "-", input='{"call": "echo", "arguments": {"text": "piped"}}\n')
    assert run.code == 0 and text_of(records(run.stdout)[0]) == "piped"


def test_usage_errors(mrtr, server: Target, tmp_path):
    batch = write_lines(tmp_path / "b.jsonl", [{"call": "echo"}])
    run = mrtr(*server.args, "batch", str(tmp_path / "none.jsonl"))
    assert run.code == 2 and "cannot read" in run.stderr and run.stdout == ""
    run = mrtr(*server.args, "batch", str(batch), "--save-answers", str(tmp_path / "s.json"))
    assert run.code == 2 and "--save-answers does not apply to batch" in run.stderr
    run = mrtr(*server.args, "batch", str(batch), "--retry-failed")
    assert run.code == 2 and "--retry-failed goes with --resume" in run.stderr
    run = mrtr(*server.args, "batch", str(batch), "--answers", str(tmp_path / "none.json"))
    assert run.code == 2 and "cannot read answer file" in run.stderr and run.stdout == ""


# ---------------------------------------------------------------------- --resume
def start_batch(server: Target, batch: Path, out: Path, *extra: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([PY, "-m", "mrtr_cli", *server.args, "batch", str(batch), "-o", str(out), *extra],
                            cwd=ROOT, env=clean_env(cwd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_resume_after_an_interrupted_run_completes_only_the_missing_lines(mrtr, server: Target, tmp_path):
    # Lines 7 to 30 wait for a gate the test opens only for the resumed run: the first run
    # is interrupted with exactly six lines done, however slow the machine is.
    gate = tmp_path / "gate"
    lines = [{"id": f"L{i}", "call": "slow", "arguments": {"ms": 50} if i <= 6 else {"ms": 120000, "gate": str(gate)}}
             for i in range(1, 31)]
    batch = write_lines(tmp_path / "b.jsonl", lines)
    out = tmp_path / "out.jsonl"
    proc = start_batch(server, batch, out, "-j", "2", cwd=tmp_path)
    wait_for(lambda: out.exists() and len(out.read_text().splitlines()) >= 6, what="six lines recorded")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=SAFETY)
    assert proc.returncode == 130, err
    assert "interrupted; run it again with --resume" in err
    first = records(out.read_text())
    done = {r["id"] for r in first}
    assert done == {f"L{i}" for i in range(1, 7)} and all(r["exitCode"] == 0 for r in first)
    gate.touch()
    with out.open("a") as fh:
        fh.write('{"id": "L30", "line": 30, "exitC')  # a record cut short when the run was killed

    server.reset()
    run = mrtr(*server.args, "batch", str(batch), "-j", "4", "--resume", str(out))
    assert run.code == 0, run.stderr
    sent = [m["params"]["arguments"] for m in server.requests() if m.get("method") == "tools/call"]
    assert len(sent) == 30 - len(done)  # only the missing lines ran
    final = records(out.read_text())  # the partial line is gone: every line parses
    assert sorted(r["id"] for r in final) == sorted(f"L{i}" for i in range(1, 31))
    assert f"{len(done)} recorded earlier (--resume)" in run.stderr and run.stdout == ""

    again = mrtr(*server.args, "batch", str(batch), "--resume", str(out))  # nothing left to do
    assert again.code == 0 and len(records(out.read_text())) == 30
    # it says that nothing ran, not "30 lines: 30 ok".
    assert "mrtr: batch: nothing ran: all 30 lines were recorded earlier (--resume; 30 ok)" in again.stderr


def test_resume_keeps_earlier_failures_in_the_exit_code_and_retry_failed_reruns_them(mrtr, server: Target, tmp_path):
    batch = write_lines(tmp_path / "b.jsonl", [
        {"id": "ok", "call": "echo", "arguments": {"text": "x"}},
        {"id": "q", "call": "ask"},
    ])
    out = tmp_path / "out.jsonl"
    first = mrtr(*server.args, "batch", str(batch), "-o", str(out))
    assert first.code == 5 and first.stdout == ""
    second = mrtr(*server.args, "batch", str(batch), "--resume", str(out))
    assert second.code == 5 and len(records(out.read_text())) == 2  # nothing re-run; still failing
    assert "nothing ran" in second.stderr and "--retry-failed runs the failed ones again" in second.stderr
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"fields": {"name": "Later"}}))
    server.reset()
    third = mrtr(*server.args, "batch", str(batch), "--resume", str(out), "--retry-failed", "--answers", str(answers))
    assert third.code == 0, third.stderr
    assert [m["params"]["name"] for m in server.requests() if m.get("method") == "tools/call"] == ["ask", "ask"]
    final = records(out.read_text())
    assert [r["id"] for r in final] == ["ok", "q", "q"] and text_of(final[-1]) == "Hello Later"


# ---------------------------------------------------------------------- the server dies
def test_stdio_server_that_dies_is_restarted_once_then_the_rest_fail_fast(mrtr, tmp_path):
    lines = [{"id": i, "call": "crash" if i in (4, 9) else "pid"} for i in range(1, 41)]
    batch = write_lines(tmp_path / "b.jsonl", lines)
    run = mrtr("--stdio", stdio_cmd(BATCH_SERVER), "batch", str(batch), timeout=SAFETY)
    got = {r["id"]: r for r in records(run.stdout)}
    assert len(got) == 40
    # The rest fail fast: not sent, no line waits on a dead server or starts a third one.
    assert all(got[i]["error"]["message"] == "not sent: the server died (the server process exited with code 3) "
               "after being restarted" for i in range(10, 41))
    assert run.stderr.count("starting it again") == 1
    assert got[4]["exitCode"] == 3 and "exited with code 3" in got[4]["error"]["message"]
    assert text_of(got[3]) != text_of(got[5])  # a new server process after the first death
    assert all(got[i]["exitCode"] == 0 for i in range(5, 9))
    assert got[9]["exitCode"] == 3
    rest = [got[i] for i in range(10, 41)]
    assert all(r["exitCode"] == 3 and r["error"]["message"].startswith("not sent: the server died") for r in rest)
    assert "the server died" in run.stderr and "starting it again" in run.stderr
    assert run.code == 3


def test_http_server_that_is_gone(mrtr, tmp_path, refused_port):
    batch = write_lines(tmp_path / "b.jsonl", [{"call": "echo", "arguments": {"text": str(i)}} for i in range(5)])
    url = f"http://127.0.0.1:{refused_port}/mcp"
    # The era probe finds nobody there: nothing runs, one error, no records (--resume runs them all later).
    run = mrtr("--url", url, "batch", str(batch), "-j", "2", timeout=SAFETY)
    assert run.code == 3 and "cannot connect" in run.stderr and run.stdout == ""
    # Without a probe, every line tries, and fails with its own exit-3 record.
    run = mrtr("--url", url, "--protocol", "2026-07-28", "batch", str(batch), "-j", "2", timeout=SAFETY)
    got = records(run.stdout)
    assert [r["exitCode"] for r in got] == [3] * 5 and "cannot connect" in got[0]["error"]["message"]
    assert run.code == 3


def test_stdio_server_that_cannot_start_ends_the_batch_at_once(mrtr, tmp_path):
    batch = write_lines(tmp_path / "b.jsonl", [{"call": "echo"}, {"call": "echo"}])
    run = mrtr("--stdio", "no-such-command-mrtr", "batch", str(batch))
    assert run.code == 3 and "command not found" in run.stderr and run.stdout == ""


# ---------------------------------------------------------------------- tasks
def test_tasks_are_waited_for_or_recorded_when_detached(mrtr, tmp_path):
    tasks = stdio_cmd(SERVERS / "task_server.py")
    batch = write_lines(tmp_path / "b.jsonl", [
        {"id": "count", "call": "countdown", "arguments": {"polls": 2}},
        {"id": "asked", "call": "ask_once", "answers": {"fields": {"name": "Ann"}}},
        {"id": "unanswered", "call": "ask_once"},
        {"id": "failed", "call": "fail"},
    ])
    run = mrtr("--stdio", tasks, "batch", str(batch), "-j", "4", timeout=SAFETY)
    got = {r["id"]: r for r in records(run.stdout)}
    assert got["count"]["exitCode"] == 0 and got["count"]["result"].get("resultType") != "task"
    assert got["count"]["result"]["content"]
    assert got["asked"]["exitCode"] == 0 and "Ann" in text_of(got["asked"])
    assert got["unanswered"]["exitCode"] == 5 and got["unanswered"]["pending"]["taskId"]
    assert got["failed"]["exitCode"] == 4
    assert run.code == 5

    detached = mrtr("--stdio", tasks, "batch", str(batch), "--detach", timeout=SAFETY)
    got = records(detached.stdout)
    assert len(got) == 4, detached.stdout
    assert all(r["exitCode"] == 0 and r["result"]["resultType"] == "task" for r in got), detached.stdout
    assert detached.code == 0 and "task wait" in detached.stderr


# ---------------------------------------------------------------------- older servers
def test_an_older_server_runs_one_line_at_a_time_with_each_lines_answers(mrtr, tmp_path):
    legacy = stdio_cmd(SERVERS / "legacy_server.py")
    booking = {"call": "book_table", "arguments": {"date": "2026-01-01"}}
    batch = write_lines(tmp_path / "b.jsonl", [
        {"id": "echo", "call": "echo", "arguments": {"text": "old"}},
        {"id": "none", **booking},
        {"id": "two", **booking, "answers": {"fields": {"partySize": 2, "seating": "indoor"}}},
        {"id": "five", **booking, "answers": {"fields": {"partySize": 5}}},
    ])
    run = mrtr("--stdio", legacy, "batch", str(batch), "-j", "4", "-a", "seating=outdoor", timeout=SAFETY)
    got = {r["id"]: r for r in records(run.stdout)}
    assert text_of(got["echo"]) == "old"
    assert got["none"]["exitCode"] == 5 and got["none"]["pending"]["missing"] == ["elicitation-1"]
    assert text_of(got["two"]) == "Booked a table for 2 (outdoor) on 2026-01-01."  # -a beats the line's field
    assert text_of(got["five"]) == "Booked a table for 5 (outdoor) on 2026-01-01."
    assert "running one line at a time" in run.stderr and "was not used" not in run.stderr
    assert run.code == 5


def test_an_older_servers_question_keys_count_from_one_on_every_line(mrtr, tmp_path):
    """`elicitation-1` names each line's first question, as for one `mrtr call`: one answer
    file keyed that way answers every line, and each pending record replays on its own."""
    legacy = stdio_cmd(SERVERS / "legacy_server.py", "--version", "2025-11-25")
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"inputResponses": {"elicitation-1": {
        "action": "accept", "content": {"partySize": 2, "seating": "indoor"}}}}))
    batch = write_lines(tmp_path / "b.jsonl", [
        {"id": day, "call": "book_table", "arguments": {"date": day}} for day in ("mon", "tue", "wed")])
    run = mrtr("--stdio", legacy, "batch", str(batch), "--answers", str(answers), timeout=SAFETY)
    assert run.code == 0, run.stdout + run.stderr
    assert [text_of(r) for r in records(run.stdout)] == [f"Booked a table for 2 (indoor) on {day}."
                                                         for day in ("mon", "tue", "wed")]
    unanswered = mrtr("--stdio", legacy, "batch", str(batch), timeout=SAFETY)
    assert [r["pending"]["missing"] for r in records(unanswered.stdout)] == [["elicitation-1"]] * 3


def test_a_slow_starting_server_is_not_charged_to_the_per_line_timeout(mrtr, tmp_path):
    script = tmp_path / "slow-start.json"
    batch = write_lines(tmp_path / "b.jsonl", [{"id": "a", "call": "echo"}])

    # The server starts 1 s slower than the line's bound: the start is not charged to the
    # line. The call itself must fit in the bound; a run in which a loaded machine made it
    # run out there (the line timed out waiting for tools/call) shows nothing: the bound grows.
    def attempt(bound: float) -> bool | None:
        script.write_text(json.dumps({"startDelay": bound + 1, "calls": {"echo": [
            {"result": {"content": [{"type": "text", "text": "up"}], "resultType": "complete"}}]}}))
        run = mrtr("--stdio", stdio_cmd(SERVERS / "raw_server.py", str(script)), "batch", str(batch),
                   "--timeout", f"{bound:g}")
        (line,) = records(run.stdout)
        if line["exitCode"] == 7 and "waiting for tools/call" in line["error"]["message"]:
            return None
        assert run.code == 0, run.stderr
        assert line["result"]["content"][0]["text"] == "up"
        return True

    growing_bound(attempt, 3, what="a batch line whose call fit in --timeout")


def test_q_silences_the_notes_of_unused_flags_and_only_them(mrtr, tmp_path):
    batch = write_lines(tmp_path / "b.jsonl", [{"id": "a", "call": "pid"}, {"id": "bad"}])
    args = ("--stdio", stdio_cmd(BATCH_SERVER), "batch", str(batch), "-a", "nobody=1")
    loud = mrtr(*args, timeout=SAFETY)
    assert "-a nobody=... was not used: no form in this batch has a field 'nobody'" in loud.stderr, loud.stderr
    quiet = mrtr("-q", *args, timeout=SAFETY)
    assert "was not used" not in quiet.stderr, quiet.stderr
    # the line that is the person's own mistake is still named, and the exit codes agree
    assert "line 2" in quiet.stderr and quiet.code == loud.code == 2
    assert [r["id"] for r in records(quiet.stdout)] == [r["id"] for r in records(loud.stdout)]


# ---------------------------------------------------------------------- workers
def test_no_batch_worker_imports_a_module(server, tmp_path):
    """What a line imports is loaded before the workers start (batch/runner.py
    load_line_modules): a worker importing while the interpreter ends can crash it, and the
    workers would queue on the import's lock. Calls, prompts and reads, with `-j 4`."""
    batch = write_lines(tmp_path / "in.jsonl", [
        *({"call": "echo", "arguments": {"text": f"t{i}"}} for i in range(8)),
        {"call": "ask", "answers": {"fields": {"name": "N"}}}, {"prompt": "greet", "arguments": {"name": "P"}},
        {"read": "mem://1"}])
    script = r"""
import sys, threading
imports = []
sys.addaudithook(lambda event, args: event == "import" and threading.current_thread() is not threading.main_thread()
                 and threading.current_thread().name.startswith("mrtr-batch") and imports.append(args[0]))
sys.argv = ["mrtr", *sys.argv[1:]]
from mrtr_cli.cli.entry import main
try:
    main()
finally:
    sys.stderr.write(f"worker imports: {sorted(set(imports))}\n")
"""
    proc = subprocess.run([PY, "-c", script, *server.args, "batch", str(batch), "-j", "4"], capture_output=True,
                          text=True, cwd=ROOT, env=clean_env(tmp_path), timeout=SAFETY)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line)["exitCode"] for line in proc.stdout.splitlines()] == [0] * 11
    assert "worker imports: []" in proc.stderr.splitlines()


def test_a_refused_secret_answer_is_not_in_the_lines_record(mrtr, forms: Target, tmp_path):
    """`sign_in`'s `login.pin` is a secret (`writeOnly`): a wrong one given on a line is exit
    2 for that line, and neither the record's message nor its `data` (the problems quote
    the refused value) shows it, inline or from an answer file."""
    answers = tmp_path / "pin.json"
    answers.write_text(json.dumps({"inputResponses": {"login": {"action": "accept", "content": {
        "user": "bob", "pin": "24x8zz"}}}}))
    batch = write_lines(tmp_path / "b.jsonl", [
        {"id": "file", "call": "sign_in", "answersFile": str(answers)},
        {"id": "inline", "call": "sign_in", "answers": {"fields": {"user": "bob", "pin": "97x531"}}},
    ])
    run = mrtr(*forms.args, "batch", str(batch))
    got = {r["id"]: r for r in records(run.stdout)}
    assert got["file"]["exitCode"] == 2 and got["inline"]["exitCode"] == 2, run.stdout
    assert "24x8zz" not in run.stdout and "97x531" not in run.stdout, run.stdout
    assert "pattern" in json.dumps(got["file"]["error"]["data"]), got["file"]  # what was wrong, not the value
    assert "24x8zz" not in run.stderr and "97x531" not in run.stderr


def test_a_refused_flag_gets_one_verdict(mrtr, tmp_path):
    """`-a login.pni=1` names a field the question `login` lacks: the line's record refuses
    it (exit 2), and the end of the batch does not also call the flag unused."""
    forms = ("--stdio", stdio_cmd(SERVERS / "forms_server.py"))
    batch = write_lines(tmp_path / "b.jsonl", [{"id": "a", "call": "sign_in"}])
    run = mrtr(*forms, "batch", str(batch), "-a", "login.pni=1", timeout=SAFETY)
    (line,) = records(run.stdout)
    assert line["exitCode"] == 2 and 'question "login" has no field "pni"' in line["error"]["message"], run.stdout
    assert "was not used" not in run.stderr, run.stderr


def test_a_flag_for_a_form_no_line_reached_is_not_called_unused(mrtr, tmp_path):
    """A line that stops before its end (input nobody gave, an error) may never have reached the
    form an `-a` flag is for: the note says so instead of claiming no form has the field; when
    every line reaches its end, the note is the usual one."""
    forms = ("--stdio", stdio_cmd(SERVERS / "forms_server.py"))
    batch = write_lines(tmp_path / "b.jsonl", [{"id": "a", "call": "two_rounds"}])
    run = mrtr(*forms, "batch", str(batch), "-a", "second.nights=3", timeout=SAFETY)
    assert [r["exitCode"] for r in records(run.stdout)] == [5], run.stderr
    notes = [line for line in run.stderr.splitlines() if "-a " in line]
    assert notes == ["mrtr: note: -a second.nights=... was not used (yet): line 1 stopped before its end"], run.stderr
    two = write_lines(tmp_path / "two.jsonl", [{"id": "a", "call": "two_rounds"}, {"id": "b", "call": "two_rounds"},
                                              {"id": "c", "call": "just_confirm", "answers": {
                                                  "ok": {"action": "accept", "content": {}}}}])
    run = mrtr(*forms, "batch", str(two), "-a", "terms.agree=yes", timeout=SAFETY)
    assert [r["exitCode"] for r in records(run.stdout)] == [5, 5, 0], run.stderr
    notes = [line for line in run.stderr.splitlines() if "-a " in line]
    assert notes == ["mrtr: note: -a terms.agree=... was not used (yet): lines 1, 2 stopped before their end"], \
        run.stderr
    done = write_lines(tmp_path / "done.jsonl", [{"id": "c", "call": "just_confirm", "answers": {
        "ok": {"action": "accept", "content": {}}}}])
    run = mrtr(*forms, "batch", str(done), "-a", "terms.agree=yes", timeout=SAFETY)
    assert run.code == 0, run.stderr
    assert "-a terms.agree=... was not used: no form in this batch has a field 'terms.agree'" in run.stderr
