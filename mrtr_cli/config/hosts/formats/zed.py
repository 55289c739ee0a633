"""Zed: its `settings.json` (`~/.config/zed`, `%APPDATA%\\Zed` on Windows) and the
project's `.zed/settings.json` (JSON with comments), their `context_servers`.

A custom server is `command` (a string, with `args` and `env`; older settings write
`"command": {"path", "args", "env"}`) or `url` (with `headers`); `"enabled": false` is
listed as not usable, as is a server an extension provides (`"source": "extension"`, or
only `settings`): its command comes from the extension, which mrtr cannot run. Values are
written as they are.
Sources: zed-industries/zed docs/src/ai/mcp.md ("As Custom Servers"),
crates/settings content `ContextServerSettingsContent` (Stdio, Http, Extension).
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.config.hosts.model import ConfigFile, HostEntry
from mrtr_cli.config.hosts.shapes import Malformed, flag, named_servers, read_entries, string_map, strings, text
from mrtr_cli.config.values import LITERAL

FORMAT = "jsonc"


def read(doc: Any, cfg: ConfigFile) -> list[HostEntry]:
    """The servers of `context_servers`, in file order.

    Raises:
        BadFile: not an object, or `context_servers` is not an object of named servers.
    """
    return read_entries(named_servers(doc, "context_servers"), entry)


def entry(name: str, raw: dict[str, Any]) -> HostEntry:
    """One Zed context server.

    Raises:
        Malformed: not of its shape.
    """
    command = raw.get("command")
    if isinstance(command, dict):  # older settings: {"command": {"path", "args", "env"}}
        found = HostEntry(name, "stdio", command=text(command, "path", required=True), args=strings(command, "args"),
                          env=string_map(command, "env"), syntax=LITERAL)
    elif command is not None:
        found = HostEntry(name, "stdio", command=text(raw, "command", required=True), args=strings(raw, "args"),
                          env=string_map(raw, "env"), syntax=LITERAL)
    elif "url" in raw:
        found = HostEntry(name, "http", url=text(raw, "url", required=True), headers=string_map(raw, "headers"),
                          syntax=LITERAL)
    elif raw.get("source") == "extension" or "settings" in raw:
        return HostEntry(name, None, unusable="provided by a Zed extension, whose command comes from the "
                                              "extension: mrtr cannot start it")
    else:
        raise Malformed("neither \"command\" (stdio) nor \"url\" (HTTP)")
    if not flag(raw, "enabled", True):
        found.unusable = "disabled (\"enabled\": false)"
    return found
