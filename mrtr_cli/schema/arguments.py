"""Tool arguments from the command line, typed by the tool's `inputSchema`.

Arguments are then checked against the `inputSchema` with `jsonschema` (the
schema's own `$schema` dialect, else 2020-12; `$ref` never fetched over the network)
before anything is sent.

Item syntax (after HTTPie): `key=value` (coerced to the property's type: a string
property keeps `02134` as the string "02134"), `key:=<json>` (a literal JSON
value), `key=@path` (the file's text; `@-` reads stdin), dotted keys for nested
objects (`address.city=Paris`), and a repeated `key=v` for arrays. `--args`
gives a whole JSON object (`JSON`, `@file` or `-`), which items then extend.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from mrtr_cli.errors import UnreadWords, UsageError
from mrtr_cli.jsonfile import json_depth, json_type, loads_strict
from mrtr_cli.limits import MAX_JSON_DEPTH
from mrtr_cli.render.sanitize import sanitize

#: (Pattern texts, compiled at their first use and kept by `re`'s own cache: a run that
#: does not use them does not compile them, docs/performance.md.)
_INT = r"^[+-]?\d+$"
_NUMBER = r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$"


@dataclass(eq=False, repr=False)
class ArgItem:
    """One command-line argument item.

    Attributes:
        path: the key split on dots (`["address", "city"]`).
        value: the raw text (for `=`), or the parsed JSON value (for `:=`).
        literal: True for `:=` (already typed).
        text: the item as typed, for messages.
    """

    path: list[str]
    value: Any
    literal: bool
    text: str

    @property
    def key(self) -> str:
        return ".".join(self.path)


def parse_item(text: str, read_file: Callable[[str, str], str]) -> ArgItem:
    """Parse one `key=value` / `key:=json` / `key=@file` item; `read_file(path, what)` reads
    a `@file` (`what`, "KEY=@" or "KEY:=@", names it in messages).

    Raises:
        UnreadWords: no `=` (the word is not printed).
        UsageError: an empty key, invalid JSON after `:=`, an unreadable file.
    """
    json_at = text.find(":=")
    eq = text.find("=")
    if json_at != -1 and (eq == -1 or json_at < eq):
        key, raw = text[:json_at], text[json_at + 2 :]
        if raw.startswith("@"):
            raw = read_file(raw[1:], f"{key}:=@")
        try:
            value = loads_strict(raw)
        except json.JSONDecodeError as exc:
            raise UsageError(f"argument {_masked(text)}: the value after := is not valid JSON ({exc.msg})") from None
        literal = True
    elif eq > 0:
        key, value = text[:eq], text[eq + 1 :]
        if value.startswith("@") and len(value) > 1:
            value = read_file(value[1:], f"{key}=@")
        literal = False
    else:
        # a word with no `=` may be a token pasted by mistake: never printed (errors.UnreadWords)
        raise UnreadWords("{0} is no argument: expected key=value, key:=<json> or key=@file", [text])
    path = key.split(".")
    if not key or any(not part for part in path):
        raise UsageError(f"argument {_masked(text)}: the key is empty")
    if len(path) > MAX_JSON_DEPTH:
        raise UsageError(f"argument {_masked(text)}: the key has {len(path)} dotted parts; objects nest at most "
                         f"{MAX_JSON_DEPTH} levels deep")
    return ArgItem(path, value, literal, text)


def _cut(text: str) -> str:
    """Text for a one-line message: controls (a newline, an escape) made visible
    (`render.sanitize.sanitize`, single line), cut to 80 characters."""
    return _cut_raw(sanitize(text, single_line=True))


def _cut_raw(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


def _shown(text: str) -> str:
    """An item for a message: quoted (repr escapes what is not printable), cut to 80 characters."""
    return repr(_cut_raw(text))


def _masked(text: str, secret: bool = True) -> str:
    """Item `text` (`KEY=VALUE`, `KEY:=JSON`) for a message: `_shown`, its value left out
    when `secret` (`'KEY=...'`, `'KEY:=...'`). Every message about an item quotes it
    through here: its value may be a secret (`is_secret_item`; before the tool's schema
    is known, any may be: `parse_item` never quotes one)."""
    json_at, eq = text.find(":="), text.find("=")
    if not secret or eq == -1:
        return _shown(text)
    cut = json_at + 2 if json_at != -1 and json_at < eq else eq + 1
    return _shown(text[:cut] + "...")


def is_secret_item(item: ArgItem, input_schema: Any) -> bool:
    """Whether `item`'s value is or holds a secret argument (`credentials.is_secret_field`:
    by the schema's `writeOnly` / `format: password`, wherever a subschema that could apply
    carries it (schema/secrecy.py), or by a credential's name): its key or
    a dotted part above it names one (`x.y` of a `writeOnly` `x`), or, for `KEY:=JSON`, a
    member within the JSON does (`credentials.holds_secret`)."""
    from mrtr_cli.credentials import holds_secret, is_secret_field  # noqa: PLC0415 - only on an error path
    from mrtr_cli.schema.secrecy import place_of  # noqa: PLC0415 - only on an error path

    place = place_of(input_schema)
    for part in item.path:
        place = place.member(part)
        if is_secret_field(part, place):
            return True
    return item.literal and holds_secret(item.path[-1], place, item.value)


def _types(schema: Any) -> list[str]:
    if not isinstance(schema, dict):
        return []
    t = schema.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return [x for x in t if isinstance(x, str)]
    out: list[str] = []
    for combo in ("anyOf", "oneOf"):
        for branch in schema.get(combo) or []:
            out.extend(x for x in _types(branch) if x not in out)
    if not out and "enum" in schema:
        out = sorted({json_type(v) for v in schema["enum"]})
    if not out and "const" in schema:
        out = [json_type(schema["const"])]
    return out


def property_schema(schema: Any, path: list[str]) -> Any:
    """The subschema for a dotted `path` through `properties` (None if unknown)."""
    node = schema
    for part in path:
        if not isinstance(node, dict):
            return None
        props = node.get("properties")
        if isinstance(props, dict) and part in props:
            node = props[part]
            continue
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            node = extra
            continue
        return None
    return node


def coerce_value(text: str, schema: Any, where: str, secret: Callable[[], bool] | None = None) -> Any:
    """Coerce the text of `key=value` to the JSON type its schema asks for.

    With no schema, or a schema allowing strings, the text stays a string. Type
    unions are tried in a fixed order: integer, number, boolean, null, then string.
    `where`: the item as typed (`key=value`); `secret`: tells whether its value is a secret
    (`is_secret_item`, asked on an error only; None: by `key`'s last part and `schema`),
    never quoted then.

    Raises:
        UsageError: the text cannot be any of the allowed types.
    """
    types = _types(schema)
    if not types or "string" in types:
        return text
    for kind in ("integer", "number", "boolean", "null"):
        if kind not in types:
            continue
        if kind == "integer" and re.match(_INT, text.strip()):
            return int(text.strip())
        if kind == "number" and re.match(_NUMBER, text.strip()):
            t = text.strip()
            if re.match(_INT, t):
                return int(t)
            if math.isfinite(float(t)):
                return float(t)
        if kind == "boolean" and text.strip().lower() in ("true", "false"):
            return text.strip().lower() == "true"
        if kind == "null" and text.strip() == "null":
            return None
    if "object" in types or "array" in types:
        try:
            return loads_strict(text)
        except json.JSONDecodeError:
            pass
    wanted = " or ".join(types)
    name = where.split("=")[0]
    if secret is None:
        from mrtr_cli.credentials import is_secret_field  # noqa: PLC0415 - only on an error path

        hidden = is_secret_field(name.rsplit(".", 1)[-1], schema)
    else:
        hidden = secret()
    shown_where, shown_value = (name + "=...", SECRET_SHOWN) if hidden else (where, _shown(text))
    raise UsageError(f"argument {_cut(shown_where)}: {shown_value} is not "
                     f"{('an ' if wanted[0] in 'aeiou' else 'a ') + wanted}",
                     hint=f"use {name}:=<json> to pass a literal JSON value")


def build_arguments(items: list[ArgItem], base: dict[str, Any] | None, input_schema: Any, *,
                    lenient: bool = False) -> dict[str, Any]:
    """Combine `--args` (`base`) and items into the `arguments` object.

    A key given more than once becomes an array (or extends one); an array-typed
    property always gets an array, even from a single item. Items may replace what
    `base` holds, but two items that make one key both a value and an object conflict,
    in either order (`a.b=1 a=2`, `a=2 a.b=1`).

    Args:
        lenient: `call --no-validate`: an item its schema cannot type is sent as its text
            (each item typed on its own; the others keep their types).

    Raises:
        UsageError: a value cannot be coerced (unless `lenient`), a key is both a value
            and an object, or the arguments nest deeper than `MAX_JSON_DEPTH`.
    """
    if not items:
        return dict(base) if base else {}  # nothing to add: a shallow copy leaves `base` as it was
    args: dict[str, Any] = json.loads(json.dumps(base)) if base else {}
    counts: dict[str, int] = {}
    for item in items:
        counts[item.key] = counts.get(item.key, 0) + 1
    seen: dict[str, int] = {}
    paths = _Paths(input_schema)
    for item in items:
        value, is_array = _typed_value(item, input_schema, lenient)
        paths.claim(item)
        seen[item.key] = seen.get(item.key, 0) + 1
        _place(args, item, value, as_list=is_array or counts[item.key] > 1, first=seen[item.key] == 1,
               paths=paths)
    if json_depth(args) > MAX_JSON_DEPTH:
        raise UsageError(f"the arguments nest deeper than {MAX_JSON_DEPTH} levels")
    return args


def _typed_value(item: ArgItem, input_schema: Any, lenient: bool) -> tuple[Any, bool]:
    """`item`'s value typed by its property's schema, and whether that property is an array
    (each item is then one element).

    Raises:
        UsageError: the value cannot be coerced (unless `lenient`: then it is its text).
    """
    schema = property_schema(input_schema, item.path)
    is_array = "array" in _types(schema) and (item.literal is False or not isinstance(item.value, list))
    try:
        if item.literal:
            return item.value, is_array
        def secret() -> bool:
            return is_secret_item(item, input_schema)

        if is_array:
            item_schema = schema.get("items") if isinstance(schema, dict) else None
            return coerce_value(item.value, item_schema, item.text, secret), is_array
        return coerce_value(item.value, schema, item.text, secret), is_array
    except UsageError:
        if not lenient:
            raise
        return item.value, is_array  # --no-validate: this item as its text, the others typed


class _Paths:
    """The paths items have given a value (`a=1`) and made an object (`a.b=1`), so that one
    key is never both, in either order; `input_schema` tells which items' values are
    secrets (never quoted in a message)."""

    def __init__(self, input_schema: Any) -> None:
        self.input_schema = input_schema
        self.objects: dict[tuple[str, ...], ArgItem] = {}  # the objects items made (by a dotted key), by path
        self.values: dict[tuple[str, ...], ArgItem] = {}  # the values items gave, by path

    def claim(self, item: ArgItem) -> None:
        """Record `item`'s path and the objects above it.

        Raises:
            UsageError: the path is already an object, or a key above it already a value.
        """
        made = self.objects.get(tuple(item.path))
        if made is not None:
            raise UsageError(f"argument {self.shown(item)}: {_shown(item.key)} is already an object "
                             f"(from {self.shown(made)})",
                             hint="give the key either a value or dotted parts, not both")
        for i in range(1, len(item.path)):
            given = self.values.get(tuple(item.path[:i]))
            if given is not None:  # a value an item gave, even an object (`a:={...}`): not merged into
                raise UsageError(f"argument {self.shown(item)}: {_shown(item.path[i - 1])} is already a value "
                                 f"(from {self.shown(given)})",
                                 hint="give the key either a value or dotted parts, not both")
            self.objects.setdefault(tuple(item.path[:i]), item)
        self.values.setdefault(tuple(item.path), item)

    def shown(self, item: ArgItem) -> str:
        """`item` as a message quotes it (`_masked`: its value left out when it is a secret)."""
        return _masked(item.text, is_secret_item(item, self.input_schema))


def _place(args: dict[str, Any], item: ArgItem, value: Any, *, as_list: bool, first: bool, paths: _Paths) -> None:
    """Put `value` at `item`'s path in `args`, making the objects on the way: set, or for
    `as_list` appended to an array (`first`: the key's first item, which starts the array
    unless `--args` already gave one). `paths.shown`: the item as a message quotes it.

    Raises:
        UsageError: a key on the way is already a value (from `--args`), not an object.
    """
    node = args
    for part in item.path[:-1]:
        child = node.get(part)
        if child is None:
            child = node[part] = {}
        if not isinstance(child, dict):
            raise UsageError(f"argument {paths.shown(item)}: {_shown(part)} is already a value, not an object")
        node = child
    last = item.path[-1]
    if not as_list:
        node[last] = value
        return
    if first and not isinstance(node.get(last), list):
        node[last] = []
    elif not isinstance(node.get(last), list):
        node[last] = [node[last]]
    node[last].append(value)


def load_args_option(value: str, read_file: Callable[[str, str], str]) -> dict[str, Any]:
    """Read `--args JSON|@file|-` as a JSON object (`read_file(path, what)` reads the file).

    Raises:
        UsageError: not JSON, or not an object.
    """
    raw = read_file(value[1:], "--args @") if value.startswith("@") else read_file("-", "--args") if value == "-" \
        else value
    try:
        doc = loads_strict(raw)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--args: not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(doc, dict):
        raise UsageError(f"--args: expected a JSON object, got {json_type(doc)}")
    return doc


def _no_retrieve(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource  # noqa: PLC0415 - lazy for start-up time

    # referencing's classes are attrs classes behind its own `frozen` wrapper, which mypy's
    # attrs plugin does not see through: their fields are unknown to it.
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # attrs fields mypy cannot see (above)


def _where(path: Any) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


#: What a message says in place of a secret argument's value.
SECRET_SHOWN = "the value (not shown: a secret)"


def _problem(error: Any, secret: Collection[str] = ()) -> str:
    """One line for one `jsonschema` error, naming the argument's path; the value of an
    argument named in `secret` (or within one) is never quoted, nor the whole arguments
    holding one (a rule of the schema's root: `maxProperties`, `oneOf`)."""
    where = _cut(_where(error.absolute_path))
    kind = error.validator
    if error.absolute_path and str(error.absolute_path[0]) in secret:
        return _secret_problem(error, where)
    if not error.absolute_path and secret and kind not in _NAMES_ONLY:
        return _secret_problem(error, "(all)")
    prefix = where + "." if where else ""
    from mrtr_cli.schema.messages import error_message  # noqa: PLC0415 - only on an error path

    if kind == "required" and isinstance(error.instance, dict):
        missing = [_cut(str(k)) for k in error.validator_value or [] if k not in error.instance]
        return f"missing required argument {', '.join(prefix + m for m in missing) or error_message(error)}"
    if kind in ("additionalProperties", "unevaluatedProperties"):
        extra = [_cut(e) for e in re.findall(r"'([^']*)'", error.message)]
        names = ", ".join(prefix + e for e in extra[:5]) + (f" and {len(extra) - 5} more" if len(extra) > 5 else "") \
            if extra else error_message(error)
        known = list(error.schema.get("properties") or {}) if isinstance(error.schema, dict) else []
        from mrtr_cli.render.suggest import close_matches  # noqa: PLC0415 - only on an error path

        close = [m for e in extra[:5] for m in close_matches(e, known, n=1)]
        return f"unexpected argument {names} " + (f"(did you mean {', '.join(prefix + c for c in close)}?)" if close
                                                  else "(the schema allows no other properties)")
    shown = json.dumps(error.instance, ensure_ascii=False)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    if kind == "type":
        want = error.validator_value
        want = " or ".join(want) if isinstance(want, list) else str(want)
        got = json_type(error.instance)
        return f"argument {where or '(all)'}: expected {want}, got {got}" + (f" {shown}" if shown != got else "")
    return f"argument {where or '(all)'}: {error_message(error)}"


#: The rules whose messages (`_problem`) name arguments, never quote a value.
_NAMES_ONLY = ("required", "additionalProperties", "unevaluatedProperties")


def _secret_problem(error: Any, where: str) -> str:
    """`_problem` for a secret argument's value: its type and the rule it fails, never the value."""
    if error.validator == "type":
        want = error.validator_value
        want = " or ".join(want) if isinstance(want, list) else str(want)
        return f"argument {where}: expected {want}, got {json_type(error.instance)}"
    return (f"argument {where}: {json_type(error.instance)} fails the schema's {error.validator!r} rule "
            f"({SECRET_SHOWN})")


_VALIDATORS: dict[int, tuple[Any, Any]] = {}  # id(schema) -> (schema, validator or None): one per tool


def _validator(input_schema: dict[str, Any]) -> Any:
    """The jsonschema validator for a tool's `inputSchema` (built once per schema object, so
    a batch of calls to one tool checks its schema once); None when the schema is invalid.

    Raises:
        Unresolvable: a `$ref` that cannot be resolved locally.
        PatternError, SlowPattern: a pattern of the schema cannot be compiled (`patterns.check_schema`).
    """
    cached = _VALIDATORS.get(id(input_schema))
    if cached is not None and cached[0] is input_schema:
        return cached[1]
    from jsonschema import Draft202012Validator, exceptions, validators  # noqa: PLC0415 - lazy: startup time
    from referencing import Registry  # noqa: PLC0415 - lazy for start-up time

    from mrtr_cli.schema.patterns import bounded_validator, check_schema  # noqa: PLC0415 - lazy for start-up time

    cls = validators.validator_for(input_schema, default=Draft202012Validator)
    try:
        check_schema(cls, input_schema)
        # `Registry(retrieve=)`: see `_no_retrieve` on referencing's attrs classes.
        validator = bounded_validator(cls, input_schema,
                                      registry=Registry(retrieve=_no_retrieve))  # type: ignore[call-arg]  # attrs fields (above)
    except exceptions.SchemaError:
        validator = None
    _VALIDATORS[id(input_schema)] = (input_schema, validator)
    return validator


def _without_optional_nulls(arguments: dict[str, Any], input_schema: dict[str, Any]) -> dict[str, Any]:
    """`arguments` less the top-level `null`s given for properties the schema names but does
    not require: such a null means "not provided" (2026-07-28 streamable-http, custom
    headers: a parameter whose value is `null` is treated like one not in the arguments)."""
    properties = input_schema.get("properties")
    required = input_schema.get("required")
    if not isinstance(properties, dict):
        return arguments
    required = required if isinstance(required, list) else []
    nulls = [k for k, v in arguments.items() if v is None and k in properties and k not in required]
    return {k: v for k, v in arguments.items() if k not in nulls} if nulls else arguments


#: The hint of an `inputSchema` that cannot be used (a server's pattern that is slow or no regular expression).
_UNCHECKED = "call --no-validate sends the arguments unchecked (the server then judges them)"


def validate_arguments(arguments: dict[str, Any], input_schema: Any, tool: str) -> None:
    """Check `arguments` against the tool's `inputSchema` before it is sent.

    The validator is chosen by the schema's `$schema` (default JSON Schema 2020-12);
    `format` is not asserted; `$ref`s resolve only inside the schema (never over the
    network). A schema that is itself invalid, or has a `$ref` that cannot be
    resolved locally, is not checked (the server will judge). A top-level `null` for
    an optional property passes (it means "not provided"; it is still sent as given).
    Patterns are ECMA-262's, compiled and matched with a bound on the work
    (schema/patterns.py); a pattern that cannot be used is exit 4, as in a form.

    Raises:
        UsageError: the arguments do not match (exit 2), naming the property path,
            with the other problems (up to five) in the hint.
        SlowPattern: a pattern of the schema took too long to match, or is too large
            to compile (exit 4).
        BadPattern: a pattern of the schema is no regular expression (exit 4).
    """
    if not isinstance(input_schema, dict) or not input_schema:
        return
    arguments = _without_optional_nulls(arguments, input_schema)
    from mrtr_cli.schema.quickcheck import plainly_valid  # noqa: PLC0415 - lazy for start-up time

    if plainly_valid(arguments, input_schema):
        return  # a simple schema, plainly met: no need to import jsonschema (~70 ms)
    from jsonschema import exceptions  # noqa: PLC0415 - lazy: startup time
    from referencing.exceptions import Unresolvable  # noqa: PLC0415 - lazy for start-up time

    from mrtr_cli.schema.patterns import BadPattern, PatternError, SlowPattern  # noqa: PLC0415 - lazy for start-up time

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # `re`'s "possible nested set" on a pattern's `[[`
            validator = _validator(input_schema)
            errors = list(validator.iter_errors(arguments)) if validator is not None else []
    # jsonschema's error for a $ref that cannot be resolved is private, so not in its stubs;
    # a $ref that refers to itself recurses without end: a schema that cannot be used either.
    except (exceptions.SchemaError, Unresolvable, RecursionError,
            exceptions._WrappedReferencingError):  # type: ignore[attr-defined]  # noqa: SLF001 - private, not in stubs
        return
    except PatternError as exc:
        raise BadPattern(exc, f"{tool} (inputSchema)", _UNCHECKED) from None
    except SlowPattern as exc:
        slow = exc.at(f"{tool} (inputSchema)")
        slow.hint = _UNCHECKED
        raise slow from None
    if not errors:
        return
    errors.sort(key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    best = exceptions.best_match(errors)
    from mrtr_cli.credentials import secret_members  # noqa: PLC0415 - only on an error path
    from mrtr_cli.schema.secrecy import name_matches  # noqa: PLC0415 - only on an error path

    secret = set(secret_members(arguments, input_schema, name_matches))
    first = _problem(best, secret)
    # one "missing" line for all
    others = list(dict.fromkeys(p for p in (_problem(e, secret) for e in errors) if p != first))
    hint_lines = others[:5] + ([f"... and {len(others) - 5} more"] if len(others) > 5 else [])
    from mrtr_cli.render.invocation import command_line  # noqa: PLC0415 - only on an error path

    see = command_line(["tools"], [tool], same_target=True)
    hint_lines.append("see the parameters: " + (see or "the tools command (its name cannot be shown as typed)"))
    raise UsageError(f"{tool}: {first}", hint="\n".join(hint_lines))
