"""The checks every host format shares: a map of named servers, the fields of one entry
(a string, a list of strings, a map of strings), strings no process or request can carry,
and the `mcpServers` entry that most hosts write (`command`, `args`, `env`, `cwd`, or
`type`, `url`, `headers`), so each host module says only what is its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from mrtr_cli.config.encodable import PROCESS, REQUEST, check_text
from mrtr_cli.config.hosts.model import BadFile, HostEntry, Value, unusable
from mrtr_cli.config.values import MRTR, Syntax
from mrtr_cli.errors import UsageError
from mrtr_cli.jsonfile import a_json_type

#: The `type` values that mean an HTTP server (Streamable HTTP; `sse` is tried as it).
HTTP_TYPES = ("http", "streamable-http", "streamableHttp", "streamable_http", "sse")
#: VS Code's `${input:ID}`: a value the editor asks for when it starts the server.
_INPUT = re.compile(r"\$\{input:([^}]+)\}")
#: Members whose strings go into HTTP requests (the rest go to a process).
REQUEST_MEMBERS = ("url", "serverUrl", "httpUrl", "uri", "headers", "http_headers", "oauth")


class Malformed(Exception):
    """An entry that is not of its host's shape; the message says how (`reason`)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def named_servers(doc: Any, member: str, *, parent: str = "") -> dict[str, Any]:
    """The object of named servers at `doc[member]` ({} when absent).

    Raises:
        BadFile: the document is not an object, or the member is not one.
    """
    if not isinstance(doc, dict):
        raise BadFile(f"{parent.rstrip('.') or 'the file'} must be an object (names and values), not "
                      f"{a_json_type(doc)}")
    block = doc.get(member)
    if block is None:
        return {}
    if not isinstance(block, dict):
        raise BadFile(f"\"{parent}{member}\" must be an object of named servers")
    return block


def read_entries(block: Mapping[Any, Any], build: Callable[[str, dict[str, Any]], HostEntry]) -> list[HostEntry]:
    """`build(name, entry)` for every named server of `block`, in file order. An entry that
    is not an object, holds a string that cannot be encoded, or is not of the host's shape
    (`build` raises `Malformed`) is kept as a malformed, unusable entry; a name that cannot
    be encoded makes the file unusable.

    Raises:
        BadFile: a server name that is not text or cannot be encoded.
    """
    entries = []
    for name, raw in block.items():
        if not isinstance(name, str):
            raise BadFile(f"a server name must be text, not {name!r}")
        try:
            check_text(name, "a server name")
        except UsageError as exc:
            raise BadFile(exc.message) from None
        if not isinstance(raw, dict):
            entries.append(unusable(name, "must be an object", malformed=True))
            continue
        problem = encoding_problem(raw)
        if problem is not None:
            entries.append(unusable(name, problem, malformed=True))
            continue
        try:
            entries.append(build(name, raw))
        except Malformed as exc:
            entries.append(unusable(name, exc.reason, malformed=True))
    return entries


def encoding_problem(value: Any, field: str = "", carrier: str = PROCESS) -> str | None:
    """The first string of an entry (member names too) that cannot be encoded, as
    `check_text` words it with the field named (`args[0]`, `env.NAME`, `headers.NAME`), or
    None."""
    try:
        _check_strings(value, field, carrier)
    except UsageError as exc:
        return exc.message
    return None


def _check_strings(value: Any, field: str, carrier: str) -> None:
    if isinstance(value, str):
        check_text(value, field, carrier=carrier)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_strings(item, f"{field}[{i}]", carrier)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                check_text(key, "a member name" + (f" in {field}" if field else ""), carrier=carrier)
            _check_strings(item, f"{field}.{key}" if field else str(key),
                           REQUEST if not field and key in REQUEST_MEMBERS else carrier)


