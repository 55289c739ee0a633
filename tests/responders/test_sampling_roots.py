"""Sampling and roots answers against a real SDK server whose tools ask through the
SDK's own resolvers: answer files, `--sampling-command`, `--root`, the capabilities declared
for each, and every way a sampling command can fail.

Also the pure functions: roots parsing and URI checks, CreateMessageResult checks, the
sampling request summary, log formatting, progress text and the deadline."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from mrtr_cli.env import Environment
from mrtr_cli.errors import UsageError
from mrtr_cli.limits import describe_seconds
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.render.live.logs import LogPrinter, format_log
from mrtr_cli.render.live.progress import ProgressDisplay, progress_amount, progress_text
from mrtr_cli.responders.roots import check_root_uri, parse_root_flag, resolve_root_entries
from mrtr_cli.responders.sampling import describe_request
from mrtr_cli.responders.shapes import roots_result_problems, sampling_result_problems
from tests.conftest import SERVERS, HttpServers, Target, stdio_cmd, url_args
from tests.support import growing_bound, wait_for
from tests.support import running as _running

STYLE, DRAFT, WORKSPACE = "__main__:style", "__main__:draft", "__main__:workspace"
QUESTION, FORECAST, LISTED = "__main__:question", "__main__:forecast", "__main__:listed"
CAPS = "io.modelcontextprotocol/clientCapabilities"


@pytest.fixture(scope="module", params=["stdio", "http"])
def server(request: pytest.FixtureRequest, http_servers: HttpServers,
           tmp_path_factory: pytest.TempPathFactory) -> Target:
    """tests/servers/sampling_server.py over stdio or HTTP, recording what it receives."""
    record = tmp_path_factory.mktemp("sampling") / "record.jsonl"
    script = SERVERS / "sampling_server.py"
    if request.param == "stdio":
        return Target("stdio", ["--stdio", stdio_cmd(script, "--record", str(record))], record)
    return Target("http", url_args(http_servers.start(script, "--record", str(record))), record)


def fake_llm(mode: str, log: Path | None = None, *, direct: bool = False) -> str:
    """tests/servers/fake_llm.py MODE [LOG] as a command line (`direct`: run as itself, not
    forked from the test worker's zygote: for a test about the command's process)."""
    return stdio_cmd(SERVERS / "fake_llm.py", mode, *([str(log)] if log else []), direct=direct)


def calls(target: Target) -> list[dict]:
    return [m for m in target.requests() if m.get("method") == "tools/call"]


def tool_json(stdout: str) -> dict:
    """The JSON text a sampling_server tool returns (first content block of --json output)."""
    return json.loads(json.loads(stdout)["content"][0]["text"])


# ---------------------------------------------------------------------- one round, three kinds
def test_elicitation_sampling_and_roots_in_one_round_from_one_file(mrtr, server: Target, tmp_path):
    (tmp_path / "proj" / "src").mkdir(parents=True)
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({
        "inputResponses": {
            STYLE: {"action": "accept", "content": {"tone": "dry"}},
            DRAFT: {"role": "assistant", "content": {"type": "text", "text": "Cats nap."}, "model": "human",
                    "stopReason": "endTurn"},
        },
        # Paths in an answer file are taken from the file's own directory.
        "roots": ["proj/src", {"uri": (tmp_path / "proj").as_uri(), "name": "Project"}],
    }))
    server.reset()
    r = mrtr(*server.args, "call", "brief", "topic=cats", "--answers", answers, "--json", cwd=Path("/"))
    assert r.code == 0, r.stderr
    got = tool_json(r.stdout)
    assert got["tone"] == "dry"
    assert got["draft"] == {"role": "assistant", "content": {"type": "text", "text": "Cats nap."}, "model": "human",
                            "stopReason": "endTurn"}
    assert got["roots"] == [{"uri": (tmp_path / "proj" / "src").as_uri()},
                            {"uri": (tmp_path / "proj").as_uri(), "name": "Project"}]
    first, retry = calls(server)
    # One round: all three were asked at once and answered in one retry.
    assert set(retry["params"]["inputResponses"]) == {STYLE, DRAFT, WORKSPACE}
    for msg in (first, retry):
        caps = msg["params"]["_meta"][CAPS]
        assert caps["sampling"] == {} and caps["roots"] == {}


def test_the_same_round_with_a_sampling_command_flags_and_root(mrtr, server: Target, tmp_path):
    (tmp_path / "some" / "dir").mkdir(parents=True)
    log = tmp_path / "llm.jsonl"
    server.reset()
    r = mrtr(*server.args, "call", "brief", "topic=owls", "-a", "tone=warm", "--root", "./some/dir=Work",
             "--sampling-command", fake_llm("echo", log), "--json", cwd=tmp_path)
    assert r.code == 0, r.stderr
    got = tool_json(r.stdout)
    assert got["draft"]["model"] == "fake-llm-1"
    assert got["draft"]["content"]["text"] == "echo: Write one sentence about owls. (maxTokens 60)"
    assert got["roots"] == [{"uri": (tmp_path / "some" / "dir").as_uri(), "name": "Work"}]
    # The command got the request's params exactly, as JSON on stdin.
    sent = [json.loads(line)["params"] for line in log.read_text().splitlines()]
    assert sent == [{"messages": [{"role": "user", "content": {"type": "text",
                                                               "text": "Write one sentence about owls."}}],
                     "maxTokens": 60, "systemPrompt": "You write briefs."}]
    assert "fake-llm: echo" in r.stderr  # the command's stderr is relayed


def test_sampling_tools_only_with_sampling_tools(mrtr, server: Target):
    server.reset()
    r = mrtr(*server.args, "call", "weather_agent", "--sampling-command", fake_llm("tool"))
    assert r.code == 4
    assert "sampling.tools" in r.stderr and "--sampling-tools" in r.stderr
    assert "tools" not in calls(server)[-1]["params"]["_meta"][CAPS]["sampling"]
    r = mrtr(*server.args, "call", "weather_agent", "--sampling-command", fake_llm("tool"), "--sampling-tools",
             "--json")
    assert r.code == 0, r.stderr
    got = tool_json(r.stdout)
    assert got["stopReason"] == "toolUse"
    assert got["content"] == [{"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}}]
    assert calls(server)[-1]["params"]["_meta"][CAPS]["sampling"] == {"tools": {}}


# ---------------------------------------------------------------------- roots
def test_root_flag_becomes_an_absolute_file_uri(mrtr, server: Target, tmp_path):
    (tmp_path / "some" / "dir").mkdir(parents=True)
    (tmp_path / "a=b").mkdir()
    server.reset()
    r = mrtr(*server.args, "call", "show_roots", "--root", "./some/dir", "--root", "some/../a=b=Eq",
             "--root", "./some/dir", "--json", cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert tool_json(r.stdout) == [{"uri": (tmp_path / "some" / "dir").as_uri()},
                                   {"uri": (tmp_path / "a=b").as_uri(), "name": "Eq"}]


def test_missing_root_exits_2_before_anything_is_sent(mrtr, server: Target, tmp_path):
    server.reset()
    r = mrtr(*server.args, "call", "show_roots", "--root", "./some/missing", cwd=tmp_path)
    assert r.code == 2
    assert "--root ./some/missing" in r.stderr and "does not exist" in r.stderr
    assert r.stdout == ""
    assert calls(server) == []


@pytest.mark.parametrize(("roots", "message"), [
    ([{"uri": "file:///tmp/../etc"}], "path traversal"),
    ([{"uri": "https://example.com/x"}], "file:// URI"),
    (["./not-there"], "does not exist"),
    ("nope", "must be a list"),
])
def test_bad_roots_in_an_answer_file_exit_2(mrtr, server: Target, tmp_path, roots, message):
    answers = tmp_path / "roots.json"
    answers.write_text(json.dumps({"roots": roots}))
    server.reset()
    r = mrtr(*server.args, "call", "show_roots", "--answers", answers)
    assert r.code == 2, r.stderr
    assert message in r.stderr and str(answers) in r.stderr
    assert calls(server) == []


def test_capabilities_only_for_sources_that_exist(mrtr, server: Target, tmp_path):
    server.reset()
    r = mrtr(*server.args, "call", "show_roots", "--no-input")
    assert r.code == 4
    assert "roots" in r.stderr and "--root" in r.stderr
    r = mrtr(*server.args, "call", "ask_model", "question=hi", "--no-input", "--json")
    assert r.code == 4
    err = json.loads(r.stderr.strip().splitlines()[-1])["error"]
    assert err["code"] == -32021 and err["data"]["requiredCapabilities"] == {"sampling": {}}
    assert [m["params"]["name"] for m in calls(server)] == ["show_roots", "ask_model"]
    for msg in calls(server):
        caps = msg["params"]["_meta"][CAPS]
        assert "sampling" not in caps and "roots" not in caps


def test_save_answers_replays_sampling_and_roots(mrtr, server: Target, tmp_path):
    saved = tmp_path / "saved.json"
    r = mrtr(*server.args, "call", "brief", "topic=x", "-a", "tone=odd", "--root", str(tmp_path),
             "--sampling-command", fake_llm("echo"), "--save-answers", saved, "--json")
    assert r.code == 0, r.stderr
    doc = json.loads(saved.read_text())["inputResponses"]
    assert doc[WORKSPACE] == {"roots": [{"uri": tmp_path.as_uri()}]}
    assert doc[DRAFT]["model"] == "fake-llm-1"
    r2 = mrtr(*server.args, "call", "brief", "topic=x", "--answers", saved, "--json")
    assert r2.code == 0, r2.stderr
    assert tool_json(r2.stdout) == tool_json(r.stdout)


def test_pending_template_for_sampling_and_roots_resumes(mrtr, server: Target, tmp_path):
    # A sampling answer in a file declares sampling; nothing answers the roots key, and
    # a roots list (declaring roots) is given for a different call below.
    r = mrtr(*server.args, "call", "ask_model", "question=Capital of France?", "--no-input",
             "--answers", _file(tmp_path, "decl.json", {"inputResponses": {"other": {
                 "role": "assistant", "content": {"type": "text", "text": "-"}, "model": "m"}}}))
    assert r.code == 5, r.stderr
    doc = r.json()
    assert doc["missing"] == [QUESTION]
    template = doc["answersTemplate"]
    assert template["inputResponses"][QUESTION] == {"role": "assistant", "content": {"type": "text", "text": None},
                                                     "model": "human"}
    pending = _file(tmp_path, "pending.json", doc)
    # The unfilled template is refused (the text is null), nothing is sent.
    r = mrtr("resume", pending, "--answers", _file(tmp_path, "unfilled.json", template), *server.args)
    assert r.code == 2
    assert "a text block needs 'text'" in r.stderr
    template["inputResponses"][QUESTION]["content"]["text"] = "Paris"
    r = mrtr("resume", pending, "--answers", _file(tmp_path, "filled.json", template), *server.args, "--json")
    assert r.code == 0, r.stderr
    assert tool_json(r.stdout)["content"]["text"] == "Paris"


def _file(tmp_path: Path, name: str, doc: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


# ---------------------------------------------------------------------- sampling command failures
@pytest.mark.parametrize(("mode", "code", "messages"), [
    ("fail", 2, ["exited with code 3", "no API key"]),
    ("garbage", 2, ["is not JSON", "Sure! Here is your answer."]),
    ("invalid", 2, ["invalid CreateMessageResult", "model must be a string"]),
])
def test_sampling_command_failures_name_the_command(mrtr, server: Target, mode, code, messages):
    server.reset()
    command = fake_llm(mode)
    r = mrtr(*server.args, "call", "ask_model", "question=hi", "--sampling-command", command)
    assert r.code == code, r.stderr
    assert f"--sampling-command {command!r}" in r.stderr
    for message in messages:
        assert message in r.stderr
    assert "Traceback" not in r.stderr
    assert len(calls(server)) == 1  # the retry was never sent


def test_sampling_command_not_found_and_tool_use_without_tools(mrtr, server: Target, tmp_path):
    r = mrtr(*server.args, "call", "ask_model", "question=hi", "--sampling-command", "no-such-llm-command-xyz")
    assert r.code == 2
    assert "command not found: no-such-llm-command-xyz" in r.stderr
    script = tmp_path / "tool_anyway.py"
    script.write_text("import json,sys; json.load(sys.stdin); print(json.dumps({'role': 'assistant', 'model': 'm', "
                      "'content': {'type': 'tool_use', 'id': 'a', 'name': 'rm', 'input': {}}}))")
    r = mrtr(*server.args, "call", "ask_model", "question=hi", "--sampling-command", stdio_cmd(script))
    assert r.code == 2
    assert "tool_use blocks are only allowed when the request offers tools" in r.stderr


def test_sampling_command_timeout_exits_7_and_kills_it(mrtr, server: Target, tmp_path):
    # The command sleeps an hour: only --sampling-timeout ends the run (were it waited for,
    # the run would outlast the test's safety bound), and the command is killed: gone when
    # mrtr has ended. It runs as itself (a zygote's fork would be ended by its keeper after
    # mrtr's kill, on its own time). A run whose bound ran out before the command had
    # started (a loaded machine) shows nothing: the bound grows.
    def attempt(bound: float) -> int | None:
        log = tmp_path / f"sleep-{bound:g}.jsonl"
        r = mrtr(*server.args, "call", "ask_model", "question=hi", "--sampling-command",
                 fake_llm("sleep", log, direct=True), "--sampling-timeout", f"{bound:g}")
        assert r.code == 7, r.stderr
        assert f"did not answer within {describe_seconds(bound)} (--sampling-timeout)" in r.stderr
        return json.loads(log.read_text())["pid"] if log.exists() else None

    pid = growing_bound(attempt, 1, what="a run whose sampling command started", limit=40)
    assert not _running(pid)


def flood_command(pids: Path, stream: str, size: int, then: dict | None = None) -> str:
    """tests/servers/flood_command.py as a command line (run directly: its own process
    group is under test): `size` bytes on `stream`, then `then` printed and exit 0, or (no
    `then`) never an end; its pid and its child's are written to `pids` first."""
    import shlex
    import sys

    return shlex.join([sys.executable, str(SERVERS / "flood_command.py"), str(pids), stream, str(size),
                       *([json.dumps(then)] if then is not None else [])])


