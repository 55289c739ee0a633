"""Named servers from the MCP hosts' own config files: a fake home folder (HOME and
XDG_CONFIG_HOME in a temp directory) holds each host's file in its real format, taken from
the host's documentation (each fixture names its source); `-s NAME` starts or reaches a real
server from each (the catalog test server, over stdio and over HTTP), `mrtr servers` lists
them with their host and file and never shows a secret, a broken file of each kind is one
warning line naming it while the other files still work, and a name in several files goes
to the first, the others picked with `-s HOST:NAME`.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import CATALOG_SERVER, PY, ROOT, SAFETY, Run, clean_env
from tests.prefork import launch_argv

#: Secrets that appear in the host files or the environment: never in `mrtr servers`.
ENV_SECRET = "host-env-s3cret"          # an env value written in a file
HEADER_SECRET = "host-header-s3cret"    # a header value written in a file
URL_SECRET = "host-url-s3cret"          # a URL's api_key
TOKEN = "token-from-the-environment"    # what the ${VAR}s read
FILE_TOKEN = "token-from-a-file"        # what Windsurf's ${file:...} reads

#: Variables that decide where the hosts' files are: the runner's own must not leak in.
PLACE_VARIABLES = ("XDG_CONFIG_HOME", "APPDATA", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME",
                   "OPENCODE_CONFIG", "FLATPAK_XDG_CONFIG_HOME")


def catalog(label: str) -> tuple[str, list[str]]:
    """(command, args) starting the catalog test server with `--label LABEL` (its
    `proc_info` tool returns them)."""
    argv = launch_argv(CATALOG_SERVER, "--label", label)
    return argv[0], argv[1:]


def toml(value: object) -> str:
    """A TOML value: strings and lists of them are written as JSON writes them."""
    return json.dumps(value)


@pytest.fixture(scope="module")
def url(http_servers) -> str:
    """The catalog server over Streamable HTTP (its `whoami` returns the Authorization header)."""
    return http_servers.start(CATALOG_SERVER)


@pytest.fixture
def run(tmp_path: Path, home: Path, project: Path) -> Callable[..., Run]:
    """Run mrtr in the project folder with the fake home (the runner's own place variables
    removed, HOME and XDG_CONFIG_HOME set)."""

    def go(*args: object, env: dict[str, str] | None = None, cwd: Path | None = None) -> Run:
        environ = clean_env(tmp_path, {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                                       "PYTHONPATH": str(ROOT), **(env or {})})
        for name in PLACE_VARIABLES:
            if name not in (env or {}) and name != "XDG_CONFIG_HOME":
                environ.pop(name, None)
        proc = subprocess.run([PY, "-m", "mrtr_cli", *map(str, args)], input="", capture_output=True, text=True,
                              env=environ, cwd=cwd or project, timeout=SAFETY)
        return Run(proc.returncode, proc.stdout, proc.stderr)

    return go


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_every_host(home: Path, project: Path, url: str) -> None:
    """Each host's config file, in the format its documentation gives."""
    cmd, args = {}, {}
    for label in ("cc-local", "cc-user", "cc-project", "codex-stdio", "gemini-stdio", "gemini-project",
                  "windsurf-stdio", "oc-local", "zed-stdio", "zed-legacy", "goose-stdio", "vscode-stdio",
                  "cursor-stdio"):
        cmd[label], args[label] = catalog(label)
    (home / "ws-token.txt").write_text(FILE_TOKEN + "\n")

    # Claude Code, ~/.claude.json: user scope in "mcpServers", local scope under "projects".
    # Source: code.claude.com/docs/en/mcp ("MCP installation scopes"; "Environment variable
    # expansion in .mcp.json": ${VAR} and ${VAR:-default} in command, args, env, url, headers).
    write(home / ".claude.json", json.dumps({
        "numStartups": 7,
        "projects": {
            str(project): {"allowedTools": [], "mcpServers": {
                "cc-local": {"type": "stdio", "command": cmd["cc-local"], "args": args["cc-local"],
                             "env": {"MRTR_TEST_TOKEN": "${CC_TOKEN}"}}}},
            "/some/other/project": {"mcpServers": {"cc-elsewhere": {"command": "npx", "args": ["x"]}}},
        },
        "mcpServers": {
            "cc-user": {"type": "stdio", "command": cmd["cc-user"], "args": args["cc-user"],
                        "env": {"MRTR_TEST_TOKEN": "${CC_MISSING:-cc-default}"}},
            "cc-http": {"type": "http", "url": url, "headers": {"Authorization": "Bearer ${CC_TOKEN}"}},
        },
    }, indent=2))
    # Claude Code's project scope, ./.mcp.json (same source).
    write(project / ".mcp.json", json.dumps({"mcpServers": {
        "cc-project": {"command": cmd["cc-project"], "args": args["cc-project"],
                       "env": {"MRTR_TEST_TOKEN": "${CC_TOKEN}"}}}}))

    # Codex, ~/.codex/config.toml. Source: openai/codex docs/config.md ("MCP integration":
    # STDIO, Streamable HTTP, "Other configuration options"), codex-rs/config/src/mcp_types.rs.
    write(home / ".codex" / "config.toml", f'''# Codex configuration
model = "gpt-5.1"

[mcp_servers.codex-stdio]
command = {toml(cmd["codex-stdio"])}
args = {toml(args["codex-stdio"])}
env = {{ "MRTR_TEST_TOKEN" = "{ENV_SECRET}" }}
env_vars = ["MRTR_TEST_PASSED"]
startup_timeout_sec = 20
tool_timeout_sec = 30

[mcp_servers.codex-http]
url = {toml(url)}
bearer_token_env_var = "CODEX_TOKEN"
http_headers = {{ "X-Team" = "{HEADER_SECRET}" }}
env_http_headers = {{ "X-Key" = "CODEX_UNSET_KEY" }}

[mcp_servers.codex-off]
command = "npx"
args = ["-y", "mcp-server"]
enabled = false
''')

    # Gemini CLI, ~/.gemini/settings.json (comments allowed). Source: google-gemini/gemini-cli
    # docs/tools/mcp-server.md ("Configuration structure", "Environment variable expansion"),
    # docs/reference/configuration.md (mcp.excluded).
    write(home / ".gemini" / "settings.json", f'''{{
  // user settings
  "general": {{ "vimMode": true }},
  "mcpServers": {{
    "gemini-stdio": {{
      "command": {json.dumps(cmd["gemini-stdio"])},
      "args": {json.dumps(args["gemini-stdio"])},
      "env": {{ "MRTR_TEST_TOKEN": "$GEMINI_TOKEN" }},
      "timeout": 30000,
      "trust": false
    }},
    "gemini-http": {{ "httpUrl": {json.dumps(url)}, "headers": {{ "Authorization": "Bearer ${{GEMINI_TOKEN}}" }} }},
    "gemini-excluded": {{ "command": "npx", "args": ["-y", "x"] }},
    "gemini-ws": {{ "tcp": "ws://127.0.0.1:9" }}
  }},
  "mcp": {{ "excluded": ["gemini-excluded"] }}
}}
''')
    # Gemini CLI's project settings, ./.gemini/settings.json (same source): not expanded.
    write(project / ".gemini" / "settings.json", json.dumps({"mcpServers": {"gemini-project": {
        "command": cmd["gemini-project"], "args": args["gemini-project"],
        "env": {"MRTR_TEST_TOKEN": "$GEMINI_TOKEN"}}}}))

    # Windsurf, ~/.codeium/windsurf/mcp_config.json. Source: docs.windsurf.com/windsurf/cascade/mcp
    # ("mcp_config.json", "Remote HTTP MCPs": serverUrl, "Config Interpolation": ${env:}, ${file:}).
    write(home / ".codeium" / "windsurf" / "mcp_config.json", json.dumps({"mcpServers": {
        "windsurf-stdio": {"command": cmd["windsurf-stdio"], "args": args["windsurf-stdio"],
                           "env": {"MRTR_TEST_TOKEN": "${env:WS_TOKEN}"}},
        "windsurf-http": {"serverUrl": url, "headers": {"Authorization": f"Bearer ${{file:{home / 'ws-token.txt'}}}"}},
        "windsurf-off": {"command": "npx", "args": ["-y", "x"], "disabled": True},
    }}, indent=2))

    # OpenCode, ~/.config/opencode/opencode.jsonc. Source: opencode.ai/docs/mcp-servers ("Local",
    # "Remote"), opencode.ai/docs/config ("Variables": {env:VAR}); command is a list.
    write(home / ".config" / "opencode" / "opencode.jsonc", f'''{{
  "$schema": "https://opencode.ai/config.json",
  "mcp": {{
    // a local server: the command and its arguments in one list
    "oc-local": {{
      "type": "local",
      "command": {json.dumps([cmd["oc-local"], *args["oc-local"]])},
      "enabled": true,
      "environment": {{ "MRTR_TEST_TOKEN": "{{env:OC_TOKEN}}" }},
    }},
    "oc-remote": {{
      "type": "remote",
      "url": {json.dumps(url)},
      "enabled": true,
      "headers": {{ "Authorization": "Bearer {{env:OC_TOKEN}}" }},
    }},
    "oc-off": {{ "type": "local", "command": ["bun", "x", "my-mcp-command"], "enabled": false }},
  }},
}}
''')

    # Zed, ~/.config/zed/settings.json (comments allowed). Source: zed-industries/zed
    # docs/src/ai/mcp.md ("As Custom Servers"), ContextServerSettingsContent (Stdio, Http,
    # Extension; the older {"command": {"path", "args", "env"}}).
    write(home / ".config" / "zed" / "settings.json", f'''// Zed settings
{{
  "theme": "One Dark",
  "context_servers": {{
    "zed-stdio": {{
      "source": "custom",
      "command": {json.dumps(cmd["zed-stdio"])},
      "args": {json.dumps(args["zed-stdio"])},
      "env": {{ "MRTR_TEST_TOKEN": "{ENV_SECRET}" }}
    }},
    "zed-legacy": {{ "command": {{ "path": {json.dumps(cmd["zed-legacy"])}, "args": {json.dumps(args["zed-legacy"])},
                                  "env": {{}} }}, "settings": {{}} }},
    "zed-http": {{ "url": {json.dumps(url + "?api_key=" + URL_SECRET)},
                  "headers": {{ "Authorization": "Bearer {HEADER_SECRET}" }} }},
    "zed-ext": {{ "source": "extension", "enabled": true, "settings": {{}} }},
  }},
}}
''')

    # goose, ~/.config/goose/config.yaml. Source: block/goose documentation/docs/guides/config-files.md
    # ("Extensions Configuration"), crates/goose/src/agents/extension.rs (stdio, streamable_http).
    write(home / ".config" / "goose" / "config.yaml", f'''GOOSE_PROVIDER: "anthropic"
GOOSE_MODEL: "claude-4.5-sonnet"
extensions:
  developer:
    bundled: true
    enabled: true
    name: developer
    timeout: 300
    type: builtin
  goose-stdio:
    enabled: true
    type: stdio
    name: goose-stdio
    description: the catalog test server
    cmd: {json.dumps(cmd["goose-stdio"])}
    args: {json.dumps(args["goose-stdio"])}
    envs:
      MRTR_TEST_TOKEN: {ENV_SECRET}
    env_keys: []
    timeout: 300
  goose-http:
    enabled: true
    type: streamable_http
    name: goose-http
    description: the catalog test server over HTTP
    uri: {json.dumps(url)}
    headers:
      Authorization: Bearer {HEADER_SECRET}
    envs: {{}}
    env_keys: []
    timeout: 300
  goose-off:
    enabled: false
    type: stdio
    name: goose-off
    cmd: npx
    args: ["-y", "x"]
''')

    # VS Code's user profile mcp.json, ~/.config/Code/User/mcp.json. Source:
    # code.visualstudio.com/docs/copilot/reference/mcp-configuration ("Configuration format",
    # "Input variables for sensitive data"; ${env:VAR}, ${input:ID}).
    write(home / ".config" / "Code" / "User" / "mcp.json", f'''{{
  // MCP servers of the user profile
  "inputs": [{{ "type": "promptString", "id": "api-key", "description": "API key", "password": true }}],
  "servers": {{
    "vscode-stdio": {{ "type": "stdio", "command": {json.dumps(cmd["vscode-stdio"])},
                       "args": {json.dumps(args["vscode-stdio"])},
                      "env": {{ "MRTR_TEST_TOKEN": "${{env:VSC_TOKEN}}" }} }},
    "vscode-http": {{ "type": "http", "url": {json.dumps(url)},
                      "headers": {{ "Authorization": "Bearer ${{env:VSC_TOKEN}}" }} }},
    "vscode-input": {{ "type": "stdio", "command": "npx", "args": ["-y", "x"],
                       "env": {{ "API_KEY": "${{input:api-key}}" }} }}
  }}
}}
''')

    # Cursor, ~/.cursor/mcp.json. Source: docs.cursor.com "Model Context Protocol" (mcp.json).
    write(home / ".cursor" / "mcp.json", json.dumps({"mcpServers": {
        "cursor-stdio": {"command": cmd["cursor-stdio"], "args": args["cursor-stdio"],
                         "env": {"MRTR_TEST_TOKEN": "${env:CURSOR_TOKEN}"}}}}))