def text(raw: Mapping[str, Any], key: str, *, required: bool = False) -> str | None:
    """`raw[key]` as a string (None when absent and not `required`).

    Raises:
        Malformed: not a string, or absent (or empty) when `required`.
    """
    value = raw.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise Malformed(f"\"{key}\" must be a string" if value is not None else f"needs a \"{key}\" string")
    return value


def strings(raw: Mapping[str, Any], key: str) -> list[str]:
    """`raw[key]` as a list of strings ([] when absent).

    Raises:
        Malformed: not a list of strings.
    """
    value = raw.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Malformed(f"\"{key}\" must be a list of strings")
    return list(value)


def string_map(raw: Mapping[str, Any], key: str) -> dict[str, Value]:
    """`raw[key]` as an object of strings ({} when absent).

    Raises:
        Malformed: not an object whose values are strings.
    """
    value = raw.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise Malformed(f"\"{key}\" must be an object of strings")
    return {str(k): v for k, v in value.items()}


def flag(raw: Mapping[str, Any], key: str, default: bool) -> bool:
    """`raw[key]` as true or false (`default` when absent).

    Raises:
        Malformed: not a boolean.
    """
    value = raw.get(key, default)
    if not isinstance(value, bool):
        raise Malformed(f"\"{key}\" must be true or false")
    return value


def standard(name: str, raw: dict[str, Any], *, syntax: Syntax = MRTR, url_keys: tuple[str, ...] = ("url",),
             types: tuple[str, ...] = ("stdio", *HTTP_TYPES)) -> HostEntry:
    """The entry most hosts write: stdio (`command`, `args`, `env`, `cwd`) or HTTP
    (`url`, `headers`); `type` may say `stdio` or one of `HTTP_TYPES`, else the members
    decide. `"disabled": true`, a `type` that is none of `types`, or (in `MRTR` syntax) a
    VS Code `${input:ID}` in a value makes it unusable.
    mrtr's own `oauth` and `roots` members are kept.

    Args:
        url_keys: the members that may hold the URL, first found wins (Windsurf:
            `serverUrl`, `url`).
        types: the `type` values the host documents.

    Raises:
        Malformed: a member of the wrong type, no command or URL.
    """
    declared = raw.get("type")
    url_key = next((k for k in url_keys if k in raw), None)
    if declared is not None and not isinstance(declared, str):
        raise Malformed("\"type\" must be a string")
    if declared is not None and declared not in types:
        expected = ", ".join(t for t in types if t in ("stdio", "http", "sse"))
        return unusable(name, f"unknown type {declared!r} (expected {expected}): a transport mrtr does not speak")
    if declared == "stdio" or (declared is None and "command" in raw):
        entry = HostEntry(name, "stdio", command=text(raw, "command", required=True), args=strings(raw, "args"),
                          env=string_map(raw, "env"), cwd=text(raw, "cwd"), syntax=syntax)
    elif declared is not None or url_key is not None:
        entry = HostEntry(name, "http", url=text(raw, url_key or url_keys[0], required=True),
                          headers=string_map(raw, "headers"), syntax=syntax)
    else:
        raise Malformed(f"neither \"command\" (stdio) nor \"{url_keys[0]}\" (HTTP)")
    entry.oauth = raw.get("oauth", raw.get("auth"))
    entry.roots = raw.get("roots")
    if raw.get("envFile"):
        entry.notes.append("envFile is not read by mrtr; put the variables in \"env\"")
    prompt = input_variable(raw) if syntax is MRTR else None
    if raw.get("disabled") is True:
        entry.unusable = "disabled (\"disabled\": true)"
    elif prompt is not None:
        entry.unusable = (f"${{input:{prompt}}} is a value the editor (VS Code) asks for when it starts the server, "
                          "which mrtr cannot do; put it in an environment variable and write ${env:NAME}")
    return entry


def input_variable(value: Any) -> str | None:
    """The id of the first `${input:ID}` in any string of `value`, or None."""
    if isinstance(value, str):
        match = _INPUT.search(value)
        return match.group(1) if match else None
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return next((found for item in items if (found := input_variable(item)) is not None), None)