def group_ended(pids: Path) -> None:
    """The command whose pids `pids` holds, and the child it left in its group, are gone."""
    for pid in map(int, pids.read_text().split()):
        wait_for(lambda pid=pid: not _running(pid), what=f"process {pid} of the command's group to end")


def test_a_sampling_command_printing_without_end_is_read_only_to_the_limit(mrtr, server: Target, tmp_path):
    server.reset()
    pids = tmp_path / "pids"
    # Past the 64 MiB limit, then no end: a reader that waits for the end of the output
    # waits until --sampling-timeout; this one stops at the limit.
    r = mrtr(*server.args, "call", "ask_model", "question=hi", "--sampling-timeout", "100",
             "--sampling-command", flood_command(pids, "stdout", (64 << 20) + (1 << 20)), timeout=300)
    assert r.code == 2, r.stderr[-2000:]
    assert "printed more than 64 MiB on stdout; mrtr stopped reading and ended it" in r.stderr, r.stderr[-2000:]
    assert "did not answer" not in r.stderr
    group_ended(pids)
    assert "FLOOD-b1f0c7e2" not in r.stdout + r.stderr and "Traceback" not in r.stderr
    assert len(calls(server)) == 1  # no retry was sent


def test_a_sampling_command_s_stderr_is_kept_to_its_last_part_and_its_group_ended(mrtr, server: Target, tmp_path):
    server.reset()
    pids = tmp_path / "pids"
    answer = {"role": "assistant", "model": "flood-1", "content": {"type": "text", "text": "after the flood"}}
    r = mrtr(*server.args, "call", "ask_model", "question=hi",
             "--sampling-command", flood_command(pids, "stderr", 8 << 20, answer), timeout=300)
    assert r.code == 0, r.stderr[-2000:]
    assert "after the flood" in r.stdout
    relayed = [line for line in r.stderr.splitlines() if line.startswith("sampling command: ")]
    assert relayed[0].startswith("sampling command: [... 8126464 bytes of its stderr before these lines not kept]")
    assert len(r.stderr) < 512 * 1024, len(r.stderr)  # 8 MiB came; the last 256 KiB were kept
    group_ended(pids)  # the child it left behind went with its group
    assert "Traceback" not in r.stderr


