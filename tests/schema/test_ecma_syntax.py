"""The one reading of a server's pattern by ECMA-262's grammar with the `u` flag
(mrtr_cli/schema/ecma_syntax.py): each refusal's reason, naming the position and the text
there; the patterns ECMA-262 accepts that a slip in the reading would refuse (ranges between
escapes, surrogate pairs, backreferences); and the count of the characters the counted
repeats stand for (`read`'s `max_expanded`). Each refusal here is a SyntaxError in
JavaScript's `new RegExp(pattern, "u")` (test_ecma.py: what the accepted ones match).
These are fast tests mutation testing runs (tests/README.md "Mutation testing").
"""

from __future__ import annotations

import pytest

from mrtr_cli.schema.ecma_syntax import Bounds, Flaw, group_name, read, refusal


def _not_ecma(what: str, at: int, shown: str) -> str:
    return f"{what} at {at}: '{shown}' is not ECMA-262"


REFUSED = [
    (r"(?i)abcdef", _not_ecma("an inline flag or Python group", 0, "(?i)ab…")),
    (r"(?i)", _not_ecma("an inline flag or Python group", 0, "(?i)")),
    (r"(?P<n>x)", _not_ecma("an inline flag or Python group", 0, "(?P<n>…")),
    (r"ab)", _not_ecma("an unmatched )", 2, ")")),
    (r"a{", _not_ecma("a { that is no quantifier (write \\{)", 1, "{")),
    (r"a{3,2}", _not_ecma("a quantifier whose minimum is over its maximum", 1, "{3,2}")),
    (r"a{10000000000,9}", _not_ecma("a quantifier whose minimum is over its maximum", 1, "{10000…")),
    (r"a{0010,9}", _not_ecma("a quantifier whose minimum is over its maximum", 1, "{0010,…")),
    (r"*a", _not_ecma("a quantifier with nothing to repeat", 0, "*a")),
    (r"a}", _not_ecma("an unescaped }", 1, "}")),
    (r"a]", _not_ecma("an unescaped ]", 1, "]")),
    (r"(a", "missing ) at 2: 1 group(s) not closed"),
    (r"((a)", "missing ) at 4: 1 group(s) not closed"),
    (r"(?<a>", "missing ) at 5: 1 group(s) not closed"),
    (r"(a)\2", _not_ecma("a backreference to group 2 of 1", 3, "\\2")),
    (r"(a)\10", _not_ecma("a backreference to group 10 of 1", 3, "\\10")),
    (r"(?:a)\1", _not_ecma("a backreference to group 1 of 0", 5, "\\1")),
    (r"(?=a)\1", _not_ecma("a backreference to group 1 of 0", 5, "\\1")),
    (r"(?<=a)\1", _not_ecma("a backreference to group 1 of 0", 6, "\\1")),
    (r"\k<n>", _not_ecma("a backreference to a group name the pattern has not", 0, "\\k<n>")),
    (r"\k<a>(?<b>x)", _not_ecma("a backreference to a group name the pattern has not", 0, "\\k<a>(…")),
    (r"(?<n>a)(?<n>b)", _not_ecma("a second group of the same name", 7, "(?<n>b…")),
    (r"(?<1a>x)", _not_ecma("a group name that is no identifier", 2, "<1a>x)")),
    (r"(?<a", _not_ecma("a group name that is no identifier", 2, "<a")),
    (r"\k<1>", _not_ecma("a group name that is no identifier", 2, "<1>")),
    (r"(?<a>x)\k<a", _not_ecma("a group name that is no identifier", 9, "<a")),
    (r"(?<a\x41>x)", _not_ecma("a group name that is no identifier", 2, "<a\\x41…")),
    ("a\\", _not_ecma("a \\ at the end", 1, "\\")),
    (r"\c1", _not_ecma("a \\c not followed by a letter", 0, "\\c1")),
    (r"\c", _not_ecma("a \\c not followed by a letter", 0, "\\c")),
    (r"[\c]", _not_ecma("a \\c not followed by a letter", 1, "\\c]")),
    (r"\c\u00e9", _not_ecma("a \\c not followed by a letter", 0, "\\c\\u00…")),
    (r"\01", _not_ecma("an octal escape", 0, "\\01")),
    (r"\x4", _not_ecma("a \\x not followed by two hex digits", 0, "\\x4")),
    (r"\xg1", _not_ecma("a \\x not followed by two hex digits", 0, "\\xg1")),
    (r"\u{110000}", _not_ecma("a \\u{...} that is no code point", 0, "\\u{110…")),
    (r"\u{}", _not_ecma("a \\u{...} that is no code point", 0, "\\u{}")),
    (r"\u{12", _not_ecma("a \\u{...} that is no code point", 0, "\\u{12")),
    (r"\u{g}", _not_ecma("a \\u{...} that is no code point", 0, "\\u{g}")),
    (r"\u12", _not_ecma("a \\u not followed by four hex digits", 0, "\\u12")),
    (r"\u12g4", _not_ecma("a \\u not followed by four hex digits", 0, "\\u12g4")),
    (r"\q", _not_ecma("an escape", 0, "\\q")),
    (r"[\q]", _not_ecma("an escape", 1, "\\q]")),
    (r"\p{L", _not_ecma("a property escape that is not \\p{Name} or \\p{Name=Value}", 0, "\\p{L")),
    (r"\p{Foo}", _not_ecma("a property ECMA-262 does not name", 0, "\\p{Foo…")),
    (r"[\p{Foo}]", _not_ecma("a property ECMA-262 does not name", 1, "\\p{Foo…")),
    (r"\p{Lu=x}", _not_ecma("a property ECMA-262 does not name", 0, "\\p{Lu=…")),
    (r"[z-a]", _not_ecma("a range out of order", 2, "-a]")),
    (r"[\d-z]", _not_ecma("a range from or to a set such as \\d", 3, "-z]")),
    (r"[a-\d]", _not_ecma("a range from or to a set such as \\d", 2, "-\\d]")),
    (r"[a-\p{L}]", _not_ecma("a range from or to a set such as \\d", 2, "-\\p{L}…")),
    (r"[abc", "missing ] at 4: the class opened at 0 is not closed"),
    (r"x[a-", "missing ] at 4: the class opened at 1 is not closed"),
    (r"[^", "missing ] at 2: the class opened at 0 is not closed"),
    (r"[\x09-\b]", _not_ecma("a range out of order", 5, "-\\b]")),
    (r"[a-\-]", _not_ecma("a range out of order", 2, "-\\-]")),
    (r"[\uD83D\uDE01-\uD83D\uDE00]", _not_ecma("a range out of order", 13, "-\\uD83…")),
    (r"[\u{1F601}-\u{1F600}]", _not_ecma("a range out of order", 10, "-\\u{1F…")),
    (r"[\cZ-\cA]", _not_ecma("a range out of order", 4, "-\\cA]")),
    (r"[\cb-\cA]", _not_ecma("a range out of order", 4, "-\\cA]")),
    (r"[\n-\t]", _not_ecma("a range out of order", 3, "-\\t]")),
    (r"[\r-\f]", _not_ecma("a range out of order", 3, "-\\f]")),
    (r"[\f-\v]", _not_ecma("a range out of order", 3, "-\\v]")),
    (r"[\v-\t]", _not_ecma("a range out of order", 3, "-\\t]")),
    (r"[\x01-\0]", _not_ecma("a range out of order", 5, "-\\0]")),
    (r"[\x41-\x40]", _not_ecma("a range out of order", 5, "-\\x40]")),
    (r"[\xfa-\xAF]", _not_ecma("a range out of order", 5, "-\\xAF]")),
    (r"[\u0042-\u0041]", _not_ecma("a range out of order", 7, "-\\u004…")),
    (r"[\/-\.]", _not_ecma("a range out of order", 3, "-\\.]")),
    (r"(?=a)*", _not_ecma("a quantifier with nothing to repeat", 5, "*")),
    (r"(?!a)*", _not_ecma("a quantifier with nothing to repeat", 5, "*")),
    (r"(?<=a)?", _not_ecma("a quantifier with nothing to repeat", 6, "?")),
    (r"(?<!a)+", _not_ecma("a quantifier with nothing to repeat", 6, "+")),
    (r"\b+", _not_ecma("a quantifier with nothing to repeat", 2, "+")),
    (r"\B*", _not_ecma("a quantifier with nothing to repeat", 2, "*")),
    (r"^*", _not_ecma("a quantifier with nothing to repeat", 1, "*")),
    (r"$+", _not_ecma("a quantifier with nothing to repeat", 1, "+")),
    (r"|*", _not_ecma("a quantifier with nothing to repeat", 1, "*")),
    (r"(*)", _not_ecma("a quantifier with nothing to repeat", 1, "*)")),
    (r"(?:*)", _not_ecma("a quantifier with nothing to repeat", 3, "*)")),
    (r"(?<n>*)", _not_ecma("a quantifier with nothing to repeat", 5, "*)")),
    (r"a**", _not_ecma("a quantifier with nothing to repeat", 2, "*")),
    (r"a*??", _not_ecma("a quantifier with nothing to repeat", 3, "?")),
    (r"a{2}{3}", _not_ecma("a quantifier with nothing to repeat", 4, "{3}")),
    (r"a{2}?{3}", _not_ecma("a quantifier with nothing to repeat", 5, "{3}")),
    # Where an escape ends: the text after it is read on its own.
    (r"\x41}", _not_ecma("an unescaped }", 4, "}")),
    (r"\cA}", _not_ecma("an unescaped }", 3, "}")),
    (r"\u0041}", _not_ecma("an unescaped }", 6, "}")),
    (r"\u{41}}", _not_ecma("an unescaped }", 6, "}")),
    (r"\p{L}}", _not_ecma("an unescaped }", 5, "}")),
    (r"\p{sc=Grek}}", _not_ecma("an unescaped }", 11, "}")),
    (r"\d}", _not_ecma("an unescaped }", 2, "}")),
    (r"\.}", _not_ecma("an unescaped }", 2, "}")),
    (r"\uD83D\uDE00}", _not_ecma("an unescaped }", 12, "}")),
    (r"\uD83D}", _not_ecma("an unescaped }", 6, "}")),
    (r"\uD83D\u0041]", _not_ecma("an unescaped ]", 12, "]")),
    (r"\uDE00\uDE00]", _not_ecma("an unescaped ]", 12, "]")),
    (r"\u{1F600}]", _not_ecma("an unescaped ]", 9, "]")),
    (r"[\x41]]", _not_ecma("an unescaped ]", 6, "]")),
    (r"[\b]]", _not_ecma("an unescaped ]", 4, "]")),
    (r"[\-]]", _not_ecma("an unescaped ]", 4, "]")),
    (r"\k<a>(?<a>x)]", _not_ecma("an unescaped ]", 12, "]")),
    (r"(a)\1]", _not_ecma("an unescaped ]", 5, "]")),
    (r"(a)\1\u0663]", _not_ecma("an unescaped ]", 11, "]")),
    # Where a class starts: only a `^` right after its `[` negates it.
    (r"[]^]", _not_ecma("an unescaped ]", 3, "]")),
    (r"[z-a", _not_ecma("a range out of order", 2, "-a")),
    ("[\\", _not_ecma("a \\ at the end", 1, "\\")),
    (r"[\b", "missing ] at 3: the class opened at 0 is not closed"),
    (r"(?<=*)", _not_ecma("a quantifier with nothing to repeat", 4, "*)")),
    (r"(?<!*)", _not_ecma("a quantifier with nothing to repeat", 4, "*)")),
    (r"(?<n>a)\2", _not_ecma("a backreference to group 2 of 1", 7, "\\2")),
    (r"\X", _not_ecma("an escape", 0, "\\X")),
    (r"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10]", _not_ecma("an unescaped ]", 33, "]")),
    (r"\uD83Dx}DC00", _not_ecma("an unescaped }", 7, "}DC00")),
    # A pair is read as one code point, and read to its end, as a range's first end.
    (r"[\uD800\uDC00-\uFFFF]", _not_ecma("a range out of order", 13, "-\\uFFF…")),
    (r"[\uDBFF\uDC00-\uFFFF]", _not_ecma("a range out of order", 13, "-\\uFFF…")),
    (r"[\uDBFF\uDFFF-\uFFFF]", _not_ecma("a range out of order", 13, "-\\uFFF…")),
    (r"[\uDC00\uDC02-\uDC01]", _not_ecma("a range out of order", 13, "-\\uDC0…")),
    (r"[\uD83D\uE000-\uD83E]", _not_ecma("a range out of order", 13, "-\\uD83…")),
    (r"[\uFFFF-\uD83D\uE000]", _not_ecma("a range out of order", 7, "-\\uD83…")),
    (r"[\uFFFF-\uDC00\uDC00]", _not_ecma("a range out of order", 7, "-\\uDC0…")),
    (r"ab\01", _not_ecma("an octal escape", 2, "\\01")),
    (r"\01a", _not_ecma("an octal escape", 0, "\\01a")),
]


