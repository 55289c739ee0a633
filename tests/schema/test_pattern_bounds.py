"""What a server's pattern costs to compile, and what mrtr refuses rather than match
wrongly (mrtr_cli/schema/ecma_syntax.py `read`, mrtr_cli/schema/patterns.py `compiled`).

`regex` copies a repeated atom's whole translated form for each counted repeat, so the
size bound weighs an atom as what `regex` builds of it (a class: its members); a pattern
the bound accepts compiles within a small memory bound. Rows marked "node" are
`new RegExp(pattern, "u").test(text)` as node 20 answers."""

from __future__ import annotations

import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtr_cli.schema.ecma import translate
from mrtr_cli.schema.patterns import PatternError, SlowPattern, _too_large, compiled, search

_NAMES = ["L", "N", "Lu", "Ll", "Nd", "Po", "sc=Latn", "sc=Grek", "Script=Cyrillic", "ASCII"]


def _property_class(members: int, negated: bool = True) -> str:
    """A class of `members` property escapes, as the tester's `[^\\P{L}\\p{N}...]`."""
    escapes = "".join(("\\p{%s}" if k % 2 else "\\P{%s}") % _NAMES[k % len(_NAMES)] for k in range(members))
    return f"[{'^' if negated else ''}{escapes}]"


@pytest.mark.parametrize("pattern", [_property_class(1000) + "{12000}", _property_class(1000) + "{99999}",
                                     _property_class(28, negated=False) + "{99999}", r"\s{50000}",
                                     "(?:" + _property_class(100) + "){5000}", ".{99999}"])
def test_a_repeated_class_counts_its_members(pattern):
    """A class of 1,000 property escapes is 1,000 members for `regex`, copied at each repeat:
    `{12000}` took 1.6 GB and 4 s to compile; refused before compiling now."""
    assert len(pattern) < 10_000
    assert _too_large(pattern) is not None, pattern
    with pytest.raises(SlowPattern, match="is too large to compile"):
        compiled(pattern)


#: Atoms whose translated forms differ most in what `regex` builds of them.
_ATOMS = st.sampled_from(["a", ".", r"\s", r"\S", r"\w", r"\d", r"\b", r"\p{L}", "[^a-z]", "[]", "[^]",
                          _property_class(40), _property_class(200, negated=False), r"[\s\S\w]", r"\1", "$", "(?=a)"])


@st.composite
def _patterns(draw: st.DrawFn) -> str:
    """`(x)` and then a few atoms (or groups of them), each perhaps repeated many times."""
    parts = ["(x)"]
    for _ in range(draw(st.integers(1, 3))):
        atoms = "".join(draw(st.lists(_ATOMS, min_size=1, max_size=3)))
        count = draw(st.sampled_from([1, 10, 100, 1000, 5000, 20_000, 70_000, 99_999]))
        parts.append(f"(?:{atoms}){{{count}}}" if atoms != "$" else atoms)
    return "".join(parts)


@settings(max_examples=40, deadline=None)
@given(pattern=_patterns())
def test_any_pattern_the_bound_accepts_compiles_in_small_memory(pattern):
    """Whatever the atoms and repeats, a pattern the bound accepts is compiled by `regex`
    within 64 MB of Python-allocated memory (tracemalloc; the bound's worst measured about
    30 MB: docs/limits.md); one over it is refused before compiling."""
    if _too_large(pattern) is not None:
        return
    import regex

    tracemalloc.start()
    try:
        regex.compile(translate(pattern))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, (pattern, peak)


@pytest.mark.parametrize("depth", [4900, 400, 101])
def test_groups_nested_too_deep_are_too_large_not_a_recursion_error(depth):
    """A valid ECMA-262 pattern of thousands of nested groups (node compiles it) would
    exhaust Python's recursion compiling: refused as too deeply nested, in a true message."""
    pattern = "(" * depth + "a" + ")" * depth
    assert _too_large(pattern) is not None
    with pytest.raises(SlowPattern, match=r"is too large to compile \(its groups nest over 100 deep\)") as caught:
        search(pattern, "a")
    assert "recursion" not in str(caught.value)
    assert caught.value.exit_status == 4


@pytest.mark.parametrize("inner", ["a", r"[^\p{L}]", r"\1", r"\b", "[^]"])
def test_groups_nested_100_deep_compile(inner):
    """At the bound, however the innermost atom is translated (a negated class of a property
    is three groups more), the pattern compiles and matches."""
    pattern = "(" * 100 + inner + ")" * 100
    assert _too_large(pattern) is None
    assert compiled(pattern) is not None


#: Backreferences to a repeated group or one inside it: ECMA-262 forgets the group's text
#: at each repeat and refuses an empty repeat past the minimum (RepeatMatcher), `regex`
#: keeps the last repeat's text; node says true to each but the last, `regex` the opposite.
RESET = [(r"^(?:(a)|b)*\1$", "ab"), (r"^(?:\1(a))+$", "aa"), (r"^(?:(a)|b){2}\1$", "ab"),
         (r"^((a)|b)+\2$", "ab"), (r"^(?<n>(?<m>a)|b)+\k<m>$", "ab"), (r"^(a|)+\1$", "a"),
         (r"^(a?)+\1$", "a"), (r"^(a|(?=b))*\1$", "a")]


@pytest.mark.parametrize(("pattern", "text"), RESET)
def test_a_backreference_into_a_repeated_group_is_refused_not_misjudged(pattern, text):
    """mrtr cannot match these as ECMA-262 does: refused with a true reason (exit 4), never
    a valid argument refused as not matching."""
    with pytest.raises(PatternError, match="a repeated group or inside one") as caught:
        search(pattern, text)
    assert caught.value.what == "an ECMA-262 regular expression mrtr cannot match"


#: Backreferences to a group that is not repeated, or repeated but never empty (its last
#: repeat sets it in both readings), or to its own group from inside it: matched as node does.
KEPT = [(r"^(?:(a)|b)?\1$", "b", True), (r"^(a|b)?\1$", "bb", True), (r"^(\1a)+$", "aa", True),
        (r"^(?<n>a\k<n>)+$", "aa", True), (r"^(a|b)*\1$", "abb", True), (r"^(a|bc?)+\1$", "abcb", False),
        (r"^(a*b)+\1$", "abaab", False), (r"^(a*b)+\1$", "abbb", True),
        (r"^(a)(?:b\1)*$", "aba", True), (r"^(a)(?:b\1)*$", "abb", False)]


@pytest.mark.parametrize(("pattern", "text", "matches"), KEPT)
def test_other_backreferences_match_as_ecma_262(pattern, text, matches):
    assert search(pattern, text) is matches


def test_the_weights_of_sets_are_their_translations():
    """`\\d`, `\\w`, `\\s` and their complements weigh a class node and one per range of
    the class schema/ecma.py writes for them."""
    from mrtr_cli.schema import ecma, ecma_syntax

    written = {name: 1 + len(ranges) for name, ranges in ecma._SETS.items()}
    assert written == ecma_syntax._SET_WEIGHTS
