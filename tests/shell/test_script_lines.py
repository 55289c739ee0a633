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
