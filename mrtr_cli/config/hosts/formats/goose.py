"""goose: `~/.config/goose/config.yaml` (`$XDG_CONFIG_HOME/goose`;
`%APPDATA%\\Block\\goose\\config` on Windows), its `extensions` map (YAML).

An extension is `type: stdio` (`cmd`, `args`, `envs`, `env_keys`) or
`type: streamable_http` (`uri`, `headers`, `envs`, `env_keys`); `enabled: false` is listed
as not usable, as are the types mrtr cannot start: `builtin` and `platform` (parts of
goose), `frontend`, `inline_python`, and `sse` (which goose itself no longer supports).
`env_keys` name variables goose takes from its own secret store or the environment: mrtr
passes its environment to the server, and says which of them are not set. Values are
written as they are.
Sources: block/goose documentation/docs/guides/config-files.md ("Extensions
Configuration"), crates/goose/src/agents/extension.rs (`ExtensionConfig`),
crates/goose/src/config/extensions.rs (`ExtensionEntry`).
"""

from __future__ import annotations

import os
from typing import Any

from mrtr_cli.config.hosts.model import ConfigFile, HostEntry
from mrtr_cli.config.hosts.shapes import Malformed, flag, named_servers, read_entries, string_map, strings, text
from mrtr_cli.config.values import LITERAL

FORMAT = "yaml"

#: Extension types that are not a server mrtr can start or reach, and why.
_NOT_SERVERS = {
    "builtin": "a goose built-in extension, part of goose",
    "platform": "a goose platform extension, part of goose",
    "frontend": "tools goose's own interface provides",
    "inline_python": "Python code goose runs itself",
    "sse": "the SSE transport, which goose no longer supports (migrate it to streamable_http)",
}


def read(doc: Any, cfg: ConfigFile) -> list[HostEntry]:
    """The extensions of `extensions`, in file order.

    Raises:
        BadFile: not a mapping, or `extensions` is not a mapping of named extensions.
    """
    return read_entries(named_servers(doc, "extensions"), entry)


def entry(name: str, raw: dict[str, Any]) -> HostEntry:
    """One goose extension.

    Raises:
        Malformed: not of its shape.
    """
    kind = raw.get("type")
    if kind == "stdio":
        found = HostEntry(name, "stdio", command=text(raw, "cmd", required=True), args=strings(raw, "args"),
                          env=string_map(raw, "envs"), syntax=LITERAL)
    elif kind == "streamable_http":
        found = HostEntry(name, "http", url=text(raw, "uri", required=True), headers=string_map(raw, "headers"),
                          syntax=LITERAL)
    elif kind in _NOT_SERVERS:
        return HostEntry(name, None, unusable=f"type {kind}: {_NOT_SERVERS[kind]}")
    elif kind is None:
        raise Malformed("needs a \"type\" (stdio or streamable_http)")
    else:
        return HostEntry(name, None, unusable=f"unknown type {kind!r} (expected stdio or streamable_http)")
    unset = [key for key in strings(raw, "env_keys") if key not in os.environ and key not in found.env]
    if unset:
        found.notes.append(f"env_keys {', '.join(unset)} not set in the environment (goose may keep them in its "
                           "secret store, which mrtr does not read)")
    if "enabled" not in raw:
        raise Malformed("needs \"enabled\": true or false (goose skips an extension without it)")
    if not flag(raw, "enabled", False):
        found.unusable = "disabled (enabled: false)"
    return found