#: The variables the files refer to.
TOKENS = {"CC_TOKEN": TOKEN, "GEMINI_TOKEN": TOKEN, "WS_TOKEN": TOKEN, "OC_TOKEN": TOKEN, "CODEX_TOKEN": TOKEN,
          "VSC_TOKEN": TOKEN, "CURSOR_TOKEN": TOKEN}

#: stdio server -> (host, the MRTR_TEST_TOKEN it is started with: expanded in the user's
#: files, as written in the project's).
STDIO = {
    "cc-local": ("claude-code", TOKEN),
    "cc-user": ("claude-code", "cc-default"),
    "cc-project": ("claude-code", "${CC_TOKEN}"),
    "codex-stdio": ("codex", ENV_SECRET),
    "gemini-stdio": ("gemini", TOKEN),
    "gemini-project": ("gemini", "$GEMINI_TOKEN"),
    "windsurf-stdio": ("windsurf", TOKEN),
    "oc-local": ("opencode", TOKEN),
    "zed-stdio": ("zed", ENV_SECRET),
    "zed-legacy": ("zed", None),
    "goose-stdio": ("goose", ENV_SECRET),
    "vscode-stdio": ("vscode", TOKEN),
    "cursor-stdio": ("cursor", TOKEN),
}
#: HTTP server -> (host, the Authorization header the server receives).
HTTP = {
    "cc-http": ("claude-code", f"Bearer {TOKEN}"),
    "codex-http": ("codex", f"Bearer {TOKEN}"),
    "gemini-http": ("gemini", f"Bearer {TOKEN}"),
    "windsurf-http": ("windsurf", f"Bearer {FILE_TOKEN}"),
    "oc-remote": ("opencode", f"Bearer {TOKEN}"),
    "zed-http": ("zed", f"Bearer {HEADER_SECRET}"),
    "goose-http": ("goose", f"Bearer {HEADER_SECRET}"),
    "vscode-http": ("vscode", f"Bearer {TOKEN}"),
}
#: Entries listed as not usable -> (host, words of the reason).
UNUSABLE = {
    "codex-off": ("codex", "disabled (enabled = false)"),
    "gemini-excluded": ("gemini", "excluded by \"mcp.excluded\""),
    "gemini-ws": ("gemini", "WebSocket"),
    "windsurf-off": ("windsurf", "disabled (\"disabled\": true)"),
    "oc-off": ("opencode", "disabled (\"enabled\": false)"),
    "zed-ext": ("zed", "provided by a Zed extension"),
    "developer": ("goose", "type builtin"),
    "goose-off": ("goose", "disabled (enabled: false)"),
    "vscode-input": ("vscode", "${input:api-key} is a value the editor (VS Code) asks for"),
}