def test_sampling_tools_and_timeout_need_a_command(mrtr, server: Target):
    r = mrtr(*server.args, "call", "ask_model", "question=hi", "--sampling-tools")
    assert r.code == 2 and "--sampling-tools needs a sampling source" in r.stderr
    r = mrtr(*server.args, "call", "ask_model", "question=hi", "--sampling-timeout", "5")
    assert r.code == 2 and "--sampling-command" in r.stderr





def test_a_missing_root_is_refused_even_before_arguments_are_typed(mrtr, server: Target, tmp_path):
    # `topic=x` needs tools/list to type it; the root is checked before even that.
    server.reset()
    r = mrtr(*server.args, "call", "brief", "topic=x", "--root", "missing", "--sampling-command", fake_llm("echo"),
             cwd=tmp_path)
    assert r.code == 2 and "does not exist" in r.stderr
    assert server.requests() == []


def test_roots_from_a_server_config_entry(mrtr, tmp_path):
    """A `roots` list in a named server's config entry answers roots/list (paths relative to
    the config's directory), and --root still wins over it."""
    (tmp_path / "src").mkdir()
    (tmp_path / "docs").mkdir()
    script = SERVERS / "sampling_server.py"
    config = {"mcpServers": {"sampler": {"command": stdio_cmd(script).split()[0],
                                         "args": stdio_cmd(script).split()[1:],
                                         "roots": ["./src", {"uri": (tmp_path / "docs").as_uri(), "name": "Docs"}]}}}
    (tmp_path / ".mcp.json").write_text(json.dumps(config))
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config")}
    r = mrtr("-s", "sampler", "call", "show_roots", "--json", cwd=tmp_path, env=env)
    assert r.code == 0, r.stderr
    assert tool_json(r.stdout) == [{"uri": (tmp_path / "src").as_uri()},
                                   {"uri": (tmp_path / "docs").as_uri(), "name": "Docs"}]
    r = mrtr("-s", "sampler", "call", "show_roots", "--root", "./docs", "--json", cwd=tmp_path, env=env)
    assert r.code == 0, r.stderr
    assert tool_json(r.stdout) == [{"uri": (tmp_path / "docs").as_uri()}]
    config["mcpServers"]["sampler"]["roots"] = ["./missing"]
    (tmp_path / ".mcp.json").write_text(json.dumps(config))
    r = mrtr("-s", "sampler", "call", "show_roots", cwd=tmp_path, env=env)
    assert r.code == 2 and "does not exist" in r.stderr