@pytest.mark.parametrize(("pattern", "reason"), REFUSED)
def test_a_refusal_names_what_and_where(pattern, reason):
    assert refusal(pattern) == reason
    assert read(pattern) == Flaw("syntax", reason)
    assert read(pattern, Bounds(10**6, 10**6)) == Flaw("syntax", reason)


#: ECMA-262 patterns (with the `u` flag) a slip in the reading would refuse.
ACCEPTED = [
    r"[\uD83D\uDE00-\uD83D\uDE01]", r"[\u{1F600}-\u{1F601}]", r"[\cA-\cZ]", r"[\ca-\cz]", r"[\cA-\cb]",
    r"[\t-\n]", r"[\n-\v]", r"[\v-\f]", r"[\f-\r]", r"[\0-\x01]", r"[\x40-\x41]", r"[\xAF-\xfa]", r"[\b-\x09]",
    r"[\--a]", r"[\.-\/]", r"[\u0041-\u0042]", r"[\uD83D-\uDE00]", r"[\uDE00\uDE00-\uDE01]", r"[\uD83D\u0041-\u0042]",
    r"(a)\1\u0663", r"(?<n>a)\1", r"\1(a)", r"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10", r"(?:a)*", r"(a)*", r"(?<n>a)*",
    r"a*?", r"a+?b", r"a??", r"a{2}?", r"a{2,}", r"a{2,3}?", r"a{0}", r"a{2,0010}", r"a{0010,0010}", r"[^-a]", r"[a-]",
    r"[^]", r"[-]", r"\uD83D\u0041", r"\u{10FFFF}", r"\u{0}", r"\x4F", r"\xaf", r"\cz", r"\0", r"\0a", r"\b\B",
    r"a|b", r"^a$", r"(?=a)", r"(?!a)b", r"(?<=a)b", r"(?<!a)b", r"(?<a>x)\k<a>", r"(?<$>x)", r"(?<_a1>x)",
    r"(?<a\u200c>x)", r"\p{L}", r"\P{L}", r"\p{sc=Grek}", r"[\p{L}-]", r"[\d-]", r"\/\^\$\\\.\*\+\?\(\)\[\]\{\}\|",
    r"\f\n\r\t\v", r"[\f\n\r\t\v]", "", r"a{009,10}", r"^[]", r"[^-\x00]", r"[a-a]",
    r"[\n-\x0a]", r"[\r-\x0d]", r"[\cA-\x01]", r"[\ca-\x01]", r"X", r"Xa", r"X*", r"[\x10-\u{10}]", r"(?<a>x)(?<b>y)\2",
    # A surrogate pair is one code point only from \uD800 to \uDBFF followed by \uDC00 to \uDFFF,
    # and only when the second is a `\u` escape of its own.
    r"[\uD800\uDC00-\uD800\uDC01]", r"[\uDBFF\uDFFE-\uDBFF\uDFFF]", r"[\uDC00\uDC00-\uDC01]",
    r"[\uD83D\uE000-\uE001]", r"[\uD83D\uDBFF-\uDC00]", "[\\uD83D-\uffffDC00]",
]


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_ecma_262_patterns_are_accepted(pattern):
    assert read(pattern) is None
    assert refusal(pattern) is None


