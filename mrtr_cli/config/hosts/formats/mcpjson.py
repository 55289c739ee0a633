"""The shape of mrtr's own files (`--config FILE`, `~/.config/mrtr/servers.json`), of Claude
Desktop's `claude_desktop_config.json` and of Cursor's `mcp.json`:
`{"mcpServers": {NAME: ENTRY}}`, or VS Code's `{"servers": {NAME: ENTRY}}`.

An entry is stdio (`command`, `args`, `env`, `cwd`) or HTTP (`url` or `serverUrl`,
`headers`); `type` may say `stdio`, `http`, `streamable-http` or `sse`, else the members
decide. mrtr's own members `oauth` (docs/oauth.md) and `roots` are read;
`"disabled": true` lists the server as not usable. Values may hold `${VAR}`,
`${VAR:-default}`, `${env:VAR}`, `${workspaceFolder}` and `${userHome}` (Cursor's
interpolation; Claude Desktop writes values as they are).
Sources: modelcontextprotocol.io "Connect to local MCP servers" (Claude Desktop);
docs.cursor.com "Model Context Protocol" (`mcp.json`, config interpolation).
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.config.hosts.model import ConfigFile, HostEntry
from mrtr_cli.config.hosts.shapes import named_servers, read_entries, standard

FORMAT = "json"


def read(doc: Any, cfg: ConfigFile) -> list[HostEntry]:
    """The servers of `mcpServers` then `servers`, in file order.

    Raises:
        BadFile: not an object, or a member that is not an object of named servers.
    """
    entries = []
    for member in ("mcpServers", "servers"):
        entries += read_entries(named_servers(doc, member), entry)
    return entries


def entry(name: str, raw: dict[str, Any]) -> HostEntry:
    """One entry of this shape (also Claude Code's and VS Code's).

    Raises:
        Malformed: not of this shape.
    """
    return standard(name, raw, url_keys=("url", "serverUrl"))