def test_root_flags_are_paths_made_absolute_with_an_optional_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "x=y").mkdir()
    assert parse_root_flag("src") == {"uri": (tmp_path / "src").as_uri()}
    assert parse_root_flag("./src/../src=My Src") == {"uri": (tmp_path / "src").as_uri(), "name": "My Src"}
    assert parse_root_flag("x=y") == {"uri": (tmp_path / "x=y").as_uri()}
    assert parse_root_flag("x=y=Name=2") == {"uri": (tmp_path / "x=y").as_uri(), "name": "Name=2"}
    with pytest.raises(UsageError, match=r"--root gone=N: the root 'gone' does not exist"):
        parse_root_flag("gone=N")
    with pytest.raises(UsageError, match="needs a path"):
        parse_root_flag("")


def test_root_entries_from_files(tmp_path):
    (tmp_path / "a b").mkdir()
    uri = (tmp_path / "a b").as_uri()
    assert "%20" in uri
    roots = resolve_root_entries(["a b", {"uri": uri, "name": "A", "_meta": {"k": 1}}, {"path": "a b"}],
                                 "f.json: roots", str(tmp_path))
    assert roots == [{"uri": uri}]  # duplicates dropped, the first wins
    with pytest.raises(UsageError, match=r"f.json: roots\[0\]: name must be a string"):
        resolve_root_entries([{"path": "a b", "name": 3}], "f.json: roots", str(tmp_path))
    with pytest.raises(UsageError, match=r"roots\[0\]: expected a path"):
        resolve_root_entries([3], "roots", None)


