"""Codex: `~/.codex/config.toml` (`$CODEX_HOME/config.toml`) and a project's
`.codex/config.toml`, their `[mcp_servers.NAME]` tables (TOML).

A table is stdio (`command`, `args`, `env`, `env_vars`, `cwd`) or Streamable HTTP (`url`,
`http_headers`, `env_http_headers`, `bearer_token_env_var`). `bearer_token_env_var` names
the variable holding the token sent as `Authorization: Bearer` (unset: an error, as in
Codex); `env_http_headers` maps a header to the variable holding its value (unset or
empty: the header is left out, as in Codex). mrtr passes its whole environment to a
server, so `env_vars` (names Codex lets through) needs nothing more. `enabled = false` is
listed as not usable; `oauth.client_id` and `scopes` map to mrtr's OAuth settings. Values
are written as they are (no `${VAR}`).
Sources: openai/codex docs/config.md ("MCP integration"), codex-rs/config/src/mcp_types.rs
(`RawMcpServerConfig`).
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.config.hosts.model import ConfigFile, EnvRef, HostEntry, Value
from mrtr_cli.config.hosts.shapes import Malformed, flag, named_servers, read_entries, string_map, strings, text
from mrtr_cli.config.values import LITERAL

FORMAT = "toml"

#: Members of a stdio table that Codex refuses in an HTTP one, and the other way round.
_STDIO_ONLY = ("args", "env", "env_vars", "cwd")
_HTTP_ONLY = ("bearer_token_env_var", "http_headers", "env_http_headers", "oauth", "oauth_resource")


def read(doc: Any, cfg: ConfigFile) -> list[HostEntry]:
    """The tables of `mcp_servers`, in file order.

    Raises:
        BadFile: `mcp_servers` is not a table of named servers.
    """
    return read_entries(named_servers(doc, "mcp_servers"), entry)


def entry(name: str, raw: dict[str, Any]) -> HostEntry:
    """One `[mcp_servers.NAME]` table.

    Raises:
        Malformed: not of its shape (as Codex refuses it: a member of the other transport,
            neither `command` nor `url`).
    """
    if "command" in raw:
        wrong = next((k for k in ("url", *_HTTP_ONLY) if k in raw), None)
        if wrong is not None:
            raise Malformed(f"{wrong} is not supported for stdio")
        _env_vars(raw)
        found = HostEntry(name, "stdio", command=text(raw, "command", required=True), args=strings(raw, "args"),
                          env=string_map(raw, "env"), cwd=text(raw, "cwd"), syntax=LITERAL)
    elif "url" in raw:
        wrong = next((k for k in _STDIO_ONLY if k in raw), None)
        if wrong is not None:
            raise Malformed(f"{wrong} is not supported for streamable_http")
        if "bearer_token" in raw:
            raise Malformed("bearer_token is not supported; use bearer_token_env_var")
        headers: dict[str, Value] = dict(string_map(raw, "http_headers"))
        for header, variable in string_map(raw, "env_http_headers").items():
            _drop(headers, header)
            headers[header] = EnvRef(str(variable), required=False, field=f"env_http_headers.{header}")
        token = text(raw, "bearer_token_env_var")
        if token is not None:
            _drop(headers, "Authorization")
            headers["Authorization"] = EnvRef(token, "Bearer ", field="bearer_token_env_var")
        found = HostEntry(name, "http", url=text(raw, "url", required=True), headers=headers, syntax=LITERAL)
        oauth = raw.get("oauth")
        scopes = strings(raw, "scopes")
        if isinstance(oauth, dict) or scopes:
            found.oauth = {**({"clientId": oauth["client_id"]} if isinstance(oauth, dict) and "client_id" in oauth
                              else {}), **({"scopes": scopes} if scopes else {})}
    else:
        raise Malformed("neither \"command\" (stdio) nor \"url\" (streamable_http)")
    if not flag(raw, "enabled", True):
        found.unusable = "disabled (enabled = false)"
    return found


def _env_vars(raw: dict[str, Any]) -> None:
    """Check `env_vars`: names, or `{name, source}` tables.

    Raises:
        Malformed: anything else."""
    items = raw.get("env_vars")
    if items is not None and not isinstance(items, list):
        raise Malformed("\"env_vars\" must be a list of names or {name, source} tables")
    for item in items or []:
        if not (isinstance(item, str) or (isinstance(item, dict) and isinstance(item.get("name"), str))):
            raise Malformed("\"env_vars\" must be a list of names or {name, source} tables")


def _drop(headers: dict[str, Value], name: str) -> None:
    """Remove `name` from `headers` whatever its case (a header from the environment
    replaces a written one, as in Codex)."""
    for key in [k for k in headers if k.lower() == name.lower()]:
        del headers[key]
