"""Form elicitation schemas, in process (mrtr_cli/schema/elicit.py): fields read from a
`requestedSchema`, typed text coerced, answers checked, and the words shown for each field.
These are the fast tests mutation testing runs (tests/README.md)."""

from __future__ import annotations

import pytest

from mrtr_cli.jsonfile import json_type
from mrtr_cli.schema import elicit
from mrtr_cli.schema.elicit import (
    FormField,
    Problem,
    check_format,
    explain,
    form_fields,
    property_validator,
    validate_content,
)


def field_of(prop: dict, name: str = "f", required: bool = False) -> FormField:
    (f,) = form_fields({"type": "object", "properties": {name: prop}, "required": [name] if required else []})
    return f


# ---------------------------------------------------------------- formats
@pytest.mark.parametrize("fmt, value, why", [
    ("email", "a@b.co", None),
    ("email", "ada@example", "is not an email address"),
    ("email", "a b@c.d", "is not an email address"),
    ("email", "a@b@c.d", "is not an email address"),
    ("email", "@b.c", "is not an email address"),
    ("email", "a@.c", "is not an email address"),
    ("email", "a@b.c.d", None),
    ("email", "a@b.", "is not an email address"),
    ("uri", "https://x", None),
    ("uri", "urn:isbn:1", None),
    ("uri", "a+b.c-d:x", None),
    ("uri", "//x", "is not an absolute URI (scheme:...)"),
    ("uri", "1a:x", "is not an absolute URI (scheme:...)"),
    ("uri", "a:", "is not an absolute URI (scheme:...)"),
    ("uri", "a:b c", "is not an absolute URI (scheme:...)"),
    ("date", "2026-07-28", None),
    ("date", "2026-7-28", "is not a date (YYYY-MM-DD)"),
    ("date", "2026-02-30", "is not a valid calendar date"),
    ("date-time", "2026-07-28T09:30:00Z", None),
    ("date-time", "2026-07-28t09:30:00.5z", None),
    ("date-time", "2026-07-28T09:30:00+02:00", None),
    ("date-time", "2026-07-28 09:30:00Z", "is not a date-time (RFC 3339, e.g. 2026-07-28T09:30:00Z)"),
    ("date-time", "2026-07-28T09:30:00", "is not a date-time (RFC 3339, e.g. 2026-07-28T09:30:00Z)"),
    ("date-time", "2026-07-28T25:30:00Z", "is not a valid date-time"),
    ("date-time", "2026-07-28T09:30:00z", None),
    ("hostname", "anything at all", None),
])
def test_string_formats(fmt, value, why):
    assert check_format(fmt, value) == why


def test_an_email_needs_a_dot_after_the_at():
    assert check_format("email", "ada@localhost") == "is not an email address"
    assert field_of({"type": "string", "format": "email"}).check("ada@localhost") == "is not an email address"
    assert field_of({"type": "string", "format": "email"}).check("ada@example.org") is None


def test_the_format_checker_is_made_once_and_checks_strings_only():
    elicit._FORMAT_CHECKER = None
    v = property_validator({"type": "string", "format": "email"})
    assert elicit._FORMAT_CHECKER is not None
    checker = elicit._FORMAT_CHECKER
    property_validator({"format": "date"})
    assert elicit._FORMAT_CHECKER is checker
    assert [e.validator for e in v.iter_errors("x@y")] == ["format"]
    assert list(v.iter_errors("x@y.z")) == []
    for fmt, bad in (("uri", "nope"), ("date", "2026-02-30"), ("date-time", "noon")):
        assert [e.validator for e in property_validator({"format": fmt}).iter_errors(bad)] == ["format"]
    assert list(property_validator({"format": "email"}).iter_errors(5)) == []
    assert list(property_validator({"format": "ipv4"}).iter_errors("not an address")) == []  # not ours to check


# ---------------------------------------------------------------- small words
def test_explain_completes_a_reason_with_the_expectation():
    assert explain("is too long", None) == "is too long"
    assert explain("is too long", "") == "is too long"
    assert explain("is too long", "a string") == "is too long (expected a string)"
    assert explain("'x' is not one of: a, b", "one of: a, b") == "'x' is not one of: a, b"
    assert explain("x one of: y", "z") == "x one of: y"
    assert explain("expected an integer, got string \"x\"", "an integer >= 1") == (
        "got string \"x\", expected an integer >= 1")
    assert explain("expected an integer", "an integer >= 1") == "expected an integer (expected an integer >= 1)"
    assert explain("must be a string", "a string") == "must be a string"


