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

from tests.conftest import PY, SERVERS, read_records, stdio_cmd

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


# Every file the run reads is one of its files, however it is named: `--args @FILE`, an
# argument `KEY=@FILE` / `KEY:=@FILE`, `--config FILE` and the config file found by default,
# a batch line's `answersFile`, a secret file, each of several `--answers`; named by the
# same path, a symlink or a hard link. None is written over (userfiles.RunFiles).

def _spelled(tmp_path: Path, target: Path, spelling: str) -> Path:
    """`target` as an output names it: itself, a symlink to it or a hard link to it."""
    if spelling == "same":
        return target
    other = tmp_path / f"{spelling.replace(' ', '-')}-{target.name}"
    if spelling == "symlink":
        other.symlink_to(target)
    else:
        os.link(target, other)
    return other


@pytest.mark.parametrize("output", ["--trace", "--save-answers"])
@pytest.mark.parametrize("spelling", ["same", "symlink", "hard link"])
@pytest.mark.parametrize(("form", "named"), [
    (["--args", "@{file}"], "--args @"),
    (["text=@{file}"], "text=@"),
    (["text:=@{file}"], "text:=@"),
])
def test_a_call_never_writes_over_a_file_its_arguments_are_read_from(mrtr, tmp_path, output, spelling, form, named):
    record = tmp_path / "record.jsonl"
    source = tmp_path / "in.json"
    source.write_text('{"text": "hi"}' if form[0] == "--args" else '"hi"')
    before = source.read_text()
    out = _spelled(tmp_path, source, spelling)
    given = [word.format(file=source) for word in form]
    run = mrtr("--stdio", stdio_cmd(BATCH, "--record", str(record)), "call", "echo", *given, output, out)
    assert run.code == 2, run.stderr
    assert f"{output} {out}" in run.stderr and f"{named}{source}" in run.stderr and "same file" in run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""
    assert calls(record) == [] and source.read_text() == before


def test_a_call_reading_its_arguments_from_another_file_runs(mrtr, tmp_path):
    source = tmp_path / "in.json"
    source.write_text('{"text": "hi"}')
    run = mrtr("--stdio", stdio_cmd(BATCH), "call", "echo", "--args", f"@{source}", "--trace", tmp_path / "t.jsonl")
    assert run.code == 0 and run.stdout.strip() == "hi", run.stderr


def test_the_last_of_several_answer_files_is_never_written_over(mrtr, tmp_path, files):
    record = tmp_path / "record.jsonl"
    before = files["hard"].read_text()
    run = mrtr(*forms(record), "call", "sign_in", "--answers", files["answers"], "--answers", files["batch"],
               "--save-answers", files["hard"])
    assert run.code == 2 and "--answers" in run.stderr and "same file" in run.stderr, run.stderr
    assert calls(record) == [] and files["hard"].read_text() == before


def _config(where: Path, record: Path) -> Path:
    where.write_text(json.dumps({"mcpServers": {"work": {"command": PY, "args": [
        str(BATCH), "--record", str(record)]}}}))
    return where


@pytest.mark.parametrize("output", ["--trace", "--save-answers"])
@pytest.mark.parametrize("spelling", ["same", "symlink", "hard link"])
@pytest.mark.parametrize("found", ["--config", "by default"])
def test_a_call_never_writes_over_its_config_file(mrtr, tmp_path, output, spelling, found):
    record = tmp_path / "record.jsonl"
    home = tmp_path / "home"  # the test's home folder (conftest.clean_env), where ~/.claude.json is found
    home.mkdir(exist_ok=True)
    config = _config(home / ".claude.json" if found == "by default" else tmp_path / "servers.json", record)
    before = config.read_text()
    out = _spelled(tmp_path, config, spelling)
    given = ["--config", config] if found == "--config" else []
    run = mrtr(*given, "-s", "work", "call", "echo", "text=hi", output, out)
    assert run.code == 2, run.stderr
    assert f"{output} {out}" in run.stderr and "same file" in run.stderr and "Traceback" not in run.stderr
    assert calls(record) == [] and config.read_text() == before


