"""Lines of a `mrtr shell` script and the files they name, against
tests/servers/idle_asker_server.py (one tool, `x`): a byte order mark at the start of the
script or of an answer file is no part of it, a `--json` error names its line, and a count
of one is said in the singular.
"""

from __future__ import annotations

import json

from tests.conftest import SERVERS, stdio_cmd

IDLE_ASKER = SERVERS / "idle_asker_server.py"


def target(tmp_path, *extra: str) -> list[str]:
    return ["--stdio", stdio_cmd(IDLE_ASKER, str(tmp_path / "replies.jsonl"), "--count", "0", *extra)]


def test_a_byte_order_mark_starts_no_command(mrtr, tmp_path):
    run = mrtr(*target(tmp_path), "shell", input="\ufeffcall x\r\ncall x\r\n")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines() == ["x result", "x result"]


def test_an_answer_file_with_a_byte_order_mark_is_read(mrtr, tmp_path):
    answers = tmp_path / "answers.json"
    body = {"inputResponses": {"elicitation-1": {"action": "accept", "content": {"who": "me"}}}}
    answers.write_bytes(b"\xef\xbb\xbf" + json.dumps(body).encode())
    run = mrtr(*target(tmp_path, "--ask-in-list"), "call", "x", "--answers", str(answers))
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines() == ["x result"]
    assert "BOM" not in run.stderr


def test_a_json_error_names_its_line(mrtr, tmp_path):
    run = mrtr("--json", *target(tmp_path), "shell", input="call x\ncall x --bogus\ncall y\n")
    assert run.code == 2, run.stderr
    errors = [json.loads(line) for line in run.stderr.splitlines() if line.startswith('{"error"')]
    assert [e["line"] for e in errors] == [2, 3], run.stderr
    assert errors[1]["error"]["exitCode"] == 2 and errors[1]["error"]["data"] is None


def test_one_tool_is_one_tool(mrtr, tmp_path):
    run = mrtr(*target(tmp_path), "call", "nothing_like_it")
    assert run.code == 2, run.stderr
    assert "the tools command lists the server's one tool" in run.stderr, run.stderr
    assert "1 tools" not in run.stderr


def test_a_task_hint_inside_the_shell_is_a_shell_command_that_works(tmp_path):
    """A task detached over stdio inside the shell lives as long as the shell's server: the
    note says so and names `task wait ID` as typed at the shell's prompt (no `mrtr --stdio`,
    which the shell refuses), and that command, typed next, finishes the task."""
    import subprocess

    from tests.conftest import PY, ROOT, clean_env
    from tests.support import SAFETY

    builds = ROOT / "examples" / "servers" / "builds.py"
    proc = subprocess.Popen([PY, "-m", "mrtr_cli", "--stdio", stdio_cmd(builds), "shell"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=clean_env(tmp_path), cwd=ROOT)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("call build target=web seconds=0.2 --detach\n")
        proc.stdin.flush()
        task_id = proc.stdout.readline().strip()
        out, err = proc.communicate(f"task wait {task_id}\n", timeout=SAFETY)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert f"`task wait {task_id}`" in err, err
    assert "mrtr --stdio" not in err and "ends with this run" not in err, err
    assert "web" in out, out


def run_script(tmp_path, script: bytes, *options: str) -> tuple[int, str, str]:
    """`mrtr [OPTIONS] --stdio IDLE_ASKER shell` reading `script` as bytes: (exit code, stdout, stderr)."""
    import subprocess

    from tests.conftest import PY, ROOT, clean_env
    from tests.support import SAFETY

    proc = subprocess.run([PY, "-m", "mrtr_cli", *options, *target(tmp_path), "shell"], input=script,
                          capture_output=True, env=clean_env(tmp_path), cwd=ROOT, timeout=SAFETY, check=False)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def test_a_line_that_is_no_command_line_is_said_for_what_it_is_and_the_next_runs(tmp_path):
    """Too long, not UTF-8, or holding a NUL (no command line can): that line's exit 2, said
    with its number and what it is (the limit for a long one), also in the line naming the
    first failing line; the lines after it run. A line of just the limit and its `\\r\\n`,
    and a last line with no line end, run."""
    from mrtr_cli.shell.script import MAX_LINE_BYTES

    at_limit = b"call x" + b" " * (MAX_LINE_BYTES - 6) + b"\r\n"
    script = (b"call x\n" + b"a" * (MAX_LINE_BYTES + 1) + b"\ncall x\ncall \xff\ncall x\x00y\n" + at_limit
              + b"call x")
    code, out, err = run_script(tmp_path, script)
    assert code == 2, err
    assert out.splitlines() == ["x result"] * 4, err
    errors = [line for line in err.splitlines() if line.startswith("mrtr: error:")]
    assert errors == [f"mrtr: error: line 2: the line is longer than {MAX_LINE_BYTES} bytes (1 MiB); it was not run",
                      "mrtr: error: line 4: the line is not UTF-8 text; it was not run",
                      "mrtr: error: line 5: the line holds a NUL character, which no command line can "
                      "(a binary file?); it was not run"], err
    assert err.splitlines()[-1] == (f"mrtr: shell: exit 2: the first failing line is line 2 "
                                    f"(not run: longer than {MAX_LINE_BYTES} bytes)"), err
    assert "unreadable" not in err


def test_a_json_first_failure_that_was_not_read_names_no_command(tmp_path):
    code, _, err = run_script(tmp_path, b"call x\ncall \xff\ncall y\n", "--json")
    assert code == 2, err
    last = json.loads(err.splitlines()[-1])
    assert last == {"shell": {"exitCode": 2, "firstFailure": {"line": 2, "command": None, "notRun": "not UTF-8"}}}


def test_a_line_that_cannot_be_split_says_why(mrtr, tmp_path):
    """A backslash ending a line escapes nothing (a command does not go on to the next
    line): never "close the quote"; an unclosed quote is named with its place, and how to
    write that quote inside a value."""
    run = mrtr(*target(tmp_path), "shell", input="call x \\\ncall x\ncall x 'it\\'s'\ncall x \"a\\\n")
    assert run.code == 2, run.stderr
    assert run.stdout.splitlines() == ["x result"]
    lines = run.stderr.splitlines()
    first = lines.index("mrtr: error: line 1: cannot split the line into words: it ends in a backslash, "
                        "which escapes nothing (a command does not continue on the next line)")
    assert lines[first + 1] == ("  write the whole command on one line; "
                                "a backslash itself is written \\\\ or inside '...'")
    third = lines.index("mrtr: error: line 3: cannot split the line into words: the ' at character 14 is never closed")
    assert lines[third + 1] == ("  close it with another '; "
                                "a ' inside a value is written \\' outside quotes, or inside \"...\"")
    assert "mrtr: error: line 4: cannot split the line into words: the \" at character 8 is never closed" in lines
    assert "close the quote" not in run.stderr
