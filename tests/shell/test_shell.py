"""`mrtr shell` from a script (stdin not a terminal), against the SDK test server
tests/servers/shell_server.py over stdio and HTTP, the bundled example server and an older
(2025-06-18) server: one session for every line, results in order, the exit code of the
first failing line, `--fail-fast`, pending documents and a bare `resume`, a server that
dies and is started again, options the shell refuses. And the shell's pure parts in this
process: splitting a line, completion, what the history file keeps.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mrtr_cli.platform import shellwords
from tests.conftest import EXAMPLE_SERVER, PY, ROOT, SERVERS, HttpServers, clean_env, read_records, stdio_cmd, url_args
from tests.support import SAFETY, LineWatch, end_script, read_line

SHELL_SERVER = SERVERS / "shell_server.py"
LEGACY_SERVER = SERVERS / "legacy_server.py"


class Server:
    """The shell test server over one transport, with the record of what it received and
    the events it wrote (`start` once per process)."""

    def __init__(self, kind: str, tmp_path: Path, http_servers: HttpServers):
        self.kind = kind
        self.events = tmp_path / f"events-{kind}.jsonl"
        self.record = tmp_path / f"record-{kind}.jsonl"
        extra = ["--events", str(self.events), "--record", str(self.record)]
        self.args = (["--stdio", stdio_cmd(SHELL_SERVER, *extra)] if kind == "stdio"
                     else url_args(http_servers.start(SHELL_SERVER, *extra)))

    def events_of(self, name: str) -> list[dict]:
        lines = self.events.read_text().splitlines() if self.events.exists() else []
        return [e for e in map(json.loads, lines) if e["event"] == name]

    def requests(self, method: str) -> list[dict]:
        return [m for m in read_records(self.record) if m.get("method") == method and "id" in m]


@pytest.fixture(params=["stdio", "http"])
def server(request: pytest.FixtureRequest, tmp_path: Path, http_servers: HttpServers) -> Server:
    return Server(request.param, tmp_path, http_servers)


def shell(mrtr, target: list[str], script: str, *options: str, env: dict[str, str] | None = None):
    """`mrtr TARGET shell OPTIONS` with `script` on stdin."""
    return mrtr(*target, "shell", *options, input=script, env=env)


def test_lines_run_in_order_over_one_session(mrtr, server):
    run = shell(mrtr, server.args, "# a comment\n\ncall echo text=one\n   \n  # indented comment\n"
                "call set_state item=3 state=Active --json\ncall echo 'text=two words'\ncall pid\ncall pid\n")
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "one"
    assert json.loads(lines[1])["content"][0]["text"] == "item 3 is Active"  # --json on one line only
    assert lines[2] == "two words"
    pids = [line for line in lines[3:] if line.isdigit()]
    assert len(pids) == 2 and pids[0] == pids[1]  # the same server process answered both
    if server.kind == "stdio":
        assert len(server.events_of("start")) == 1
    # One era probe and one tools/list for the whole shell: the list stays valid while the
    # server can say it changed (its subscriptions/listen), though it sends ttlMs 0.
    assert len(server.requests("tools/list")) == 1
    assert len([m for m in read_records(server.record, probe=True) if m.get("method") == "server/discover"]) == 1
    assert len(server.requests("tools/call")) == 5
    assert len(server.requests("subscriptions/listen")) == 1


def test_the_exit_code_is_the_first_failing_lines_and_the_rest_still_run(mrtr, server):
    run = shell(mrtr, server.args, "call echo text=a\ncall nope\ncall set_state item=1 state=Gone\ncall echo text=b\n")
    assert run.code == 2, run.stderr
    assert run.stdout.splitlines() == ["a", "b"]
    assert "mrtr: shell: exit 2: the first failing line is line 2 (call nope)" in run.stderr
    assert "unknown tool 'nope'" in run.stderr
    assert "Traceback" not in run.stderr


def test_fail_fast_stops_after_the_first_failing_line(mrtr, server):
    run = shell(mrtr, server.args, "call echo text=a\ncall nope\ncall echo text=b\n", "--fail-fast")
    assert run.code == 2
    assert run.stdout.splitlines() == ["a"]
    assert len(server.requests("tools/call")) == 1


def test_a_call_that_needs_input_leaves_its_pending_document_and_resume_finishes_it(mrtr, server):
    run = shell(mrtr, server.args, "call unlock\nresume -a password=hunter2\nresume\n")
    assert run.code == 5, run.stderr
    doc, *rest = run.stdout.splitlines()
    pending = json.loads(doc)
    assert pending["params"]["name"] == "unlock" and pending["missing"] == ["secret"]
    assert rest == ["unlocked"]  # the bare resume finished the kept document
    assert "answer and go on here: resume -a FIELD=VALUE ... (fields: password)" in run.stderr
    assert "nothing to resume" in run.stderr  # it was finished: nothing is kept any more
    assert "mrtr: shell: exit 5: the first failing line is line 1 (call unlock)" in run.stderr
    retry = server.requests("tools/call")[-1]["params"]
    assert retry["inputResponses"]["secret"]["content"] == {"password": "hunter2"}


def test_resume_help_needs_no_pending_call(mrtr, server):
    run = shell(mrtr, server.args, "resume --help\nresume -h\n")
    assert run.code == 0, run.stderr
    assert run.stdout.count("Usage: resume [OPTIONS] PENDING") == 2
    assert "nothing to resume" not in run.stderr


def test_nothing_is_ever_asked_from_a_script(mrtr, tmp_path):
    """Even with a terminal on stderr (the shell's stdin is the script), no form is asked."""
    run = mrtr("--stdio", stdio_cmd(EXAMPLE_SERVER), "shell",
               input="call update_work_item workItemId=4522 state=Resolved\n")
    assert run.code == 5
    assert json.loads(run.stdout)["missing"] == ["resolution"]
    assert "no terminal to ask" in run.stderr


def test_a_server_that_dies_is_started_again_by_the_next_command(mrtr, tmp_path, http_servers):
    server = Server("stdio", tmp_path, http_servers)
    run = shell(mrtr, server.args, "call pid\ncall die\ncall pid\ncall echo text=after\n")
    assert run.code == 3, run.stderr
    first, second, after = [line for line in run.stdout.splitlines() if not line.startswith(("{", "}", "  "))]
    assert first != second and after == "after"
    assert [e["pid"] for e in server.events_of("start")] == [int(first), int(second)]
    assert "the server process exited with code 3" in run.stderr
    assert run.stderr.count("mrtr: shell: starting the server again") == 1
    assert "the first failing line is line 2 (call die)" in run.stderr


def test_a_server_that_cannot_be_started_ends_the_shell_with_exit_3(mrtr):
    run = mrtr("--stdio", "/nonexistent/mcp-server", "shell", input="call echo text=a\n")
    assert run.code == 3
    assert run.stderr.startswith("mrtr: error: cannot start the server: command not found: /nonexistent/mcp-server")
    assert run.stdout == ""


def test_over_http_a_refused_connection_is_that_lines_exit_3_and_the_shell_goes_on(tmp_path):
    """The server goes away between two lines, and comes back (a coprocess feeds the lines)."""
    from tests.listening import fixed_port, start_listening
    from tests.prefork import stop_group

    # Both servers bind this port (the URL the shell has): one outside the range port 0 and
    # outgoing connections draw from, so nothing else takes it between the two.
    port = fixed_port()

    def start() -> subprocess.Popen[bytes]:
        # Started directly, not forked from the zygote: the test needs the server gone when
        # its kill returns (a zygote's server ends after its launcher, on its own time, and
        # could still answer line 2). It says it listens there, or fails to start.
        proc, bound = start_listening([PY, SHELL_SERVER, "--http", str(port)])
        assert bound == port
        return proc

    server = start()
    shell_proc = subprocess.Popen([PY, "-m", "mrtr_cli", *url_args(f"http://127.0.0.1:{port}/mcp"), "shell"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=clean_env(tmp_path), cwd=ROOT)
    errors = LineWatch(shell_proc.stderr)
    try:
        shell_proc.stdin.write("call echo text=one\n")
        shell_proc.stdin.flush()
        assert read_line(shell_proc, SAFETY) == "one\n"
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
        shell_proc.stdin.write("call echo text=two\n")
        shell_proc.stdin.flush()
        # Refused, or reset when the dying server's listening socket still took the
        # connection: either way that line's error, before the server is back.
        errors.wait_until(lambda lines: any(line.startswith("mrtr: error:") for line in lines))
        server = start()
        out, err = end_script(shell_proc, "call echo text=three\n", errors)
    finally:
        shell_proc.kill()
        stop_group(server)
    assert shell_proc.returncode == 3, err
    assert out.splitlines() == ["three"]
    assert "the first failing line is line 2 (call echo text=two)" in err
    (failed,) = [line for line in err.splitlines() if line.startswith("mrtr: error:")]
    assert f"127.0.0.1:{port}" in failed and ("refused" in failed or "reset" in failed), failed


def test_target_and_session_options_are_refused_and_the_shell_goes_on(mrtr, server):
    run = shell(mrtr, server.args, "--url http://127.0.0.1:9/mcp tools\ncall echo text=a --stdio 'python x.py'\n"
                "tools -s work\ncall echo text=b -H 'Authorization: Bearer sekrit'\ntools --protocol 2025-11-25\n"
                "call echo text=ok\n")
    assert run.code == 2
    assert run.stdout.splitlines() == ["ok"]
    errors = [line for line in run.stderr.splitlines() if line.startswith("mrtr: error:")]
    assert errors == [
        "mrtr: error: --url: this shell has one server (" + _label(server) + ")",
        "mrtr: error: --stdio: this shell has one server (" + _label(server) + ")",
        "mrtr: error: -s/--server: this shell has one server (" + _label(server) + ")",
        "mrtr: error: -H/--header sets up the session: give it on the shell's own command line",
        "mrtr: error: --protocol sets up the session: give it on the shell's own command line",
    ]
    assert "sekrit" not in run.stderr


def _label(server: Server) -> str:
    return server.args[1] if server.kind == "http" else server.args[1]


def test_commands_that_do_not_run_inside_are_refused_with_why(mrtr, tmp_path):
    run = mrtr("--stdio", stdio_cmd(SHELL_SERVER), "shell",
               input="shell\nbatch lines.jsonl\ncompletion bash\nexit now\ncall echo 'text=open\n")
    assert run.code == 2
    assert [line.split(":")[2].strip() for line in run.stderr.splitlines() if line.startswith("mrtr: error:")] == [
        "line 1", "line 2", "line 3", "line 4", "line 5"]
    assert "shell does not run inside the shell: this is the shell already" in run.stderr
    assert "cannot split the line into words: the ' at character 11 is never closed" in run.stderr


def test_stdin_is_the_shells_own_input_never_a_lines_data(mrtr, tmp_path):
    run = mrtr("--stdio", stdio_cmd(SHELL_SERVER), "shell", input="call echo --args -\ncall echo text=next\n")
    assert run.code == 2
    assert run.stdout.splitlines() == ["next"]  # the next line was not swallowed as data
    assert "inside the shell, stdin carries the shell's own commands" in run.stderr


def test_a_list_change_is_said_and_the_new_tool_is_called(mrtr, server):
    run = shell(mrtr, server.args, "call add_tool name=fresh\ncall fresh\n")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "fresh here"
    assert "mrtr: shell: the server's tool list changed" in run.stderr
    assert len(server.requests("tools/list")) == 2  # fetched again only after the change


def test_help_inside_the_shell(mrtr):
    run = mrtr("--stdio", stdio_cmd(SHELL_SERVER), "shell", input="help\nhelp call\ncall --help\nmrtr --help\n")
    assert run.code == 0, run.stderr
    assert run.stdout.count("Commands run as on the command line, without naming the server") == 2
    assert "  resume                    finish the last call that stopped for input" in run.stdout
    assert run.stdout.count("Usage: call [OPTIONS] TOOL [ARG]...") == 2  # as typed at the shell's prompt


def test_a_hint_inside_the_shell_names_what_works_there(mrtr):
    """Inside the shell a hint names a command as typed at its prompt (`help call`, `tools
    set_state`: the shell has one server, a target option is refused there); the same
    mistakes at the command line name `mrtr call --help` and `mrtr tools set_state` with the
    same target options."""
    target = ["--stdio", stdio_cmd(SHELL_SERVER)]
    lines = "call echo --bogus\ncall set_state item=2 state=Nope\nhelp call extra\nhelp exit-codes more\n"
    run = shell(mrtr, target, lines)
    assert run.code == 2, run.stderr
    assert run.stderr.count("see: help call") == 2, run.stderr
    assert "see the parameters: tools set_state\n" in run.stderr
    assert "see: help exit-codes\n" in run.stderr
    assert "mrtr call" not in run.stderr and "mrtr tools" not in run.stderr and "mrtr help" not in run.stderr
    assert "--url" not in run.stderr, run.stderr
    outside = mrtr(*target, "call", "echo", "--bogus")
    assert outside.code == 2 and "see: mrtr call --help" in outside.stderr, outside.stderr
    outside = mrtr(*target, "call", "set_state", "item=2", "state=Nope")
    assert f"see the parameters: {shellwords.shell_line(['mrtr', *target, 'tools', 'set_state'])}\n" in outside.stderr


def test_options_on_the_shell_line_apply_to_every_line(mrtr):
    """--json on the shell's line: every result as sent, every error (the shell's own
    last line too) one JSON line on stderr."""
    run = mrtr("--stdio", stdio_cmd(SHELL_SERVER), "shell", "--json",
               input="call echo text=a\ncall nope\ncall echo text=b\n")
    assert run.code == 2, run.stderr
    assert [json.loads(line)["content"][0]["text"] for line in run.stdout.splitlines()] == ["a", "b"]
    error, summary = [json.loads(line) for line in run.stderr.splitlines()]
    assert error["error"]["exitCode"] == 2 and "nope" in error["error"]["message"]
    assert summary == {"shell": {"exitCode": 2, "firstFailure": {"line": 2, "command": "call nope"}}}


def test_a_line_that_is_not_text_fails_alone(mrtr, tmp_path):
    script = b"call echo text=a\ncall echo text=\xff\xfe\ncall echo text=b\n"
    proc = subprocess.run([PY, "-m", "mrtr_cli", "--stdio", stdio_cmd(SHELL_SERVER), "shell"], input=script,
                          capture_output=True, env=clean_env(tmp_path), cwd=ROOT, timeout=SAFETY)
    assert proc.returncode == 2
    assert proc.stdout.decode().splitlines() == ["a", "b"]
    assert b"line 2: the line is not UTF-8 text" in proc.stderr


def test_results_that_cannot_be_written_stop_the_shell(tmp_path):
    """stdout closed (`>&-`): the first result cannot be delivered, so nothing later runs."""
    record = tmp_path / "record.jsonl"
    command = f"{PY} -m mrtr_cli --stdio {stdio_cmd(SHELL_SERVER, '--record', str(record))!r} shell >&-"
    proc = subprocess.run(["/bin/sh", "-c", command], input="call echo text=a\ncall echo text=b\n",
                          capture_output=True, text=True, env=clean_env(tmp_path), cwd=ROOT, timeout=SAFETY)
    assert proc.returncode == 2, proc.stderr
    assert "mrtr: shell: stopped: the results cannot be written" in proc.stderr
    assert len([m for m in read_records(record) if m.get("method") == "tools/call"]) == 1


def test_an_older_server_over_stdio(mrtr):
    """A 2025-06-18 server asks during the call: -a answers it on that line; without, exit 5,
    and a bare resume says how to start the call again (such a call cannot be resumed)."""
    run = mrtr("--stdio", stdio_cmd(LEGACY_SERVER), "shell", input=(
        "call book_table date=2026-01-01 -a partySize=2 -a seating=indoor\n"
        "call book_table date=2026-01-02\nresume\ncall echo text=end\n"))
    assert run.code == 5, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "Booked a table for 2 (indoor) on 2026-01-01."
    assert json.loads(next(line for line in lines if line.startswith('{"mrtr"')))["resumable"] is False
    assert lines[-1] == "end"
    assert "the last pending call cannot be resumed" in run.stderr
    assert "call book_table --args '{\"date\":\"2026-01-02\"}' -a FIELD=VALUE" in run.stderr


def test_an_older_servers_question_keys_count_from_one_on_every_line(mrtr, tmp_path):
    """A 2025-11-25 server's questions are keyed per line (`elicitation-1` first on each), as
    for one `mrtr call`: one answer file answers every line, a line's --save-answers file
    replays that line, and a line's pending document names the key its call will ask."""
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"inputResponses": {"elicitation-1": {
        "action": "accept", "content": {"partySize": 2, "seating": "indoor"}}}}))
    saved = [tmp_path / "s1.json", tmp_path / "s2.json"]
    legacy = ["--stdio", stdio_cmd(LEGACY_SERVER, "--version", "2025-11-25")]
    run = mrtr(*legacy, "shell", input=(
        f"call book_table date=mon --answers {answers}\ncall book_table date=tue --answers {answers}\n"
        f"call book_table date=wed -a partySize=3 -a seating=outdoor --save-answers {saved[0]}\n"
        f"call book_table date=thu -a partySize=4 -a seating=indoor --save-answers {saved[1]}\n"
        "call book_table date=fri\n"))
    assert run.code == 5, run.stderr
    lines = run.stdout.splitlines()
    assert lines[:4] == ["Booked a table for 2 (indoor) on mon.", "Booked a table for 2 (indoor) on tue.",
                         "Booked a table for 3 (outdoor) on wed.", "Booked a table for 4 (indoor) on thu."]
    assert json.loads(lines[4])["missing"] == ["elicitation-1"]
    for path, day, booked in zip(saved, ("sat", "sun"), ("3 (outdoor)", "4 (indoor)"), strict=True):
        assert list(json.loads(path.read_text())["inputResponses"]) == ["elicitation-1"]
        again = mrtr(*legacy, "call", "book_table", f"date={day}", "--answers", str(path), "--no-input")
        assert again.code == 0 and again.stdout.strip() == f"Booked a table for {booked} on {day}.", again.stderr


