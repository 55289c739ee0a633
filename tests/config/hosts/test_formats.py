"""The host formats in this process: where each host's file is on Linux, macOS and Windows
(pure functions of the platform, the home folder and the environment), each host module's
mapping of an entry (and the reason for what it cannot use), JSON with comments, the
bounds on a YAML file, and each host's way of writing a reference to a variable or a file.
The same formats through a real mrtr and real servers: config/hosts/test_hosts.py.
"""

from __future__ import annotations

import json

import pytest

from mrtr_cli.config.hosts.files import load
from mrtr_cli.config.hosts.formats import claude_code, codex, gemini, goose, opencode, vscode, zed
from mrtr_cli.config.hosts.jsonc import strip_jsonc
from mrtr_cli.config.hosts.model import BadFile, ConfigFile, EnvRef
from mrtr_cli.config.hosts.paths import Places
from mrtr_cli.config.hosts.sources import SOURCES, config_files
from mrtr_cli.config.servers import find_servers
from mrtr_cli.config.values import GEMINI, OPENCODE, WINDSURF, expand_vars
from mrtr_cli.errors import UsageError

WIN_HOME = "C:\\Users\\ann"
APPDATA = "C:\\Users\\ann\\AppData\\Roaming"


def every_path(places: Places) -> dict[str, list[str]]:
    """host -> the paths of its user-level files."""
    return {source.host: source.paths(places) for source in SOURCES if source.scope == "user"}


def test_linux_paths_follow_xdg_and_the_hosts_own_variables():
    assert every_path(Places("linux", "/home/ann", {})) == {
        "mrtr": ["/home/ann/.config/mrtr/servers.json"],
        "claude-code": ["/home/ann/.claude.json"],
        "claude-desktop": ["/home/ann/.config/Claude/claude_desktop_config.json"],
        "codex": ["/home/ann/.codex/config.toml"],
        "gemini": ["/home/ann/.gemini/settings.json"],
        "vscode": ["/home/ann/.config/Code/User/mcp.json"],
        "cursor": ["/home/ann/.cursor/mcp.json"],
        "windsurf": ["/home/ann/.codeium/windsurf/mcp_config.json"],
        "opencode": ["/home/ann/.config/opencode/opencode.jsonc", "/home/ann/.config/opencode/opencode.json"],
        "zed": ["/home/ann/.config/zed/settings.json"],
        "goose": ["/home/ann/.config/goose/config.yaml"],
    }
    moved = every_path(Places("linux", "/home/ann", {
        "XDG_CONFIG_HOME": "/cfg", "CODEX_HOME": "/codex", "CLAUDE_CONFIG_DIR": "/claude",
        "GEMINI_CLI_HOME": "/gem", "OPENCODE_CONFIG": "/oc.json", "FLATPAK_XDG_CONFIG_HOME": "/flatpak",
        "APPDATA": "/not-on-linux"}))
    assert moved["mrtr"] == ["/cfg/mrtr/servers.json"]
    assert moved["claude-code"] == ["/claude/.claude.json"]
    assert moved["claude-desktop"] == ["/cfg/Claude/claude_desktop_config.json"]
    assert moved["codex"] == ["/codex/config.toml"]
    assert moved["gemini"] == ["/gem/.gemini/settings.json"]
    assert moved["vscode"] == ["/cfg/Code/User/mcp.json"]
    assert moved["opencode"] == ["/oc.json", "/cfg/opencode/opencode.jsonc", "/cfg/opencode/opencode.json"]
    assert moved["zed"] == ["/flatpak/zed/settings.json"]
    assert moved["goose"] == ["/cfg/goose/config.yaml"]


def test_macos_paths_are_application_support_where_the_host_puts_them_there():
    mac = every_path(Places("darwin", "/Users/ann", {}))
    assert mac["mrtr"] == ["/Users/ann/Library/Application Support/mrtr/servers.json",
                           "/Users/ann/.config/mrtr/servers.json"]  # the platform's folder, then the earlier one
    assert mac["claude-desktop"] == ["/Users/ann/Library/Application Support/Claude/claude_desktop_config.json"]
    assert mac["vscode"] == ["/Users/ann/Library/Application Support/Code/User/mcp.json"]
    assert mac["zed"] == ["/Users/ann/.config/zed/settings.json"]  # Zed uses ~/.config on macOS
    assert mac["goose"] == ["/Users/ann/.config/goose/config.yaml"]
    assert mac["opencode"][0] == "/Users/ann/.config/opencode/opencode.jsonc"
    assert mac["codex"] == ["/Users/ann/.codex/config.toml"]
    # XDG_CONFIG_HOME moves the XDG-minded tools, never Zed's macOS folder or VS Code's
    moved = every_path(Places("darwin", "/Users/ann", {"XDG_CONFIG_HOME": "/x"}))
    assert (moved["goose"], moved["zed"], moved["vscode"]) == (
        ["/x/goose/config.yaml"], mac["zed"], mac["vscode"])