@pytest.fixture
def hosts(home: Path, project: Path, url: str) -> Iterator[None]:
    write_every_host(home, project, url)
    yield


@pytest.mark.parametrize("name", sorted(STDIO))
def test_each_host_s_stdio_entry_starts_its_server(run, hosts, name):
    r = run("-s", name, "call", "proc_info", "-v", env=TOKENS)
    assert r.code == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["argv"] == ["--label", name]
    token = STDIO[name][1]
    assert info["env"] == ({"MRTR_TEST_TOKEN": token} if token else {})
    for secret in (TOKEN, ENV_SECRET):
        assert secret not in r.stderr  # an env value from a host file is a secret: -v shows ***
    if token and token.startswith("$"):  # a project's file is not expanded without --expand-env
        assert "left as written (a project config is not expanded; pass --expand-env" in r.stderr


@pytest.mark.parametrize("name", sorted(HTTP))
def test_each_host_s_url_entry_reaches_its_server(run, hosts, name):
    r = run("-s", name, "call", "whoami", "-vv", env=TOKENS)
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == f"you sent: {HTTP[name][1]}"
    for secret in (TOKEN, FILE_TOKEN, HEADER_SECRET, URL_SECRET):
        assert secret not in r.stderr  # headers and URL credentials from host files are redacted


