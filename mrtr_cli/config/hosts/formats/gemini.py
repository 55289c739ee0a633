"""Gemini CLI: `~/.gemini/settings.json` (the user's) and the project's
`.gemini/settings.json` (JSON with comments), their `mcpServers`.

An entry is `httpUrl` (Streamable HTTP), else `url` (SSE, or Streamable HTTP with
`"type": "http"`; mrtr speaks Streamable HTTP to both), else `command` (stdio, with `args`,
`env`, `cwd`); `headers` go with a URL. `tcp` (WebSocket) and a Google sign-in
(`authProviderType` `google_credentials` or `service_account_impersonation`) are not
usable in mrtr; `oauth.clientId`, `clientSecret` and `scopes` map to mrtr's. A server
named in `mcp.excluded`, or missing from a non-empty `mcp.allowed`, is listed as not usable.
Values may hold `$VAR`, `${VAR}` and `${VAR:-default}`; an unset variable stays as written.
Sources: google-gemini/gemini-cli docs/tools/mcp-server.md ("Configuration properties",
"Environment variable expansion"), docs/reference/configuration.md ("Settings files",
`mcp.allowed`, `mcp.excluded`), packages/cli/src/utils/envVarResolver.ts.
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.config.hosts.model import ConfigFile, HostEntry
from mrtr_cli.config.hosts.shapes import Malformed, flag, named_servers, read_entries, string_map, strings, text
from mrtr_cli.config.values import GEMINI

FORMAT = "jsonc"

#: `authProviderType` values that sign in with Google's own credentials.
_GOOGLE_SIGN_IN = ("google_credentials", "service_account_impersonation")


def read(doc: Any, cfg: ConfigFile) -> list[HostEntry]:
    """The servers of `mcpServers`, in file order, with `mcp.allowed` / `mcp.excluded` applied.

    Raises:
        BadFile: not an object, or `mcpServers` is not an object of named servers.
    """
    entries = read_entries(named_servers(doc, "mcpServers"), entry)
    rules = doc.get("mcp")
    rules = rules if isinstance(rules, dict) else {}
    allowed, excluded = rules.get("allowed"), rules.get("excluded")
    for found in entries:
        if found.unusable is not None:
            continue
        if isinstance(excluded, list) and found.name in excluded:
            found.unusable = "excluded by \"mcp.excluded\""
        elif isinstance(allowed, list) and allowed and found.name not in allowed:
            found.unusable = "not in \"mcp.allowed\""
    return entries


def entry(name: str, raw: dict[str, Any]) -> HostEntry:
    """One Gemini CLI entry.

    Raises:
        Malformed: not of its shape.
    """
    declared = text(raw, "type")
    if declared is not None and declared not in ("http", "sse"):
        return HostEntry(name, None, unusable=f"unknown type {declared!r} (expected http or sse)")
    if "httpUrl" in raw or "url" in raw:
        found = HostEntry(name, "http", url=text(raw, "httpUrl" if "httpUrl" in raw else "url", required=True),
                          headers=string_map(raw, "headers"), syntax=GEMINI)
    elif "command" in raw:
        found = HostEntry(name, "stdio", command=text(raw, "command", required=True), args=strings(raw, "args"),
                          env=string_map(raw, "env"), cwd=text(raw, "cwd"), syntax=GEMINI)
    elif "tcp" in raw:
        return HostEntry(name, None, unusable="\"tcp\" is a WebSocket server, a transport mrtr does not speak")
    else:
        raise Malformed("neither \"httpUrl\" or \"url\" (HTTP) nor \"command\" (stdio)")
    provider = raw.get("authProviderType")
    if provider in _GOOGLE_SIGN_IN:
        found.unusable = (f"\"authProviderType\": {provider!r} signs in with Google credentials, which mrtr "
                          "cannot do")
    oauth = raw.get("oauth")
    if isinstance(oauth, dict) and flag(oauth, "enabled", True):
        found.oauth = {k: oauth[k] for k in ("clientId", "clientSecret", "scopes") if k in oauth}
    return found