# ---------------------------------------------------------------------- in this process
def test_a_line_splits_as_a_posix_shell_splits_it():
    from mrtr_cli.errors import UsageError
    from mrtr_cli.shell.words import skipped, split_line

    assert split_line("call echo 'text=two words' b=\"x y\" c=a#b") == ["call", "echo", "text=two words", "b=x y",
                                                                        "c=a#b"]
    assert split_line("mrtr call x") == ["call", "x"]  # a command copied from a hint runs as it is
    assert skipped("  # note") and skipped("   ") and not skipped("call x # not a comment here")
    with pytest.raises(UsageError, match="is never closed"):
        split_line("call 'x")


@given(st.text(alphabet=st.sampled_from(list("ab=#-' \"\\\t\r\n\x0b\x0c\x1c\x1f\x85\xa0\u3000é")), max_size=20))
def test_a_line_splits_as_shlex_splits_it(text):
    from mrtr_cli.errors import UsageError
    from mrtr_cli.shell.words import split_line

    try:
        expected = shlex.split(text, posix=True)
    except ValueError:
        with pytest.raises(UsageError):
            split_line(text)
        return
    assert split_line(text) == (expected[1:] if expected[:1] == ["mrtr"] else expected)


class _Live:
    pending: dict | None = None

    def __init__(self) -> None:
        self.asked = {"unlock": {"secret": {"method": "elicitation/create", "params": {
            "message": "m", "requestedSchema": {"type": "object", "properties": {
                "password": {"type": "string"}, "mood": {"type": "string", "enum": ["calm", "cross"]}}}}}}}

    def names(self, method: str) -> list[dict]:
        return {"tools/list": [
            {"name": "set_state", "description": "Set a state.", "inputSchema": {"type": "object", "properties": {
                "item": {"type": "integer"}, "state": {"enum": ["New", "Resolved"]},
                "address": {"type": "object", "properties": {"city": {"type": "string"}}}}}},
            {"name": "evil\x1b[2J", "inputSchema": {}},
            {"name": "unlock", "inputSchema": {}}],
            "resources/templates/list": [{"uriTemplate": "repo://{owner}/{name}"}]}.get(method, [])