@pytest.mark.parametrize("value, name", [(None, "null"), (True, "boolean"), (1, "integer"), (1.5, "number"),
                                         ("s", "string"), ([1], "array"), ({}, "object")])
def test_json_type_names(value, name):
    assert json_type(value) == name


def test_numbers_are_shown_without_trailing_zeros_and_long_values_cut():
    assert elicit._num(3.0) == "3" and elicit._num(2.5) == "2.5" and elicit._num(7) == "7"
    assert elicit._short("x" * 38) == '"' + "x" * 38 + '"'
    assert elicit._short("x" * 39) == '"' + "x" * 36 + "..."
    assert elicit._short("é", 3) == '"é"'
    assert elicit._short("x" * 50, limit=10) == '"xxxxxx...'
    assert elicit._article("integer") == "an integer" and elicit._article("number") == "a number"
    assert elicit._article("") == "an "  # never asked: a type name is never empty


# ---------------------------------------------------------------- fields of a schema
def test_fields_keep_the_servers_order_kinds_and_required():
    fields = form_fields({"type": "object", "required": ["b"], "properties": {
        "s": {"type": "string"}, "b": {"type": "boolean"}, "i": {"type": "integer"}, "n": {"type": "number"},
        "e": {"type": "string", "enum": ["x", "y"]}, "m": {"type": "array", "items": {"enum": ["p", "q"]}},
        "o": {}, "bad": "not an object", 7: {"type": "integer"}}})
    assert [(f.name, f.kind, f.required) for f in fields] == [
        ("s", "string", False), ("b", "boolean", True), ("i", "integer", False), ("n", "number", False),
        ("e", "enum", False), ("m", "multi", False), ("o", "string", False), ("bad", "string", False),
        ("7", "integer", False)]
    assert fields[7].schema == {}


def test_a_schema_without_properties_has_no_fields_and_a_bad_one_is_refused():
    assert form_fields({"type": "object"}) == []
    assert form_fields({"properties": None}) == []
    with pytest.raises(ValueError, match=r"^requestedSchema is not an object$"):
        form_fields([])
    with pytest.raises(ValueError, match=r"^requestedSchema.properties is not an object$"):
        form_fields({"properties": []})
    assert form_fields({"properties": {"a": {}}, "required": None})[0].required is False


