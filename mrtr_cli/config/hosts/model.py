"""What every host format is read into: a config file (`ConfigFile`), and one named server
in it as mrtr's target sees it (`HostEntry`: command, args, env, cwd, or URL and headers),
with what mrtr cannot use of it said in words (docs/configuration.md "Named servers").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.config.values import MRTR, Syntax

#: Where a file is: in the project (the current directory) or the user's own.
PROJECT = "project"
USER = "user"


@dataclass
class ConfigFile:
    """A place a config file may be.

    Attributes:
        path: the file path as shown to the user.
        user_level: a file of the user's own (references to the environment and to files
            are expanded; a project's file needs `--expand-env`).
        root: the directory relative paths and `${workspaceFolder}` refer to.
        host: the host whose file it is (`claude-code`, `codex`, ...; `config` for
            `--config FILE`, `mrtr` for mrtr's own): `-s HOST:NAME` picks from it.
        label: the host's name for people ("Claude Code").
        scope: `PROJECT` or `USER`.
    """

    path: str
    user_level: bool
    root: str
    host: str = "config"
    label: str = "--config"
    scope: str = USER


class BadFile(ValueError):
    """A config file that cannot be used as a whole: not valid JSON, TOML or YAML, or not of
    its host's shape. The message says what is wrong (the caller names the file)."""


@dataclass(frozen=True)
class EnvRef:
    """A value read from an environment variable when the server is started, as some hosts
    write it apart from the value (Codex's `bearer_token_env_var`, `env_http_headers`).

    Attributes:
        variable: the environment variable's name.
        prefix: put before the value ("Bearer ").
        required: an unset or empty variable is an error (else the value is left out).
        field: the host's field that names it, for messages.
    """

    variable: str
    prefix: str = ""
    required: bool = True
    field: str = ""


#: An env or header value: text as written (its references expanded by the entry's
#: `syntax`), or a value read from the environment (`EnvRef`).
Value = str | EnvRef


@dataclass
class HostEntry:
    """One named server in a host's file, mapped to mrtr's target.

    Attributes:
        name: the server's name (the key in the file).
        kind: "stdio", "http", or None when it is not usable.
        command, args, env, cwd: a stdio server (values as written).
        url, headers: an HTTP server (values as written).
        oauth: OAuth settings in the shape of mrtr's own `oauth` member (an object read by
            `config.oauth.from_config_entry`), or None.
        roots: the `roots` member of mrtr's own formats, or None.
        syntax: how the host writes references to variables and files in its values.
        unusable: why mrtr cannot use it (disabled, an unknown transport, a value only the
            editor can give), or None.
        malformed: the entry is not of its host's shape (`unusable` says how).
        notes: fields of the entry that mrtr does not use, said when the server is used.
    """

    name: str
    kind: str | None
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, Value] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, Value] = field(default_factory=dict)
    oauth: Any = None
    roots: Any = None
    syntax: Syntax = MRTR
    unusable: str | None = None
    malformed: bool = False
    notes: list[str] = field(default_factory=list)


def unusable(name: str, reason: str, *, malformed: bool = False) -> HostEntry:
    """An entry mrtr cannot use, with the reason (`malformed`: not of its host's shape)."""
    return HostEntry(name, None, unusable=reason, malformed=malformed)
