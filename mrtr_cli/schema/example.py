"""The example call `mrtr tools NAME` ends with: a command that parses as printed.

Each required parameter is given as a `KEY=VALUE` (or `KEY:=JSON`) item only when
mrtr's own item parser (`schema.arguments.parse_item`) reads that item back to the same
key path and value (a value starting with `@` is given as `KEY:=JSON`, not read as a
file) and prints as typed; any other (a name holding `.`, `=`, `:=`, a control character,
an empty name) goes into one `--args '<json>'` object (with `\\uXXXX` escapes when it holds
a control character), which the items then extend.
A `--` comes before the tool's name when it or an item starts with `-` (else click
would read it as an option). Placeholder values (`<string>`) stand where the schema
gives no default, const, enum or example (a property that is a local `$ref`, `#/...`,
is read through it: `ref_target`): the line parses, the user fills them in.

`item` is the one check of whether a `KEY=VALUE` item round-trips through mrtr's own
parser; every hint that names arguments (schema/prompt_arguments.py) uses it, and
render/invocation.py `command_line` builds the printed line.
"""

from __future__ import annotations

import json
from typing import Any

from mrtr_cli.errors import UsageError
from mrtr_cli.render.invocation import command_line
from mrtr_cli.render.listing import example_value, parameter_paths
from mrtr_cli.schema.arguments import coerce_value, parse_item

#: How many local `$ref`s a property's example follows, one after another (a cycle ends there too).
MAX_REF_HOPS = 8


class _NoFile(Exception):
    """An item's value would be read from a file (`key=@path`): not what the example means."""


def _no_file(path: str, what: str) -> str:
    raise _NoFile(path)


def reads_back(text: str, path: tuple[str, ...], value: object, literal: bool) -> bool:
    """Whether `parse_item` reads `text` as the item at `path` with `value` (`literal`: `:=`);
    a value read from a file (`KEY=@PATH`) never reads back."""
    try:
        item = parse_item(text, _no_file)
    except (UsageError, _NoFile):
        return False
    return tuple(item.path) == path and item.literal == literal and item.value == value


def key_reads_back(path: tuple[str, ...]) -> bool:
    """Whether the dotted key of `path` names that path in a `KEY=VALUE` item and prints as
    typed: not a name holding `=` or `:=`, ending with `:`, holding `.` (read as nesting), empty, or
    with a control character. The one test of a property's name for `KEY=VALUE`: the example
    call gives any other in `--args`, Tab in `mrtr shell` (shell/completion.py) and the
    command line's completion (cli/names.py) never offer it."""
    key = ".".join(path)
    return key.isprintable() and reads_back(f"{key}=v", path, "v", False)


def value_item(path: tuple[str, ...], value: object, schema: object, *, literal: bool = False) -> str | None:
    """`KEY=TEXT` (`literal`: `KEY:=JSON`) that gives `value` at `path` as typed: its key
    reads back (`key_reads_back`), the item reads back (`reads_back`: `KEY=@x` reads a
    file, so it never does) and, for `KEY=TEXT`, the text is typed by `schema` (the
    property's, or an array's `items`: `arguments.coerce_value`) back to `value` (a string
    `"1"` of a property that may be an integer does not); else None. What Tab offers after
    `KEY=` (shell/completion.py)."""
    if not key_reads_back(path):
        return None
    key = ".".join(path)
    if literal:
        item = f"{key}:={json.dumps(value, ensure_ascii=False)}"
        return item if item.isprintable() and reads_back(item, path, value, True) else None
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    item = f"{key}={text}"
    if not item.isprintable() or not reads_back(item, path, text, False):
        return None
    try:
        typed = coerce_value(text, schema, item)
    except UsageError:
        return None
    return item if json.dumps(typed, sort_keys=True) == json.dumps(value, sort_keys=True) else None


def _leaf_value(prop: dict[str, Any]) -> tuple[object, str | None]:
    """A required leaf's example: its JSON value, and its text for `KEY=VALUE` (None: only
    `KEY:=JSON` gives it, as for an object or array property without a shape)."""
    if prop.get("type") == "object":  # shapeless, or no member required (`_members_given`)
        return {}, None
    if prop.get("type") == "array" and "items" not in prop:
        return [], None
    value, text = example_value(prop)
    return value, text