@pytest.mark.parametrize("prop, kind, options", [
    ({"type": "string", "enum": ["a", 1]}, "enum", [("a", "a"), ("1", "1")]),
    ({"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}, "enum", [("a", "A"), ("b", "B")]),
    ({"type": "string", "enum": ["a", "b"], "enumNames": ["A"]}, "enum", [("a", "a"), ("b", "b")]),
    ({"type": "string", "enum": ["a"], "enumNames": "A"}, "enum", [("a", "a")]),
    ({"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "m"}, "junk"]}, "enum",
     [("s", "Small"), ("m", "m")]),
    ({"type": "array", "items": {"anyOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": ""}, 5]}},
     "multi", [("r", "Red"), ("g", "g")]),
    ({"type": "array", "items": {"enum": ["x", 2]}}, "multi", [("x", "x"), ("2", "2")]),
    ({"type": "array", "items": "nope"}, "multi", []),
    ({"type": "array"}, "multi", []),
    ({"type": "array", "items": {"anyOf": "x", "enum": "y"}}, "multi", []),
    ({"type": "string", "oneOf": "x", "enum": "y"}, "string", []),
])
def test_choices_come_from_enum_oneof_enumnames_and_items(prop, kind, options):
    f = field_of(prop)
    assert (f.kind, f.options) == (kind, options)


def test_title_description_and_default():
    f = field_of({"type": "string", "title": "Name", "description": "yours", "default": "Ada"})
    assert (f.title, f.description, f.default, f.has_default) == ("Name", "yours", "Ada", True)
    g = field_of({"type": "string", "title": "", "description": ""}, name="n")
    assert (g.title, g.description, g.default, g.has_default) == ("n", None, None, False)
    assert field_of({"description": 5}).description == "5"
    assert field_of({"default": None}).has_default is True


# ---------------------------------------------------------------- what a field expects
@pytest.mark.parametrize("prop, expected, hint", [
    ({"type": "string"}, "a string", ""),
    ({"type": "string", "format": "email", "minLength": 3, "maxLength": 9},
     "a string in email format of at least 3 characters of at most 9 characters", "email address, 3-9 characters"),
    ({"type": "string", "minLength": 2}, "a string of at least 2 characters", "at least 2 characters"),
    ({"type": "string", "maxLength": 4}, "a string of at most 4 characters", "at most 4 characters"),
    ({"type": "string", "format": "color"}, "a string in color format", "color"),
    ({"type": "string", "format": "date"}, "a string in date format", "YYYY-MM-DD"),
    ({"type": "integer", "minimum": 18, "maximum": 130}, "an integer >= 18 and <= 130", "integer 18..130"),
    ({"type": "number", "minimum": 0.5}, "a number >= 0.5", "number >= 0.5"),
    ({"type": "number", "maximum": 2.0}, "a number <= 2", "number <= 2"),
    ({"type": "integer"}, "an integer", "integer"),
    ({"type": "boolean"}, "a boolean (true/false)", ""),
    ({"type": "string", "enum": ["S", "M"], "enumNames": ["S", "Medium"]}, "one of: S, M (Medium)", ""),
    ({"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 1, "maxItems": 2},
     "a list of: a, b (at least 1, at most 2)", "choose 1 to 2"),
    ({"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 2, "maxItems": 2},
     "a list of: a, b (at least 2, at most 2)", "choose 2"),
    ({"type": "array", "items": {"enum": ["a"]}, "minItems": 1}, "a list of: a (at least 1)", "choose at least 1"),
    ({"type": "array", "items": {"enum": ["a"]}, "maxItems": 1}, "a list of: a (at most 1)", "choose at most 1"),
    ({"type": "array", "items": {"enum": ["a"]}}, "a list of: a", ""),
])
def test_what_a_field_expects_and_its_hint(prop, expected, hint):
    f = field_of(prop)
    assert f.expected() == expected
    assert f.hint() == hint


def test_a_range_of_one_count_reads_choose_that_count():
    f = field_of({"type": "array", "items": {"enum": ["a", "b", "c"]}, "minItems": 2, "maxItems": 2})
    assert f.hint() == "choose 2"
    assert field_of({"type": "array", "items": {"enum": ["a"]}, "minItems": 0, "maxItems": 0}).hint() == "choose 0"


# ---------------------------------------------------------------- showing and sending values
def test_values_are_shown_as_a_person_reads_them():
    enum = field_of({"type": "string", "oneOf": [{"const": "s", "title": "Small"}]})
    multi = field_of({"type": "array", "items": {"anyOf": [{"const": "r", "title": "Red"}]}})
    plain = field_of({"type": "string"})
    assert enum.display("s") == "Small" and enum.display("x") == "x"
    assert enum.display(["s"]) == '["s"]'
    assert multi.display(["r", "z", 1]) == "Red, z, 1" and multi.display([]) == "(none)"
    assert multi.display("r") == "r"
    assert plain.display(True) == "yes" and plain.display(False) == "no"
    assert plain.display("é") == "é" and plain.display(1.5) == "1.5" and plain.display({"k": "é"}) == '{"k": "é"}'


def test_an_integral_float_is_sent_as_an_int_for_an_integer_field_only():
    i = field_of({"type": "integer"})
    assert i.normalize(3.0) == 3 and type(i.normalize(3.0)) is int
    assert i.normalize(3.5) == 3.5 and i.normalize("3") == "3"
    assert type(field_of({"type": "number"}).normalize(3.0)) is float


# ---------------------------------------------------------------- checking values
@pytest.mark.parametrize("prop, value, why", [
    ({"type": "integer", "minimum": 18}, 17, "must be >= 18"),
    ({"type": "integer", "maximum": 9}, 10, "must be <= 9"),
    ({"type": "string", "minLength": 2}, "a", "must be at least 2 characters"),
    ({"type": "string", "maxLength": 2}, "abc", "must be at most 2 characters"),
    ({"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 2}, ["a"], "choose at least 2"),
    ({"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 1}, ["a", "b"], "choose at most 1"),
    ({"type": "array", "items": {"enum": ["a", "b"]}}, ["a", "a"], "lists a value more than once"),
    ({"type": "integer"}, "x", 'expected an integer, got string "x"'),
    ({"type": ["integer", "null"]}, "x", 'expected an integer or null, got string "x"'),
    ({"type": "string", "enum": ["a", "b"]}, "c", "'c' is not one of: a, b"),
    ({"type": "string", "oneOf": [{"const": "s", "title": "Small"}]}, "small",
     "'small' is a title: send its value 's' (one of: s (Small))"),
    ({"type": "string", "oneOf": [{"const": "s", "title": "s"}]}, "S",
     "'S' is a title: send its value 's' (one of: s)"),
    ({"oneOf": [{"const": "s", "title": "Small"}]}, 5, "5 is not one of: s (Small)"),
    ({"type": "string", "const": "k"}, "j", "'j' is not the one value allowed: 'k'"),
    ({"type": "string", "format": "email"}, "nope", "is not an email address"),
    ({"type": "string", "pattern": "^a"}, "b", "'b' does not match '^a'"),
    ({"type": "string"}, "fine", None),
    ({"type": "integer", "minimum": 1}, 1, None),
    ({"type": "array", "items": {"enum": ["a", "b"]}}, ["a", "b"], None),
])
def test_check_gives_one_short_reason(prop, value, why):
    assert field_of(prop).check(value) == why


def test_check_falls_back_to_jsonschema_for_what_the_quick_check_does_not_know():
    f = field_of({"type": "string", "format": "email", "$schema": "https://json-schema.org/draft/2020-12/schema"})
    assert f.check("a@b.c") is None
    assert f.check("a@b") == "is not an email address"
    assert field_of({"type": "string", "format": "hostname"}).check("x y") is None
    assert field_of({"type": "array", "items": {"enum": ["a", "b"]}}).check("a") == 'expected an array, got string "a"'
    assert field_of({"type": "array", "items": {"enum": ["1", 1]}}).check(["1", 1]) == "lists a value more than once"


def test_a_format_error_without_a_reason_names_the_format():
    class Err:
        validator, validator_value, instance, message = "format", "color", "x", "m"

    assert field_of({"type": "string"})._reason(Err(), "x") == "is not a valid color"


# ---------------------------------------------------------------- coercing typed text
@pytest.mark.parametrize("prop, text, value", [
    ({"type": "boolean"}, " Yes ", True), ({"type": "boolean"}, "on", True), ({"type": "boolean"}, "1", True),
    ({"type": "boolean"}, "y", True), ({"type": "boolean"}, "true", True),
    ({"type": "boolean"}, "OFF", False), ({"type": "boolean"}, "n", False), ({"type": "boolean"}, "0", False),
    ({"type": "boolean"}, "no", False), ({"type": "boolean"}, "false", False),
    ({"type": "integer"}, " -12 ", -12), ({"type": "integer"}, "+3", 3),
    ({"type": "number"}, "7", 7), ({"type": "number"}, "2.5", 2.5), ({"type": "number"}, ".5", 0.5),
    ({"type": "number"}, "1e3", 1000.0), ({"type": "number"}, "-1.5E-2", -0.015), ({"type": "number"}, "5.", 5.0),
    ({"type": "string"}, "  as typed  ", "  as typed  "),
    ({"type": "string", "enum": ["a", "b"]}, " b ", "b"),
    ({"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "Small", "title": "x"}]}, "Small",
     "Small"),
    ({"type": "string", "oneOf": [{"const": "s", "title": "Small"}]}, "sMALL", "s"),
    ({"type": "array", "items": {"enum": ["a", "b", "a,b"]}}, "a,b", ["a,b"]),
    ({"type": "array", "items": {"enum": ["a", "b"]}}, "a, ,b,", ["a", "b"]),
    ({"type": "array", "items": {"enum": ["a", "b"]}}, "  ", []),
    ({"type": "array", "items": {"enum": ["a", "b"]}}, "b", ["b"]),
])
def test_typed_text_becomes_the_fields_type(prop, text, value):
    got = field_of(prop).coerce(text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("prop, text, why", [
    ({"type": "boolean"}, "maybe", "expected a boolean (true/false), got 'maybe'"),
    ({"type": "integer"}, "1.5", "expected an integer, got '1.5'"),
    ({"type": "integer"}, "", "expected an integer, got ''"),
    ({"type": "number"}, "1e999", "the number '1e999' is out of range (beyond what a 64-bit float holds)"),
    ({"type": "number"}, "-1e999", "the number '-1e999' is out of range (beyond what a 64-bit float holds)"),
    ({"type": "number"}, "nan", "expected a number, got 'nan'"),
    ({"type": "number"}, "1.2.3", "expected a number, got '1.2.3'"),
    ({"type": "string", "enum": ["a", "b"]}, "c", "'c' is not one of: a, b"),
    ({"type": "array", "items": {"enum": ["a", "b"]}}, "a,c", "'c' is not one of: a, b"),
])
def test_text_that_is_not_the_fields_type_is_refused_with_a_reason(prop, text, why):
    with pytest.raises(ValueError) as caught:
        field_of(prop).coerce(text)
    assert str(caught.value) == why


# ---------------------------------------------------------------- whole answers
def test_validate_content_reports_every_problem():
    schema = {"type": "object", "required": ["age", "name"], "properties": {
        "age": {"type": "integer", "minimum": 18}, "name": {"type": "string"}, "ok": {"type": "boolean"}}}
    problems = validate_content(schema, {"age": 3, "ok": True, "extra": 1})
    assert [(p.field, p.message, p.expected) for p in problems] == [
        ("age", "must be >= 18", "an integer >= 18"),
        ("name", "is required but missing", "a string"),
        ("extra", "is not a field of this form", "one of: age, name, ok")]
    assert problems[0].describe() == 'field "age": must be >= 18 (expected an integer >= 18)'
    assert validate_content(schema, {"age": 20, "name": "x"}) == []


def test_validate_content_of_a_form_without_fields_and_of_a_non_object():
    assert [(p.field, p.message, p.expected) for p in validate_content({"type": "object"}, {"x": 1})] == [
        ("x", "is not a field of this form", "no fields")]
    assert [(p.field, p.message) for p in validate_content({"properties": {}}, [1])] == [
        (None, "content must be an object, got array")]
    assert Problem(None, "content must be an object, got array").describe() == "content must be an object, got array"
    assert Problem("f", "bad").expected is None


# ---------------------------------------------------------------- corners
def test_small_words_for_any_value():
    assert elicit._article("Xml") == "a Xml"
    assert elicit._num(1234567) == "1234567" and elicit._num(1234567.0) == "1.23457e+06"


def test_a_type_error_about_a_value_holding_got_keeps_the_whole_value():
    reason = 'expected an integer, got string "a, got b, got c"'
    assert explain(reason, "an integer >= 1") == 'got string "a, got b, got c", expected an integer >= 1'


def test_only_the_four_elicitation_formats_are_checked():
    assert field_of({"type": "string", "format": "ipv4"}).check("not an address") is None
    assert field_of({"format": "email"}).check(5) is None
    assert field_of({"type": "string", "format": "date"}).check("2026-02-30") == "is not a valid calendar date"
    assert field_of({"type": "string", "format": "date-time"}).check("2026-07-28T25:00:00Z") == (
        "is not a valid date-time")


def test_a_multi_select_of_titled_choices_names_them_when_a_value_is_not_one():
    f = field_of({"type": "array", "items": {"anyOf": [{"const": "r", "title": "Red"}]}})
    assert f.check(["zz"]) == "'zz' is not one of: r (Red)"


def test_an_empty_multi_select_answer_is_no_choice_even_with_an_empty_choice():
    assert field_of({"type": "array", "items": {"enum": ["", "a"]}}).coerce("") == []


def test_every_field_is_checked_after_a_missing_optional_one():
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}
    assert [(p.field, p.message) for p in validate_content(schema, {"b": "x"})] == [
        ("b", 'expected an integer, got string "x"')]
