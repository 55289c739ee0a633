"""A server's pattern means what ECMA-262 says it means (mrtr_cli/schema/ecma.py), wherever
mrtr matches one: `search`, a form field, a tool's `inputSchema` (`pattern`,
`patternProperties`, `propertyNames`) and jsonschema's own check of the schema.

Each row is (pattern, text, whether ECMA-262 finds a match), as JavaScript's
`new RegExp(pattern, "u").test(text)` answers (the `u` flag JSON Schema asks for; node 20);
the comment says where Python's (or `regex`'s) reading differs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mrtr_cli.errors import ProtocolError, UsageError
from mrtr_cli.schema.arguments import validate_arguments
from mrtr_cli.schema.ecma_syntax import refusal
from mrtr_cli.schema.elicit import validate_content
from mrtr_cli.schema.patterns import PatternError, _too_large, compiled, search

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
    (r"^[\w-]+$", "a-", True),  # a - last in a class is a member
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
    (r"^[^\p{L}\P{L}]$", "a", False),  # `regex` reads this negated class as any character
    (r"^[^\P{L}\p{L}]$", "1", False),
    (r"^[^\p{L}\P{L}]?$", "", True),
    (r"^[^\P{L}]$", "é", True),
    (r"^[^\P{Lu}\P{Ll}]$", "a", False),
    (r"^[^\p{Lu}\P{L}]$", "a", True),
    (r"^[^\p{Lu}\P{L}]$", "A", False),
    (r"^[^\P{Any}]$", "\U0010ffff", True),
    (r"^[^\p{Any}]$", "a", False),
    (r"^\p{sc=Greek}$", "α", True),
    (r"^\p{Script=Grek}$", "a", False),
    (r"^\p{scx=Deva}$", "\u0964", True),  # Script_Extensions, not Script
    (r"^\p{sc=Deva}$", "\u0964", False),
    (r"^\p{Lower}$", "ª", True),  # the binary Lowercase (`regex`'s loose `Lower` is another)
    (r"^\p{Ll}$", "ª", False),
    (r"^\p{space}$", "\u0085", True),  # White_Space (not `\s`)
    (r"^\p{digit}$", "٣", True),  # General_Category=Decimal_Number
    (r"^\p{Letter}+$", "été", True),
    (r"^\p{LC}$", "ǅ", True),
    (r"^\p{Assigned}$", "\u0378", False),
    (r"^\p{ASCII}$", "\x7f", True),
    (r"^\p{Alpha}$", "\u0345", True),
    (r"^\P{Alpha}$", "1", True),
    (r"^\p{Hex}$", "ｆ", True),
    (r"^\p{AHex}$", "ｆ", False),
    (r"^(?<a\u0041>x)\k<aA>$", "xx", True),  # a group name written with escapes
    (r"^(?<\u{1d400}>x)\k<\u{1d400}>$", "xx", True),
    (r"^(?<a\uD835\uDC00>x)\k<a𝐀>$", "xx", True),
    (r"^(?<$>x)\k<$>$", "xx", True),  # `regex` refuses a `$` in a name
    (r"^(?<$>x)\k<$>$", "xy", False),
    (r"\k<a>(?<a>x)", "x", True),  # a group not (yet) matched: the empty text (Python's: no match)
    (r"^(?:(a)|b)\1$", "b", True),
    (r"^(?:(?<x>a)|b)\k<x>$", "b", True),
    (r"^(a)\1$", "ab", False),
    (r"^(a\1)+$", "aa", True),  # inside its own group: the empty text (`regex` refuses it)
    (r"^(?<n>a\k<n>b)\k<n>$", "abab", True),
    (r"^((a)\2)\1$", "aaaa", True),
    (r"^\u{100000}\u{100000}$", "\U00100000\U00100000", True),
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


# ------------------------------------------ Python's syntax that ECMA-262 has not (schema/ecma_syntax.py)

#: Read by Python's `re` (or `regex`), no ECMA-262 regular expression with the `u` flag.
PYTHON_ONLY = [r"(?i)abc", r"(?P<n>x)", r"(?P<n>x)(?P=n)", r"a(?#comment)b", r"\Aabc", r"abc\Z", r"abc\z",
               r"(?>x)", r"a*+", r"a++b", r"a?+", r"a{2}+", r"(a)?(?(1)a|b)", r"(?i:x)", r"(?s-i:x)", r"\Gx",
               r"\h", r"\N{DASH}", r"\012", r"\e", r"[\e]", r"a{", r"a}", r"a]", r"[\d-z]", r"(?=a)*",
               r"(?<!a)+", r"\1", r"(a)\2", r"\k<n>", r"(?<n>a)(?<n>b)", r"\-", r"[z-a]", r"(?u)x", r"\p{L"]
#: Property names `regex` reads loosely (any case, blocks, POSIX classes, bare scripts) and
#: ECMA-262 refuses: only the names and values of its tables, as written.
LOOSE_PROPERTIES = [r"\p{l}", r"\p{lu}", r"\p{Greek}", r"\p{Latin}", r"\p{Han}", r"\p{Common}", r"\p{IsAlpha}",
                    r"\p{InBasicLatin}", r"\p{Block=BasicLatin}", r"\p{Word}", r"\p{Alnum}", r"\p{Digit}",
                    r"\p{Punct}", r"\p{Space}", r"\p{XDigit}", r"\p{Blank}", r"\p{Print}", r"\p{Graph}",
                    r"\p{Cntrl}", r"\p{sc=greek}", r"\p{Bidi_Class=L}", r"\p{bc=L}", r"\p{L&}", r"\p{gc=Any}",
                    r"\p{General_Category}", r"\p{sc}", r"\p{Script=Latin }", r"\p{Basic_Emoji}", r"\p{Age=3.0}",
                    r"\p{Alphabetic=Yes}", r"\p{ascii}", r"\P{alpha}", r"[\p{Greek}]", r"[^\P{Word}a]",
                    r"\p{Lowercase_letter}", r"\p{scx=Latin_ext}", r"\p{sc=L}", r"\p{gc=Greek}", r"\p{Letter=L}"]

#: ECMA-262 regular expressions (with the `u` flag) that stay accepted.
ECMA_VALID = [r"(?<year>\d{4})-\k<year>", r"(?<=a)b", r"(?<!a)b", r"(?=a)a", r"(?!a)b", r"\p{L}+",
              r"\P{Lu}", r"\p{Script=Greek}", r"[\p{L}\d_-]+", r"\u{1F600}", r"\uD83D\uDE00", r"\cJ",
              r"[\b]", r"\0", r"\/", r"\{1\}", r"a{2,}?", r"(a)\1", r"\1(a)", r"[-a]", r"[a-]", r"[--/]",
              r"[^]", r"a[]", r"[\]]", r"(?:a|b)+?", r"a|", r"", r"^$", r"[\-]", r"\x41", r"[{}()|]",
              r"\p{sc=Grek}", r"\p{scx=Latn}", r"\p{Script_Extensions=Latin}", r"\p{General_Category=Lu}",
              r"\p{gc=digit}", r"\p{Letter}", r"\p{Combining_Mark}", r"\p{cntrl}", r"\p{punct}", r"\p{ASCII}",
              r"\p{Any}", r"\p{Assigned}", r"\p{WSpace}", r"\p{ExtPict}", r"\p{RI}", r"\p{sc=Zyyy}",
              r"\p{sc=Qaai}", r"[^\p{L}\P{L}]", r"(?<a\u0041>x)\k<aA>", r"(?<$x>a)\k<$x>", r"(?<\u{1d400}>x)",
              r"\u{100000}\u{100000}", r"[^]((?:a))"]


@pytest.mark.parametrize("pattern", PYTHON_ONLY)
def test_python_only_syntax_is_no_regular_expression(pattern):
    with pytest.raises(PatternError, match="is not ECMA-262|not closed"):
        compiled(pattern)


@pytest.mark.parametrize("pattern", LOOSE_PROPERTIES)
def test_a_property_name_ecma_262_has_not_is_refused(pattern):
    """Node answers SyntaxError "Invalid property name" for each; `regex` gave it a meaning."""
    assert "property" in (refusal(pattern) or ""), pattern
    with pytest.raises(PatternError, match="is not ECMA-262"):
        compiled(pattern)


#: Group names that are no ECMA-262 RegExpIdentifierName (or repeat one, once unescaped).
BAD_NAMES = [r"(?<1a>x)", r"(?<a-b>x)", r"(?<>x)", r"(?<a\x41>x)", r"(?<a\u00>x)", r"(?<\uD835>x)",
             r"(?<a\u0041>x)(?<aA>y)", r"(?<a>x)\k<a\u0041>", r"(?<a\u{110000}>x)", r"(?<a"]


@pytest.mark.parametrize("pattern", BAD_NAMES)
def test_a_group_name_that_is_no_identifier_is_refused(pattern):
    assert refusal(pattern) is not None, pattern


def test_every_property_of_ecma_262s_tables_compiles():
    """Each name and value of the tables compiles in `regex` by its long name (see the rows
    of `ECMA` for their meaning), except the one `regex` has not, refused with a true reason."""
    from mrtr_cli.schema import ecma_properties

    for name in [*ecma_properties.GENERAL_CATEGORY, *ecma_properties.BINARY]:
        if ecma_properties.in_regex(name) in ecma_properties.LACKING:
            assert "which the `regex` package has not" in (refusal(rf"\p{{{name}}}") or ""), name
            with pytest.raises(PatternError, match="is ECMA-262's Changes_When_NFKC_Casefolded") as caught:
                compiled(rf"[\P{{{name}}}]")
            assert caught.value.what == "an ECMA-262 regular expression mrtr cannot match"
        else:
            assert compiled(rf"\p{{{name}}}[^\P{{{name}}}]") is not None, name
    for prefix, (_, values) in ecma_properties.VALUES.items():
        for value in values:
            assert compiled(rf"\P{{{prefix}={value}}}[^\p{{{prefix}={value}}}]") is not None, (prefix, value)


@pytest.mark.parametrize("pattern", ECMA_VALID)
def test_ecma_262_syntax_is_accepted(pattern):
    assert refusal(pattern) is None
    assert compiled(pattern) is not None


#: Python-only constructs, each to be put between ECMA-262 text.
_PYTHONIC = st.sampled_from([
    "(?i)", "(?m)", "(?s)", "(?x)", "(?a)", "(?u)", "(?L)", "(?#note)", "(?P<g>a)", "(?P=g)", "(?>a)",
    "(?i:a)", "(?-i:a)", "(?(1)a|b)", "(?|a)", "\\A", "\\Z", "\\z", "\\G", "\\h", "\\K", "\\N{DASH}",
    "\\U0001F600", "\\012", "\\e", "\\a", "\\Q", "a*+", "a++", "a?+", "a{1,2}+", "\\-", "\\_", "[\\d-z]",
    "\\p{Greek}", "\\p{l}", "\\p{IsAlpha}", "\\p{InBasicLatin}", "\\p{Word}", "[\\p{Digit}]", "\\P{sc=greek}",
])
#: ECMA-262 text before and after it (never a group a construct could close or name).
_ECMA_AROUND = st.lists(st.sampled_from(["a", "\\d", "[a-z]", "(?:b)", "(c)", ".", "x*", "y{2}", "|", "\\p{L}",
                                         "(?<=q)", "^", "$", "\\u{41}", "[^]", "[]", "[^\\p{L}\\P{L}]", "\\u{100000}",
                                         "\\p{sc=Grek}", "[\\]]", "\\p{Lower}{3}", "(?:[^]|[])"]),
                        max_size=4).map("".join)


@given(before=_ECMA_AROUND, construct=_PYTHONIC, after=_ECMA_AROUND)
def test_python_only_syntax_anywhere_is_refused(before, construct, after):
    """Wherever a Python-only construct stands, the pattern is refused (exit 4 in a tool's
    schema, one line naming the pattern), and the ECMA-262 text around it alone is not."""
    assert refusal(before + after) is None
    pattern = before + construct + after
    assert refusal(pattern) is not None, pattern
    schema = {"type": "object", "properties": {"w": {"type": "string", "pattern": pattern}}}
    with pytest.raises(ProtocolError) as caught:
        validate_arguments({"w": "a"}, schema, "t")
    assert caught.value.exit_status == 4
    assert caught.value.message.startswith("t (inputSchema): the server's pattern ")
    assert "\n" not in caught.value.message and "is no regular expression" in caught.value.message


@given(before=_ECMA_AROUND, after=_ECMA_AROUND)
def test_no_ecma_262_text_hides_a_counted_repeat_from_the_size_bound(before, after):
    """Whatever ECMA-262 text stands before it (a class `[^]` or `[]`, an escape with braces),
    a bomb of counted repeats is too large; the text around it alone is not."""
    assert _too_large(before + after) is None
    assert _too_large(before + "((?:a{1000}){1000})" + after) is not None