def test_mrtr_servers_lists_every_host_with_its_file_and_no_secret(run, hosts, home, project):
    r = run("servers", "--json", env=TOKENS)
    assert r.code == 0, r.stderr
    assert r.stderr == ""
    listed = {s["name"]: s for s in r.json()}
    assert "cc-elsewhere" not in listed  # another project's local scope
    files = {"claude-code": str(home / ".claude.json"), "codex": str(home / ".codex" / "config.toml"),
             "gemini": str(home / ".gemini" / "settings.json"),
             "windsurf": str(home / ".codeium" / "windsurf" / "mcp_config.json"),
             "opencode": str(home / ".config" / "opencode" / "opencode.jsonc"),
             "zed": str(home / ".config" / "zed" / "settings.json"),
             "goose": str(home / ".config" / "goose" / "config.yaml"),
             "vscode": str(home / ".config" / "Code" / "User" / "mcp.json"),
             "cursor": str(home / ".cursor" / "mcp.json")}
    projects = {"cc-project": "./.mcp.json", "gemini-project": "./.gemini/settings.json"}
    for name, (host, _) in {**STDIO, **HTTP}.items():
        entry = listed[name]
        assert (entry["host"], entry["usable"], entry["shadowed"], entry["select"]) == (host, True, False, name)
        assert entry["source"] == projects.get(name, files[host])
        assert entry["scope"] == ("project" if name in projects or name == "cc-local" else "user")
        assert entry["type"] == ("stdio" if name in STDIO else "http")
    for name, (host, reason) in UNUSABLE.items():
        entry = listed[name]
        assert (entry["host"], entry["usable"], entry["select"]) == (host, False, None)
        assert reason in entry["reason"]
    assert listed["codex-http"]["headers"] == ["Authorization", "X-Key", "X-Team"]  # names only
    assert listed["codex-stdio"]["env"] == ["MRTR_TEST_TOKEN"]
    assert listed["zed-http"]["url"].endswith("?api_key=***")
    text = run("servers", env=TOKENS)
    assert text.code == 0 and text.stderr == ""
    lines = {line.split()[0]: line for line in text.stdout.splitlines()}
    assert f"OpenCode: {files['opencode']} " in lines["oc-local"] and lines["oc-local"].endswith("  -s oc-local")
    assert "Gemini CLI: ./.gemini/settings.json " in lines["gemini-project"]
    assert lines["gemini-project"].endswith("  -s gemini-project")
    assert lines["goose-off"].endswith("not usable: disabled (enabled: false)")
    assert "?api_key=***" in lines["zed-http"]
    for out in (r.stdout, text.stdout):
        for secret in (ENV_SECRET, HEADER_SECRET, URL_SECRET, TOKEN, FILE_TOKEN):
            assert secret not in out


