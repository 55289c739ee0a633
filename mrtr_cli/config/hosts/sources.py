"""The one table of config sources, in the order `-s NAME` searches them: each row a host,
whether its file is the project's or the user's, where the file is on each platform
(`paths`), and the module that reads its format (docs/configuration.md, "Named servers").

1. `--config FILE` (any of mrtr's formats), then mrtr's own `~/.config/mrtr/servers.json`;
2. the project's files (the current directory), host by host: Claude Code (its local
   scope in `~/.claude.json`, then `.mcp.json`), VS Code, Cursor, Gemini CLI, Codex,
   OpenCode, Zed;
3. the user's files, host by host: Claude Code, Claude Desktop, Codex, Gemini CLI,
   VS Code, Cursor, Windsurf, OpenCode, Zed, goose.

The first usable entry of a name wins; later ones are shadowed (`-s HOST:NAME` picks one).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from mrtr_cli.config.hosts import paths
from mrtr_cli.config.hosts.formats import claude_code, codex, gemini, goose, mcpjson, opencode, vscode, windsurf, zed
from mrtr_cli.config.hosts.model import PROJECT, USER, ConfigFile, HostEntry
from mrtr_cli.config.hosts.paths import Places

Reader = Callable[[Any, ConfigFile], list[HostEntry]]


@dataclass(frozen=True)
class Source:
    """One row of the table.

    Attributes:
        host: the id `-s HOST:NAME` takes ("claude-code").
        label: the host's name for people ("Claude Code").
        scope: `PROJECT` (in the current directory) or `USER`.
        paths: where its files are, in order, on the platform of the `Places` given.
        format: how the file is written (`files.FORMATS`).
        read: the servers of a parsed file.
        user_level: references to the environment and files are expanded (the user's
            own files; Claude Code's local scope lives in the user's `~/.claude.json`).
    """

    host: str
    label: str
    scope: str
    paths: Callable[[Places], list[str]]
    format: str
    read: Reader
    user_level: bool


def _row(module: ModuleType, host: str, label: str, scope: str, where: Callable[[Places], list[str]],
         read: Reader | None = None, *, user_level: bool | None = None) -> Source:
    return Source(host, label, scope, where, module.FORMAT, read or module.read,
                  scope == USER if user_level is None else user_level)


#: Every source after `--config FILE`, in search order.
SOURCES: tuple[Source, ...] = (
    _row(mcpjson, "mrtr", "mrtr", USER, paths.mrtr_servers),
    _row(claude_code, "claude-code", "Claude Code", PROJECT, paths.claude_json, claude_code.read_local,
         user_level=True),
    _row(claude_code, "claude-code", "Claude Code", PROJECT, paths.project_mcp_json, claude_code.read_servers),
    _row(vscode, "vscode", "VS Code", PROJECT, paths.project_vscode),
    _row(mcpjson, "cursor", "Cursor", PROJECT, paths.project_cursor),
    _row(gemini, "gemini", "Gemini CLI", PROJECT, paths.project_gemini),
    _row(codex, "codex", "Codex", PROJECT, paths.project_codex),
    _row(opencode, "opencode", "OpenCode", PROJECT, paths.project_opencode),
    _row(zed, "zed", "Zed", PROJECT, paths.project_zed),
    _row(claude_code, "claude-code", "Claude Code", USER, paths.claude_json, claude_code.read_servers),
    _row(mcpjson, "claude-desktop", "Claude Desktop", USER, paths.claude_desktop),
    _row(codex, "codex", "Codex", USER, paths.codex),
    _row(gemini, "gemini", "Gemini CLI", USER, paths.gemini),
    _row(vscode, "vscode", "VS Code", USER, paths.vscode),
    _row(mcpjson, "cursor", "Cursor", USER, paths.cursor),
    _row(windsurf, "windsurf", "Windsurf", USER, paths.windsurf),
    _row(opencode, "opencode", "OpenCode", USER, paths.opencode),
    _row(zed, "zed", "Zed", USER, paths.zed),
    _row(goose, "goose", "goose", USER, paths.goose),
)

#: The host ids `-s HOST:NAME` knows (`config` is `--config FILE`).
HOSTS: tuple[str, ...] = ("config", *dict.fromkeys(s.host for s in SOURCES))

#: Reads `--config FILE`: mrtr's own shape.
EXPLICIT = Source("config", "--config", USER, lambda p: [], mcpjson.FORMAT, mcpjson.read, False)


def config_files(explicit: str | None = None, places: Places | None = None,
                 cwd: str | None = None) -> list[tuple[ConfigFile, Source]]:
    """Every config file to search, in order, whether or not it exists, with its row.

    Args:
        explicit: `--config FILE`.
        places: the platform, home folder and environment (default: this machine's).
        cwd: the project directory (default: the current directory).
    """
    places = places or Places.here()
    cwd = cwd or os.getcwd()
    files: list[tuple[ConfigFile, Source]] = []
    if explicit:
        path = os.path.expanduser(explicit)
        parent = os.path.dirname(os.path.abspath(path))
        root = os.path.dirname(parent) if os.path.basename(parent) in (".vscode", ".cursor") else parent
        files.append((ConfigFile(explicit, False, root), EXPLICIT))
    for source in SOURCES:
        root = cwd if source.scope == PROJECT else places.home
        for path in source.paths(places):
            files.append((ConfigFile(path, source.user_level, root, source.host, source.label, source.scope),
                          source))
    return files