@pytest.mark.parametrize("spelling", ["same", "symlink", "hard link"])
def test_a_call_never_writes_over_its_client_secret_file(mrtr, tmp_path, spelling):
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cr3t\n")
    out = _spelled(tmp_path, secret, spelling)
    for given, env in ((["--client-id", "c", "--client-secret-file", secret], {}),
                       ([], {"MRTR_CLIENT_ID": "c", "MRTR_CLIENT_SECRET_FILE": str(secret)})):
        run = mrtr("--url", "http://127.0.0.1:9/mcp", *given, "call", "echo", "--trace", out, env=env)
        assert run.code == 2, run.stderr
        assert f"--trace {out}" in run.stderr and "same file" in run.stderr and "Traceback" not in run.stderr
        assert secret.read_text() == "s3cr3t\n"


@pytest.mark.parametrize("spelling", ["same", "symlink", "hard link"])
@pytest.mark.parametrize("output", ["--trace", "-o"])
def test_a_batch_never_writes_over_a_lines_answer_file(mrtr, tmp_path, files, spelling, output):
    record = tmp_path / "record.jsonl"
    answers = files["answers"]
    before = answers.read_text()
    batch = files["batch"]
    batch.write_text(batch.read_text() + json.dumps({"id": "e2", "call": "echo", "arguments": {"text": "t2"},
                                                     "answersFile": answers.name}) + "\n")
    out = _spelled(tmp_path, answers, spelling) if spelling != "same" else answers
    run = mrtr("--stdio", stdio_cmd(BATCH, "--record", str(record)), "batch", batch, output, out)
    assert run.code == 2, run.stderr
    # the file the line reads is named as that line's: the line number never in front of the output's name
    assert f"mrtr: error: {output} {out} and the answer file of line 2 ({answers}) are the same file" in run.stderr, \
        run.stderr
    assert calls(record) == [] and answers.read_text() == before and run.stdout == ""


def test_a_shell_line_never_writes_over_a_file_it_reads_nor_reads_the_shells_trace(mrtr, tmp_path):
    record = tmp_path / "record.jsonl"
    trace = tmp_path / "shell-trace.jsonl"
    source = tmp_path / "in.json"
    source.write_text('{"text": "hi"}')
    hard = _spelled(tmp_path, source, "hard link")
    script = (f"call echo --args @{source} --save-answers {hard}\n"
              f"call echo text=@{trace}\n"
              f"call echo --args @{source}\n")
    run = mrtr("--stdio", stdio_cmd(BATCH, "--record", str(record)), "--trace", trace, "shell", input=script)
    assert f"--save-answers {hard} and --args @{source} are the same file" in run.stderr, run.stderr
    assert f"the shell's --trace {trace} and text=@{trace} are the same file" in run.stderr, run.stderr
    assert run.stdout.strip() == "hi" and source.read_text() == '{"text": "hi"}'
    assert calls(record).count("tools/call") == 1


@pytest.mark.parametrize("spelling", ["same", "symlink", "hard link"])
@pytest.mark.parametrize("named_by", ["-H", "config"])
def test_a_call_never_writes_over_a_file_a_header_value_is_read_from(mrtr, tmp_path, spelling, named_by):
    token = tmp_path / "home" / "token.txt"
    token.parent.mkdir(exist_ok=True)
    token.write_text("s3cr3t\n")
    out = _spelled(tmp_path, token, spelling)
    if named_by == "-H":
        given = ["--url", "http://127.0.0.1:9/mcp", "-H", f"Authorization: Bearer file:{token}"]
    else:  # the user's own config (~/.claude.json), whose file: references are read
        remote = {"type": "http", "url": "http://127.0.0.1:9/mcp",
                  "headers": {"Authorization": "Bearer file:~/token.txt"}}
        (tmp_path / "home" / ".claude.json").write_text(json.dumps({"mcpServers": {"remote": remote}}))
        given = ["-s", "remote"]
    run = mrtr(*given, "call", "echo", "--trace", out)
    assert run.code == 2, run.stderr
    assert f"--trace {out}" in run.stderr and "same file" in run.stderr and "Traceback" not in run.stderr
    # the header's file named as the header's, after the output (never the header in front of it all)
    home_config = tmp_path / "home" / ".claude.json"
    header = "-H Authorization" if named_by == "-H" else f"{home_config}: server 'remote': header Authorization"
    named = token if named_by == "-H" else "~/token.txt"  # as the config writes it
    assert f"mrtr: error: --trace {out} and the file of {header} ({named}) are the same file" in run.stderr, \
        run.stderr
    assert "s3cr3t" not in run.stderr and token.read_text() == "s3cr3t\n"
