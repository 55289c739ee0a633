"""`mrtr batch` when things go wrong around it: output that cannot be written, input that is
not clean UTF-8 JSON, `--resume` files that are not what they should be, Ctrl-C before any
line ran or while tasks are running, SIGTERM during a task wait. Real servers, real processes."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

from mrtr_cli.batch.records import open_output
from mrtr_cli.errors import UsageError
from tests.batch.test_batch import BATCH_SERVER, records, write_lines
from tests.conftest import PY, ROOT, SERVERS, clean_env, stdio_cmd, url_args
from tests.support import SAFETY, LineWatch, children_of, command_line, communicate, wait_for

BATCH = stdio_cmd(BATCH_SERVER)


def echo_lines(n: int) -> list[dict]:
    return [{"id": f"e{i}", "call": "echo", "arguments": {"text": f"t{i}"}} for i in range(1, n + 1)]


# ---------------------------------------------------------------------- output
def test_a_result_with_a_lone_surrogate_is_written_as_an_escape(mrtr, tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"calls": {"sur": [
        {"result": {"content": [{"type": "text", "text": "bad \ud800 text"}], "resultType": "complete"}}]}}))
    batch = write_lines(tmp_path / "b.jsonl", [{"id": "\ud800", "call": "sur"}, {"id": "b", "call": "sur"}])
    run = mrtr("--stdio", stdio_cmd(SERVERS / "raw_server.py", str(script)), "batch", str(batch))
    assert run.code == 0, run.stderr
    got = records(run.stdout)
    assert [r["id"] for r in got] == ["\ud800", "b"]
    assert got[1]["result"]["content"][0]["text"] == "bad \ud800 text"  # exactly what the server sent


def test_an_argument_with_a_lone_surrogate_is_not_sent(mrtr, tmp_path):
    batch = write_lines(tmp_path / "b.jsonl", ['{"id": "b", "call": "echo", "arguments": {"text": "\\udc00"}}',
                                               {"id": "c", "call": "echo", "arguments": {"text": "ok"}}])
    run = mrtr("--stdio", BATCH, "batch", str(batch))
    got = {r["id"]: r for r in records(run.stdout)}
    assert got["b"]["exitCode"] == 2 and "lone surrogate" in got["b"]["error"]["message"]
    assert got["c"]["exitCode"] == 0 and run.code == 2


def test_a_reader_that_goes_away_stops_the_batch_with_a_non_zero_code(tmp_path):
    batch = write_lines(tmp_path / "b.jsonl", echo_lines(50))
    proc = subprocess.run(
        f"{PY} -m mrtr_cli --stdio '{BATCH}' batch {batch} | head -c 100 >/dev/null; exit ${{PIPESTATUS[0]}}",
        shell=True, executable="/bin/bash", cwd=ROOT, env=clean_env(tmp_path), capture_output=True, text=True,
        timeout=SAFETY)
    assert proc.returncode == 2, proc.stderr
    assert "cannot write the records: the reader of the output went away" in proc.stderr
    assert "without a record" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("how", ["stdout", "-o"])
def test_a_full_disk_stops_the_batch_with_exit_2(mrtr, tmp_path, how):
    batch = write_lines(tmp_path / "b.jsonl", echo_lines(3))
    args = ["-o", "/dev/full"] if how == "-o" else []
    if how == "stdout":
        with open("/dev/full", "w") as full:
            proc = subprocess.run([PY, "-m", "mrtr_cli", "--stdio", BATCH, "batch", str(batch)], cwd=ROOT,
                                  env=clean_env(tmp_path), stdout=full, stderr=subprocess.PIPE,
                                  text=True, timeout=SAFETY)
        code, err = proc.returncode, proc.stderr
    else:
        run = mrtr("--stdio", BATCH, "batch", str(batch), *args)
        code, err = run.code, run.stderr
    assert code == 2, err
    assert "cannot write the records" in err and "Traceback" not in err


# ---------------------------------------------------------------------- input
def test_input_lines_are_split_at_newlines_only_and_bad_lines_stay_alone(mrtr, tmp_path):
    batch = tmp_path / "b.jsonl"
    good = json.dumps({"id": "sep", "call": "echo", "arguments": {"text": "a\u2028b\x85c\x0cd"}}, ensure_ascii=False)
    deep = '{"id": "deep", "call": "echo", "arguments": {"x": ' + "[" * 5000 + "]" * 5000 + "}}"
    batch.write_bytes(b"\xef\xbb\xbf" + json.dumps({"id": "bom", "call": "echo"}).encode() + b"\r\n"
                      + good.encode("utf-8") + b"\n"
                      + b'{"id": "bin", "call": "echo", "arguments": {"text": "\xff"}}\n'
                      + deep.encode() + b"\n"
                      + json.dumps({"id": "last", "call": "echo", "arguments": {"text": "z"}}).encode())
    run = mrtr("--stdio", BATCH, "batch", str(batch))
    got = records(run.stdout)
    assert [(r["line"], r["exitCode"]) for r in got] == [(1, 0), (2, 0), (3, 2), (4, 2), (5, 0)], run.stderr
    assert got[1]["result"]["content"][0]["text"] == "a\u2028b\x85c\x0cd"
    assert "line 3: not valid UTF-8 (byte 0xff" in got[2]["error"]["message"]
    assert "nested too deeply" in got[3]["error"]["message"]
    assert run.code == 2 and "Traceback" not in run.stderr


def test_an_answer_file_that_is_not_utf8_is_a_bad_line_not_a_crash(mrtr, tmp_path):
    (tmp_path / "bad.json").write_bytes(b'{"fields": {"name": "\xff"}}')
    batch = write_lines(tmp_path / "b.jsonl", [{"id": "a", "call": "echo", "answersFile": "bad.json"},
                                               {"id": "b", "call": "echo"}])
    run = mrtr("--stdio", BATCH, "batch", str(batch))
    got = {r["id"]: r for r in records(run.stdout)}
    assert got["a"]["exitCode"] == 2 and "not valid UTF-8" in got["a"]["error"]["message"]
    assert got["b"]["exitCode"] == 0


# ---------------------------------------------------------------------- --resume and -o
def test_resume_keeps_a_whole_last_record_that_lacks_its_newline(mrtr, tmp_path):
    batch = write_lines(tmp_path / "b.jsonl", echo_lines(3))
    out = tmp_path / "out.jsonl"
    first = mrtr("--stdio", BATCH, "batch", str(batch), "-o", str(out))
    assert first.code == 0
    out.write_bytes(out.read_bytes().rstrip(b"\n"))
    again = mrtr("--stdio", BATCH, "batch", str(batch), "--resume", str(out))
    assert again.code == 0 and "all 3 lines were recorded earlier" in again.stderr
    assert [r["id"] for r in records(out.read_text())] == ["e1", "e2", "e3"]


def test_resume_refuses_a_file_that_is_not_batch_output_and_the_input_file(mrtr, tmp_path):
    batch = write_lines(tmp_path / "b.jsonl", echo_lines(2))
    notes = tmp_path / "notes.txt"
    notes.write_text("line 1\nline 2 without a newline")
    run = mrtr("--stdio", BATCH, "batch", str(batch), "--resume", str(notes))
    assert run.code == 2 and "line 1 is not a batch record" in run.stderr
    assert notes.read_text() == "line 1\nline 2 without a newline"
    for text in ('{"name": "x", "version": "1.0"}', "secret-token-abc", '{"id": "a", "call": "echo"}'):  # no newline
        other = tmp_path / "other.json"
        other.write_text(text)
        run = mrtr("--stdio", BATCH, "batch", str(batch), "--resume", str(other))
        assert run.code == 2 and "not a batch record" in run.stderr and other.read_text() == text
    for option in ("--resume", "-o"):
        run = mrtr("--stdio", BATCH, "batch", str(batch), option, str(batch))
        assert run.code == 2 and "same file" in run.stderr and option in run.stderr
    assert len(batch.read_text().splitlines()) == 2


def test_an_output_file_is_left_alone_when_the_batch_cannot_start(mrtr, tmp_path):
    batch = write_lines(tmp_path / "b.jsonl", echo_lines(2))
    out = tmp_path / "keep.jsonl"
    out.write_text('{"id": "old", "line": 1, "exitCode": 0, "result": {}}\n')
    run = mrtr("--stdio", "no-such-command-mrtr", "batch", str(batch), "-o", str(out))
    assert run.code == 3
    assert "old" in out.read_text()


def test_a_second_run_cannot_write_the_same_records_file(tmp_path):
    path = str(tmp_path / "out.jsonl")
    first = open_output(path, append=True)
    try:
        with pytest.raises(UsageError, match="another mrtr batch is writing it"):
            open_output(path, append=True)
    finally:
        first.close()
    open_output(path, append=True).close()  # free again once the first has finished


def test_retry_failed_does_not_rerun_a_line_whose_id_a_later_line_repeats(mrtr, tmp_path):
    batch = write_lines(tmp_path / "b.jsonl", [{"id": "x", "call": "pid"}, {"id": "x", "call": "pid"}])
    out = tmp_path / "out.jsonl"
    mrtr("--stdio", BATCH, "batch", str(batch), "--resume", str(out))
    first_pid = records(out.read_text())[0]["result"]["content"][0]["text"]
    run = mrtr("--stdio", BATCH, "batch", str(batch), "--resume", str(out), "--retry-failed")
    assert "1 recorded earlier" in run.stderr
    ok = [r for r in records(out.read_text()) if r["exitCode"] == 0]
    assert len(ok) == 1 and ok[0]["result"]["content"][0]["text"] == first_pid  # line 1 ran once


# ---------------------------------------------------------------------- Ctrl-C
def test_ctrl_c_while_the_server_starts_is_exit_130(tmp_path):
    script = tmp_path / "hang.json"
    script.write_text(json.dumps({"startDelay": 20, "calls": {}}))
    batch = write_lines(tmp_path / "b.jsonl", echo_lines(3))
    proc = subprocess.Popen([PY, "-m", "mrtr_cli", "--stdio", stdio_cmd(SERVERS / "raw_server.py", str(script)),
                             "batch", str(batch)], cwd=ROOT, env=clean_env(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The server is starting (its process runs, still in its 20 s start delay): mrtr waits on it.
    wait_for(lambda: any("raw_server.py" in command_line(c) for c in children_of(proc.pid)), what="server started")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=SAFETY)
    assert proc.returncode == 130, err
    assert "interrupted" in err and out == ""


def test_ctrl_c_names_the_tasks_lines_were_waiting_for(http_servers, tmp_path):
    url = http_servers.start(SERVERS / "task_server.py")
    batch = write_lines(tmp_path / "b.jsonl", [{"id": "s1", "call": "slow", "arguments": {"seconds": 30}},
                                               {"id": "s2", "call": "slow", "arguments": {"seconds": 30}}])
    proc = subprocess.Popen([PY, "-m", "mrtr_cli", *url_args(url), "batch", str(batch), "-j", "2"], cwd=ROOT,
                            env=clean_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watch = LineWatch(proc.stderr)
    # Both lines wait on their task: each task was polled once (a status line per poll on stderr).
    watch.wait_until(lambda lines: len({line.split(":")[1] for line in lines if ": working: working:" in line}) == 2)
    proc.send_signal(signal.SIGINT)
    _, err = communicate(proc, watch)
    assert proc.returncode == 130, err
    named = [line for line in err.splitlines() if "is still running on the server; finish it with:" in line]
    assert len(named) == 2 and all("task wait" in line for line in named), err


def test_sigterm_while_waiting_on_a_task_is_handled_like_ctrl_c(http_servers, tmp_path):
    url = http_servers.start(SERVERS / "task_server.py")
    proc = subprocess.Popen([PY, "-m", "mrtr_cli", *url_args(url), "call", "slow", "seconds:=3600"], cwd=ROOT,
                            env=clean_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watch = LineWatch(proc.stderr)
    watch.wait_until(lambda lines: any(": working: working:" in line for line in lines))  # polled once: waiting
    proc.send_signal(signal.SIGTERM)
    out, err = communicate(proc, watch)
    assert proc.returncode == 130, err
    assert "is still running on the server" in err and "task wait" in err and out == ""