@pytest.mark.parametrize(("uri", "problem"), [
    ("file:///home/me/project", None),
    ("file://localhost/srv", None),
    ("file:///a%20b", None),
    ("file:///a/../etc", "path traversal"),
    ("file:///a/%2e%2e/etc", "path traversal"),
    ("file:///a/./b", "path traversal"),
    ("file://evil.example/share", "local path"),
    ("file:relative/path", "absolute path"),
    ("http://example.com/", "file:// URI"),
    ("file:///a?x=1", "query"),
    (7, "must be a string"),
])
def test_a_root_uri_must_be_an_absolute_local_file_uri_without_traversal_or_query(uri, problem):
    found = check_root_uri(uri)
    assert (found is None) if problem is None else (problem in found)


def test_roots_result_problems():
    assert roots_result_problems({"roots": [{"uri": "file:///x", "name": "X"}]}) == []
    assert roots_result_problems({"roots": [{"uri": "file:///x/../y"}]})[0].startswith("roots[0].uri must not")
    assert roots_result_problems({"roots": [{"uri": "file:///x", "name": None}]}) == ["roots[0].name must be a string"]
    assert roots_result_problems([]) == ['expected a ListRootsResult object {"roots": [...]}']


def test_sampling_result_problems():
    ok = {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}
    assert sampling_result_problems(ok, {"messages": [], "maxTokens": 5}) == []
    assert sampling_result_problems({**ok, "content": {"type": "text", "text": None}}) == [
        "content: a text block needs 'text' (string)"]
    assert sampling_result_problems({**ok, "content": [{"type": "image", "data": "AA=="}]}) == [
        "content[0]: a image block needs 'mimeType' (string)"]
    assert "unknown content type 'video'" in sampling_result_problems({**ok, "content": {"type": "video"}})[0]
    use = {"type": "tool_use", "id": "1", "name": "get_weather", "input": {}}
    tools = {"tools": [{"name": "get_weather", "inputSchema": {"type": "object"}}]}
    assert sampling_result_problems({**ok, "content": [use], "stopReason": "toolUse"}, tools) == []
    assert sampling_result_problems({**ok, "content": [use]}, {}) == [
        "tool_use blocks are only allowed when the request offers tools"]
    assert "which the request does not offer" in sampling_result_problems(
        {**ok, "content": [{**use, "name": "rm"}]}, tools)[0]
    assert sampling_result_problems({**ok, "stopReason": "toolUse"}, tools) == [
        'stopReason is "toolUse" but the content has no tool_use block']
    assert sampling_result_problems("text") == ["expected a CreateMessageResult object, got string"]


