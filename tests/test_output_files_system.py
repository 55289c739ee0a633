"""Output files checked the way the system will open them, before anything is sent: stdin
redirected from a file the run reads (a shell script, `--args -`, `--answers -`, batch
input `-`) is one of the run's inputs, never written over; a name the kernel cannot create
(a missing folder before `..`, a symlink loop, `FILE/.`, a path through a regular file) is
refused at once; a FIFO a failed shell line claimed is closed when the line ends. Real
servers over stdio; stdin is a real file."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.bounds import SAFETY
from tests.conftest import PY, ROOT, SERVERS, Run, clean_env, read_records, stdio_cmd

FORMS = SERVERS / "forms_server.py"
BATCH = SERVERS / "batch_server.py"
ANSWERS = {"inputResponses": {"login": {"action": "accept", "content": {"user": "ada", "pin": "2468"}},
                              "terms": {"action": "accept", "content": {"agree": True}},
                              "otp": {"action": "accept", "content": {"code": "777111"}}}}


def run_from(tmp_path: Path, stdin: Path, *args: object) -> Run:
    """`mrtr ARGS < STDIN`: stdin is the regular file `stdin`, as a shell redirects it."""
    with stdin.open("rb") as source:
        proc = subprocess.run([PY, "-m", "mrtr_cli", *map(str, args)], stdin=source, capture_output=True,
                              text=True, env=clean_env(tmp_path, {"PYTHONPATH": str(ROOT)}), cwd=tmp_path,
                              timeout=SAFETY)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def calls(record: Path) -> list[str]:
    return [m.get("method") for m in read_records(record) if "id" in m] if record.exists() else []


def test_a_shell_script_redirected_from_a_file_is_never_written_over(tmp_path):
    record = tmp_path / "record.jsonl"
    script = tmp_path / "s.txt"
    text = f"call echo text=one --save-answers {script}\ncall echo text=two\n"
    script.write_text(text)
    run = run_from(tmp_path, script, "--stdio", stdio_cmd(BATCH, "--record", str(record)), "shell")
    assert f"standard input and --save-answers {script} are the same file" in run.stderr, run.stderr
    assert script.read_text() == text
    assert run.stdout.splitlines() == ["two"], run.stderr
    assert calls(record).count("tools/call") == 1


def test_the_shells_own_output_is_never_its_script(tmp_path):
    record = tmp_path / "record.jsonl"
    script = tmp_path / "s.txt"
    text = "call echo text=one\n"
    script.write_text(text)
    run = run_from(tmp_path, script, "--stdio", stdio_cmd(BATCH, "--record", str(record)), "--trace", script, "shell")
    assert run.code == 2 and "same file" in run.stderr and "standard input" in run.stderr, run.stderr
    assert script.read_text() == text and calls(record) == []


@pytest.mark.parametrize("spelling", ["same", "symlink", "hard link"])
@pytest.mark.parametrize("reader", ["--args -", "--answers -", "batch -"])
def test_stdin_redirected_from_a_file_the_run_reads_is_never_written_over(tmp_path, spelling, reader):
    record = tmp_path / "record.jsonl"
    source = tmp_path / "in.json"
    if reader == "--args -":
        text = '{"text": "hi"}'
        words = ["--stdio", stdio_cmd(BATCH, "--record", str(record)), "call", "echo", "--args", "-"]
        option = "--save-answers"
    elif reader == "--answers -":
        text = json.dumps(ANSWERS)
        words = ["--stdio", stdio_cmd(FORMS, "--record", str(record)), "call", "sign_in", "--answers", "-"]
        option = "--save-answers"
    else:
        text = '{"id": "e1", "call": "echo", "arguments": {"text": "t1"}}\n'
        words = ["--stdio", stdio_cmd(BATCH, "--record", str(record)), "batch", "-"]
        option = "-o"
    source.write_text(text)
    output = {"same": source, "symlink": tmp_path / "link.json", "hard link": tmp_path / "hard.json"}[spelling]
    if spelling == "symlink":
        output.symlink_to(source)
    elif spelling == "hard link":
        os.link(source, output)
    run = run_from(tmp_path, source, *words, option, output)
    assert run.code == 2, run.stderr
    assert f"and {option} {output} are the same file" in run.stderr and "standard input" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""
    assert source.read_text() == text
    assert "tools/call" not in calls(record)


def test_stdin_from_a_file_and_another_output_runs(tmp_path):
    record = tmp_path / "record.jsonl"
    source = tmp_path / "a.json"
    source.write_text(json.dumps(ANSWERS))
    saved = tmp_path / "saved.json"
    run = run_from(tmp_path, source, "--stdio", stdio_cmd(FORMS, "--record", str(record)), "call", "sign_in",
                   "--answers", "-", "--save-answers", saved)
    assert run.code == 0, run.stderr
    assert "welcome ada" in run.stdout
    assert json.loads(saved.read_text())["inputResponses"]["login"]["content"]["user"] == "ada"


def _unwritable(tmp_path: Path, where: str) -> str:
    (tmp_path / "plain.json").write_text("{}")
    if where == "loop":
        (tmp_path / "loopy").symlink_to("loopy")
        return "loopy"
    return {"missing folder then ..": "nosuch/../x.json", "missing file then /.": "q.json/.",
            "through a regular file": "plain.json/y", "regular file then /.": "plain.json/."}[where]


@pytest.mark.parametrize("option", ["--save-answers", "--trace"])
@pytest.mark.parametrize("where", ["missing folder then ..", "loop", "missing file then /.",
                                   "through a regular file", "regular file then /."])
def test_an_output_the_system_cannot_open_is_refused_before_the_call(tmp_path, option, where):
    record = tmp_path / "record.jsonl"
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps(ANSWERS))
    given = _unwritable(tmp_path, where)
    run = run_from(tmp_path, answers, "--stdio", stdio_cmd(FORMS, "--record", str(record)), "call", "sign_in",
                   "--answers", answers, option, given)
    assert run.code == 2, run.stderr
    assert f"{option} {given}" in run.stderr and "Traceback" not in run.stderr and run.stdout == "", run.stderr
    assert "tools/call" not in calls(record)
    if where == "through a regular file":  # (it exists: it is no folder)
        assert "plain.json is not a folder" in run.stderr, run.stderr
    if where == "missing folder then ..":  # the part the system cannot walk through
        assert "the folder nosuch does not exist" in run.stderr, run.stderr
    assert (tmp_path / "plain.json").read_text() == "{}"


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")
def test_a_fifo_a_failed_shell_line_claimed_is_closed_when_the_line_ends(tmp_path):
    record = tmp_path / "record.jsonl"
    fifo = tmp_path / "ff"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # its reader: the line can claim it
    results: queue.Queue[str] = queue.Queue()
    proc = subprocess.Popen([PY, "-m", "mrtr_cli", "--stdio", stdio_cmd(BATCH, "--record", str(record)), "shell"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=clean_env(tmp_path), cwd=ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    stdout = proc.stdout
    threading.Thread(target=lambda: [results.put(line) for line in stdout], daemon=True).start()
    try:
        proc.stdin.write(f"call echo text=one --save-answers {fifo} --args @{tmp_path / 'nosuch.json'}\n"
                         "call echo text=two\n")
        proc.stdin.flush()
        assert results.get(timeout=SAFETY) == "two\n"  # the next line's result: the failed line has ended
        # end of file (no writer holds it any more), not "nothing yet" (EAGAIN: still held open)
        assert os.read(reader, 100) == b""
        proc.stdin.close()
        assert proc.stderr is not None
        err = proc.stderr.read()  # to its end: the shell ended
        assert "nosuch.json" in err, err
    finally:
        os.close(reader)
        if proc.poll() is None:
            proc.kill()
        proc.wait(SAFETY)


@pytest.mark.parametrize("option", ["--save-answers", "--trace"])
def test_resume_never_writes_over_the_pending_document_it_reads_from_stdin(tmp_path, option):
    record = tmp_path / "record.jsonl"
    stopped = subprocess.run([PY, "-m", "mrtr_cli", "--stdio", stdio_cmd(FORMS, "--record", str(record)), "call",
                              "two_rounds", "--no-input"], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                             env=clean_env(tmp_path), cwd=ROOT, timeout=SAFETY)
    assert stopped.returncode == 5, stopped.stderr
    pending = tmp_path / "pending.json"
    pending.write_text(stopped.stdout)
    record.write_text("")
    run = run_from(tmp_path, pending, "resume", "-", "-a", "city=Oslo", "-a", "nights=2", option, pending)
    assert run.code == 2, run.stderr
    assert f"standard input and {option} {pending} are the same file" in run.stderr, run.stderr
    assert pending.read_text() == stopped.stdout and calls(record) == []