def test_a_name_in_several_files_goes_to_the_first_and_host_name_picks_the_others(run, home, project):
    cmd = {label: catalog(label) for label in ("mrtr", "project", "codex", "goose", "vscode")}
    write(home / ".config" / "mrtr" / "servers.json", json.dumps({"mcpServers": {
        "dup": {"command": cmd["mrtr"][0], "args": cmd["mrtr"][1]}}}))
    write(project / ".mcp.json", json.dumps({"mcpServers": {
        "dup": {"command": cmd["project"][0], "args": cmd["project"][1]}}}))
    write(home / ".codex" / "config.toml", f'''[mcp_servers.dup]
command = {toml(cmd["codex"][0])}
args = {toml(cmd["codex"][1])}

[mcp_servers.solo]
command = "npx"
enabled = false
''')
    write(home / ".config" / "goose" / "config.yaml", f'''extensions:
  solo:
    enabled: true
    type: stdio
    name: solo
    cmd: {json.dumps(cmd["goose"][0])}
    args: {json.dumps(cmd["goose"][1])}
''')
    write(home / ".config" / "Code" / "User" / "mcp.json", json.dumps({"servers": {
        "dup": {"type": "stdio", "command": cmd["vscode"][0], "args": cmd["vscode"][1]}}}))

    def label(*args: str) -> str:
        r = run(*args, "call", "proc_info")
        assert r.code == 0, r.stderr
        return json.loads(r.stdout)["argv"][-1]

    assert label("-s", "dup") == "mrtr"  # mrtr's own file first, then the project's, then the user's
    assert label("-s", "claude-code:dup") == "project"
    assert label("-s", "codex:dup") == "codex"
    assert label("-s", "vscode:dup") == "vscode"
    assert label("-s", "solo") == "goose"  # a disabled entry never wins: a later usable one does
    r = run("servers", "--json")
    listed = [(s["name"], s["host"], s["shadowed"], s["select"], s["usable"]) for s in r.json()]
    assert listed == [("dup", "mrtr", False, "dup", True), ("dup", "claude-code", True, "claude-code:dup", True),
                      ("dup", "codex", True, "codex:dup", True), ("solo", "codex", False, None, False),
                      ("dup", "vscode", True, "vscode:dup", True), ("solo", "goose", False, "solo", True)]
    lines = run("servers").stdout.splitlines()
    assert lines[0].endswith("-s dup") and lines[2].endswith("shadowed; -s codex:dup")
    assert lines[3].endswith("not usable: disabled (enabled = false)")
    r = run("-s", "codex:solo", "tools")  # only a disabled entry has that name in Codex's file
    assert r.code == 2, r.stderr
    assert r.stderr.startswith(f"mrtr: error: {home / '.codex' / 'config.toml'}: server 'solo' is not usable: "
                               "disabled (enabled = false)")
    r = run("-s", "nosuch:dup", "tools")  # not a host: a name like any other
    assert r.code == 2 and "no server by that name" in r.stderr


