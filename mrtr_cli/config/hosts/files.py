"""Reading a host's config file: through `userfiles` (a regular file only, bounded while it
is read), then as JSON, JSON with comments (JSONC), TOML or YAML, each within bounds
(docs/limits.md, "What the user gives"). Whatever is wrong with a file is one `BadFile`
message; the caller names the file.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from mrtr_cli.config.hosts.model import BadFile
from mrtr_cli.errors import UsageError

#: The largest YAML config file read (goose's `config.yaml`), and the most nodes it may
#: expand to (aliases counted as the nodes they repeat).
MAX_YAML_CONFIG_BYTES = 1024 * 1024
MAX_YAML_CONFIG_NODES = 100_000

#: The file formats: JSON, JSON with comments and trailing commas, TOML, YAML.
FORMATS = ("json", "jsonc", "toml", "yaml")


def load(path: str, fmt: str) -> Any:
    """The document in the file `path`, read as `fmt` (one of `FORMATS`); an empty file (or
    one of comments only) is an empty object.

    Raises:
        FileNotFoundError: no such file.
        BadFile: not a regular file (a FIFO, a device, a directory), over the size limit,
            not UTF-8, not valid in its format, or nested too deeply.
    """
    from mrtr_cli.userfiles import SameFile, read_user_text  # noqa: PLC0415 - lazy for start-up time

    try:
        text = read_user_text(path, what="config file")
    except SameFile:
        raise  # a file the run writes: refused, never a config file skipped with a warning
    except UsageError as exc:
        raise BadFile(_unprefixed(exc.message, path)) from None
    if fmt == "jsonc":
        from mrtr_cli.config.hosts.jsonc import strip_jsonc  # noqa: PLC0415 - lazy for start-up time

        text = strip_jsonc(text)
    if not text.strip():  # an empty file (or only comments): no settings, as the hosts read it
        return {}
    if fmt == "toml":
        return _toml(text)
    if fmt == "yaml":
        return _yaml(text)
    return _json(text)


def _unprefixed(message: str, path: str) -> str:
    """A `userfiles` message without its "cannot read config file PATH" opening."""
    opening = f"cannot read config file {path}: "
    if message.startswith(opening):
        return message[len(opening):]
    return message.replace(f"config file {path} ", "the file ", 1)


def _json(text: str) -> Any:
    from mrtr_cli.jsonfile import loads_strict  # noqa: PLC0415 - lazy for start-up time

    try:
        return loads_strict(text)
    except json.JSONDecodeError as exc:  # also a number mrtr does not read, or nesting too deep
        raise BadFile(f"not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None


def _toml(text: str) -> Any:
    if sys.version_info >= (3, 11):
        import tomllib  # noqa: PLC0415 - lazy for start-up time
    else:  # Python 3.10: the same parser as a package (pyproject.toml)
        import tomli as tomllib  # noqa: PLC0415

    from mrtr_cli.jsonfile import json_depth  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.limits import MAX_JSON_DEPTH  # noqa: PLC0415 - lazy for start-up time

    too_deep = f"not usable TOML: nested too deeply (the limit is {MAX_JSON_DEPTH} levels)"
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadFile(f"not valid TOML: {exc}") from None
    except RecursionError:
        raise BadFile(too_deep) from None
    if json_depth(doc) > MAX_JSON_DEPTH:
        raise BadFile(too_deep)
    return doc


def _yaml(text: str) -> Any:
    from mrtr_cli.yamlbounds import load_bounded_yaml  # noqa: PLC0415 - lazy for start-up time

    try:
        doc = load_bounded_yaml(text, max_bytes=MAX_YAML_CONFIG_BYTES, max_nodes=MAX_YAML_CONFIG_NODES)
        return {} if doc is None else doc  # comments only: no settings
    except ValueError as exc:  # YamlTooLarge too: "is 2000000 bytes, more than ..."
        message = str(exc)
        raise BadFile(message[3:] if message.startswith("is not valid") else f"the YAML {message}") from None
