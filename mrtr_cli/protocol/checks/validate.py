"""Checking what a server returns against the spec's schema, before anything uses it.

Spec: the 2026-07-28 and 2025-11-25 JSON schemas (`schema.json`), trimmed to the
definitions needed here by `scripts/trim-schemas` (protocol/schemas/results-*.json).

`check_result(method, result, era)` checks the result of `tools/call`, `prompts/get`,
`resources/read` and the list methods, and, in an `input_required` result, every input
request (`elicitation/create`, `sampling/createMessage`, `roots/list`);
`check_server_request` checks a 2025-11-25 server's own request. What the schema
forbids is a `ProtocolError` (exit 4) naming the JSON path of the member
(`result.content[0].text: expected a string, got a number`). Members are otherwise
free (the schemas allow extra ones). Kept lenient, as the spec tells clients to:
`resultType` may be absent (it means "complete"), and so may `ttlMs` and
`cacheScope` (no caching).

The checker is a small interpreter of the JSON Schema keywords these schemas use
(`$ref`, `type`, `properties`, `required`, `additionalProperties`, `items`, `anyOf`,
`allOf`, `const`, `enum`, `minimum`, `maximum`, `maxItems`): `jsonschema` would cost
its import (about 70 ms) on every call.
"""

from __future__ import annotations

import json
import os
from typing import Any

from mrtr_cli.errors import ProtocolError
from mrtr_cli.protocol.capabilities.kinds import INPUT_KINDS
from mrtr_cli.protocol.checks.compiled import Holds, compile_holds
from mrtr_cli.render.sanitize import one_line, quote_value

#: Required members the client defaults when absent (see the module docstring).
LENIENT = {"resultType", "ttlMs", "cacheScope"}

_RESULTS = {
    "tools/call": "CallToolResult",
    "prompts/get": "GetPromptResult",
    "resources/read": "ReadResourceResult",
    "tools/list": "ListToolsResult",
    "prompts/list": "ListPromptsResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
}
#: The schema definition of each input request's method (protocol/capabilities/kinds.py).
_SERVER_REQUESTS = {kind.method: kind.request_schema for kind in INPUT_KINDS}
_DEFS: dict[str, dict[str, Any]] = {}
#: (era, definition name) -> that definition compiled (protocol/checks/compiled.py), made once.
_COMPILED: dict[tuple[str, str], Holds] = {}
_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


class InvalidShape(ProtocolError):
    """A result or request the spec's schema forbids (exit 4).

    Attributes:
        path: the JSON path of the offending member (`result.content[0]`).
    """

    def __init__(self, what: str, path: str, problem: str):
        super().__init__(f"the server sent an invalid {what}: {path}: {problem}",
                         hint="the response breaks the MCP schema; nothing of it is used")
        self.path = path
        self.what = what
        self.problem = problem


def _defs(era: str) -> dict[str, Any]:
    version = "2026-07-28" if era == "modern" else "2025-11-25"
    if version not in _DEFS:
        path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "schemas", f"results-{version}.json")
        with open(path, encoding="utf-8") as fh:
            _DEFS[version] = json.load(fh)["$defs"]
    return _DEFS[version]


def _holds(era: str, name: str, value: object) -> bool:
    """True when `value` meets definition `name` of `era`'s schema (compiled the first time)."""
    holds = _COMPILED.get((era, name))
    if holds is None:
        holds = _COMPILED[era, name] = compile_holds(_defs(era), {"$ref": f"#/$defs/{name}"})
    return holds(value)


def check_result(method: str, result: dict[str, Any], era: str) -> None:
    """Check the result of `method` (a JSON-RPC `result` object) for its era ("modern" or
    "legacy"); methods without a definition here pass unchecked, and so does a task
    (the tasks extension checks its own).

    Raises:
        InvalidShape: the schema forbids something in it; the message names the path.
    """
    name = _RESULTS.get(method)
    if name is None or "task" in result and method == "tools/call" and result.get("resultType", "task") == "task":
        return
    result_type = result.get("resultType")
    if era == "modern" and result_type == "input_required":
        name = "InputRequiredResult"
    elif era == "modern" and result_type not in (None, "complete"):
        return  # unknown result types are the engine's to refuse
    if not _holds(era, name, result):
        _check(_defs(era), {"$ref": f"#/$defs/{name}"}, result, "result", f"{method} result")
    if name == "InputRequiredResult":
        for key, request in (result.get("inputRequests") or {}).items():
            check_input_request(request, f"result.inputRequests[{_key(key)}]", era)