def test_describe_request_is_complete_and_sanitised():
    lines = describe_request({
        "systemPrompt": "Be\x1b[31m brief",
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "line 1\nline 2"}},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "w", "input": {"a": 1}}]},
            {"role": "user", "content": [{"type": "tool_result", "toolUseId": "c1",
                                          "content": [{"type": "text", "text": "18C"}]}]},
            {"role": "user", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}},
        ],
        "modelPreferences": {"hints": [{"name": "claude"}], "costPriority": 0.25},
        "maxTokens": 50, "temperature": 0, "stopSequences": ["END"], "includeContext": "thisServer",
        "tools": [{"name": "w"}], "metadata": {"k": "v"},
    })
    assert lines == [
        "system prompt: Be\\x1b[31m brief",
        "user: line 1\n      line 2",
        'assistant: [tool_use w {"a": 1} id=c1]',
        "user: [tool_result for c1: 18C]",
        "user: [image image/png, 3 B]",
        "model preferences: hints claude; cost 0.25",
        "maxTokens: 50",
        "temperature: 0",
        'stop sequences: ["END"]',
        "includeContext: thisServer (mrtr shares no other context)",
        "tools offered: w",
        'metadata: {"k": "v"}',
    ]


def test_format_log_and_level_filter():
    assert format_log({"level": "warning", "logger": "db", "data": {"a": 1}}) == '[server warning db] {"a": 1}'
    assert format_log({"level": "info", "data": "x\ny\x07"}) == "[server info] x\n  y\\x07"
    assert format_log({"level": "error", "data": "e"}, colour=True) == "[server \x1b[1;31merror\x1b[0m] e"
    assert format_log({"level": "info", "data": "z" * 10}, limit=4) == "[server info] zzzz… (10 chars)"
    err = io.StringIO()
    printer = LogPrinter(Environment(stderr=err), "error")
    for level in ("info", "error", "emergency", "bogus"):
        printer({"level": level, "data": level})
    assert err.getvalue().splitlines() == ["[server error] error", "[server emergency] emergency"]


