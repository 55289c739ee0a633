"""VS Code: the workspace's `.vscode/mcp.json` and the user profile's `mcp.json`
(`{"servers": {NAME: ENTRY}, "inputs": [...]}`; JSON with comments).

Entries are `type` `stdio` (`command`, `args`, `env`, `envFile`, `cwd`) or `http` / `sse`
(`url`, `headers`); values may hold `${env:VAR}`, `${userHome}`, `${workspaceFolder}` and
`${input:ID}`. An entry with an `${input:ID}` (a value VS Code asks for when it starts the
server) is listed as not usable: mrtr cannot ask VS Code's question. `envFile` is not read.
Source: code.visualstudio.com/docs/copilot/reference/mcp-configuration ("Configuration
format", "Input variables for sensitive data").
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.config.hosts.model import ConfigFile, HostEntry
from mrtr_cli.config.hosts.shapes import named_servers, read_entries, standard

FORMAT = "jsonc"


def read(doc: Any, cfg: ConfigFile) -> list[HostEntry]:
    """The servers of `servers`, in file order.

    Raises:
        BadFile: not an object, or `servers` is not an object of named servers.
    """
    return read_entries(named_servers(doc, "servers"), entry)


def entry(name: str, raw: dict[str, Any]) -> HostEntry:
    """One VS Code entry.

    Raises:
        Malformed: not of its shape.
    """
    return standard(name, raw, types=("stdio", "http", "sse"))
