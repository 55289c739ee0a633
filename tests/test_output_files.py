"""The files of one run (`--answers`, the batch input, a pending document, `--trace`,
`--save-answers`, batch `-o` / `--resume`) are checked before anything is sent: an output
is never another of the run's files (same path, a symlink or a hard link to it), and every
output goes through one rule (a dangling symlink, a name ending in `/`), also on a line of
`mrtr shell`. Real servers over stdio."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import SERVERS, read_records, stdio_cmd

FORMS = SERVERS / "forms_server.py"
BATCH = SERVERS / "batch_server.py"
ANSWERS = {"inputResponses": {"login": {"action": "accept", "content": {"user": "ada", "pin": "2468"}},
                              "terms": {"action": "accept", "content": {"agree": True}},
                              "otp": {"action": "accept", "content": {"code": "777111"}}}}


def forms(record: Path) -> list[str]:
    return ["--stdio", stdio_cmd(FORMS, "--record", str(record))]


def calls(record: Path) -> list[str]:
    """The methods of the requests the server received (none when it was never started; no era probe)."""
    return [m.get("method") for m in read_records(record) if "id" in m]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps(ANSWERS))
    batch = tmp_path / "b.jsonl"
    batch.write_text('{"id": "e1", "call": "echo", "arguments": {"text": "t1"}}\n')
    (tmp_path / "link.json").symlink_to(answers)
    os.link(answers, tmp_path / "hard.json")
    return {"answers": answers, "batch": batch, "link": tmp_path / "link.json", "hard": tmp_path / "hard.json",
            "trace": tmp_path / "t.jsonl"}


@pytest.mark.parametrize(("first", "second"), [
    ("--save-answers", "--trace"),
    ("--answers", "--save-answers"),
    ("--answers", "--trace"),
])
@pytest.mark.parametrize("spelling", ["same", "symlink", "hard link", "dotted"])
def test_a_call_whose_output_is_another_of_its_files_is_refused_before_anything_is_sent(
        mrtr, tmp_path, files, first, second, spelling):
    record = tmp_path / "record.jsonl"
    answers = files["answers"]
    before = answers.read_text()
    if first == "--answers":
        one, other = answers, {"same": answers, "symlink": files["link"], "hard link": files["hard"],
                               "dotted": tmp_path / "x" / ".." / "a.json"}[spelling]
        extra = []
    else:
        one = tmp_path / "out.json"
        other = {"same": one, "symlink": tmp_path / "out-link.json", "hard link": one,
                 "dotted": tmp_path / "x" / ".." / "out.json"}[spelling]
        if spelling == "symlink":
            other.symlink_to(one)
        extra = ["--answers", str(answers)]
    (tmp_path / "x").mkdir()
    run = mrtr(*forms(record), "call", "sign_in", *extra, first, one, second, other)
    assert run.code == 2, run.stderr
    assert first in run.stderr and second in run.stderr and "same file" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""
    assert calls(record) == []
    assert answers.read_text() == before


def test_different_files_are_all_written(mrtr, tmp_path, files):
    record = tmp_path / "record.jsonl"
    saved, trace = tmp_path / "saved.json", tmp_path / "trace.jsonl"
    run = mrtr(*forms(record), "call", "sign_in", "--answers", files["answers"], "--answers", files["link"],
               "--save-answers", saved, "--trace", trace)
    assert run.code == 0, run.stderr
    assert "welcome ada" in run.stdout
    assert json.loads(saved.read_text())["inputResponses"]["login"]["content"]["user"] == "ada"
    assert trace.read_text().strip()


@pytest.mark.parametrize(("args", "named"), [
    (["-o", "{trace}", "--trace", "{trace}"], ("-o", "--trace")),
    (["--answers", "{answers}", "-o", "{answers}"], ("--answers", "-o")),
    (["--answers", "{answers}", "--resume", "{link}"], ("--answers", "--resume")),
    (["--trace", "{batch}"], ("FILE.jsonl", "--trace")),
    (["-o", "{batch}"], ("FILE.jsonl", "-o")),
    (["--resume", "{batch}"], ("FILE.jsonl", "--resume")),
])
def test_a_batch_whose_output_is_another_of_its_files_is_refused(mrtr, tmp_path, files, args, named):
    record = tmp_path / "record.jsonl"
    files["trace"].write_text("kept\n")
    keep = {path: path.read_bytes() for path in (files["answers"], files["batch"], files["trace"])}
    given = [arg.format(**{k: str(v) for k, v in files.items()}) for arg in args]
    run = mrtr("--stdio", stdio_cmd(BATCH, "--record", str(record)), "batch", files["batch"], *given)
    assert run.code == 2, run.stderr
    assert all(name in run.stderr for name in named) and "same file" in run.stderr, run.stderr
    assert calls(record) == []
    assert {path: path.read_bytes() for path in keep} == keep


def test_resume_refuses_writing_over_its_pending_document(mrtr, tmp_path):
    record = tmp_path / "record.jsonl"
    stopped = mrtr(*forms(record), "call", "two_rounds", "--no-input")
    assert stopped.code == 5, stopped.stderr
    pending = tmp_path / "pending.json"
    pending.write_text(stopped.stdout)
    record.write_text("")
    for option in ("--save-answers", "--trace"):
        run = mrtr("resume", pending, "-a", "city=Oslo", "-a", "nights=2", option, pending)
        assert run.code == 2 and "same file" in run.stderr and option in run.stderr, run.stderr
        assert pending.read_text() == stopped.stdout
    assert calls(record) == []


@pytest.mark.parametrize("option", ["--save-answers", "--trace"])
@pytest.mark.parametrize("where", ["dangling symlink", "trailing slash"])
def test_an_output_that_cannot_be_created_is_refused_before_the_call(mrtr, tmp_path, files, option, where):
    record = tmp_path / "record.jsonl"
    if where == "dangling symlink":
        path = tmp_path / "d"
        path.symlink_to("/nonexistent/x")
        given = str(path)
    else:
        given = str(tmp_path / "dir2") + "/"
    run = mrtr(*forms(record), "call", "sign_in", "--answers", files["answers"], option, given)
    assert run.code == 2, run.stderr
    assert option in run.stderr and "Traceback" not in run.stderr and run.stdout == ""
    assert "tools/call" not in calls(record)


def test_a_shell_line_refuses_an_output_before_the_call_and_the_shell_goes_on(mrtr, tmp_path, files):
    record = tmp_path / "record.jsonl"
    trace = tmp_path / "shell-trace.jsonl"
    dangling = tmp_path / "d"
    dangling.symlink_to("/nonexistent/x")
    a = files["answers"]
    script = (f"call sign_in --answers {a} --save-answers {dangling}\n"
              f"call sign_in --answers {a} --save-answers {tmp_path / 'dir2'}/\n"
              f"call sign_in --answers {a} --save-answers {a}\n"
              f"call sign_in --answers {a} --save-answers {trace}\n"
              f"call sign_in --answers {a}\n")
    before = a.read_text()
    run = mrtr(*forms(record), "--trace", trace, "shell", input=script)
    assert run.stderr.count("--save-answers") >= 4, run.stderr
    assert run.stderr.count("same file") == 2, run.stderr
    assert calls(record).count("tools/call") == 3, run.stderr  # only the last line: the call and its two rounds
    assert a.read_text() == before


def test_batch_records_named_by_a_symlink_to_the_resume_file_are_appended_to_it(mrtr, tmp_path, files):
    batch = files["batch"]
    batch.write_text(batch.read_text() + '{"id": "e2", "call": "echo", "arguments": {"text": "t2"}}\n')
    out = tmp_path / "out.jsonl"
    out.write_text('{"id": "e1", "line": 1, "exitCode": 0, "result": {}}\n')
    link = tmp_path / "out-link.jsonl"
    link.symlink_to(out)
    run = mrtr("--stdio", stdio_cmd(BATCH), "batch", batch, "--resume", out, "-o", link)
    assert run.code == 0, run.stderr
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["e1", "e2"]