def check_input_request(request: Any, path: str, era: str) -> None:
    """Check one input request (or a 2025-11-25 server request) by its `method`.

    Raises:
        InvalidShape: the schema forbids something in it (or its method is unknown).
    """
    method = request.get("method") if isinstance(request, dict) else None
    name = _SERVER_REQUESTS.get(method) if isinstance(method, str) else None
    if name is None:
        raise InvalidShape("input request", f"{path}.method",
                           f"expected one of {', '.join(_SERVER_REQUESTS)}, got {_shown(method)}")
    if era == "legacy":  # the envelope (id, jsonrpc) was checked by the transport
        request = {"id": 0, "jsonrpc": "2.0", **request}
    if not _holds(era, name, request):
        _check(_defs(era), {"$ref": f"#/$defs/{name}"}, request, path, f"{method} request")


def check_server_request(msg: dict[str, Any]) -> None:
    """Check a 2025-11-25 server's request (elicitation, sampling, roots) before it is
    answered; other methods pass.

    Raises:
        InvalidShape: the schema forbids something in it.
    """
    if msg.get("method") in _SERVER_REQUESTS:
        check_input_request(msg, "request", "legacy")


# ---------------------------------------------------------------------- the interpreter
def _problem(defs: dict[str, Any], schema: object, value: Any, path: str) -> tuple[str, str] | None:
    """The first (path, problem) where `value` breaks `schema`, or None: its `$ref`s
    followed, then each keyword of `_KEYWORD_CHECKS` in order."""
    if schema is True or schema == {}:
        return None
    if schema is False:
        return path, "not allowed here"
    schema, found = _follow_refs(defs, schema, value, path)
    if found is not None or schema is True:
        return found
    for check in _KEYWORD_CHECKS:
        found = check(defs, schema, value, path)
        if found is not None:
            return found
    return None


def _follow_refs(defs: dict[str, Any], schema: Any, value: Any, path: str) -> tuple[Any, tuple[str, str] | None]:
    """`schema` with its `$ref` chain followed (True: the definition allows anything), and
    the problem a `$ref`'s sibling keywords find (then the schema is not used)."""
    while "$ref" in schema:
        ref = schema["$ref"]
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        target = defs.get(ref.rsplit("/", 1)[-1], {})
        if rest:
            found = _problem(defs, rest, value, path)
            if found is not None:
                return schema, found
        schema = target
        if schema is True or schema == {}:
            return True, None
        if schema is False:
            return schema, (path, "not allowed here")
    return schema, None


def _type_problem(defs: dict[str, Any], schema: Any, value: object, path: str) -> tuple[str, str] | None:
    if "type" in schema and not _type_ok(schema["type"], value):
        return path, f"expected {_types(schema['type'])}, got {_kind(value)}"
    return None


def _const_problem(defs: dict[str, Any], schema: Any, value: object, path: str) -> tuple[str, str] | None:
    if "const" in schema and value != schema["const"]:
        return path, f"expected {_shown(schema['const'])}, got {_shown(value)}"
    return None


def _enum_problem(defs: dict[str, Any], schema: Any, value: Any, path: str) -> tuple[str, str] | None:
    if "enum" in schema and value not in schema["enum"]:
        return path, f"expected one of {', '.join(_shown(v) for v in schema['enum'])}, got {_shown(value)}"
    return None


def _range_problem(defs: dict[str, Any], schema: Any, value: object, path: str) -> tuple[str, str] | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    if "minimum" in schema and value < schema["minimum"]:
        return path, f"must be at least {schema['minimum']}"
    if "maximum" in schema and value > schema["maximum"]:
        return path, f"must be at most {schema['maximum']}"
    return None


def _members_problem(defs: dict[str, Any], schema: Any, value: object, path: str) -> tuple[str, str] | None:
    return _object_problem(defs, schema, value, path) if isinstance(value, dict) else None


