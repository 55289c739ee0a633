"""The example call `mrtr tools NAME` ends with: a command that parses as printed.

Each required parameter is given as a `KEY=VALUE` (or `KEY:=JSON`) item only when
mrtr's own item parser (`schema.arguments.parse_item`) reads that item back to the same
key path and value; any other (a name holding `.`, `=`, `:=`, an empty name, a value
starting with `@`) goes into one `--args '<json>'` object, which the items then extend.
A `--` comes before the tool's name when it or an item starts with `-` (else click
would read it as an option). Placeholder values (`<string>`) stand where the schema
gives no default, const, enum or example: the line parses, the user fills them in.
"""

from __future__ import annotations

import json
from typing import Any

from mrtr_cli.errors import UsageError
from mrtr_cli.platform import shellwords
from mrtr_cli.render.invocation import command as as_typed
from mrtr_cli.render.invocation import inside_shell
from mrtr_cli.render.listing import example_value, parameter_paths
from mrtr_cli.render.sanitize import sanitize
from mrtr_cli.schema.arguments import parse_item


class _NoFile(Exception):
    """An item's value would be read from a file (`key=@path`): not what the example means."""


def _no_file(path: str) -> str:
    raise _NoFile(path)


def _round_trips(text: str, path: tuple[str, ...], value: object, literal: bool) -> bool:
    """Whether `parse_item` reads `text` as the item at `path` with `value` (`literal`: `:=`)."""
    try:
        item = parse_item(text, _no_file)
    except (UsageError, _NoFile):
        return False
    return tuple(item.path) == path and item.literal == literal and item.value == value


def _leaf_value(prop: dict[str, Any]) -> tuple[object, str | None]:
    """A required leaf's example: its JSON value, and its text for `KEY=VALUE` (None: only
    `KEY:=JSON` gives it, as for an object or array property without a shape)."""
    if prop.get("type") == "object" and "properties" not in prop:
        return {}, None
    if prop.get("type") == "array" and "items" not in prop:
        return [], None
    value, text = example_value(prop)
    return value, text


def _item(path: tuple[str, ...], value: object, text: str | None) -> str | None:
    """`KEY=VALUE` or `KEY:=JSON` for the leaf at `path`, if one reads back the same; else None."""
    key = ".".join(path)
    if text is not None and _round_trips(f"{key}={text}", path, text, False):
        return f"{key}={text}"
    literal = json.dumps(value, ensure_ascii=False)
    if _round_trips(f"{key}:={literal}", path, value, True):
        return f"{key}:={literal}"
    return None


def _put(tree: dict[str, Any], path: tuple[str, ...], value: object) -> None:
    node = tree
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value


def example_words(tool: dict[str, Any]) -> list[str]:
    """The words after the target of an example call of `tool` with its required
    parameters: `call [--args JSON] [--] NAME ITEM...` (module docstring)."""
    required: set[tuple[str, ...]] = set()
    items: list[str] = []
    rest: dict[str, Any] = {}
    for path, prop, is_required in parameter_paths(tool.get("inputSchema")):
        if not is_required or (len(path) > 1 and path[:-1] not in required):
            continue
        required.add(path)
        if prop.get("type") == "object" and isinstance(prop.get("properties"), dict):
            continue  # its required members are items of their own (an empty object if none)
        value, text = _leaf_value(prop)
        item = _item(path, value, text)
        if item is None:
            _put(rest, path, value)
        else:
            items.append(item)
    name = str(tool.get("name"))
    words = ["call"]
    if rest:
        words += ["--args", json.dumps(rest, ensure_ascii=False)]
    if name.startswith("-") or any(item.startswith("-") for item in items):
        words.append("--")
    return [*words, name, *items]


def example_call(tool: dict[str, Any], command: list[str]) -> str:
    """A `mrtr ... call NAME key=value...` line with the required parameters, `command`
    being the words that name the target (`--url URL`); inside `mrtr shell`, `call NAME
    key=value...` alone, as its prompt takes it (render/invocation.py: the shell has one
    server, and a target option on its line is refused). The words: `example_words`."""
    words = [*([] if inside_shell() else command), *example_words(tool)]
    return sanitize(as_typed(shellwords.shell_line(words)), single_line=True)