def test_a_property_regex_has_not_is_unsupported_not_syntax():
    assert read(r"a\p{Changes_When_NFKC_Casefolded}") == Flaw(
        "unsupported", "\\p{Changes_When_NFKC_Casefolded} at 1 is ECMA-262's Changes_When_NFKC_Casefolded, "
        "which the `regex` package has not")


# The weights the size bound counts (what `regex` builds of each atom) are tested with the
# bound itself in tests/schema/test_pattern_bounds.py.


def test_the_size_bound_says_its_number_with_separators():
    bound = Flaw("size", "its counted repeats stand for over 1,000 characters and class members")
    assert read("a{2000}", Bounds(1000, 100)) == bound
    assert read("a{999}", Bounds(1000, 100)) is None
    assert read("a{2000}") is None  # no bound: no size


@pytest.mark.parametrize(("pattern", "at", "name", "after"), [
    ("(?<ab>x)", 2, "ab", 6), ("(?<a\\u0041>x)", 2, "aA", 11), ("(?<a\\u{1d400}>x)", 2, "a\U0001d400", 14),
    ("(?<\\uD835\\uDC00>x)", 2, "\U0001d400", 16), ("\\k<$_>", 2, "$_", 6), ("(?<a\u200d>x)", 2, "a\u200d", 6),
])
def test_a_group_name_is_read_with_its_escapes(pattern, at, name, after):
    assert group_name(pattern, at) == (name, after)


@pytest.mark.parametrize("pattern", ["(?<\u200da>x)", "(?<a\\v>x)", "(?<a b>x)", "(?<a\\uD835>x)", "(?<a", "(?<>x)",
                                     "(?<a-b>x)"])
def test_a_group_name_that_is_no_identifier_is_refused(pattern):
    with pytest.raises(ValueError, match="a group name that is no identifier at 2"):
        group_name(pattern, 2)
