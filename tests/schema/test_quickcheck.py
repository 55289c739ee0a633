"""schema/quickcheck.py: a fast "certainly valid" must never disagree with jsonschema.

Every (schema, instance) pair below is judged by `plainly_valid` and by jsonschema
(the validator of record); `plainly_valid` may say False ("ask jsonschema") for a valid
instance, but never True for an invalid one. The common simple cases must take the
fast path (otherwise the optimisation does nothing).
"""

from __future__ import annotations

import itertools

import jsonschema
import pytest

from mrtr_cli.schema.quickcheck import plainly_valid

SCHEMAS = [
    {"type": "object", "properties": {"text": {"type": "string"}}},
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]},
    {"type": "object", "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMaximum": 10}},
     "additionalProperties": False},
    {"type": "object", "additionalProperties": {"type": "string"}},
    {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                                               "maxItems": 2}}},
    {"type": "object", "properties": {"color": {"type": "string", "enum": ["red", "green"]},
                                      "flag": {"type": "boolean", "default": False}}},
    {"type": "object", "properties": {"x": {"type": ["integer", "null"]}, "c": {"const": 1}}},
    {"type": "object", "properties": {"s": {"type": "string", "minLength": 2, "maxLength": 3, "format": "email"}}},
    {"type": "object", "properties": {"size": {"type": "string", "oneOf": [{"const": "S", "title": "Small"},
                                                                           {"const": "M", "title": "Medium"}]}}},
    {"type": "object", "properties": {"days": {"type": "array", "items": {"anyOf": [{"const": "mon"},
                                                                                    {"const": "tue"}]}}}},
    {"type": "object", "properties": {"p": {"type": "string", "pattern": "^a"}}},  # outside the subset
    {"type": "object", "properties": {"r": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"type": "integer"}}},
    {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
     "properties": {"i": {"type": "integer"}}},
    {"type": "object", "properties": {"o": {"oneOf": [{"type": "integer"}, {"type": "number"}]}}},
    {"type": "object", "minProperties": 1, "maxProperties": 2},
    {"type": "object", "properties": {"u": {"type": "array", "uniqueItems": True}}},
    {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 3}}},
    {"type": "object", "properties": {"nested": {"type": "object", "properties": {"deep": {"type": "integer",
                                                                                         "maximum": 5}},
                                                 "required": ["deep"]}}},
]
VALUES = [None, True, False, 0, 1, 1.0, 2.5, -3, 11, "", "x", "ab", "a@b", "red", "S", "mon", [], ["a"],
          ["a", "b", "c"], ["mon", "wed"], [1, 1], {}, {"deep": 3}, {"deep": 9}]
KEYS = ["text", "a", "b", "n", "tags", "color", "flag", "x", "c", "s", "size", "days", "p", "r", "i", "o", "u",
        "nested", "other"]


def instances():
    yield {}
    for key, value in itertools.product(KEYS, VALUES):
        yield {key: value}
    yield {"a": 1, "b": 2}
    yield {"a": 1, "b": True}
    yield {"a": 1.0, "b": 2}
    yield "not an object"


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: str(s)[:60])
def test_never_says_valid_when_jsonschema_says_invalid(schema):
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = cls(schema)
    for instance in instances():
        if plainly_valid(instance, schema):
            assert validator.is_valid(instance), (schema, instance)


def test_common_cases_take_the_fast_path():
    assert plainly_valid({"text": "hi"}, SCHEMAS[0])
    assert plainly_valid({"a": 1, "b": 2}, SCHEMAS[1])
    assert plainly_valid({"n": 9.5}, SCHEMAS[2])
    assert plainly_valid({"tags": ["a"]}, SCHEMAS[4])
    assert plainly_valid({"color": "red", "flag": True}, SCHEMAS[5])
    assert plainly_valid({"size": "M"}, SCHEMAS[8])
    assert plainly_valid({"days": ["mon", "tue"]}, SCHEMAS[9])
    assert plainly_valid({"nested": {"deep": 5}}, SCHEMAS[17])
    assert plainly_valid(2.0, {"type": "integer"})  # 2020-12: an integral number is an integer


def test_outside_the_subset_or_failing_asks_jsonschema():
    assert not plainly_valid({"p": "abc"}, SCHEMAS[10])  # pattern
    assert not plainly_valid({"r": 1}, SCHEMAS[11])  # $ref
    assert not plainly_valid({"i": 1}, SCHEMAS[12])  # draft-04
    assert not plainly_valid({"a": 1}, SCHEMAS[1])  # missing b
    assert not plainly_valid({"a": True, "b": 1}, SCHEMAS[1])  # a boolean is not an integer
    assert not plainly_valid({"c": True}, SCHEMAS[6])  # const 1 is not true
    assert not plainly_valid({"n": 1}, {"type": "object", "properties": {"n": False}})
    assert not plainly_valid({"x": 1}, {"type": 5})  # an invalid schema
