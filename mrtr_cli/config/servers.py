"""Named servers from the config files people already have (`-s/--server NAME`, `mrtr servers`).

Files are searched in this order; the first file that names the server wins:

1. `--config FILE`
2. `./.mcp.json` (Claude Code)
3. `./.vscode/mcp.json` (VS Code)
4. `./.cursor/mcp.json` (Cursor)
5. the Claude Desktop config (`~/.config/Claude/claude_desktop_config.json` on Linux,
   `~/Library/Application Support/Claude/claude_desktop_config.json` on macOS,
   `%APPDATA%\\Claude\\claude_desktop_config.json` on Windows)
6. `~/.config/mrtr/servers.json`

Both shapes are read: `{"mcpServers": {NAME: ENTRY}}` (Claude, Cursor) and
`{"servers": {NAME: ENTRY}}` (VS Code). An entry is stdio (`command`, `args`, `env`,
`cwd`) or HTTP (`url`, `headers`); `type` may say `stdio`, `http`,
`streamable-http` or `sse`, else the members decide.

`${VAR}`, `${VAR:-default}` and `${env:VAR}` are expanded, and `env:VAR` / `file:PATH`
header values resolved, only in user-level files (5, 6) or with `--expand-env`:
a file in a project directory (1-4) must not be able to send your environment
or your files to a server. `${workspaceFolder}` (the project directory) is always
expanded. Every `env` value and every header value of an entry is a secret.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mrtr_cli.config.target import Target, check_header, check_url
from mrtr_cli.credentials import public_url, url_secrets
from mrtr_cli.config.encodable import PROCESS, REQUEST, check_text
from mrtr_cli.config.values import expand_vars, resolve_header_value
from mrtr_cli.errors import UsageError

HTTP_TYPES = ("http", "streamable-http", "streamableHttp", "sse")


@dataclass
class ConfigFile:
    """A place a config file may be.

    Attributes:
        path: the file path as shown to the user.
        user_level: a file in the user's own config directory (expansion allowed).
        root: the directory relative paths and `${workspaceFolder}` refer to.
    """

    path: str
    user_level: bool
    root: str


@dataclass
class ServerEntry:
    """One named server in one config file.

    Attributes:
        name: the server's name (the key in the file).
        entry: the entry as written (values unexpanded; may hold secrets).
        source: the file it came from.
        kind: "stdio" or "http".
        shadowed: an earlier file has a server with the same name.
    """

    name: str
    entry: dict[str, Any]
    source: ConfigFile
    kind: str
    shadowed: bool = False

    def public(self) -> dict[str, Any]:
        """A description without secrets: env and header names only, values as written."""
        e = self.entry
        out: dict[str, Any] = {"name": self.name, "type": self.kind, "source": self.source.path}
        if self.kind == "stdio":
            out["command"] = e.get("command")
            if e.get("args"):
                out["args"] = e.get("args")
            if e.get("cwd"):
                out["cwd"] = e.get("cwd")
            if isinstance(e.get("env"), dict) and e["env"]:
                out["env"] = sorted(e["env"])
        else:
            url = e.get("url") or e.get("serverUrl")
            out["url"] = public_url(url) if isinstance(url, str) else url  # credentials in it: ***
            if isinstance(e.get("headers"), dict) and e["headers"]:
                out["headers"] = sorted(e["headers"])
        out["shadowed"] = self.shadowed
        return out


def _config_home() -> str:
    return os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")


def claude_desktop_path() -> str:
    """Where Claude Desktop keeps its config on this platform."""
    if sys.platform == "darwin":
        return os.path.join(os.path.expanduser("~"), "Library", "Application Support", "Claude",
                            "claude_desktop_config.json")
    if sys.platform == "win32":
        base = os.environ.get("APPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Roaming")
        return os.path.join(base, "Claude", "claude_desktop_config.json")
    return os.path.join(_config_home(), "Claude", "claude_desktop_config.json")


def config_files(explicit: str | None = None, cwd: str | None = None) -> list[ConfigFile]:
    """The config files to search, in order (whether or not they exist)."""
    cwd = cwd or os.getcwd()
    files = []
    if explicit:
        path = os.path.expanduser(explicit)
        parent = os.path.dirname(os.path.abspath(path))
        root = os.path.dirname(parent) if os.path.basename(parent) in (".vscode", ".cursor") else parent
        files.append(ConfigFile(explicit, False, root))
    files += [
        ConfigFile(os.path.join(".", ".mcp.json"), False, cwd),
        ConfigFile(os.path.join(".", ".vscode", "mcp.json"), False, cwd),
        ConfigFile(os.path.join(".", ".cursor", "mcp.json"), False, cwd),
        ConfigFile(claude_desktop_path(), True, os.path.expanduser("~")),
        ConfigFile(os.path.join(_config_home(), "mrtr", "servers.json"), True, os.path.expanduser("~")),
    ]
    return files


def _kind(name: str, entry: dict[str, Any], path: str) -> str:
    declared = entry.get("type")
    if declared == "stdio" or (declared is None and "command" in entry):
        if not isinstance(entry.get("command"), str) or not entry["command"]:
            raise UsageError(f"{path}: server {name!r}: a stdio entry needs a \"command\" string")
        for key, want in (("args", list), ("env", dict)):
            if key in entry and not isinstance(entry[key], want):
                raise UsageError(f"{path}: server {name!r}: \"{key}\" must be {'a list' if want is list else 'an object'}")
        return "stdio"
    if declared in HTTP_TYPES or (declared is None and ("url" in entry or "serverUrl" in entry)):
        if not isinstance(entry.get("url") or entry.get("serverUrl"), str):
            raise UsageError(f"{path}: server {name!r}: an HTTP entry needs a \"url\" string")
        if "headers" in entry and not isinstance(entry["headers"], dict):
            raise UsageError(f"{path}: server {name!r}: \"headers\" must be an object")
        return "http"
    if declared is not None:
        raise UsageError(f"{path}: server {name!r}: unknown type {declared!r} (expected stdio, http or sse)")
    raise UsageError(f"{path}: server {name!r}: neither \"command\" (stdio) nor \"url\" (HTTP)")


#: Members of an entry whose strings go into HTTP requests (the rest go to a process).
_REQUEST_MEMBERS = ("url", "serverUrl", "headers", "oauth")


def _check_strings(value: Any, where: str, field: str = "", carrier: str = PROCESS) -> None:
    """`check_text` for every string in an entry, member names included, as read (before
    any expansion): the field is named as `args[0]`, `env.NAME`, `headers.NAME`.

    Raises:
        UsageError: a string holds a lone surrogate.
    """
    if isinstance(value, str):
        check_text(value, f"{where}: {field}", carrier=carrier)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_strings(item, where, f"{field}[{i}]", carrier)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_text(key, f"{where}: a member name" + (f" in {field}" if field else ""), carrier=carrier)
            _check_strings(item, where, f"{field}.{key}" if field else key,
                           REQUEST if not field and key in _REQUEST_MEMBERS else carrier)


def read_config(cfg: ConfigFile) -> list[ServerEntry] | None:
    """The servers in one config file, in file order; None if the file does not exist.

    Raises:
        UsageError: the file cannot be read, is not JSON, or has a malformed entry.
    """
    from mrtr_cli.userfiles import read_user_text  # noqa: PLC0415 - lazy for start-up time

    try:
        text = read_user_text(cfg.path, what="config file")
    except FileNotFoundError:
        return None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{cfg.path}: not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise UsageError(f"{cfg.path}: expected a JSON object")
    entries = []
    for member in ("mcpServers", "servers"):
        block = doc.get(member)
        if block is None:
            continue
        if not isinstance(block, dict):
            raise UsageError(f"{cfg.path}: \"{member}\" must be an object of named servers")
        for name, entry in block.items():
            check_text(name, f"{cfg.path}: a server name")
            if not isinstance(entry, dict):
                raise UsageError(f"{cfg.path}: server {name!r} must be an object")
            _check_strings(entry, f"{cfg.path}: server {name!r}")
            entries.append(ServerEntry(name, entry, cfg, _kind(name, entry, cfg.path)))
    return entries


def find_servers(explicit: str | None = None, *, warn: Callable[[str], None] | None = None) -> list[ServerEntry]:
    """Every server in every config file, in search order; later entries with a name
    already seen are marked `shadowed`.

    A malformed `--config FILE` is an error; a malformed discovered file is skipped
    with a warning (it may belong to another tool).

    Raises:
        UsageError: `--config FILE` is missing or malformed.
    """
    found: list[ServerEntry] = []
    seen: set[str] = set()
    for i, cfg in enumerate(config_files(explicit)):
        try:
            entries = read_config(cfg)
        except UsageError as err:
            if explicit and i == 0:
                raise
            if warn is not None:
                warn(f"mrtr: warning: skipping {err.message}")
            continue
        if entries is None:
            if explicit and i == 0:
                raise UsageError(f"--config {explicit}: no such file")
            continue
        for entry in entries:
            entry.shadowed = entry.name in seen
            seen.add(entry.name)
            found.append(entry)
    return found


def server_target(entry: ServerEntry, *, expand_env: bool, add_secret: Callable[[str], None],
                  warn: Callable[[str], None]) -> Target:
    """Build the target for a config entry, registering its secrets.

    Raises:
        UsageError: an unset `${VAR}`, an unreadable `file:`, a bad URL.
    """
    allowed = expand_env or entry.source.user_level
    where = f"{entry.source.path}: server {entry.name!r}"
    builtins = {"workspaceFolder": entry.source.root,
                "workspaceFolderBasename": os.path.basename(entry.source.root)}
    skipped: list[str] = []

    def expand(text: Any, what: str) -> str:
        if not isinstance(text, str):
            raise UsageError(f"{where}: {what} must be a string")
        value, names = expand_vars(text, allowed=allowed, builtins=builtins, where=where)
        skipped.extend(n for n in names if n not in skipped)
        check_text(value, f"{where}: {what}", from_bytes=True)  # ${VAR} from the environment
        if "\x00" in value:  # named, never shown: an env value is a secret
            raise UsageError(f"{where}: {what} holds a NUL character, which a command line or an "
                             "environment cannot carry")
        return value

    def secret(name: str, value: str, raw: Any) -> None:
        # Every `env` and `headers` value of an entry is a secret, whatever its name (a config
        # file is where people paste tokens under any name: X-Plain, DB_URL); only a value left
        # as a `${VAR}` template, the file's own text, is not.
        template = isinstance(raw, str) and value == raw and expand_vars(raw, allowed=False)[1]
        if template:
            return
        add_secret(value)
        add_secret(value.split(" ", 1)[-1])

    e = entry.entry
    if e.get("envFile"):
        warn(f"mrtr: note: {where}: envFile is not read by mrtr; put the variables in \"env\"")
    if entry.kind == "stdio":
        argv = [expand(e["command"], "command")] + [expand(a, f"args[{i}]") for i, a in enumerate(e.get("args") or [])]
        env = {}
        for key, value in (e.get("env") or {}).items():
            if not str(key) or any(c in str(key) for c in "=\x00"):
                raise UsageError(f"{where}: env name {str(key)!r} is not a usable variable name (empty, or holds = or NUL)")
            env[str(key)] = expand(value, f"env {key}")
            secret(str(key), env[str(key)], value)
        cwd = expand(e["cwd"], "cwd") if e.get("cwd") else None
        if cwd is not None and not os.path.isabs(os.path.expanduser(cwd)):
            cwd = os.path.join(entry.source.root, cwd)
        target = Target(command=argv, server=entry.name, env=env, cwd=os.path.expanduser(cwd) if cwd else None)
    else:
        url = check_url(expand(e.get("url") or e.get("serverUrl"), "url"), f"{where}: url")
        for part in url_secrets(url):
            add_secret(part)
        headers = {}
        for name, raw in (e.get("headers") or {}).items():
            value, part = resolve_header_value(expand(raw, f"header {name}"), allowed=allowed,
                                                 where=f"{where}: header {name}")
            check_header(str(name), value, f"{where}: header {name}")
            headers[str(name)] = value
            secret(str(name), value, raw)
            if part:
                add_secret(part)
        target = Target(url=url, server=entry.name, headers=headers)
        from mrtr_cli.config.oauth import from_config_entry  # noqa: PLC0415 - lazy for start-up time

        target.oauth = from_config_entry(e, where=where, allowed=allowed, expand=lambda t: expand(t, "oauth"))
        if target.oauth is not None:
            for value in (target.oauth.client_secret, target.oauth.private_key):
                if value:
                    add_secret(value)
    roots = e.get("roots")
    if roots is not None:
        if not isinstance(roots, list):
            raise UsageError(f"{where}: roots must be a list of paths or {{uri, name}} objects")
        target.roots = (roots, f"{where}: roots", entry.source.root)
    if skipped:
        names = ", ".join("${" + n + "}" for n in skipped)
        warn(f"mrtr: note: {where}: {names} left as written (a project config is not expanded; "
             "pass --expand-env to expand)")
    return target


def resolve_server(name: str, explicit: str | None, *, expand_env: bool, add_secret: Callable[[str], None],
                   warn: Callable[[str], None]) -> Target:
    """The target for `-s NAME`.

    Raises:
        UsageError: no config names it (with "did you mean" and the files searched).
    """
    servers = find_servers(explicit, warn=warn)
    for entry in servers:
        if entry.name == name:
            return server_target(entry, expand_env=expand_env, add_secret=add_secret, warn=warn)
    from mrtr_cli.render.suggest import close_matches  # noqa: PLC0415 - lazy for start-up time

    names = sorted({e.name for e in servers})
    close = close_matches(name, names)
    if close:
        hint = f"did you mean: {', '.join(close)}?"
    elif names:
        import shlex  # noqa: PLC0415 - lazy for start-up time

        config = f"--config {shlex.quote(explicit)} " if explicit else ""
        hint = f"no configured server has a name like it; see them with: mrtr {config}servers"
    else:
        hint = "searched: " + ", ".join(c.path for c in config_files(explicit))
    raise UsageError(f"-s {name}: no server by that name in the config files", hint=hint)
