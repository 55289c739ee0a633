"""Named servers from the config files people already have (`-s/--server NAME`,
`mrtr servers`): mrtr's own, and those of Claude Code, Claude Desktop, Codex, Gemini CLI,
VS Code, Cursor, Windsurf, OpenCode, Zed and goose, each read by its host's module
(`config/hosts/`), in the order of one table (`config/hosts/sources.py`).

The first usable entry of a name wins: `--config FILE`, mrtr's own file, the project's
files, then the user's (docs/configuration.md, "Named servers"). A later entry of the same
name is shadowed, and `-s HOST:NAME` picks it (the first usable one of that host). An
entry mrtr cannot use (disabled, an unknown transport, a value only an editor can give,
not of its host's shape) is listed with the reason and never wins. A file that cannot be
read is one warning line naming it, and the other files are still read; `--config FILE`
must be readable and well formed.

References to the environment and to files (`${VAR}`, `${env:VAR}`, `{env:VAR}`,
`${file:PATH}`, and `env:VAR` / `file:PATH` header values in mrtr's formats) are expanded,
each host's own way, only in the user's own files or with `--expand-env`: a file in a
project directory must not be able to send your environment or your files to a server.
`${workspaceFolder}` (the project directory) is always expanded. Every `env` value and
every header value of an entry is a secret.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from mrtr_cli.config.encodable import check_text
from mrtr_cli.config.hosts.model import BadFile, ConfigFile, EnvRef, HostEntry
from mrtr_cli.config.hosts.paths import Places
from mrtr_cli.config.hosts.sources import HOSTS, config_files
from mrtr_cli.config.target import Target, check_header, check_url
from mrtr_cli.config.values import MRTR, expand_vars, resolve_header_value
from mrtr_cli.credentials import public_url, url_secrets
from mrtr_cli.errors import UsageError

__all__ = ["ConfigFile", "ServerEntry", "config_files", "find_servers", "resolve_server", "server_target"]


@dataclass
class ServerEntry:
    """One named server in one config file.

    Attributes:
        name: the server's name (the key in the file).
        entry: the entry as mapped to mrtr's target (values unexpanded; may hold secrets).
        source: the file it came from.
        shadowed: an earlier usable entry has the same name.
        select: what `-s` takes to pick it: the name for the winner, `HOST:NAME` for the
            first usable entry of its host, else None (unusable, or a second entry of the
            same name in one host).
    """

    name: str
    entry: HostEntry
    source: ConfigFile
    shadowed: bool = False
    select: str | None = None

    @property
    def kind(self) -> str | None:
        """"stdio", "http", or None when mrtr cannot use it."""
        return self.entry.kind if self.entry.unusable is None else None

    @property
    def where(self) -> str:
        """The file and the server, for messages."""
        return f"{self.source.path}: server {self.name!r}"

    def public(self) -> dict[str, Any]:
        """A description without secrets: env and header names only, values as written, a
        URL without its credentials (`mrtr servers --json`)."""
        e = self.entry
        out: dict[str, Any] = {"name": self.name, "host": self.source.host, "source": self.source.path,
                               "scope": self.source.scope, "type": e.kind}
        if e.kind == "stdio":
            out["command"] = e.command
            if e.args:
                out["args"] = e.args
            if e.cwd:
                out["cwd"] = e.cwd
            if e.env:
                out["env"] = sorted(e.env)
        elif e.kind == "http":
            out["url"] = public_url(e.url) if e.url else e.url  # credentials in it: ***
            if e.headers:
                out["headers"] = sorted(e.headers)
        out["usable"] = e.unusable is None
        if e.unusable is not None:
            out["reason"] = e.unusable
        out["shadowed"] = self.shadowed
        out["select"] = self.select
        return out


def _entries(explicit: str | None, warn: Callable[[str], None] | None,
             places: Places | None = None) -> Iterator[ServerEntry]:
    """Every entry of every config file, in search order (`find_servers`, unmarked).

    Raises:
        UsageError: `--config FILE` is missing, unreadable or malformed.
    """
    from mrtr_cli.config.hosts.files import load  # noqa: PLC0415 - lazy for start-up time

    parsed: dict[tuple[str, str], Any] = {}
    for cfg, source in config_files(explicit, places):
        is_explicit = source.host == "config"
        key = (cfg.path, source.format)
        if key not in parsed:
            try:
                parsed[key] = load(cfg.path, source.format)
            except FileNotFoundError:
                if is_explicit:
                    raise UsageError(f"--config {explicit}: no such file") from None
                parsed[key] = None
            except BadFile as exc:
                parsed[key] = exc
                _bad_file(cfg, str(exc), is_explicit, warn)
        doc = parsed[key]
        if doc is None or isinstance(doc, BadFile):
            continue
        try:
            entries = source.read(doc, cfg)
        except BadFile as exc:
            _bad_file(cfg, str(exc), is_explicit, warn)
            continue
        for entry in entries:
            if is_explicit and entry.malformed:
                raise UsageError(f"{cfg.path}: server {entry.name!r}: {entry.unusable}")
            yield ServerEntry(entry.name, entry, cfg)


def _bad_file(cfg: ConfigFile, problem: str, explicit: bool, warn: Callable[[str], None] | None) -> None:
    """A file that cannot be used: an error for `--config FILE`, else one warning line.

    Raises:
        UsageError: it is `--config FILE`.
    """
    if explicit:
        raise UsageError(f"{cfg.path}: {problem}")
    if warn is not None:
        warn(f"mrtr: warning: skipping {cfg.path} ({cfg.label}): {problem}")


def find_servers(explicit: str | None = None, *, warn: Callable[[str], None] | None = None,
                 places: Places | None = None) -> list[ServerEntry]:
    """Every server in every config file, in search order, each marked: the first usable
    entry of a name wins (`select` is its name), later usable ones are `shadowed`.

    A file that cannot be read (not valid in its format, not of its host's shape, not a
    regular file, too large, not UTF-8) is skipped with a warning (it belongs to another
    tool, which says more); an entry that is not of its host's shape is listed as not usable.

    Args:
        places: the platform, home folder and environment (default: this machine's).

    Raises:
        UsageError: `--config FILE` is missing or malformed.
    """
    found = list(_entries(explicit, warn, places))
    winners: set[str] = set()
    by_host: set[tuple[str, str]] = set()
    for entry in found:
        if entry.entry.unusable is not None:
            continue
        entry.shadowed = entry.name in winners
        if not entry.shadowed:
            entry.select = entry.name
        elif (entry.source.host, entry.name) not in by_host:
            entry.select = f"{entry.source.host}:{entry.name}"
        winners.add(entry.name)
        by_host.add((entry.source.host, entry.name))
    return found


def lookup(name: str, explicit: str | None, *, warn: Callable[[str], None] | None = None,
           places: Places | None = None) -> ServerEntry:
    """The entry `-s NAME` names: the first usable entry of that name, else (`HOST:NAME`,
    when no server has that very name) the first usable entry of that name in that host's files.

    Raises:
        UsageError: only unusable entries have that name (the first one's reason), or none
            does (with "did you mean" and the files searched).
    """
    seen: list[ServerEntry] = []
    for entry in _entries(explicit, warn, places):
        if entry.name == name and entry.entry.unusable is None:
            entry.select = name
            return entry
        seen.append(entry)
    host, _, bare = name.partition(":")
    if bare and host in HOSTS:
        match = next((e for e in seen if e.source.host == host and e.name == bare and e.entry.unusable is None), None)
        if match is not None:
            match.select = name  # a pending document names it so, and finds it again
            return match
    unusable = next((e for e in seen if e.name == name or (bare and host in HOSTS and e.name == bare
                                                           and e.source.host == host)), None)
    from mrtr_cli.render.invocation import command_line  # noqa: PLC0415 - lazy for start-up time

    listing = (command_line(["servers"], target=["--config", explicit] if explicit else [])
               or "the servers command (with the same --config)")
    if unusable is not None:
        raise UsageError(f"{unusable.where} is not usable: {unusable.entry.unusable}",
                         hint=f"see every configured server with: {listing}")
    from mrtr_cli.render.suggest import close_matches  # noqa: PLC0415 - lazy for start-up time

    names = sorted({e.name for e in seen if e.entry.unusable is None})
    close = close_matches(name, names)
    if close:
        hint = f"did you mean: {', '.join(close)}?"
    elif names:
        hint = f"no configured server has a name like it; see them with: {listing}"
    else:
        hint = "searched: " + ", ".join(dict.fromkeys(c.path for c, _ in config_files(explicit, places)))
    raise UsageError(f"-s {name}: no server by that name in the config files", hint=hint)


def server_target(entry: ServerEntry, *, expand_env: bool, add_secret: Callable[[str], None],
                  warn: Callable[[str], None]) -> Target:
    """Build the target for a usable config entry, registering its secrets.

    Raises:
        UsageError: an unset `${VAR}` (where the host refuses one), an unreadable `file:`,
            an unset variable a value is read from (Codex's `bearer_token_env_var`), a bad
            URL or header.
    """
    e = entry.entry
    values = _EntryValues(entry, allowed=expand_env or entry.source.user_level, add_secret=add_secret)
    for note in e.notes:
        warn(f"mrtr: note: {entry.where}: {note}")
    target = _stdio_target(entry, values) if e.kind == "stdio" else _http_target(entry, values)
    if e.roots is not None:
        if not isinstance(e.roots, list):
            raise UsageError(f"{entry.where}: roots must be a list of paths or {{uri, name}} objects")
        target.roots = (e.roots, f"{entry.where}: roots", entry.source.root)
    if values.skipped:
        warn(f"mrtr: note: {entry.where}: {', '.join(values.skipped)} left as written (a project config is not "
             "expanded; pass --expand-env to expand)")
    if values.unread:
        warn(f"mrtr: note: {entry.where}: {', '.join(values.unread)} not read (a project config is not expanded; "
             "pass --expand-env to read it)")
    return target


class _EntryValues:
    """The values of one config entry as they are read: `${VAR}` expanded where `allowed`
    (user-level files, `--expand-env`), a host's variable references read, every secret
    registered; what was left as written (`skipped`) or not read (`unread`) is noted."""

    def __init__(self, entry: ServerEntry, *, allowed: bool, add_secret: Callable[[str], None]):
        e = entry.entry
        self.syntax = e.syntax
        self.where = entry.where
        self.allowed = allowed
        self.add_secret = add_secret
        self.builtins = {"workspaceFolder": entry.source.root,
                         "workspaceFolderBasename": os.path.basename(entry.source.root)} if e.syntax is MRTR else {}
        self.base = os.path.dirname(os.path.abspath(os.path.expanduser(entry.source.path)))
        self.skipped: list[str] = []
        self.unread: list[str] = []

    def expand(self, text: Any, what: str) -> str:
        """`text` (a string, else UsageError) with its references expanded and checked."""
        where = self.where
        if not isinstance(text, str):
            raise UsageError(f"{where}: {what} must be a string")
        value, refs = expand_vars(text, allowed=self.allowed, builtins=self.builtins, where=where,
                                  syntax=self.syntax, base=self.base, secret=self.add_secret)
        self.skipped.extend(r for r in refs if r not in self.skipped)
        check_text(value, f"{where}: {what}", from_bytes=True)  # ${VAR} from the environment
        if "\x00" in value:  # named, never shown: an env value is a secret
            raise UsageError(f"{where}: {what} holds a NUL character, which a command line or an "
                             "environment cannot carry")
        return value

    def value_of(self, raw: Any, what: str) -> str | None:
        """An env or header value: expanded text, or read from the environment (None: left out)."""
        if not isinstance(raw, EnvRef):
            return self.expand(raw, what)
        shown = f"{raw.field or what} {raw.variable}"
        if not self.allowed:
            self.unread.append(shown)
            return None
        found = os.environ.get(raw.variable)
        if not found:
            if raw.required:
                raise UsageError(f"{self.where}: {shown}: that environment variable is empty or unset")
            return None
        self.add_secret(found)
        return raw.prefix + self.expand(found, what)

    def secret(self, value: str, raw: Any) -> None:
        """Register an `env` or `headers` value as a secret. Every such value of an entry is
        one, whatever its name (a config file is where people paste tokens under any name:
        X-Plain, DB_URL); only a value left as a `${VAR}` template, the file's own text, is not."""
        template = (isinstance(raw, str) and value == raw
                    and expand_vars(raw, allowed=False, syntax=self.syntax)[1])
        if template:
            return
        self.add_secret(value)
        self.add_secret(value.split(" ", 1)[-1])


def _stdio_target(entry: ServerEntry, values: _EntryValues) -> Target:
    """A stdio entry's target: its command, environment and working directory."""
    e, where, expand = entry.entry, entry.where, values.expand
    argv = [expand(e.command, "command")] + [expand(a, f"args[{i}]") for i, a in enumerate(e.args)]
    env = {}
    for key, raw in e.env.items():
        if not key or any(c in key for c in "=\x00"):
            raise UsageError(f"{where}: env name {key!r} is not a usable variable name (empty, or holds = or NUL)")
        value = values.value_of(raw, f"env {key}")
        if value is not None:
            env[key] = value
            values.secret(value, raw)
    cwd = expand(e.cwd, "cwd") if e.cwd else None
    if cwd is not None and not os.path.isabs(os.path.expanduser(cwd)):
        cwd = os.path.join(entry.source.root, cwd)
    return Target(command=argv, server=entry.select or entry.name, env=env,
                  cwd=os.path.expanduser(cwd) if cwd else None)


def _http_target(entry: ServerEntry, values: _EntryValues) -> Target:
    """An HTTP entry's target: its URL, headers and OAuth settings, their secrets registered."""
    e, where, add_secret = entry.entry, entry.where, values.add_secret
    url = check_url(values.expand(e.url, "url"), f"{where}: url")
    for part in url_secrets(url):
        add_secret(part)
    headers = {}
    for name, raw in e.headers.items():
        value = values.value_of(raw, f"header {name}")
        if value is None:
            continue
        header_part = None
        if e.syntax is MRTR and not isinstance(raw, EnvRef):  # mrtr's `env:VAR` / `file:PATH` values
            value, header_part = resolve_header_value(value, allowed=values.allowed, where=f"{where}: header {name}")
        check_header(name, value, f"{where}: header {name}")
        headers[name] = value
        values.secret(value, raw)
        if header_part:
            add_secret(header_part)
    target = Target(url=url, server=entry.select or entry.name, headers=headers)
    from mrtr_cli.config.oauth import from_config_entry  # noqa: PLC0415 - lazy for start-up time

    target.oauth = from_config_entry({"oauth": e.oauth} if e.oauth is not None else {}, where=where,
                                     allowed=values.allowed, expand=lambda t: values.expand(t, "oauth"))
    if target.oauth is not None:
        for value in (target.oauth.client_secret, target.oauth.private_key):
            if value:
                add_secret(value)
    return target


def resolve_server(name: str, explicit: str | None, *, expand_env: bool, add_secret: Callable[[str], None],
                   warn: Callable[[str], None]) -> Target:
    """The target for `-s NAME` (or `-s HOST:NAME`): `lookup`, then `server_target`.

    Raises:
        UsageError: no usable entry has that name (with "did you mean" and the files
            searched), or its target cannot be built.
    """
    return server_target(lookup(name, explicit, warn=warn), expand_env=expand_env, add_secret=add_secret, warn=warn)