def test_with_no_server_configured_each_file_searched_is_named_once(run, home):
    write(home / ".claude.json", "{}")
    r = run("-s", "nonesuch", "tools")
    assert r.code == 2 and "searched: " in r.stderr, r.stderr
    searched = r.stderr.split("searched: ", 1)[1].strip().split(", ")
    assert str(home / ".claude.json") in searched
    assert len(searched) == len(set(searched)), searched  # ~/.claude.json holds two scopes: named once


def test_a_pending_document_of_a_host_qualified_server_resumes_it(run, home, project, tmp_path):
    example = ROOT / "examples" / "servers" / "work_items.py"
    write(project / ".mcp.json", json.dumps({"mcpServers": {"work": {"command": "false"}}}))
    write(home / ".codex" / "config.toml", f'[mcp_servers.work]\ncommand = {toml(PY)}\nargs = {toml([str(example)])}\n')
    r = run("-s", "codex:work", "--no-input", "call", "update_work_item", "workItemId=4522", "state=Resolved")
    assert r.code == 5, r.stderr
    assert r.json()["target"] == {"server": "codex:work"}
    (tmp_path / "pending.json").write_text(r.stdout)
    r = run("resume", tmp_path / "pending.json", "--answers", ROOT / "examples" / "answers" / "resolve-fixed.json")
    assert r.code == 0, r.stderr
    assert "4522" in r.stdout


