"""Roots this run exposes to a server: `--root PATH[=NAME]`, answer files and server config.

Spec: client/roots (2026-07-28). A `Root` is `{uri, name?}` and its `uri` MUST be a
`file://` URI. Clients MUST expose only roots the user chose and validate root URIs
against path traversal. So every root is resolved before anything is sent: a path
becomes the absolute `file://` URI of that path (`..` and `~` resolved, symlinks kept
as named), it must exist and be readable, and a given URI must be a local, absolute
`file://` URI with no `..` segment. Any problem is a `UsageError` (exit 2).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from mrtr_cli.errors import UsageError

Root = dict[str, Any]


def root_for_path(path: str, name: str | None, source: str, base_dir: str | None = None) -> Root:
    """The Root for a local path.

    Args:
        path: a file or directory; relative paths are taken from `base_dir` (default: cwd).
        name: the root's display name, or None.
        source: where the path came from, for messages (e.g. "--root ./src").
        base_dir: the directory relative paths start from.

    Returns:
        `{"uri": "file:///abs/path", "name"?: name}`.

    Raises:
        UsageError: the path does not exist or cannot be read.
    """
    expanded = os.path.expanduser(path)
    if base_dir is not None and not os.path.isabs(expanded):
        expanded = os.path.join(base_dir, expanded)
    absolute = os.path.abspath(expanded)
    if not os.path.exists(absolute):
        raise UsageError(f"{source}: the root {path!r} does not exist ({absolute})")
    if not os.access(absolute, os.R_OK):
        raise UsageError(f"{source}: the root {path!r} is not readable ({absolute})")
    root: Root = {"uri": Path(absolute).as_uri()}
    if name:
        root["name"] = name
    return root


def parse_root_flag(text: str) -> Root:
    """One `--root PATH[=NAME]` value as a Root.

    The longest prefix of `text` (up to an `=`) that exists is the path, the rest is
    the name, so paths that contain `=` work too.

    Raises:
        UsageError: empty, or no prefix names an existing path.
    """
    if not text:
        raise UsageError("--root needs a path, e.g. --root ./src or --root ./src=Sources")
    candidates = [text] + [text[:i] for i in range(len(text) - 1, 0, -1) if text[i] == "="]
    for path in candidates:
        if os.path.exists(os.path.expanduser(path)):
            name = text[len(path) + 1:] or None
            return root_for_path(path, name, f"--root {text}")
    path = text.split("=", 1)[0] or text
    return root_for_path(path, None, f"--root {text}")


def check_root_uri(uri: object) -> str | None:
    """Why `uri` is not an acceptable root URI, or None when it is.

    Acceptable: `file://` scheme, no host other than `localhost`, an absolute path, no
    `.` or `..` segment (before or after percent-decoding), no query or fragment.
    """
    if not isinstance(uri, str):
        return "uri must be a string"
    try:
        parts = urlsplit(uri)
    except ValueError:
        return "uri does not parse"
    if parts.scheme.lower() != "file":
        return "uri must be a file:// URI"
    if parts.netloc not in ("", "localhost"):
        return f"uri must name a local path (host {parts.netloc!r})"
    if not parts.path.startswith("/"):
        return "uri must hold an absolute path"
    if parts.query or parts.fragment:
        return "uri must not have a query or fragment"
    segments = unquote(parts.path).split("/")
    if any(seg in (".", "..") for seg in segments):
        return "uri must not contain '.' or '..' segments (path traversal)"
    if "\x00" in unquote(parts.path):
        return "uri must not contain NUL"
    return None


def uri_path(uri: str) -> str:
    """The local path of a checked `file://` URI."""
    from mrtr_cli.platform.fileuris import uri_path as local_path  # noqa: PLC0415 - lazy for start-up time

    return local_path(urlsplit(uri).path)


def resolve_root_entries(entries: object, source: str, base_dir: str | None = None) -> list[Root]:
    """Check and resolve a `roots` list from an answer file or a server config.

    Each entry is a path string, `{"path": ..., "name"?}` (relative to `base_dir`) or
    `{"uri": "file:///...", "name"?}`. Every root must exist; duplicates are dropped.

    Raises:
        UsageError: not a list, a malformed entry, a bad URI, or a missing path; the
            message names `source` and the entry's index.
    """
    if not isinstance(entries, list):
        raise UsageError(f"{source}: roots must be a list of paths or {{uri, name}} objects")
    out: list[Root] = []
    for i, entry in enumerate(entries):
        where = f"{source}[{i}]"
        if isinstance(entry, str):
            entry = {"path": entry}
        if not isinstance(entry, dict):
            raise UsageError(f"{where}: expected a path or a {{uri, name}} object")
        name = entry.get("name")
        if name is not None and not isinstance(name, str):
            raise UsageError(f"{where}: name must be a string")
        if "path" in entry:
            if not isinstance(entry["path"], str) or not entry["path"]:
                raise UsageError(f"{where}: path must be a non-empty string")
            root = root_for_path(entry["path"], name, where, base_dir)
        else:
            problem = check_root_uri(entry.get("uri"))
            if problem:
                raise UsageError(f"{where}: {problem}")
            root = root_for_path(uri_path(entry["uri"]), name, where)
            extra = {k: v for k, v in entry.items() if k not in ("uri", "name")}
            root.update(extra)  # e.g. _meta, kept as given
        if all(r["uri"] != root["uri"] for r in out):
            out.append(root)
    return out


def parse_root_flags(texts: list[str]) -> list[Root]:
    """All `--root` values as Roots (duplicates dropped).

    Raises:
        UsageError: any value names a missing path.
    """
    out: list[Root] = []
    for text in texts:
        root = parse_root_flag(text)
        if all(r["uri"] != root["uri"] for r in out):
            out.append(root)
    return out