def _items_problem(defs: dict[str, Any], schema: Any, value: object, path: str) -> tuple[str, str] | None:
    if not isinstance(value, list):
        return None
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        return path, f"at most {schema['maxItems']} items"
    items = schema.get("items")
    if items is not None:
        for index, item in enumerate(value):
            found = _problem(defs, items, item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def _all_of_problem(defs: dict[str, Any], schema: Any, value: Any, path: str) -> tuple[str, str] | None:
    for sub in schema.get("allOf", ()):
        found = _problem(defs, sub, value, path)
        if found is not None:
            return found
    return None


def _branches_problem(defs: dict[str, Any], schema: Any, value: object, path: str) -> tuple[str, str] | None:
    return _any_of_problem(defs, schema["anyOf"], value, path) if "anyOf" in schema else None


#: The keywords `_problem` checks, in the order their problems are reported: the value's
#: own type and value first, then its members or items, then the combinations.
_KEYWORD_CHECKS = (_type_problem, _const_problem, _enum_problem, _range_problem, _members_problem,
                   _items_problem, _all_of_problem, _branches_problem)


def _object_problem(defs: dict[str, Any], schema: dict[str, Any], value: dict[str, Any],
                    path: str) -> tuple[str, str] | None:
    for member in schema.get("required", ()):
        if member not in value and member not in LENIENT:
            return f"{path}.{member}" if _plain(member) else f"{path}[{_key(member)}]", "missing (required)"
    props = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for member, item in value.items():
        sub = props.get(member, extra)
        if sub is True:
            continue
        found = _problem(defs, sub, item, f"{path}.{member}" if _plain(member) else f"{path}[{_key(member)}]")
        if found is not None:
            return found
    return None


def _any_of_problem(defs: dict[str, Any], branches: list[Any], value: object, path: str) -> tuple[str, str] | None:
    """None when one branch holds; else the problem of the branch `value` says it is (by
    a `type`, `method` or `mode` constant it matches), or one line naming what was expected."""
    problems = []
    for branch in branches:
        found = _problem(defs, branch, value, path)
        if found is None:
            return None
        problems.append((branch, found))
    if isinstance(value, dict):
        for branch, found in problems:
            target = _resolve(defs, branch)
            props = target.get("properties", {}) if isinstance(target, dict) else {}
            for tag in ("type", "method", "mode"):
                const = props.get(tag, {}).get("const") if isinstance(props.get(tag), dict) else None
                if const is not None and value.get(tag) == const:
                    return found
        kinds = list(dict.fromkeys(pair for b, _ in problems for pair in _const_of(defs, b)))
        for tag in ("type", "method"):
            if kinds and all(k[0] == tag for k in kinds):
                where = f"{path}.{tag}"
                got = value.get(tag)
                if got is None:
                    return where, f"missing (one of {', '.join(_shown(k[1]) for k in kinds)})"
                return where, f"expected one of {', '.join(_shown(k[1]) for k in kinds)}, got {_shown(got)}"
    deepest = max(problems, key=lambda bp: len(bp[1][0]))[1]
    if deepest[0] != path:
        return deepest
    return path, f"matches none of the shapes allowed here (got {_kind(value)})"


def _resolve(defs: dict[str, Any], schema: object) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        schema = defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
    return schema


def _const_of(defs: dict[str, Any], branch: object) -> list[tuple[str, Any]]:
    """The (tag, value) pairs a branch's `type` or `method` member must hold."""
    target = _resolve(defs, branch)
    props = target.get("properties", {}) if isinstance(target, dict) else {}
    for tag in ("type", "method"):
        sub = props.get(tag)
        if isinstance(sub, dict) and "const" in sub:
            return [(tag, sub["const"])]
        if isinstance(sub, dict) and isinstance(sub.get("enum"), list):
            return [(tag, value) for value in sub["enum"]]
    return []


def _check(defs: dict[str, Any], schema: object, value: Any, path: str, what: str) -> None:
    found = _problem(defs, schema, value, path)
    if found is not None:
        raise InvalidShape(what, one_line(found[0], 300), found[1])


def _type_ok(expected: Any, value: Any) -> bool:
    if isinstance(expected, list):
        return any(_type_ok(t, value) for t in expected)
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool) or isinstance(value, float) and value.is_integer()
    if expected == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    kind = _TYPES.get(expected)
    if kind is None:
        return True
    if kind is dict or kind is list or kind is str or kind is type(None):
        return isinstance(value, kind)
    return isinstance(value, bool)


def _types(expected: Any) -> str:
    names = expected if isinstance(expected, list) else [expected]
    words = [("an " if n in ("object", "array", "integer") else "a ") + n for n in names]
    return " or ".join(words)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _shown(value: object) -> str:
    return quote_value(value, limit=60)


def _plain(member: str) -> bool:
    return member.isidentifier() or member.startswith("_") and member[1:].isidentifier()


def _key(member: object) -> str:
    return _shown(member)