def test_windows_paths_are_appdata_and_the_profile_folder():
    win = every_path(Places("win32", WIN_HOME, {"APPDATA": APPDATA}))
    assert win == {
        "mrtr": [APPDATA + "\\mrtr\\servers.json", WIN_HOME + "\\.config\\mrtr\\servers.json"],
        "claude-code": [WIN_HOME + "\\.claude.json"],
        "claude-desktop": [APPDATA + "\\Claude\\claude_desktop_config.json"],
        "codex": [WIN_HOME + "\\.codex\\config.toml"],
        "gemini": [WIN_HOME + "\\.gemini\\settings.json"],
        "vscode": [APPDATA + "\\Code\\User\\mcp.json"],
        "cursor": [WIN_HOME + "\\.cursor\\mcp.json"],
        "windsurf": [WIN_HOME + "\\.codeium\\windsurf\\mcp_config.json"],
        "opencode": [WIN_HOME + "\\.config\\opencode\\opencode.jsonc", WIN_HOME + "\\.config\\opencode\\opencode.json"],
        "zed": [APPDATA + "\\Zed\\settings.json"],
        "goose": [APPDATA + "\\Block\\goose\\config\\config.yaml"],
    }
    assert every_path(Places("win32", WIN_HOME, {}))["zed"] == [WIN_HOME + "\\AppData\\Roaming\\Zed\\settings.json"]
    files = config_files(places=Places("win32", WIN_HOME, {"APPDATA": APPDATA}), cwd="C:\\work")
    project = [cfg.path for cfg, source in files if source.scope == "project"]
    assert project[1:] == [".\\.mcp.json", ".\\.vscode\\mcp.json", ".\\.cursor\\mcp.json", ".\\.gemini\\settings.json",
                           ".\\.codex\\config.toml", ".\\opencode.jsonc", ".\\opencode.json", ".\\.zed\\settings.json"]


def test_macos_files_are_read_where_macos_keeps_them(tmp_path, monkeypatch):
    home = tmp_path / "home"
    support = home / "Library" / "Application Support"
    (support / "Code" / "User").mkdir(parents=True)
    (support / "Code" / "User" / "mcp.json").write_text('{"servers": {"mac-vscode": {"command": "npx"}}}')
    (support / "Claude").mkdir()
    (support / "Claude" / "claude_desktop_config.json").write_text('{"mcpServers": {"mac-desk": {"command": "npx"}}}')
    monkeypatch.chdir(tmp_path)
    found = find_servers(places=Places("darwin", str(home), {}))
    assert [(s.name, s.source.host, s.source.path) for s in found] == [
        ("mac-desk", "claude-desktop", str(support / "Claude" / "claude_desktop_config.json")),
        ("mac-vscode", "vscode", str(support / "Code" / "User" / "mcp.json"))]


# ------------------------------------------------------------------ JSON with comments
@pytest.mark.parametrize("text, want", [
    ('{"a": 1, // one\n"b": "x//y", /* two\nlines */ "c": [1, 2,],}', {"a": 1, "b": "x//y", "c": [1, 2]}),
    ('{"url": "http://h/*not a comment*/", "q": "\\"//\\""}', {"url": "http://h/*not a comment*/", "q": '"//"'}),
    ('[1, /* c */ ]', [1]),
    ('{"a": [1, 2, // last\n],\n}', {"a": [1, 2]}),
    ('{"a": ",}"}', {"a": ",}"}),
])
def test_jsonc_is_json_with_comments_and_trailing_commas(text, want):
    stripped = strip_jsonc(text)
    assert json.loads(stripped) == want
    assert len(stripped) == len(text) and stripped.count("\n") == text.count("\n")  # positions kept


@pytest.mark.parametrize("fmt, text", [("json", ""), ("jsonc", "// nothing yet\n"), ("toml", "\n"),
                                       ("yaml", "# no extensions\n")])
def test_an_empty_settings_file_is_no_servers(tmp_path, fmt, text):
    path = tmp_path / "settings"
    path.write_text(text)
    assert load(str(path), fmt) == {}


