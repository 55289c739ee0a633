"""A fast yes for arguments that plainly satisfy a simple `inputSchema`.

Importing `jsonschema` costs about 70 ms, more than the rest of a `mrtr call` over
stdio adds to the exchange (docs/performance.md). Most tool schemas use a handful of
keywords (`type`, `properties`, `required`, `enum`, bounds...), and most arguments
pass them. `plainly_valid` confirms exactly that case without the import.

It only ever says "certainly valid" (True) or "ask jsonschema" (False): any keyword
outside the subset below, a dialect other than 2020-12 / 2019-09 / draft-07 / draft-06,
anything malformed, and every failure go to `jsonschema` (schema/arguments.py), which
stays the validator of record and writes every error message.

Subset (same meaning in all four dialects): `type`, `properties`, `required`,
`additionalProperties`, `enum`, `const`, `items` (one schema), `minimum`, `maximum`,
`exclusiveMinimum`, `exclusiveMaximum` (numbers), `minLength`, `maxLength`,
`minItems`, `maxItems`, `minProperties`, `maxProperties`, `anyOf` (met when one branch
certainly is), `oneOf` of `const` branches only (titled choices), boolean `true`
schemas, and annotations (`title`, `description`, `default`, `examples`, `format` (not asserted),
`deprecated`, `readOnly`, `writeOnly`, `$comment`, `$schema`, `$id`, `x-*`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

_DIALECTS = {
    None,
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema#",
    "http://json-schema.org/draft-06/schema",
}
_ANNOTATIONS = {"title", "description", "default", "examples", "format", "deprecated", "readOnly", "writeOnly",
                "enumNames", "$comment", "$schema", "$id", "contentMediaType", "contentEncoding"}
_ASSERTIONS = {"type", "properties", "required", "additionalProperties", "enum", "const", "items", "minimum",
               "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems",
               "minProperties", "maxProperties", "anyOf", "oneOf"}


class _Unsure(Exception):
    """The instance fails, or the schema is outside the subset: ask jsonschema."""


def plainly_valid(instance: Any, schema: Any) -> bool:
    """True only when `instance` certainly satisfies `schema` (a schema within the subset
    above); False means "not known here": validate with jsonschema."""
    if not isinstance(schema, dict) or schema.get("$schema") not in _DIALECTS:
        return False
    try:
        _check(instance, schema)
    except (_Unsure, TypeError, ValueError, RecursionError):
        return False
    return True


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _type_ok(value: Any, name: str) -> bool:
    if name == "string":
        return isinstance(value, str)
    if name == "integer":
        return _is_number(value) and (isinstance(value, int) or value.is_integer())
    if name == "number":
        return _is_number(value)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "null":
        return value is None
    raise _Unsure(name)


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: `true` is not `1`, `1` is `1.0`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


def _bound(value: Any) -> float | int:
    if not _is_number(value):
        raise _Unsure("bound")
    return value  # type: ignore[no-any-return]  # a JSON number (checked just above) from an untyped schema value


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _Unsure("count")
    return value


def _check(instance: Any, schema: Any) -> None:
    """Returns when `instance` certainly meets `schema`; raises `_Unsure` otherwise: each
    keyword of `_VALUE_CHECKS` and `_LIMITS` the schema holds, then the items of an array or
    the members of an object."""
    if schema is True or schema == {}:
        return
    if not isinstance(schema, dict):
        raise _Unsure("schema")
    for key in schema:
        if key not in _ASSERTIONS and key not in _ANNOTATIONS and not key.startswith("x-"):
            raise _Unsure(key)
    for key, check in _VALUE_CHECKS.items():
        if key in schema:
            check(instance, schema[key])
    for key, (applies, measure, bound, agree) in _LIMITS.items():
        if key in schema and applies(instance) and not agree(measure(instance), bound(schema[key])):
            raise _Unsure(key)
    if isinstance(instance, list):
        _check_items(instance, schema)
    elif isinstance(instance, dict):
        _check_object(instance, schema)


def _check_type(instance: Any, value: Any) -> None:
    names = value if isinstance(value, list) else [value]
    if not any(_type_ok(instance, str(name)) for name in names):
        raise _Unsure("type")


def _check_enum(instance: Any, value: Any) -> None:
    if not (isinstance(value, list) and any(_equal(instance, e) for e in value)):
        raise _Unsure("enum")


def _check_const(instance: Any, value: Any) -> None:
    if not _equal(instance, value):
        raise _Unsure("const")


def _check_any_of(instance: Any, branches: Any) -> None:
    """Met when some branch is certainly met (one that is not says nothing)."""
    if not isinstance(branches, list):
        raise _Unsure("anyOf")
    for branch in branches:
        try:
            _check(instance, branch)
        except _Unsure:
            continue
        return
    raise _Unsure("anyOf")


def _check_one_of(instance: Any, branches: Any) -> None:
    """Only the titled-choice form: every branch a `const` (with annotations); exactly one equal."""
    if not isinstance(branches, list) or not all(
            isinstance(b, dict) and "const" in b and all(k == "const" or k in _ANNOTATIONS for k in b)
            for b in branches):
        raise _Unsure("oneOf")
    if sum(1 for b in branches if _equal(instance, b["const"])) != 1:
        raise _Unsure("oneOf")


def _check_items(instance: list[Any], schema: dict[str, Any]) -> None:
    if "items" in schema:
        if not isinstance(schema["items"], dict | bool):
            raise _Unsure("items")  # draft-07 tuple form
        for item in instance:
            _check(item, schema["items"])


def _check_object(instance: dict[str, Any], schema: dict[str, Any]) -> None:
    required = schema.get("required", [])
    if not isinstance(required, list) or any(name not in instance for name in required):
        raise _Unsure("required")
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise _Unsure("properties")
    extra = schema.get("additionalProperties", True)
    for name, value in instance.items():
        if name in properties:
            _check(value, properties[name])
        elif extra is not True:
            _check(value, extra)  # `false` (no extra allowed) is not a dict: _Unsure


#: The keywords on the instance's type and value: keyword -> its check (instance, keyword's value).
_VALUE_CHECKS: dict[str, Callable[[Any, Any], None]] = {
    "type": _check_type, "enum": _check_enum, "const": _check_const, "anyOf": _check_any_of, "oneOf": _check_one_of,
}


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def _is_array(value: Any) -> bool:
    return isinstance(value, list)


def _is_object(value: Any) -> bool:
    return isinstance(value, dict)


def _itself(value: Any) -> Any:
    return value


#: The range and size keywords: keyword -> (the instances it applies to, what of them is
#: measured, the bound as the schema gives it (else `_Unsure`), whether measure and bound agree).
_LIMITS: dict[str, tuple[Callable[[Any], bool], Callable[[Any], Any], Callable[[Any], Any],
                         Callable[[Any, Any], bool]]] = {
    "minimum": (_is_number, _itself, _bound, operator.ge),
    "maximum": (_is_number, _itself, _bound, operator.le),
    "exclusiveMinimum": (_is_number, _itself, _bound, operator.gt),
    "exclusiveMaximum": (_is_number, _itself, _bound, operator.lt),
    "minLength": (_is_string, len, _count, operator.ge),
    "maxLength": (_is_string, len, _count, operator.le),
    "minItems": (_is_array, len, _count, operator.ge),
    "maxItems": (_is_array, len, _count, operator.le),
    "minProperties": (_is_object, len, _count, operator.ge),
    "maxProperties": (_is_object, len, _count, operator.le),
}
