"""OpenCode: `opencode.json` / `opencode.jsonc` in the project, and
`~/.config/opencode/opencode.json(c)` (`$XDG_CONFIG_HOME/opencode`, and `$OPENCODE_CONFIG`
when set); JSON with comments; its `mcp` map (OpenCode 2 writes it as `mcp.servers`).

A server is `"type": "local"` (`command` as a list: the program and its arguments,
`environment`) or `"type": "remote"` (`url`, `headers`, `oauth`); `"enabled": false`
(OpenCode 2: `"disabled": true`) is listed as not usable. `oauth.clientId`,
`clientSecret` and `scope` map to mrtr's OAuth settings. Values may hold `{env:VAR}`
(unset: empty) and `{file:PATH}` (relative to the config file's folder, `~` for home).
Sources: opencode.ai/docs/mcp-servers ("Local", "Remote", "OAuth"), opencode.ai/docs/config
("Variables"), anomalyco/opencode packages/opencode/src/config/mcp.ts and variable.ts.
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.config.hosts.model import ConfigFile, HostEntry
from mrtr_cli.config.hosts.shapes import Malformed, flag, named_servers, read_entries, string_map, strings, text
from mrtr_cli.config.values import OPENCODE

FORMAT = "jsonc"


def read(doc: Any, cfg: ConfigFile) -> list[HostEntry]:
    """The servers of `mcp` (or `mcp.servers`), in file order.

    Raises:
        BadFile: not an object, or `mcp` is not an object of named servers.
    """
    block = named_servers(doc, "mcp")
    nested = block.get("servers")
    if isinstance(nested, dict) and "type" not in nested:  # OpenCode 2: the servers are one level down
        return read_entries(named_servers(block, "servers", parent="mcp."), entry)
    return read_entries(block, entry)


def entry(name: str, raw: dict[str, Any]) -> HostEntry:
    """One OpenCode server.

    Raises:
        Malformed: not of its shape.
    """
    kind = raw.get("type")
    if kind == "local":
        command = strings(raw, "command")
        if not command or not command[0]:
            raise Malformed("\"command\" must be a list: the program, then its arguments")
        found = HostEntry(name, "stdio", command=command[0], args=command[1:], env=string_map(raw, "environment"),
                          cwd=text(raw, "cwd"), syntax=OPENCODE)
    elif kind == "remote":
        found = HostEntry(name, "http", url=text(raw, "url", required=True), headers=string_map(raw, "headers"),
                          syntax=OPENCODE)
        oauth = raw.get("oauth")
        if isinstance(oauth, dict):
            found.oauth = {k: oauth[k] for k in ("clientId", "clientSecret", "scope") if k in oauth}
    elif kind is None:
        raise Malformed("needs \"type\": \"local\" or \"remote\"")
    else:
        return HostEntry(name, None, unusable=f"unknown type {kind!r} (expected local or remote)")
    if not flag(raw, "enabled", True):
        found.unusable = "disabled (\"enabled\": false)"
    elif flag(raw, "disabled", False):
        found.unusable = "disabled (\"disabled\": true)"
    return found
