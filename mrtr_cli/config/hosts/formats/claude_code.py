"""Claude Code: the project's `.mcp.json` (project scope), and `~/.claude.json` with the
user's servers in its `mcpServers` (user scope) and each project's own under
`projects[PATH].mcpServers` (local scope; PATH is the project's folder: mrtr takes the
current folder's entry, or the nearest folder above it that has one).

Entries are stdio (`command`, `args`, `env`) or `type` `http` / `sse` (`url`, `headers`);
values may hold `${VAR}` and `${VAR:-default}` (in `command`, `args`, `env`, `url`,
`headers`). `oauth.clientId` and `oauth.callbackPort` map to mrtr's `clientId` and
`redirectPort`; `headersHelper` (a command that prints headers) is not run.
Claude Code itself prefers local, then project, then user scope: so does mrtr's order.
Source: code.claude.com/docs/en/mcp ("MCP installation scopes", "Environment variable
expansion in .mcp.json").
"""

from __future__ import annotations

import os
from typing import Any

from mrtr_cli.config.hosts.model import BadFile, ConfigFile, HostEntry
from mrtr_cli.config.hosts.shapes import named_servers, read_entries, standard

FORMAT = "json"


def entry(name: str, raw: dict[str, Any]) -> HostEntry:
    """One Claude Code entry.

    Raises:
        Malformed: not of its shape.
    """
    found = standard(name, raw, types=("stdio", "http", "sse"))
    oauth = found.oauth
    if isinstance(oauth, dict) and "callbackPort" in oauth:
        found.oauth = {k: v for k, v in oauth.items() if k != "callbackPort"} | {"redirectPort": oauth["callbackPort"]}
    if raw.get("headersHelper"):
        found.notes.append("headersHelper (a command printing headers) is not run by mrtr; give them with -H")
    return found


def read_servers(doc: Any, cfg: ConfigFile) -> list[HostEntry]:
    """The servers of `mcpServers`: `.mcp.json`, and the user scope of `~/.claude.json`.

    Raises:
        BadFile: not an object, or `mcpServers` is not an object of named servers.
    """
    return read_entries(named_servers(doc, "mcpServers"), entry)


def read_local(doc: Any, cfg: ConfigFile) -> list[HostEntry]:
    """The servers `~/.claude.json` keeps for this project (`projects[PATH].mcpServers`,
    PATH the folder `cfg.root` or the nearest one above it with an entry).

    Raises:
        BadFile: not of `~/.claude.json`'s shape where the project's servers are.
    """
    if not isinstance(doc, dict):
        raise BadFile("expected a JSON object at the top")
    projects = doc.get("projects")
    if projects is None:
        return []
    if not isinstance(projects, dict):
        raise BadFile("\"projects\" must be an object of project folders")
    keys = {_same_path(k): k for k in projects if isinstance(k, str)}
    folder = os.path.abspath(cfg.root)
    while True:
        key = keys.get(_same_path(folder))
        if key is not None:
            project = projects[key]
            if project is None:
                return []
            if not isinstance(project, dict):
                raise BadFile(f"\"projects\" entry {key!r} must be an object")
            return read_entries(named_servers(project, "mcpServers", parent=f"projects[{key!r}]."), entry)
        parent = os.path.dirname(folder)
        if parent == folder:
            return []
        folder = parent


def _same_path(path: str) -> str:
    """`path` as compared with another (Windows: case and slashes do not matter)."""
    return os.path.normcase(os.path.normpath(path))