def _complete(text: str) -> list[str]:
    from mrtr_cli.cli.commands.shell import commands
    from mrtr_cli.shell.completion import Completer

    return [c.text for c in Completer(commands, _Live()).complete(text)]


def test_completion_offers_commands_options_tools_arguments_values_and_answers():
    assert _complete("ca") == ["call "]
    assert _complete("call ") == ["set_state ", "unlock "]  # a name with an escape sequence is never offered
    assert _complete("call set_state st") == ["state="]
    assert _complete("call set_state state=Re") == ["state=Resolved "]
    assert _complete("call set_state item=1 ") == ["state=", "address=", "address.city="]
    assert _complete("call set_state --no-v") == ["--no-validate "]
    assert "--json " in _complete("tools --js")
    assert _complete("call set_state --url") == []  # the shell refuses it: not offered
    assert _complete("call unlock -a ") == ["password=", "mood="]
    assert _complete("call unlock -a mood=c") == ["mood=calm ", "mood=cross "]
    assert _complete("task w") == ["wait "]
    assert _complete("read repo") == ["'repo://{owner}/{name}' "]
    assert _complete("read 'repo://{owner}/{name}' o") == ["owner="]
    assert _complete("tools --color ") == ["auto ", "always ", "never "]


def test_the_history_keeps_no_secret():
    from mrtr_cli.shell.history import scrub

    def secret_field(where: str, name: str) -> bool:
        return (where, name.rsplit(".", 1)[-1]) in {("argument", "code_word"), ("answer", "pin")}

    def kept(line: str) -> str | None:
        return scrub(line, secrets={"tok-123456"}, secret_field=secret_field)

    assert kept("call echo text=hi") == "call echo text=hi"  # nothing secret: kept as typed
    assert kept("call login user=ada code_word=xyzzy") == "call login user=ada 'code_word=***'"
    assert kept("call login user=ada password=hunter2") == "call login user=ada 'password=***'"
    assert kept("resume -a pin=1234 -a mood=calm") == "resume -a 'pin=***' -a mood=calm"
    assert kept("resume -apin=1234 --answer=k.pin=99") == "resume '-apin=***' '--answer=k.pin=***'"
    assert kept("tools -H 'X-Api-Key: abc'") == "tools -H 'X-Api-Key: ***'"
    assert kept("call x --args '{\"token\": \"t\", \"n\": 1}'") == "call x --args '{\"token\": \"***\", \"n\": 1}'"
    assert kept("call x text=tok-123456") == "call x 'text=***'"
    assert kept("call x password=@secret.txt") == "call x password=@secret.txt"  # a file's name is no secret
    assert kept("call x 'open") is None  # cannot be split: not written at all