def test_jsonc_errors_point_into_the_file(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{\n  // a comment\n  "a": 1,\n  "b": nope\n}')
    with pytest.raises(BadFile) as err:
        load(str(path), "jsonc")
    assert str(err.value) == "not valid JSON: line 4 column 8: Expecting value"


def test_a_yaml_config_is_read_within_bounds(tmp_path):
    path = tmp_path / "config.yaml"
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1},"
              f" *a{i - 1}, *a{i - 1}]" for i in range(1, 9)]
    path.write_text("\n".join(lines) + "\n")  # a billion laughs: 10**9 nodes from 500 bytes
    with pytest.raises(BadFile) as err:
        load(str(path), "yaml")
    assert str(err.value).startswith("the YAML expands to more than 100000 YAML nodes")
    path.write_text("extensions:\n  x: " + "[" * 70 + "]" * 70 + "\n")
    with pytest.raises(BadFile, match="nested more than 64 levels"):
        load(str(path), "yaml")


# ------------------------------------------------------------------ each host's mapping
CFG = ConfigFile("f", True, "/")


def one(module, doc, name=None):
    found = module.read(doc, CFG)
    return found[0] if name is None else next(e for e in found if e.name == name)


def test_codex_maps_its_fields_and_refuses_what_codex_refuses():
    web = one(codex, {"mcp_servers": {"w": {
        "url": "http://h/mcp", "http_headers": {"authorization": "Bearer old", "X-A": "1", "x-key": "old"},
        "env_http_headers": {"X-Key": "KEY_VAR"}, "bearer_token_env_var": "TOK",
        "oauth": {"client_id": "cid"}, "scopes": ["a", "b"]}}})
    assert web.headers == {"X-A": "1", "X-Key": EnvRef("KEY_VAR", required=False, field="env_http_headers.X-Key"),
                           "Authorization": EnvRef("TOK", "Bearer ", field="bearer_token_env_var")}
    assert web.oauth == {"clientId": "cid", "scopes": ["a", "b"]}
    local = one(codex, {"mcp_servers": {"s": {"command": "npx", "args": ["-y"], "env": {"A": "1"}, "cwd": "/w",
                                             "env_vars": ["X", {"name": "Y", "source": "local"}]}}})
    assert (local.kind, local.command, local.args, local.env, local.cwd) == ("stdio", "npx", ["-y"], {"A": "1"}, "/w")
    for raw, reason in [({"command": "x", "url": "http://h"}, "url is not supported for stdio"),
                        ({"url": "http://h", "cwd": "/"}, "cwd is not supported for streamable_http"),
                        ({"url": "http://h", "bearer_token": "t"}, "bearer_token is not supported"),
                        ({"args": ["x"]}, "neither \"command\" (stdio) nor \"url\" (streamable_http)"),
                        ({"command": "x", "enabled": "no"}, "\"enabled\" must be true or false")]:
        entry = one(codex, {"mcp_servers": {"s": raw}})
        assert entry.malformed and entry.unusable is not None and entry.unusable.startswith(reason)


def test_opencode_reads_both_of_its_shapes():
    v1 = one(opencode, {"mcp": {"a": {"type": "local", "command": ["bun", "x", "y"], "environment": {"K": "v"}}}})
    assert (v1.command, v1.args, v1.env) == ("bun", ["x", "y"], {"K": "v"})
    v2 = opencode.read({"mcp": {"servers": {
        "b": {"type": "remote", "url": "http://h", "oauth": {"clientId": "c", "redirectUri": "x"}},
        "c": {"type": "local", "command": ["x"], "disabled": True}}}}, CFG)
    assert (v2[0].kind, v2[0].url, v2[0].oauth) == ("http", "http://h", {"clientId": "c"})
    assert v2[1].unusable == "disabled (\"disabled\": true)"
    bad = one(opencode, {"mcp": {"a": {"type": "local", "command": "npx x"}}})
    assert bad.malformed and bad.unusable == "\"command\" must be a list of strings"
    assert one(opencode, {"mcp": {"a": {"type": "websocket"}}}).unusable.startswith("unknown type 'websocket'")


def test_gemini_prefers_httpurl_then_url_then_command_and_applies_its_lists():
    found = gemini.read({"mcpServers": {
        "a": {"httpUrl": "http://h/mcp", "url": "http://h/sse", "command": "x"},
        "b": {"url": "http://h/sse", "command": "x", "type": "sse"},
        "c": {"command": "x", "cwd": "/w"},
        "d": {"command": "x"},
        "e": {"url": "http://h", "authProviderType": "google_credentials"},
        "f": {"url": "http://h", "oauth": {"enabled": True, "clientId": "c", "scopes": ["s"], "tokenUrl": "t"}}},
        "mcp": {"allowed": ["a", "b", "c", "e", "f"]}}, CFG)
    assert [(e.name, e.kind, e.url or e.command) for e in found[:3]] == [
        ("a", "http", "http://h/mcp"), ("b", "http", "http://h/sse"), ("c", "stdio", "x")]
    assert found[3].unusable == "not in \"mcp.allowed\""
    assert "Google credentials" in found[4].unusable
    assert found[5].oauth == {"clientId": "c", "scopes": ["s"]}


