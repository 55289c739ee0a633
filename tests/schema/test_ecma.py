"""A server's pattern means what ECMA-262 says it means (mrtr_cli/schema/ecma.py), wherever
mrtr matches one: `search`, a form field, a tool's `inputSchema` (`pattern`,
`patternProperties`, `propertyNames`) and jsonschema's own check of the schema.

Each row is (pattern, text, whether ECMA-262 finds a match), as JavaScript's
`new RegExp(pattern).test(text)` answers (no flags); the comment says where Python's
reading differs."""

from __future__ import annotations

import pytest

from mrtr_cli.errors import UsageError
from mrtr_cli.schema.arguments import validate_arguments
from mrtr_cli.schema.elicit import validate_content
from mrtr_cli.schema.patterns import search

ECMA = [
    (r"^abc$", "abc", True),
    (r"^abc$", "abc\n", False),  # Python's $ also matches before a final newline
    (r"a$", "ba", True),
    (r"^\d+$", "0123456789", True),
    (r"^\d+$", "٣4", False),  # Python's \d: any Unicode digit
    (r"^\d{3}-\d{4}$", "٥٥٥-1234", False),
    (r"^\D$", "٣", True),
    (r"^\w+$", "a_Z9", True),
    (r"^\w+$", "é", False),  # Python's \w: any Unicode letter
    (r"^\W$", "é", True),
    (r"^\s$", "\u00a0", True),
    (r"^\s$", "\ufeff", True),  # ECMA's white space has U+FEFF; Python's \s does not
    (r"^\s$", "\u2028", True),
    (r"^\s$", "\x1c", False),  # Python's \s has the separators \x1c-\x1f
    (r"^\s$", "\u0085", False),  # and NEL
    (r"^\S$", "\u0085", True),
    (r"\bword\b", "a word.", True),
    (r"é\b", "é", False),  # a boundary of ASCII word characters
    (r"\Bé", "xé", False),
    (r"^a.c$", "abc", True),
    (r"^a.c$", "a\rc", False),  # ECMA's . stops at every line terminator; Python's only at \n
    (r"^a.c$", "a\u2028c", False),
    (r"^(?<x>[a-z])\k<x>$", "aa", True),  # Python refuses \k<name>
    (r"^(?<x>[a-z])\k<x>$", "ab", False),
    (r"^[\d]+$", "٣", False),  # the same inside a class
    (r"^[^\d]$", "٣", True),
    (r"^[\w.]+$", "é", False),
    (r"^[\s]$", "\ufeff", True),
    (r"^[\S]$", "\x1c", True),
    (r"^[.]$", "x", False),
    (r"^[$]$", "$", True),
    (r"^[\d-z]+$", "5-z", True),  # a class escape next to - makes no range
    (r"^[\d-z]+$", "a", False),
    (r"^[a\-z]+$", "-", True),
    (r"^[a\-z]+$", "b", False),
    (r"^[\x41-\x43]+$", "ABC", True),
    (r"^[^]$", "\n", True),  # [^] is any character
    (r"a[]", "a", False),  # [] is none
    (r"^\cJ$", "\n", True),  # Python refuses \c
    (r"^[\cJ]$", "\n", True),
    (r"^\u{1F600}$", "😀", True),  # Python refuses \u{...}
    (r"^\uD83D\uDE00$", "😀", True),  # a surrogate pair is one code point
    (r"^\p{L}+$", "été", True),
    (r"^[\p{L}\d]+$", "é3", True),
    (r"^[\p{L}\d]+$", "é٣", False),
    (r"^\$\\d$", "$\\d", True),  # escapes are respected
    (r"^\\$", "\\", True),
    (r"^[\]]$", "]", True),
    (r"colou?r", "the colour", True),
]


@pytest.mark.parametrize(("pattern", "text", "matches"), ECMA)
def test_a_pattern_matches_as_ecma_262_does(pattern, text, matches):
    assert search(pattern, text) is matches


@pytest.mark.parametrize(("pattern", "text", "matches"), ECMA)
def test_a_form_field_reads_its_pattern_as_ecma_262_does(pattern, text, matches):
    form = {"type": "object", "properties": {"w": {"type": "string", "pattern": pattern}}}
    assert (validate_content(form, {"w": text}) == []) is matches


@pytest.mark.parametrize(("pattern", "text", "matches"), ECMA)
def test_a_tool_schema_reads_its_pattern_as_ecma_262_does(pattern, text, matches):
    """jsonschema's own check of the schema compiles a pattern with `re`: `\\k<x>` or
    `\\u{...}` there would leave the whole schema unchecked."""
    schema = {"type": "object", "properties": {"w": {"type": "string", "pattern": pattern}}}
    if matches:
        validate_arguments({"w": text}, schema, "t")
    else:
        with pytest.raises(UsageError, match="does not match"):
            validate_arguments({"w": text}, schema, "t")


@pytest.mark.parametrize(("pattern", "text", "matches"), ECMA)
def test_pattern_properties_and_property_names_read_ecma_262(pattern, text, matches):
    by_key = {"type": "object", "patternProperties": {pattern: {"type": "integer"}}, "additionalProperties": False}
    named = {"type": "object", "propertyNames": {"pattern": pattern}}
    for schema in (by_key, named):
        if matches:
            validate_arguments({text: 1}, schema, "t")
        else:
            with pytest.raises(UsageError):
                validate_arguments({text: 1}, schema, "t")