def item(path: tuple[str, ...], value: object, text: str | None) -> str | None:
    """`KEY=VALUE` (with `text`; None: none) or `KEY:=JSON` for the leaf at `path`, the first
    that mrtr's own item parser (`parse_item`) reads back to the same key path and value and
    that prints as typed (no control character, which the terminal would show escaped),
    its key one that reads back (`key_reads_back`); else None: the key goes into `--args JSON`."""
    if not key_reads_back(path):
        return None
    key = ".".join(path)
    candidates: list[tuple[str, object, bool]] = [] if text is None else [(f"{key}={text}", text, False)]
    candidates.append((f"{key}:={json.dumps(value, ensure_ascii=False)}", value, True))
    for item, parsed, literal in candidates:
        if item.isprintable() and reads_back(item, path, parsed, literal):
            return item
    return None


def _members_given(path: tuple[str, ...], prop: dict[str, Any]) -> bool:
    """Whether the required object at `path` is given by items for its own required members
    (`listing.parameter_paths` lists them: it expands three levels below the top); else
    the example gives it whole, as `{}`."""
    props, required = prop.get("properties"), prop.get("required")
    return (prop.get("type") == "object" and isinstance(props, dict) and len(path) <= 3
            and isinstance(required, list) and any(name in props for name in required))


def _pointer(root: dict[str, Any], ref: str) -> object:
    """What the local JSON pointer `ref` (`#`, `#/$defs/x`, `~0` `~1` and `%XX` unescaped)
    names in `root`; None when it names nothing or is not local."""
    from urllib.parse import unquote  # noqa: PLC0415 - only for a property that is a $ref

    if not ref.startswith("#") or (len(ref) > 1 and not ref.startswith("#/")):
        return None
    node: object = root
    for part in [] if ref == "#" else ref[2:].split("/"):
        key = unquote(part).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            node = node.get(key)
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node


def ref_target(prop: dict[str, Any], root: object) -> dict[str, Any]:
    """`prop` read through its local `$ref` (`{"$ref": "#/$defs/x"}` -> `$defs.x` of `root`,
    the tool's inputSchema), its own keywords kept beside the target's, at most
    `MAX_REF_HOPS` references deep; `prop` itself when it has no `$ref` that resolves
    here (a remote one is never fetched)."""
    seen: set[str] = set()
    while isinstance(ref := prop.get("$ref"), str) and isinstance(root, dict) and len(seen) < MAX_REF_HOPS:
        target = _pointer(root, ref)
        if ref in seen or not isinstance(target, dict):
            break
        seen.add(ref)
        prop = {**target, **{k: v for k, v in prop.items() if k != "$ref"}}
    return prop


def _put(tree: dict[str, Any], path: tuple[str, ...], value: object) -> None:
    node = tree
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value


def example_words(tool: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The words after the target of an example call of `tool` with its required
    parameters (module docstring), as `command_line` takes them: `call [--args JSON]`, and
    the operands `NAME ITEM...`."""
    required: set[tuple[str, ...]] = set()
    items: list[str] = []
    rest: dict[str, Any] = {}
    for path, prop, is_required in parameter_paths(tool.get("inputSchema")):
        if not is_required or (len(path) > 1 and path[:-1] not in required):
            continue
        required.add(path)
        if _members_given(path, prop):
            continue  # its required members are items of their own
        value, text = _leaf_value(ref_target(prop, tool.get("inputSchema")))
        given = item(path, value, text)
        if given is None:
            _put(rest, path, value)
        else:
            items.append(given)
    return ["call", *args_words(rest)], [str(tool.get("name")), *items]


def args_words(rest: dict[str, Any]) -> list[str]:
    """`--args JSON` for the arguments `rest` (none when it is empty): the JSON as typed,
    or with `\\uXXXX` escapes when it holds a character that does not print as typed."""
    if not rest:
        return []
    whole = json.dumps(rest, ensure_ascii=False)
    return ["--args", whole if whole.isprintable() else json.dumps(rest)]


def example_call(tool: dict[str, Any], command: list[str]) -> str:
    """A `mrtr ... call NAME key=value...` line with the required parameters, `command`
    being the words that name the target (`--url URL`); inside `mrtr shell`, `call NAME
    key=value...` alone, as its prompt takes it (render/invocation.py `command_line`: the
    shell has one server, and a target option on its line is refused). The words:
    `example_words`. A tool whose name cannot be shown as typed gets a sentence instead."""
    words, operands = example_words(tool)
    return command_line(words, operands, target=command) or "(none: the tool's name cannot be shown as typed)"