def test_zed_goose_vscode_and_claude_code_entries():
    legacy = one(zed, {"context_servers": {"z": {"command": {"path": "p", "args": ["a"], "env": {"K": "v"}},
                                                 "settings": {}}}})
    assert (legacy.command, legacy.args, legacy.env) == ("p", ["a"], {"K": "v"})
    entry = one(zed, {"context_servers": {"z": {"settings": {"k": 1}}}})
    assert entry.unusable.startswith("provided by a Zed extension")
    assert one(goose, {"extensions": {"g": {"type": "sse", "enabled": True, "uri": "http://h"}}}).unusable.startswith(
        "type sse: the SSE transport, which goose no longer supports")
    nameless = one(goose, {"extensions": {"g": {"type": "stdio", "cmd": "x", "args": []}}})
    assert nameless.malformed and "needs \"enabled\"" in nameless.unusable
    assert one(vscode, {"servers": {"v": {"type": "stdio", "command": "x", "envFile": ".env"}}}).notes == [
        "envFile is not read by mrtr; put the variables in \"env\""]
    helper = claude_code.read_servers({"mcpServers": {"c": {
        "type": "http", "url": "http://h", "headersHelper": "h.sh", "oauth": {"clientId": "id",
                                                                              "callbackPort": 8080}}}},
        CFG)[0]
    assert helper.oauth == {"clientId": "id", "redirectPort": 8080} and "headersHelper" in helper.notes[0]
    ws = claude_code.read_servers({"mcpServers": {"c": {"type": "ws", "url": "ws://h"}}}, CFG)[0]
    assert ws.unusable.startswith("unknown type 'ws'") and not ws.malformed


def test_claude_code_s_local_scope_is_the_nearest_project_folder_above(tmp_path):
    doc = {"projects": {str(tmp_path): {"mcpServers": {"top": {"command": "x"}}},
                        str(tmp_path / "a" / "b"): {"mcpServers": {"deep": {"command": "x"}}}}}
    here = ConfigFile("f", True, str(tmp_path / "a" / "b" / "c"))
    assert [e.name for e in claude_code.read_local(doc, here)] == ["deep"]
    here.root = str(tmp_path / "a")
    assert [e.name for e in claude_code.read_local(doc, here)] == ["top"]
    here.root = "/"
    assert claude_code.read_local(doc, here) == []


# ------------------------------------------------------------------ references
def test_each_host_writes_references_its_own_way(tmp_path, monkeypatch):
    monkeypatch.setenv("SET", "v")
    monkeypatch.delenv("UNSET", raising=False)
    (tmp_path / "tok.txt").write_text("  from-file\n")
    assert expand_vars("$SET-${SET}-${UNSET:-d}-$UNSET", allowed=True, syntax=GEMINI) == ("v-v-d-$UNSET", [])
    assert expand_vars("{env:SET}/{env:UNSET}/{file:tok.txt}", allowed=True, syntax=OPENCODE,
                       base=str(tmp_path)) == ("v//from-file", [])
    read: list[str] = []
    assert expand_vars(f"${{env:SET}} ${{file:{tmp_path / 'tok.txt'}}} $SET", allowed=True, syntax=WINDSURF,
                       secret=read.append) == ("v from-file $SET", [])
    assert read == ["from-file"]  # a file's text is a secret
    with pytest.raises(UsageError, match=r"\$\{env:UNSET\} is not set"):
        expand_vars("${env:UNSET}", allowed=True, syntax=WINDSURF)
    with pytest.raises(UsageError, match="cannot read .*nope.txt: no such file"):
        expand_vars("{file:nope.txt}", allowed=True, syntax=OPENCODE, base=str(tmp_path))
    # a project's file: nothing is read, the references are named as the host writes them
    assert expand_vars("{env:SET} {file:tok.txt}", allowed=False, syntax=OPENCODE) == (
        "{env:SET} {file:tok.txt}", ["{env:SET}", "{file:tok.txt}"])
    assert expand_vars("$SET ${SET:-x}", allowed=False, syntax=GEMINI) == ("$SET ${SET:-x}", ["${SET}"])


def test_toml_is_read_within_the_json_depth_bound(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[mcp_servers.a]\ncommand = "x"\n')
    assert load(str(path), "toml") == {"mcp_servers": {"a": {"command": "x"}}}
    path.write_text("[mcp_servers]\na = " + "[" * 2000 + "]" * 2000 + "\n")
    with pytest.raises(BadFile, match="TOML"):
        load(str(path), "toml")
    with pytest.raises(FileNotFoundError):
        load(str(tmp_path / "none.toml"), "toml")