def test_a_project_s_host_file_is_expanded_only_with_expand_env(run, home, project):
    command, args = catalog("x")
    write(project / "opencode.json", json.dumps({"mcp": {"proj": {
        "type": "local", "command": [command, *args], "environment": {"MRTR_TEST_TOKEN": "{env:OC_TOKEN}"}}}}))
    write(project / ".codex" / "config.toml", '''[mcp_servers.web]
url = "http://127.0.0.1:9/mcp"
bearer_token_env_var = "CODEX_TOKEN"
''')
    r = run("-s", "proj", "call", "proc_info", env=TOKENS)
    assert json.loads(r.stdout)["env"] == {"MRTR_TEST_TOKEN": "{env:OC_TOKEN}"}
    assert "server 'proj': {env:OC_TOKEN} left as written (a project config is not expanded" in r.stderr
    r = run("-s", "proj", "--expand-env", "call", "proc_info", env=TOKENS)
    assert json.loads(r.stdout)["env"] == {"MRTR_TEST_TOKEN": TOKEN}
    r = run("-s", "web", "tools", "--timeout", "60", env=TOKENS)  # nothing listens on :9
    assert "server 'web': bearer_token_env_var CODEX_TOKEN not read (a project config is not expanded" in r.stderr
    r = run("-s", "web", "--expand-env", "tools", env={k: v for k, v in TOKENS.items() if k != "CODEX_TOKEN"})
    assert r.code == 2
    assert "server 'web': bearer_token_env_var CODEX_TOKEN: that environment variable is empty or unset" in r.stderr


