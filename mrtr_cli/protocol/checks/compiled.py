"""The spec's result schemas compiled to yes/no functions, for the common case: nothing wrong.

Spec: the 2026-07-28 and 2025-11-25 JSON schemas, as trimmed for protocol/checks/validate.py.

`compile_holds(defs, schema)` turns a schema of the keyword subset validate.py's interpreter
reads (`$ref`, `type`, `properties`, `required`, `additionalProperties`, `items`, `anyOf`,
`allOf`, `const`, `enum`, `minimum`, `maximum`, `maxItems`; other keywords are ignored,
as there) into a function of one value that is True exactly when the interpreter finds no
problem in it. The keywords a schema node does not have cost nothing, and its `$ref`s are
followed once, when compiled, not on every value. The interpreter stays the writer of
every message: a value this says no to is checked by it again (tests/protocol/checks:
the two agree on every value tried).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: A compiled schema: True when the value meets it.
Holds = Callable[[Any], bool]

#: Required members the interpreter lets be absent (validate.py `LENIENT`).
_LENIENT = frozenset({"resultType", "ttlMs", "cacheScope"})
_SIMPLE_TYPES: dict[str, type | tuple[type, ...]] = {"object": dict, "array": list, "string": str,
                                                     "null": type(None)}


def _yes(value: object) -> bool:
    return True


def _no(value: object) -> bool:
    return False


def compile_holds(defs: dict[str, Any], schema: object) -> Holds:
    """`schema` (whose `$ref`s name members of `defs`) as a yes/no function; a definition
    named by several `$ref`s is compiled once, and a recursive one works."""
    return _Compiler(defs).node(schema)


class _Compiler:
    def __init__(self, defs: dict[str, Any]):
        self.defs = defs
        self.named: dict[str, Holds] = {}

    def ref(self, ref: str) -> Holds:
        """The compiled definition `ref` names (a missing one allows anything, as in validate.py)."""
        name = ref.rsplit("/", 1)[-1]
        done = self.named.get(name)
        if done is not None:
            return done
        cell: list[Holds] = []
        self.named[name] = lambda value: cell[0](value)  # a definition that refers to itself
        holds = self.node(self.defs.get(name, {}))
        cell.append(holds)
        self.named[name] = holds
        return holds

    def node(self, schema: Any) -> Holds:
        if schema is True or schema == {}:
            return _yes
        if schema is False:
            return _no
        if "$ref" in schema:
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            target = self.ref(schema["$ref"])
            if not rest:
                return target
            own = self.node(rest)
            return lambda value: own(value) and target(value)
        checks = [c for c in (self._type(schema), self._const(schema), self._enum(schema), self._range(schema),
                              self._members(schema), self._items(schema), self._all_of(schema),
                              self._any_of(schema)) if c is not None]
        if not checks:
            return _yes
        if len(checks) == 1:
            return checks[0]
        return _every(checks)

    # ------------------------------------------------------------ the keywords, as validate.py reads them
    @staticmethod
    def _type(schema: dict[str, Any]) -> Holds | None:
        if "type" not in schema:
            return None
        return type_check(schema["type"])

    @staticmethod
    def _const(schema: dict[str, Any]) -> Holds | None:
        if "const" not in schema:
            return None
        const = schema["const"]
        return lambda value: bool(value == const)

    @staticmethod
    def _enum(schema: dict[str, Any]) -> Holds | None:
        if "enum" not in schema:
            return None
        allowed = schema["enum"]
        return lambda value: value in allowed

    @staticmethod
    def _range(schema: dict[str, Any]) -> Holds | None:
        low: Any = schema.get("minimum")
        high: Any = schema.get("maximum")
        if "minimum" not in schema and "maximum" not in schema:
            return None

        def holds(value: Any) -> bool:
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                return True
            return not ("minimum" in schema and value < low or "maximum" in schema and value > high)
        return holds

    def _members(self, schema: dict[str, Any]) -> Holds | None:
        required = [m for m in schema.get("required", ()) if m not in _LENIENT]
        props = {name: self._needed(sub) for name, sub in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        other = None if extra is True else self.node(extra)
        if not required and not props and other is None:
            return None

        def holds(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            for member in required:
                if member not in value:
                    return False
            for member, item in value.items():
                check = props.get(member, other)
                if check is not None and not check(item):
                    return False
            return True
        return holds

    def _needed(self, schema: Any) -> Holds | None:
        """`schema` compiled, or None when it allows anything (a member of that name is not looked at)."""
        holds = self.node(schema)
        return None if holds is _yes else holds

    def _items(self, schema: dict[str, Any]) -> Holds | None:
        if "maxItems" not in schema and schema.get("items") is None:
            return None
        most = schema.get("maxItems")
        each = self.node(schema["items"]) if schema.get("items") is not None else None

        def holds(value: Any) -> bool:
            if not isinstance(value, list):
                return True
            if most is not None and len(value) > most:
                return False
            if each is not None:
                for item in value:
                    if not each(item):
                        return False
            return True
        return holds

    def _all_of(self, schema: dict[str, Any]) -> Holds | None:
        subs = [self.node(sub) for sub in schema.get("allOf", ())]
        if not subs:
            return None
        return _every(subs)

    def _any_of(self, schema: dict[str, Any]) -> Holds | None:
        if "anyOf" not in schema:
            return None
        branches = [self.node(branch) for branch in schema["anyOf"]]

        def holds(value: Any) -> bool:
            for branch in branches:  # noqa: SIM110 - a loop, not a generator made per value
                if branch(value):
                    return True
            return False
        return holds


def type_check(expected: Any) -> Holds:
    """The check of a `type` keyword (a name or a list of names), as validate.py's `_type_ok`."""
    if isinstance(expected, list):
        each = [type_check(name) for name in expected]
        return lambda value: any(check(value) for check in each)
    if expected == "integer":
        return lambda value: (isinstance(value, int) and not isinstance(value, bool)
                              or isinstance(value, float) and value.is_integer())
    if expected == "number":
        return lambda value: isinstance(value, (int, float)) and not isinstance(value, bool)
    if expected == "boolean":
        return lambda value: isinstance(value, bool)
    kind = _SIMPLE_TYPES.get(expected)
    if kind is None:
        return _yes
    return lambda value: isinstance(value, kind)


def _every(checks: list[Holds]) -> Holds:
    """One check that holds when each of `checks` holds (in order, stopping at the first no)."""

    def holds(value: Any) -> bool:
        for check in checks:  # noqa: SIM110 - a loop, not a generator made per value
            if not check(value):
                return False
        return True
    return holds
