"""Every message about a schema that quotes a person's value or a server's pattern quotes it
cut short (mrtr_cli/schema/messages.py): a 100 KB answer or a 9,000-character pattern makes
one short line, not a 100 KB one. Each case gives the huge text and the message it makes."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from mrtr_cli.batch.lines import read_batch
from mrtr_cli.errors import MrtrError
from mrtr_cli.schema.arguments import build_arguments, parse_item, validate_arguments
from mrtr_cli.schema.elicit import form_fields, validate_content
from mrtr_cli.schema.prompt_arguments import check_prompt_arguments, require_strings, unknown_name

HUGE = "x" * 100_000
#: Longer than any line a message about one value needs; far shorter than the value.
SHORT = 1_000
LONG_PATTERN = "^" + "a" * 9_000 + "$"


def _tool(schema: dict, arguments: dict) -> Callable[[], None]:
    return lambda: validate_arguments(arguments, {"type": "object", **schema}, "t")


def _form(prop: dict, value: object) -> Callable[[], None]:
    def check() -> None:
        problems = validate_content({"type": "object", "properties": {"w": prop}}, {"w": value})
        assert problems
        raise ValueError(problems[0].describe())
    return check


def _coerce(prop: dict) -> Callable[[], None]:
    return lambda: form_fields({"type": "object", "properties": {"w": prop}})[0].coerce(HUGE)


def _items(*texts: str) -> Callable[[], None]:
    return lambda: build_arguments([parse_item(t, lambda p: "") for t in texts], None, None)


CASES = {
    "tool: a value that does not match a pattern": _tool({"properties": {"w": {"pattern": "^a$"}}}, {"w": HUGE}),
    "tool: a long pattern": _tool({"properties": {"w": {"pattern": LONG_PATTERN}}}, {"w": "b"}),
    "tool: maxLength": _tool({"properties": {"w": {"maxLength": 3}}}, {"w": HUGE}),
    "tool: enum": _tool({"properties": {"w": {"enum": ["a", "b"]}}}, {"w": HUGE}),
    "tool: const": _tool({"properties": {"w": {"const": "a"}}}, {"w": HUGE}),
    "tool: a long name no property has": _tool({"properties": {}, "additionalProperties": False}, {HUGE: 1}),
    "tool: a long name no pattern matches": _tool({"patternProperties": {"^a": True}, "additionalProperties": False},
                                                   {HUGE: 1}),
    "tool: many names no pattern matches": _tool({"patternProperties": {LONG_PATTERN: True},
                                                  "additionalProperties": False},
                                                 {f"k{i}": 1 for i in range(5_000)}),
    "tool: a long name in the path": _tool({"additionalProperties": {"type": "integer"}}, {HUGE: "s"}),
    "tool: a long name of a required property": _tool({"required": [HUGE]}, {}),
    "form: a value that does not match a pattern": _form({"type": "string", "pattern": "^a$"}, HUGE),
    "form: a long pattern": _form({"type": "string", "pattern": LONG_PATTERN}, "b"),
    "form: maxLength": _form({"type": "string", "maxLength": 3}, HUGE),
    "form: not one of": _form({"type": "string", "enum": ["a", "b"]}, HUGE),
    "form: const": _form({"type": "string", "const": "a"}, HUGE),
    "form: an integer typed": _coerce({"type": "integer"}),
    "form: a boolean typed": _coerce({"type": "boolean"}),
    "form: a choice typed": _coerce({"type": "string", "enum": ["a", "b"]}),
    "items: a key both a value and an object": _items(f"{HUGE}=1", f"{HUGE}.b=1"),
    "items: a key above already a value": _items(f"{HUGE}.b=1", f"{HUGE}=1"),
    "prompt: an unknown argument": lambda: check_prompt_arguments("p", {"arguments": []}, {HUGE: "1"}),
    "prompt: an unknown prompt": lambda: (_ for _ in ()).throw(unknown_name("prompt", HUGE, ["a"])),
    "prompt: a long prompt name": lambda: check_prompt_arguments(HUGE, {"arguments": []}, {"a": "1"}),
    "prompt: an argument that is no string": lambda: require_strings({HUGE: 1}, "prompt argument"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_message_quotes_a_huge_value_cut_short(case):
    with pytest.raises((MrtrError, ValueError)) as caught:
        CASES[case]()
    error = caught.value
    text = error.message + "\n" + (error.hint or "") if isinstance(error, MrtrError) else str(error)
    assert len(text) < SHORT, (case, len(text), text[:300])


def test_a_batch_lines_unknown_member_is_quoted_cut_short():
    (line,) = read_batch(json.dumps({"call": "t", HUGE: 1}) + "\n", ".")
    assert line.error is not None and "unknown member 'xxx" in line.error.message
    assert len(line.error.message) + len(line.error.hint or "") < SHORT, line.error.message[:300]


# ---------------------------------------------------------------------- a schema's numbers
#: A server's integer of 4001 digits: a message shows its first digits and its length
#: (docs/limits.md, "an integer a server sent, in text output"), never the 4001 digits.
BIG = 10**4000
BIG_SHOWN = "100000…(4001 digits)"


def _form_text(prop: dict, value: object) -> Callable[[], str]:
    def text() -> str:
        problems = validate_content({"type": "object", "properties": {"w": prop}}, {"w": value})
        assert problems
        return problems[0].describe()
    return text


def _tool_text(prop: dict, value: object) -> Callable[[], str]:
    def text() -> str:
        with pytest.raises(MrtrError) as caught:
            validate_arguments({"w": value}, {"type": "object", "properties": {"w": prop}}, "t")
        return caught.value.message + "\n" + (caught.value.hint or "")
    return text


def _field(prop: dict, how: str) -> Callable[[], str]:
    def text() -> str:
        field = form_fields({"type": "object", "properties": {"w": prop}})[0]
        return field.expected() if how == "expected" else field.hint()
    return text


def _described(prop: dict) -> Callable[[], str]:
    from mrtr_cli.render.listing import describe_tool

    return lambda: describe_tool({"name": "t", "inputSchema": {"type": "object", "properties": {"w": prop}}}, "")


NUMBER_CASES = {
    "form: minimum": _form_text({"type": "integer", "minimum": BIG}, 1),
    "form: maximum": _form_text({"type": "integer", "maximum": -BIG}, 1),
    "form: minLength": _form_text({"type": "string", "minLength": BIG}, "a"),
    "form: maxItems": _form_text({"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": BIG, "minItems": BIG},
                                 ["a"]),
    "form: enum": _form_text({"type": "integer", "enum": [BIG, 1]}, 5),
    "form: const": _form_text({"type": "integer", "const": BIG}, 5),
    "form: multipleOf": _form_text({"type": "integer", "multipleOf": BIG}, 5),
    "form: expected, integer": _field({"type": "integer", "minimum": BIG, "maximum": BIG + 1}, "expected"),
    "form: expected, string": _field({"type": "string", "minLength": BIG, "maxLength": BIG}, "expected"),
    "form: expected, enum": _field({"type": "integer", "enum": [BIG, 1]}, "expected"),
    "form: hint, integer": _field({"type": "integer", "minimum": BIG, "maximum": BIG + 1}, "hint"),
    "form: hint, string": _field({"type": "string", "minLength": BIG}, "hint"),
    "form: hint, multi": _field({"type": "array", "items": {"enum": ["a"]}, "minItems": BIG}, "hint"),
    "tool: minimum": _tool_text({"type": "integer", "minimum": BIG}, 1),
    "tool: exclusiveMaximum": _tool_text({"type": "integer", "exclusiveMaximum": -BIG}, 1),
    "tool: multipleOf": _tool_text({"type": "integer", "multipleOf": BIG}, 5),
    "tool: const": _tool_text({"const": BIG}, 5),
    "tool: a value too large": _tool_text({"type": "integer", "maximum": 1}, BIG),
    "tool: enum": _tool_text({"type": "integer", "enum": [BIG, 1]}, 5),
    "tools NAME: default, minimum, maximum, enum": _described({"type": "integer", "default": BIG, "minimum": BIG,
                                                               "maximum": BIG, "enum": [BIG]}),
}


@pytest.mark.parametrize("case", list(NUMBER_CASES))
def test_a_schemas_long_integer_is_shown_as_its_first_digits_and_length(case):
    text = NUMBER_CASES[case]()
    assert BIG_SHOWN in text, (case, text[:300])
    assert "0" * 100 not in text and len(text) < SHORT, (case, len(text), text[:300])


@pytest.mark.parametrize(("schema", "arguments", "expected"), [
    ({"anyOf": [{"required": ["x"]}, {"required": ["y"]}]}, {"a": "<string>", "b": True, "c": None},
     'argument (all): {"a": "<string>", "b": true, "c": null} is not valid under any of the given schemas'),
    ({"properties": {"k": {"enum": ["a", True, None]}}}, {"k": False},
     'argument k: false is not one of ["a", true, null]'),
    ({"properties": {"k": {"not": {"type": "object"}}}}, {"k": {"n": [1, 2.5, False]}},
     'argument k: {"n": [1, 2.5, false]} should not be valid under {"type": "object"}'),
    ({"properties": {"k": {"oneOf": [{"type": "object"}, {"required": []}]}}}, {"k": {"z": 1}},
     'argument k: {"z": 1} is valid under each of {"required": []}, {"type": "object"}'),
    ({"properties": {"k": {"prefixItems": [{}], "items": False}}}, {"k": [1, "two", None]},
     'argument k: Expected at most 1 item but found 2 extra: ["two", null]'),
    ({"properties": {"k": {"const": {"a": None}}}}, {"k": 3}, 'argument k: {"a": null} was expected'),
    ({"properties": {"k": {"maxItems": 1}}}, {"k": [True, None]}, "argument k: [true, null] is too long"),
    ({"properties": {"k": {"maxLength": 2}}}, {"k": "it's"}, "argument k: 'it's' is too long"),
    ({"properties": {"k": {"pattern": "^x$"}}}, {"k": "a\x1bb"}, "argument k: 'a\\x1bb' does not match '^x$'"),
])
def test_a_jsonschema_message_shows_its_values_as_json(schema, arguments, expected):
    """jsonschema quotes values as Python reprs (`{'a': True, 'b': None}`): mrtr shows them
    as JSON (a string in single quotes, as every message of mrtr's quotes one)."""
    with pytest.raises(MrtrError) as caught:
        _tool(schema, arguments)()
    assert caught.value.message == f"t: {expected}"
