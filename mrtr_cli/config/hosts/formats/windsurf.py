"""Windsurf: `~/.codeium/windsurf/mcp_config.json`, its `mcpServers`.

An entry is stdio (`command`, `args`, `env`) or remote (`serverUrl` or `url`, `headers`;
Streamable HTTP or SSE); `"disabled": true` is listed as not usable. Values of `command`,
`args`, `env`, `serverUrl`, `url` and `headers` may hold `${env:VAR}` and `${file:PATH}`.
Source: docs.windsurf.com/windsurf/cascade/mcp ("mcp_config.json", "Remote HTTP MCPs",
"Config Interpolation").
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.config.hosts.model import ConfigFile, HostEntry
from mrtr_cli.config.hosts.shapes import named_servers, read_entries, standard
from mrtr_cli.config.values import WINDSURF

FORMAT = "json"


def read(doc: Any, cfg: ConfigFile) -> list[HostEntry]:
    """The servers of `mcpServers`, in file order.

    Raises:
        BadFile: not an object, or `mcpServers` is not an object of named servers.
    """
    return read_entries(named_servers(doc, "mcpServers"), entry)


def entry(name: str, raw: dict[str, Any]) -> HostEntry:
    """One Windsurf entry.

    Raises:
        Malformed: not of its shape.
    """
    return standard(name, raw, syntax=WINDSURF, url_keys=("serverUrl", "url"))