def test_the_history_keeps_no_secret_within_json_or_an_options_value():
    """A secret is `***` wherever it stands on the line: a member of `--args` JSON (by its
    name or its schema, nested too, however the JSON is spaced), inside `NAME:=JSON`, the
    value of an option that names a credential; JSON that cannot be read is `***` whole."""
    from mrtr_cli.shell.history import scrub

    def secret_field(where: str, name: str) -> bool:
        return (where, name) in {("argument", "code_word"), ("argument", "address.pw"), ("answer", "pin")}

    def kept(line: str) -> str | None:
        return scrub(line, secrets=set(), secret_field=secret_field)

    assert kept("call login --args '{\"user\": \"ada\", \"code_word\": \"xyzzy\"}'") == (
        "call login --args '{\"user\": \"ada\", \"code_word\": \"***\"}'")
    assert kept("call login --args ' {\"password\": \"s3cret\"}'") == "call login --args '{\"password\": \"***\"}'"
    assert kept("call login '--args={\"address\": {\"pw\": \"z\", \"city\": \"Oslo\"}}'") == (
        "call login '--args={\"address\": {\"pw\": \"***\", \"city\": \"Oslo\"}}'")
    assert kept("call login --args '[{\"token\": 7}]'") == "call login --args '[{\"token\": \"***\"}]'"
    assert kept("call login --args '{broken s3cret'") == "call login --args '***'"
    assert kept("call login --args @args.json") == "call login --args @args.json"  # a file's name is no secret
    assert kept("call x data:='{\"password\": \"z\", \"n\": 1}'") == "call x 'data:={\"password\": \"***\", \"n\": 1}'"
    assert kept("call x address:='{\"pw\": \"z\"}'") == "call x 'address:={\"pw\": \"***\"}'"
    assert kept("call x code_word:='\"xyzzy\"'") == "call x 'code_word:=***'"
    assert kept("call x data:='{broken s3cret'") == "call x 'data:=***'"
    assert kept("call x auth.user=ada") == "call x 'auth.user=***'"  # a member of a credential
    assert kept("resume -a 'pin:=1234'") == "resume -a 'pin:=***'"
    assert kept("call x -a=pin=2468") == "call x '-a=pin=***'"  # click reads -a's value as `=pin=2468`
    assert kept("tools --bearer-token-env eyJhbGciOi") == "tools --bearer-token-env '***'"
    assert kept("tools --client-secret-env=cs-123") == "tools '--client-secret-env=***'"
    assert kept("call x data:=@args.json t=1") == "call x data:=@args.json t=1"