def test_broken_files_are_one_line_each_and_the_other_files_still_work(run, home, project):
    survivor = catalog("survivor")
    paths = {
        "mrtr": write(home / ".config" / "mrtr" / "servers.json", "{not json"),
        "claude": write(home / ".claude.json", '{"projects": []}'),
        "codex": write(home / ".codex" / "config.toml", "[mcp_servers.x\ncommand = 'a'\n"),
        "gemini": write(home / ".gemini" / "settings.json", "[]"),
        "vscode": write(home / ".config" / "Code" / "User" / "mcp.json", '{"servers": ["x"]}'),
        "goose": write(home / ".config" / "goose" / "config.yaml", "extensions:\n  a: [unclosed\n"),
        "windsurf": home / ".codeium" / "windsurf" / "mcp_config.json",
        "opencode": home / ".config" / "opencode" / "opencode.json",
        "opencode-big": home / ".config" / "opencode" / "opencode.jsonc",
        "cursor": home / ".cursor" / "mcp.json",
    }
    paths["windsurf"].parent.mkdir(parents=True)
    paths["windsurf"].write_bytes(b'{"mcpServers": {"caf\xe9": {}}}')  # Latin-1, not UTF-8
    paths["opencode"].parent.mkdir(parents=True)
    if hasattr(os, "mkfifo"):  # POSIX: a FIFO nobody writes is refused at once, never waited on
        os.mkfifo(paths["opencode"])
    else:
        paths["opencode"].mkdir()
    with open(paths["opencode-big"], "wb") as fh:  # 65 MiB, sparse: over the limit without the disk
        fh.truncate(65 * 1024 * 1024)
    paths["cursor"].mkdir(parents=True)  # a folder where the file should be
    write(home / ".config" / "Claude" / "claude_desktop_config.json", json.dumps({"mcpServers": {
        "survivor": {"command": survivor[0], "args": survivor[1]}}}))
    write(home / ".config" / "zed" / "settings.json", '{"context_servers": {"bad": "npx", "worse": {"command": 7}}}')
    want = [
        f"skipping {paths['mrtr']} (mrtr): not valid JSON: line 1 column 2: Expecting property name enclosed in "
        "double quotes",
        f"skipping {paths['claude']} (Claude Code): \"projects\" must be an object of project folders",
        f"skipping {paths['codex']} (Codex): not valid TOML: Expected ']' at the end of a table declaration "
        "(at line 1, column 15)",
        f"skipping {paths['gemini']} (Gemini CLI): the file must be an object (names and values), not an array",
        f"skipping {paths['vscode']} (VS Code): \"servers\" must be an object of named servers",
        f"skipping {paths['cursor']} (Cursor): it is a directory, not a regular file",
        f"skipping {paths['windsurf']} (Windsurf): not valid UTF-8 (byte 0xe9 at offset 20)",
        f"skipping {paths['opencode-big']} (OpenCode): the file is larger than the limit of 64 MiB",
        f"skipping {paths['opencode']} (OpenCode): it is "
        f"{'a FIFO (named pipe)' if hasattr(os, 'mkfifo') else 'a directory'}, not a regular file",
        f"skipping {paths['goose']} (goose): not valid YAML (line 3)",
    ]
    r = run("servers", "--json")
    assert r.code == 0, r.stderr
    assert r.stderr.splitlines() == [f"mrtr: warning: {line}" for line in want]  # one line each, in search order
    listed = {s["name"]: s for s in r.json()}
    assert listed["survivor"]["usable"] and listed["survivor"]["host"] == "claude-desktop"
    assert (listed["bad"]["reason"], listed["worse"]["reason"]) == ("must be an object", "\"command\" must be a string")
    r = run("-s", "survivor", "call", "proc_info")  # found after the broken files, which are named on the way
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout)["argv"] == ["--label", "survivor"]
    assert r.stderr.splitlines() == [f"mrtr: warning: {line}" for line in want[:2]]
    r = run("-s", "bad", "tools")
    assert r.code == 2 and f"{home / '.config' / 'zed' / 'settings.json'}: server 'bad' is not usable: must be an " \
                           "object" in r.stderr
    r = run("--config", paths["codex"], "servers")  # a file named with --config must be readable
    assert r.code == 2 and r.stderr.startswith(f"mrtr: error: {paths['codex']}: not valid JSON"), r.stderr


def test_the_variables_that_move_the_hosts_files_are_followed(run, home, tmp_path):
    moved = tmp_path / "elsewhere"
    environ = {"XDG_CONFIG_HOME": str(moved / "xdg"), "CODEX_HOME": str(moved / "codex"),
               "CLAUDE_CONFIG_DIR": str(moved / "claude"), "GEMINI_CLI_HOME": str(moved / "gemini"),
               "OPENCODE_CONFIG": str(moved / "oc.json")}
    entry = {"command": "npx", "args": ["-y", "x"]}
    files = {
        "goose": write(moved / "xdg" / "goose" / "config.yaml",
                       "extensions:\n  g:\n    enabled: true\n    type: stdio\n    cmd: npx\n    args: []\n"),
        "mrtr": write(moved / "xdg" / "mrtr" / "servers.json", json.dumps({"mcpServers": {"m": entry}})),
        "codex": write(moved / "codex" / "config.toml", '[mcp_servers.c]\ncommand = "npx"\n'),
        "claude-code": write(moved / "claude" / ".claude.json", json.dumps({"mcpServers": {"cc": entry}})),
        "gemini": write(moved / "gemini" / ".gemini" / "settings.json", json.dumps({"mcpServers": {"gm": entry}})),
        "opencode": write(moved / "oc.json", json.dumps({"mcp": {"oc": {"type": "local", "command": ["npx"]}}})),
    }
    write(home / ".codex" / "config.toml", '[mcp_servers.not-here]\ncommand = "npx"\n')  # CODEX_HOME moved it
    r = run("servers", "--json", env=environ)
    assert r.code == 0 and r.stderr == "", r.stderr
    assert sorted((s["host"], s["source"]) for s in r.json()) == sorted((h, str(p)) for h, p in files.items())
