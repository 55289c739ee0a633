"""protocol/checks/compiled.py: the compiled schema says yes exactly when validate.py's
interpreter finds no problem, on values drawn from the spec's own definitions (valid ones,
and ones with a member dropped, retyped or added), for both eras; and a checked result costs
a few dozen Python calls, not the interpreter's 170."""

from __future__ import annotations

import cProfile
import pstats
import random
from typing import Any

import pytest

from mrtr_cli.protocol.checks import validate
from mrtr_cli.protocol.checks.compiled import compile_holds
from mrtr_cli.protocol.checks.validate import _RESULTS, _SERVER_REQUESTS, _defs, _problem, check_result

ODD_VALUES: list[Any] = [None, True, False, 0, 1, -1, 2.5, 3.0, "", "text", "image", "complete", [], [1], {},
                         {"type": "text"}, 10**20]


def _draw(defs: dict[str, Any], schema: Any, rng: random.Random, depth: int = 0) -> Any:
    """A value meant to meet `schema` (sometimes off: a member dropped, retyped or added)."""
    if rng.random() < 0.06 or depth > 6:
        return rng.choice(ODD_VALUES)
    if not isinstance(schema, dict):
        return rng.choice(ODD_VALUES)
    if "$ref" in schema:
        return _draw(defs, defs.get(schema["$ref"].rsplit("/", 1)[-1], {}), rng, depth + 1)
    if "anyOf" in schema:
        return _draw(defs, rng.choice(schema["anyOf"]), rng, depth + 1)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema.get("type")
    kind = rng.choice(kind) if isinstance(kind, list) else kind
    if kind == "object" or "properties" in schema:
        value = {}
        for name, sub in schema.get("properties", {}).items():
            if name in schema.get("required", ()) and rng.random() > 0.03 or rng.random() < 0.4:
                value[name] = _draw(defs, sub, rng, depth + 1)
        if rng.random() < 0.1:
            value["extra"] = rng.choice(ODD_VALUES)
        return value
    if kind == "array":
        return [_draw(defs, schema.get("items", {}), rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind in ("integer", "number"):
        return rng.choice([0, 1, 7, -3, 2.0, 0.5, schema.get("minimum", 0) - 1, schema.get("maximum", 1) + 1])
    if kind == "boolean":
        return rng.choice([True, False])
    if kind == "string":
        return rng.choice(["a", "", "user"])
    return rng.choice(ODD_VALUES)


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_the_compiled_schema_agrees_with_the_interpreter(era):
    defs = _defs(era)
    rng = random.Random(era)
    names = sorted({*_RESULTS.values(), "InputRequiredResult", *_SERVER_REQUESTS.values()} & set(defs))
    said = {True: 0, False: 0}
    for name in names:
        schema = {"$ref": f"#/$defs/{name}"}
        holds = compile_holds(defs, schema)
        for _ in range(300):
            value = _draw(defs, schema, rng)
            assert holds(value) is (_problem(defs, schema, value, "result") is None), (name, value)
            said[holds(value)] += 1
    assert min(said.values()) > 200  # both answers were tried often


@pytest.mark.parametrize(("schema", "value", "expected"), [
    ({"$ref": "#/$defs/Loop"}, {"next": {"next": {"next": 1}}}, False),
    ({"$ref": "#/$defs/Loop"}, {"next": {"next": {}}}, True),
    ({"$ref": "#/$defs/Missing"}, 5, True),
    ({"$ref": "#/$defs/No"}, 5, False),
    ({"$ref": "#/$defs/No", "type": "integer"}, 5, False),
    ({"type": "object", "required": ["resultType", "a"]}, {"a": 1}, True),
    ({"type": "object", "additionalProperties": False, "properties": {"a": True}}, {"a": 1, "b": 2}, False),
    ({"type": "integer", "minimum": 0, "maximum": 3}, 2.0, True),
    ({"type": "integer", "minimum": 0, "maximum": 3}, True, False),
    ({"type": ["string", "null"]}, None, True),
    ({"const": 1}, True, True),
    ({"items": {"type": "string"}, "maxItems": 1}, ["a", "b"], False),
    ({"allOf": [{"type": "object"}, {"required": ["x"]}]}, {}, False),
])
def test_the_corners_agree(schema, value, expected):
    defs = {"Loop": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Loop"}}}, "No": False}
    assert compile_holds(defs, schema)(value) is expected
    assert (_problem(defs, schema, value, "result") is None) is expected


def test_a_text_result_is_checked_in_few_calls():
    result = {"content": [{"type": "text", "text": "hello"}], "isError": False, "resultType": "complete"}
    check_result("tools/call", result, "modern")  # compiled here
    profile = cProfile.Profile()
    profile.runcall(check_result, "tools/call", result, "modern")
    assert pstats.Stats(profile).total_calls <= 40  # type: ignore[attr-defined]
    assert ("modern", "CallToolResult") in validate._COMPILED