def test_progress_text_and_plain_display():
    assert progress_amount({"progress": 3, "total": 4}) == "3/4 (75%)"
    assert progress_amount({"progress": 0.5, "total": 1.0}) == "0.5/1 (50%)"
    assert progress_amount({"progress": 12}) == "12"
    assert progress_text("tools/call x", {"message": "a\x1b[2Jb\nc"}) == "tools/call x: a\\x1b[2Jb\\nc"
    assert len(progress_text("t", {"message": "m" * 200})) == 60
    err = io.StringIO()
    display = ProgressDisplay(Environment(stderr=err), live=False, plain_interval=60)
    display.update("t1", {"progress": 1, "total": 2, "message": "one"}, "tools/call x")
    display.update("t1", {"progress": 2, "total": 2, "message": "two"}, "tools/call x")  # throttled
    display.end("t1")
    display.update("t1", {"progress": 3, "total": 2}, "tools/call x")  # late: ignored
    display.update("t2", {"progress": 1}, "prompts/get p")
    assert err.getvalue().splitlines() == ["mrtr: progress 1/2 (50%) tools/call x: one",
                                           "mrtr: progress 1 prompts/get p"]


def test_deadline_extension_is_capped():
    now = [100.0]  # the deadline's own clock: the test says when time passes
    d = Deadline(0.2, 0.5, clock=lambda: now[0])
    now[0] += 0.15
    d.on_progress()
    assert d.extended and d.remaining() == pytest.approx(0.2)
    now[0] += 0.3
    d.on_progress()
    assert d.remaining() == pytest.approx(0.05)  # capped at 0.5 s after the start, not 0.45 + 0.2
    now[0] += 0.05
    assert d.expired()
    plain = Deadline(0.2, clock=lambda: now[0])
    plain.on_progress()
    assert not plain.extended


def test_live_display_routes_other_lines_above_it_and_stops_for_good():
    err = io.StringIO()
    env = Environment(stderr=err)
    display = ProgressDisplay(env, live=True)
    display.update("t1", {"progress": 1, "total": 4, "message": "one"}, "tools/call x")
    assert env.stderr is not err  # lines now go through the live console
    env.err("[server info] hello")
    display.end("t1")
    assert env.stderr is err
    assert "[server info] hello" in err.getvalue()
    display.update("t1", {"progress": 2, "total": 4}, "tools/call x")  # late notification
    assert env.stderr is err
