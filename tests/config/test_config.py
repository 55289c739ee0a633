"""Named servers from config files: Claude Desktop, VS Code and .mcp.json shapes,
search order, `mrtr servers`, `${VAR}` expansion only where it is safe, and config
secrets kept out of diagnostics and pending documents. HOME is a temp directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ANSWERS, CATALOG_SERVER, EXAMPLE_SERVER, PY, ROOT, url_args

SECRET = "envs3cret-value"


@pytest.fixture
def run(mrtr, home: Path, project: Path):
    """Run mrtr in the project directory with HOME (and XDG_CONFIG_HOME) in the temp dir."""

    def go(*args, env=None, cwd=None, **kw):
        base = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "PYTHONPATH": str(ROOT),
                "API_KEY": "key-from-env"}
        return mrtr(*args, env={**base, **(env or {})}, cwd=cwd or project, **kw)

    return go


def write(path: Path, doc: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2))
    return path


def stdio_entry(*extra: str, env: dict | None = None) -> dict:
    entry: dict = {"command": PY, "args": [str(CATALOG_SERVER), *extra]}
    if env:
        entry["env"] = env
    return entry


def proc_info(r) -> dict:
    assert r.code == 0, r.stderr
    return json.loads(r.stdout)


def test_claude_desktop_config_starts_the_server_by_name(run, home):
    write(home / ".config" / "Claude" / "claude_desktop_config.json", {"mcpServers": {
        "catalog": stdio_entry("--label", "${HOME}", env={"MRTR_TEST_TOKEN": SECRET}),
        "other": {"command": "does-not-matter"}}})
    r = run("-s", "catalog", "call", "proc_info", "-v")
    info = proc_info(r)
    assert info["argv"][-2:] == ["--label", str(home)]  # a user-level config is expanded
    assert info["env"] == {"MRTR_TEST_TOKEN": SECRET}
    assert SECRET not in r.stderr and "***" in r.stderr  # config env values are secrets


def test_vscode_config_starts_an_http_server_by_name(run, project, http_servers):
    url = http_servers.start(CATALOG_SERVER)
    write(project / ".vscode" / "mcp.json", {"inputs": [], "servers": {
        "web": {"type": "http", "url": url, "headers": {"Authorization": "Bearer ${env:API_KEY}"}},
        "local": {"type": "stdio", "command": PY, "args": ["${workspaceFolder}/missing.py"]}}})
    r = run("-s", "web", "call", "whoami")
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "you sent: Bearer ${env:API_KEY}"  # a project config is not expanded
    assert "${API_KEY} left as written" in r.stderr and "--expand-env" in r.stderr
    r = run("-s", "web", "--expand-env", "call", "whoami", "-vv")
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "you sent: Bearer key-from-env"
    assert "key-from-env" not in r.stderr


def test_home_in_a_project_config_is_not_expanded_without_expand_env(run, project, home):
    write(project / ".mcp.json", {"mcpServers": {
        "cat": stdio_entry("--label", "${HOME}", env={"MRTR_TEST_HOME": "${HOME}", "MRTR_TEST_D": "${NOPE:-dflt}"})}})
    info = proc_info(r := run("-s", "cat", "call", "proc_info"))
    assert info["argv"][-1] == "${HOME}"
    assert info["env"] == {"MRTR_TEST_HOME": "${HOME}", "MRTR_TEST_D": "${NOPE:-dflt}"}
    assert "server 'cat': ${HOME}, ${NOPE} left as written" in r.stderr and "--expand-env" in r.stderr
    info = proc_info(r := run("-s", "cat", "--expand-env", "call", "proc_info", "-v"))
    assert info["argv"][-1] == str(home)
    assert info["env"] == {"MRTR_TEST_HOME": str(home), "MRTR_TEST_D": "dflt"}
    assert str(home) not in r.stderr  # an expanded env value is a secret
    write(project / ".mcp.json", {"mcpServers": {"cat": stdio_entry("--label", "${UNSET_VAR_XYZ}")}})
    r = run("-s", "cat", "--expand-env", "call", "proc_info")
    assert r.code == 2 and "${UNSET_VAR_XYZ} is not set" in r.stderr


def test_header_values_from_env_and_file(run, home, project, http_servers):
    url = http_servers.start(CATALOG_SERVER)
    (home / "token.txt").write_text("tok-from-file\n")
    write(home / ".config" / "mrtr" / "servers.json", {"mcpServers": {
        "user": {"url": url, "headers": {"Authorization": "Bearer file:~/token.txt"}}}})
    write(project / ".mcp.json", {"mcpServers": {
        "proj": {"type": "http", "url": url, "headers": {"Authorization": "Bearer file:~/token.txt"}}}})
    r = run("-s", "user", "call", "whoami", "-v")
    assert r.stdout.strip() == "you sent: Bearer tok-from-file"
    assert "tok-from-file" not in r.stderr
    r = run("-s", "proj", "call", "whoami")  # a project file cannot read your files
    assert r.stdout.strip() == "you sent: Bearer file:~/token.txt"
    r = run(*url_args(url), "-H", "Authorization: Bearer env:API_KEY", "call", "whoami")
    assert r.stdout.strip() == "you sent: Bearer key-from-env"
    r = run(*url_args(url), "-H", f"Authorization: file:{home / 'token.txt'}", "call", "whoami")
    assert r.stdout.strip() == "you sent: tok-from-file"
    r = run(*url_args(url), "-H", "X-Key: env:NOT_SET_ANYWHERE", "call", "whoami")
    assert r.code == 2 and "NOT_SET_ANYWHERE is empty or unset" in r.stderr


def test_search_order_and_mrtr_servers(run, home, project, tmp_path):
    write(home / ".config" / "Claude" / "claude_desktop_config.json", {"mcpServers": {
        "dup": stdio_entry("--label", "claude"), "desk": stdio_entry(env={"MRTR_TEST_X": SECRET})}})
    write(project / ".mcp.json", {"mcpServers": {"dup": stdio_entry("--label", "project")}})
    explicit = write(tmp_path / "mine.json", {"servers": {"dup": stdio_entry("--label", "explicit")}})
    assert proc_info(run("-s", "dup", "call", "proc_info"))["argv"][-1] == "project"
    assert proc_info(run("-s", "dup", "--config", explicit, "call", "proc_info"))["argv"][-1] == "explicit"
    assert proc_info(run("call", "proc_info", env={"MRTR_SERVER": "dup"}))["argv"][-1] == "project"
    r = run("servers", "--json")
    assert r.code == 0, r.stderr
    listed = r.json()
    assert [(s["name"], s["shadowed"], s["select"]) for s in listed] == [
        ("dup", False, "dup"), ("dup", True, "claude-desktop:dup"), ("desk", False, "desk")]
    assert listed[0]["source"] == "./.mcp.json" and listed[1]["source"].endswith("claude_desktop_config.json")
    assert [s["host"] for s in listed] == ["claude-code", "claude-desktop", "claude-desktop"]
    assert listed[2]["env"] == ["MRTR_TEST_X"] and SECRET not in r.stdout
    r = run("servers")
    lines = r.stdout.splitlines()
    assert lines[0].split()[:2] == ["dup", "stdio"] and "Claude Code: ./.mcp.json" in lines[0]
    assert lines[0].endswith("-s dup") and lines[1].endswith("shadowed; -s claude-desktop:dup")
    assert SECRET not in r.stdout
    assert proc_info(run("-s", "claude-desktop:dup", "call", "proc_info"))["argv"][-1] == "claude"


def test_unknown_and_malformed(run, project, tmp_path):
    write(project / ".mcp.json", {"mcpServers": {"catalog": stdio_entry()}})
    r = run("-s", "catalgo", "tools")
    assert r.code == 2 and "no server by that name" in r.stderr and "did you mean: catalog?" in r.stderr
    (project / ".mcp.json").rename(project / "cursor.json")
    (project / ".cursor").mkdir()
    (project / "cursor.json").rename(project / ".cursor" / "mcp.json")
    (project / ".mcp.json").write_text("{not json")  # read before the file that names the server
    r = run("-s", "catalog", "tools")
    assert r.code == 0, r.stderr
    assert "mrtr: warning: skipping ./.mcp.json (Claude Code): not valid JSON: line 1 column 2" in r.stderr
    bad = write(tmp_path / "bad.json", {"mcpServers": {"x": {"type": "carrier-pigeon"}}})
    r = run("-s", "x", "--config", bad, "tools")
    assert r.code == 2 and "unknown type 'carrier-pigeon'" in r.stderr
    r = run("-s", "x", "--config", tmp_path / "nope.json", "tools")
    assert r.code == 2 and "no such file" in r.stderr
    r = run("-s", "catalog", "--url", "http://127.0.0.1:9/mcp", "tools")
    assert r.code == 2 and "exactly one" in r.stderr


def test_pending_document_names_the_server_only_and_resumes(run, project, tmp_path):
    write(project / ".mcp.json", {"mcpServers": {"work": {
        "command": PY, "args": [str(EXAMPLE_SERVER)], "env": {"MRTR_TEST_TOKEN": SECRET}}}})
    r = run("-s", "work", "--no-input", "call", "update_work_item", "workItemId=4522", "state=Resolved")
    assert r.code == 5, r.stderr
    doc = r.json()
    assert doc["target"] == {"server": "work"}
    assert SECRET not in r.stdout and SECRET not in r.stderr
    pending = tmp_path / "pending.json"
    pending.write_text(r.stdout)
    r = run("resume", pending, "--answers", ANSWERS / "resolve-fixed.json")
    assert r.code == 0, r.stderr
    assert "4522" in r.stdout


def test_printed_commands_for_a_named_server_carry_the_config_option_that_found_it(run, tmp_path):
    # The hints after exit 5 (and a task's "follow it with") must work as printed: a server
    # found through --config is found again only through the same --config.
    config = write(tmp_path / "elsewhere.json", {"mcpServers": {"work": {"command": PY,
                                                                         "args": [str(EXAMPLE_SERVER)]}}})
    r = run("--config", config, "-s", "work", "--no-input", "-v", "call", "update_work_item", "workItemId=4522",
            "state=Resolved")  # -v: the steps in full (a script without it gets one line)
    assert r.code == 5, r.stderr
    hint = next(line for line in r.stderr.splitlines() if " resume PENDING.json" in line)
    assert f"then: mrtr --config {config} resume PENDING.json --answers ANSWERS.json" in hint
    pending = tmp_path / "pending.json"
    pending.write_text(r.stdout)
    assert run("resume", pending, "--answers", ANSWERS / "resolve-fixed.json").code == 2  # without it: not found
    r = run("--config", config, "resume", pending, "--answers", ANSWERS / "resolve-fixed.json")
    assert r.code == 0, r.stderr
    assert "4522" in r.stdout


def test_a_bad_target_from_the_environment_is_named_by_its_variable(mrtr):
    r = mrtr("tools", env={"MRTR_URL": "notaurl"})
    assert r.code == 2 and r.stderr.startswith("mrtr: error: MRTR_URL='notaurl': expected an http"), r.stderr
    r = mrtr("tools", env={"MRTR_STDIO": " "})  # blank: the variable is named, with an example that works
    assert r.code == 2 and r.stderr.startswith(
        "mrtr: error: MRTR_STDIO is empty: it needs a command, e.g. MRTR_STDIO='python server.py'"), r.stderr
    r = mrtr("tools", env={"MRTR_STDIO": "'a"})
    assert r.code == 2 and r.stderr.startswith("mrtr: error: MRTR_STDIO=\"'a\": No closing quotation"), r.stderr
    r = mrtr("tools", env={"MRTR_SERVER": "nosuch"})
    assert r.code == 2 and r.stderr.startswith("mrtr: error: MRTR_SERVER=nosuch: no server by that name"), r.stderr
    r = mrtr("--url", "notaurl", "tools", env={"MRTR_SERVER": "ignored"})  # an option wins, and is named
    assert r.code == 2 and r.stderr.startswith("mrtr: error: --url 'notaurl'"), r.stderr


def test_a_named_stdio_server_s_task_is_warned_about_like_a_stdio_one(run, tmp_path):
    # A config entry with a command is a stdio server: its task ends with the run, and the
    # printed follow-up says so (as for --stdio), instead of promising a `task wait`.
    builds = ROOT / "examples" / "servers" / "builds.py"
    config = write(tmp_path / "c.json", {"mcpServers": {"b": {"command": PY, "args": [str(builds)]}}})
    r = run("--config", config, "-s", "b", "call", "build", "target=x", "--detach")
    assert r.code == 0, r.stderr
    assert "in the stdio server process, which stops when mrtr exits" in r.stderr
    assert f"mrtr --config {config} -s b task wait" in r.stderr


@pytest.mark.parametrize("entry, field, carrier", [
    ({"command": "echo", "args": ["ok", "\ud800"]}, "args[1]", "no process can be given"),
    ({"command": "ec\udfffho"}, "command", "no process can be given"),
    ({"command": "echo", "env": {"K\ud800": "v"}}, "a member name in env", "no process can be given"),
    ({"command": "echo", "env": {"K": "v\ud800"}}, "env.K", "no process can be given"),
    ({"command": "echo", "cwd": "/tmp/\ud800"}, "cwd", "no process can be given"),
    ({"url": "http://127.0.0.1:9/\ud800"}, "url", "no request can carry"),
    ({"url": "http://127.0.0.1:9/mcp", "headers": {"X-A": "\ud800"}}, "headers.X-A", "no request can carry"),
])
def test_a_lone_surrogate_in_a_config_entry_makes_it_malformed(mrtr_here, tmp_path, entry, field, carrier):
    cfg = write(tmp_path / "cfgs.json", {"mcpServers": {"s": entry}})  # JSON-escaped: a valid JSON file
    assert "\\u" in cfg.read_text()
    char = next(c for c in json.dumps(entry, ensure_ascii=False) if 0xD800 <= ord(c) <= 0xDFFF)
    want = f"{cfg}: server 's': {field} holds a lone surrogate (\\u{ord(char):04x}), which {carrier}"
    for args in (["-s", "s", "tools"], ["servers"]):  # refused as a malformed entry is, before anything starts
        r = mrtr_here("--config", cfg, *args)
        assert (r.code, r.stdout, r.stderr) == (2, "", f"mrtr: error: {want}\n")
    r = mrtr_here("--config", cfg, "servers", "--json")
    assert (r.code, r.stdout, json.loads(r.stderr)["error"]["message"]) == (2, "", want)


def test_a_byte_that_is_not_utf8_from_the_environment_is_refused_before_anything_starts(mrtr, tmp_path):
    marker = tmp_path / "started"
    cfg = write(tmp_path / "cfgs.json", {"mcpServers": {"s": {
        "command": PY, "args": ["-c", f"open({str(marker)!r}, 'w')", "${ARG}"]}}})
    r = mrtr("--config", cfg, "--expand-env", "-s", "s", "tools", env={"ARG": "a\udcff"})
    assert (r.code, r.stderr) == (2, f"mrtr: error: {cfg}: server 's': args[2] holds a byte that is not UTF-8 "
                                     "(\\xff), which no process can be given\n")
    assert not marker.exists()


@pytest.mark.parametrize("args, env, shown", [
    (["--stdio", "echo \udcff"], {}, "--stdio holds a byte that is not UTF-8 (\\xff), which no process can be given"),
    (["--url", "http://127.0.0.1:9/\udcfe"], {},
     "--url holds a byte that is not UTF-8 (\\xfe), which no request can carry"),
    ([], {"MRTR_STDIO": "echo \udcff"},
     "MRTR_STDIO holds a byte that is not UTF-8 (\\xff), which no process can be given"),
    ([], {"MRTR_URL": "http://127.0.0.1:9/\udcff"},
     "MRTR_URL holds a byte that is not UTF-8 (\\xff), which no request can carry"),
])
def test_a_target_from_the_command_line_that_is_not_utf8_is_a_usage_error(mrtr, args, env, shown):
    r = mrtr(*args, "tools", env=env)  # a real process: the bytes arrive as the system decodes them
    assert (r.code, r.stderr) == (2, f"mrtr: error: {shown}\n")