def test_a_listen_line_and_the_shell_both_hear_a_change(tmp_path):
    """`listen` inside the shell gets its notification, and the shell's own watching of its
    lists goes on meanwhile (it says the list changed, and the new tool is called)."""
    events, flag = tmp_path / "events.jsonl", tmp_path / "now"
    proc = subprocess.Popen([PY, "-m", "mrtr_cli", "--stdio", stdio_cmd(SHELL_SERVER, "--events", str(events)),
                             "shell"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=clean_env(tmp_path), cwd=ROOT)
    errors = LineWatch(proc.stderr)
    try:
        proc.stdin.write(f"call add_tool_when name=heard path={flag}\nlisten --tools --count 1\ncall heard\n")
        proc.stdin.close()
        errors.wait_until(lambda lines: any("listening (Ctrl-C to stop)" in line for line in lines))
        flag.write_text("")
        out = proc.stdout.read()
        proc.wait(SAFETY)
    finally:
        proc.kill()
    err = errors.text()
    assert proc.returncode == 0, err
    lines = out.splitlines()
    assert lines[1].endswith(" tools list changed") and lines[2] == "heard here"
    assert "mrtr: shell: the server's tool list changed" in err


def test_a_closed_stdin_is_an_empty_script(tmp_path):
    proc = subprocess.run(["/bin/sh", "-c", f"{PY} -m mrtr_cli --stdio {stdio_cmd(SHELL_SERVER)!r} shell <&-"],
                          capture_output=True, text=True, env=clean_env(tmp_path), cwd=ROOT, timeout=SAFETY)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "" and "internal error" not in proc.stderr


def test_a_line_of_options_only_says_the_command_is_missing(mrtr, tmp_path):
    run = mrtr("--stdio", stdio_cmd(SHELL_SERVER), "shell",
               input="--json\n-v\n--\n-a x=1\n-q --json -a x=1\n--bogus\n--bogus tools\ncall echo text=ok\n")
    assert run.code == 2, run.stderr
    assert run.stdout.splitlines() == ["ok"]  # the shell goes on after each
    errors = [json.loads(line)["error"]["message"] if line.startswith("{") else line.removeprefix("mrtr: error: ")
              for line in run.stderr.splitlines() if line.startswith(("mrtr: error:", '{"error"'))]
    assert errors[:5] == ["Missing command."] * 5, run.stderr  # --json on a line: its error is JSON
    assert errors[5].startswith("No such option '--bogus'")  # an option of no command
    assert errors[6].startswith("No such option '--bogus'")
    assert len(errors) == 7, run.stderr
    assert "mrtr: shell: exit 2: the first failing line is line 1 (--json)" in run.stderr


def test_an_options_only_command_line_says_the_command_is_missing(mrtr):
    for words in (["--json"], ["-a", "x=1"], ["-v", "--"]):
        run = mrtr("--stdio", stdio_cmd(SHELL_SERVER), *words)
        assert run.code == 2, run.stderr
        assert "Missing command." in run.stderr, (words, run.stderr)
    run = mrtr("--stdio", stdio_cmd(SHELL_SERVER), "--version")
    assert run.code == 0 and run.stdout.strip(), run.stderr
