"""Is a server's pattern an ECMA-262 regular expression at all? Python-only syntax refused.

Spec: JSON Schema 2020-12 core 6.4 ("regular expressions SHOULD be built with the "u"
flag"), ECMA-262 2024 22.2.1 (Patterns, with their early errors), read with the `u` flag
(`[+UnicodeMode, +NamedCaptureGroups]`). docs/design.md, "Patterns from a server".

Why the `u` flag: JSON Schema asks for it, and mrtr already gives `\\p{L}` and `\\u{1F600}`
the meaning only the `u` flag gives them (schema/ecma.py). Read without it, Annex B's
lenient grammar takes `\\A`, `\\Z` and `\\G` for the letters A, Z and G, so Python's anchors
would pass as other patterns than their authors meant; with it, an escape is a letter
ECMA-262 names (`\\d`, `\\b`, `\\k<name>`, ...) or a syntax character or `/` (`\\.`,
`\\/`), a `{`, `}` or `]` outside a class is escaped, a range has a single character at
both ends (`[\\d-z]` is refused) and a backreference names a group the pattern has.

So the syntax Python's `re` (and `regex`) reads and ECMA-262 does not is refused before
`regex` sees it: an inline flag `(?i)` or flag group `(?i:x)` (ES2025's modifiers are not
in the 2024 grammar this checks, and `regex` would read them with Python's case folding),
`(?P<n>x)`, `(?P=n)`, `(?#...)`, `(?>x)`, a conditional `(?(1)a|b)`, a possessive `a*+`,
`\\A`, `\\Z`, `\\z`, `\\G`, `\\h`, `\\N{...}`, an octal `\\012`, a quantified lookaround.

A `\\p{...}` names a property of ECMA-262's tables as written (schema/ecma_properties.py):
`regex` would read `\\p{l}`, `\\p{Greek}`, `\\p{IsAlpha}` or `\\p{Word}` loosely. A group name
is ECMA-262's RegExpIdentifierName (`$` and `\\u` escapes allowed: `(?<a\\u0041>x)` is group
`aA`); schema/ecma.py gives `regex` a name of its own for it.

The same reading weighs what `regex` will build of the pattern once its counted repeats
(`{n}`, `{n,m}`) are multiplied out (`read`'s `Bounds`): each atom weighs what `regex`
builds of its translation by schema/ecma.py (a class one node and one per member, as
`regex` copies the whole class for each repeat), so that no class or escape Python would
read otherwise (`[^]`, `\\u{100000}`) hides a repeat from the count, and no class hides its
size; it also bounds how deep groups nest (`regex` compiles them recursively).

A backreference to a repeated group that may match the empty text, or to a group inside a
repeated group, is refused as "unsupported": ECMA-262 clears the captures inside a
quantified atom at each repeat and refuses an empty repeat past the minimum (22.2.2.3.1
RepeatMatcher), `regex` keeps the last repeat's text, so mrtr would misjudge values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from mrtr_cli.render.sanitize import quote_text
from mrtr_cli.schema.ecma_properties import LACKING, in_regex

#: ECMA-262's SyntaxCharacter and `/`: the only identity escapes with the `u` flag.
_IDENTITY = frozenset("^$\\.*+?()[]{}|/")
_CONTROL = frozenset("fnrtv")
_SETS = frozenset("dDsSwW")
_QUANTIFIER = re.compile(r"\{([0-9]+)(,([0-9]*))?\}")
_PROPERTY = re.compile(r"\{([A-Za-z_]+(?:=[A-Za-z0-9_]+)?)\}")
_HEX = frozenset("0123456789abcdefABCDEF")
#: A `ClassAtom` that is a set of characters (`\\d`, `\\p{L}`), not one code point.
_SET = -1
#: What `regex` builds of `\\d`, `\\w`, `\\s` and their complements as schema/ecma.py
#: translates them: a class node and one node per range (`\\s` is ten ranges).
_SET_WEIGHTS = {"d": 2, "D": 3, "w": 5, "W": 6, "s": 11, "S": 12}
#: A backreference `\\1` as translated, `(?(1)\\1)`: a conditional and the reference.
_REFERENCE_WEIGHT = 3
#: `.` as translated: a class of `\\n`, `\\r` and U+2028-U+2029.
_DOT_WEIGHT = 4
#: The empty class `[]` as translated: the lookahead `(?!)`, which costs `regex` as much.
_EMPTY_CLASS_WEIGHT = 3
#: A negated class with a property in it, as translated: `(?:(?![...])(?s:.))` around the class.
_NEGATED_PROPERTY_WEIGHT = 4


@dataclass(frozen=True)
class Flaw:
    """Why a pattern cannot be compiled: `kind` "syntax" (no ECMA-262 regular expression),
    "unsupported" (ECMA-262's, but `regex` cannot match it as ECMA-262 does) or "size" (over
    a bound of `Bounds`); `reason` says where and what."""

    kind: Literal["syntax", "unsupported", "size"]
    reason: str


@dataclass(frozen=True)
class Bounds:
    """How large a pattern `read` lets `regex` compile: `weight`, the nodes `regex` builds
    once counted repeats are multiplied out (each atom weighs what its translation by
    schema/ecma.py builds: a class one node and one per member, `\\s` eleven, `a` one);
    `depth`, how deep groups may nest (`regex` compiles them recursively)."""

    weight: int
    depth: int


class _Refused(ValueError):
    def __init__(self, reason: str, kind: Literal["syntax", "unsupported", "size"] = "syntax"):
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


def _at(pattern: str, i: int, what: str) -> _Refused:
    shown = pattern[i:i + 6] + ("…" if len(pattern) > i + 6 else "")
    return _Refused(f"{what} at {i}: {quote_text(shown)} is not ECMA-262")


def refusal(pattern: str) -> str | None:
    """Why `pattern` is no ECMA-262 regular expression (read with the `u` flag), or one
    `regex` cannot match, or None (`read` without a size bound)."""
    flaw = read(pattern)
    return flaw.reason if flaw else None


def read(pattern: str, bounds: Bounds | None = None) -> Flaw | None:
    """The first flaw of `pattern` in reading order, or None: syntax ECMA-262 (with the `u`
    flag) refuses, a property `regex` has not, a backreference to a group inside a repeated
    group ("unsupported": ECMA-262 forgets such a group's text at each repeat, `regex`
    keeps it, so mrtr would misjudge), or (with `bounds`) over `bounds.weight` nodes once
    its counted repeats are multiplied out (each atom weighs what `regex` builds of its
    translation, `Bounds`; a group the sum of its atoms and one; alternatives are added, an
    overestimate), or groups nested over `bounds.depth` deep ("size" both).

    Linear in the length of `pattern` and free of recursion (a pattern of thousands of
    nested groups is read as any other). The reason names the position (0-based) and a
    few characters there: `an inline flag or Python group at 0: '(?i)ab' is not ECMA-262`.
    """
    try:
        _Reader(pattern, bounds).read()
    except _Refused as exc:
        return Flaw(exc.kind, exc.reason)
    return None


class _Reader:
    """One pass over a pattern, ECMA-262's grammar (22.2.1) and its early errors checked."""

    def __init__(self, pattern: str, bounds: Bounds | None = None):
        self.pattern = pattern
        self.groups = 0
        self.names: set[str] = set()
        self.named_refs: list[tuple[str, int]] = []
        self.numbered_refs: list[tuple[int, int]] = []
        self.lookaround: list[bool] = []  # one entry per open group: is it a lookaround?
        self.quantifiable = False
        self.bounds = bounds
        self.numbers: dict[str, int] = {}  # a group name's number
        # Per open group: the nodes its atoms stand for so far, and its last atom's.
        self.totals: list[int] = [0]
        self.lasts: list[int] = [0]
        # Per open group: its number (None: no capturing group) and the capturing groups
        # inside it; those inside the atom just read (a group), and those inside a repeat.
        self.own: list[int | None] = []
        self.inside: list[list[int]] = [[]]
        self.last_inside: list[int] = []
        self.last_group: int | None = None  # the number of the capturing group just read
        # Per open group: whether each alternative so far, and the one being read, surely
        # matches some text (`solid`: a character, a class, such a group, not repeated from
        # 0), and whether the alternative being read was before its last atom.
        self.solid: list[list[bool]] = [[True, False]]
        self.solid_before = False
        self.repeated: set[int] = set()
        self.own_refs: set[int] = set()  # where a backreference inside its own group stands

    def read(self) -> None:
        pattern, i, n = self.pattern, 0, len(self.pattern)
        while i < n:
            c = pattern[i]
            if c == "\\":
                i = self._escape(i)
            elif c == "[":
                i, weight = _class(pattern, i)
                self.quantifiable = True
                self._atom(weight, solid=True)
            elif c == "(":
                i = self._open(i)
                self.totals.append(0)
                self.lasts.append(0)
                self.inside.append([])
                self.solid.append([True, False])
                if self.bounds is not None and len(self.lookaround) > self.bounds.depth:
                    raise _Refused(f"its groups nest over {self.bounds.depth} deep", "size")
            elif c == ")":
                i = self._close(i)
            elif c in "*+?{":
                i = self._quantifier(i)
            elif c in "}]":
                raise _at(pattern, i, f"an unescaped {c}")
            else:
                self.quantifiable = c not in "|^$"
                if c == "|":
                    self.solid[-1] = [self.solid[-1][0] and self.solid[-1][1], False]
                self._atom(_DOT_WEIGHT if c == "." else 1, solid=self.quantifiable)
                i += 1
        if self.lookaround:
            raise _Refused(f"missing ) at {n}: {len(self.lookaround)} group(s) not closed")
        for number, at in self.numbered_refs:
            if number > self.groups:
                raise _at(pattern, at, f"a backreference to group {number} of {self.groups}")
        for name, at in self.named_refs:
            if name not in self.names:
                raise _at(pattern, at, "a backreference to a group name the pattern has not")
        self._check_repeated_references()

    def _escape(self, i: int) -> int:
        """Read the escape at `i` outside a class; the index after it."""
        named, numbered = len(self.named_refs), len(self.numbered_refs)
        kind, weight, after = _atom_escape(self.pattern, i, self.named_refs, self.numbered_refs)
        if len(self.numbered_refs) > numbered:
            self._note_reference(*self.numbered_refs[-1])
        elif len(self.named_refs) > named:
            self._note_reference(self.numbers.get(self.named_refs[-1][0], 0), self.named_refs[-1][1])
        self.quantifiable = kind != "assertion"
        self._atom(weight, solid=kind == "character")
        return after

    def _close(self, i: int) -> int:
        """Read the `)` at `i`: the group it closes is an atom; the index after it."""
        if not self.lookaround:
            raise _at(self.pattern, i, "an unmatched )")
        self.quantifiable = not self.lookaround.pop()  # with `u` a lookaround takes no quantifier
        self.lasts.pop()
        solid = self.solid.pop()
        self._atom(self.totals.pop() + 1, solid=self.quantifiable and solid[0] and solid[1])
        inner, own = self.inside.pop(), self.own.pop()
        self.inside[-1].extend(inner if own is None else [*inner, own])
        self.last_inside = inner
        self.last_group = own
        return i + 1

    def _note_reference(self, number: int, at: int) -> None:
        """Note the backreference to group `number` at `at` if it stands inside that group
        (the empty text in ECMA-262, as schema/ecma.py writes it: no repeat's text is read)."""
        if number in self.own:
            self.own_refs.add(at)

    def _check_repeated_references(self) -> None:
        """Refuse a backreference to a repeated group or a group inside one (`(?:(a)|b)*\\1`,
        `(a|)+\\1`), but inside its own group: ECMA-262 clears the captures inside a
        quantified atom at each repeat and refuses an empty repeat past the minimum
        (22.2.2.3.1 RepeatMatcher), `regex` keeps the last repeat's text, even an empty
        repeat's, so mrtr would misjudge some."""
        refs = [*self.numbered_refs, *((self.numbers[name], at) for name, at in self.named_refs)]
        for number, at in sorted(refs, key=lambda ref: ref[1]):
            if number in self.repeated and at not in self.own_refs:
                raise _Refused(f"a backreference at {at} to group {number}, a repeated group or inside one: "
                               "ECMA-262 forgets the group's text at each repeat and the `regex` package keeps "
                               "it, so mrtr does not match such backreferences", "unsupported")

    def _open(self, i: int) -> int:
        """The index after the opening of the group at `i`: `(`, `(?:`, a lookaround, `(?<name>`."""
        pattern = self.pattern
        self.quantifiable = False
        if not pattern.startswith("(?", i):
            self.groups += 1
            self.lookaround.append(False)
            self.own.append(self.groups)
            return i + 1
        self.own.append(None)
        if pattern.startswith(("(?:", "(?=", "(?!"), i):
            self.lookaround.append(pattern[i + 2] != ":")
            return i + 3
        if pattern.startswith(("(?<=", "(?<!"), i):
            self.lookaround.append(True)
            return i + 4
        if pattern.startswith("(?<", i):
            name, after = group_name(pattern, i + 2)
            if name in self.names:
                raise _at(pattern, i, "a second group of the same name")
            self.names.add(name)
            self.groups += 1
            self.numbers[name] = self.groups
            self.lookaround.append(False)
            self.own[-1] = self.groups
            return after
        raise _at(pattern, i, "an inline flag or Python group")

    def _quantifier(self, i: int) -> int:
        """The index after the quantifier at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each
        perhaps lazy: `*?`); a second one (Python's possessive `*+`) has nothing to repeat."""
        pattern, end, times = self.pattern, i + 1, 1
        many, optional = pattern[i] in "*+", pattern[i] in "*?"
        if pattern[i] == "{":
            match = _QUANTIFIER.match(pattern, i)
            if match is None:
                raise _at(pattern, i, "a { that is no quantifier (write \\{)")
            low, high = _count(match.group(1)), _count(match.group(3) or "")
            if match.group(3) and low > high:
                raise _at(pattern, i, "a quantifier whose minimum is over its maximum")
            end, times = match.end(), max(low, high)[1]
            many = times > 1 or (match.group(2) is not None and not match.group(3))
            optional = low[1] == 0
        if not self.quantifiable:
            raise _at(pattern, i, "a quantifier with nothing to repeat")
        self.quantifiable = False
        if many:
            # A repeated capturing group that may match the empty text: ECMA-262 refuses an
            # empty repeat past the minimum, `regex` keeps its empty text as the group's.
            self.repeated.update(self.last_inside)
            if self.last_group is not None and not self.solid[-1][1]:
                self.repeated.add(self.last_group)
        if optional:
            self.solid[-1][1] = self.solid_before
        if times > 1:
            self._repeat(times)
        return end + pattern.startswith("?", end)

    def _atom(self, size: int, solid: bool) -> None:
        """Count an atom that stands for `size` nodes (a group: the sum of its own, and one),
        `solid` if it surely matches some text."""
        self.totals[-1] += size
        self.lasts[-1] = size
        self.last_inside = []
        self.last_group = None
        self.solid_before = self.solid[-1][1]
        self.solid[-1][1] = self.solid_before or solid
        self._bound()

    def _repeat(self, times: int) -> None:
        """Count the last atom `times` times over (a counted repeat `{n}` or `{n,m}`)."""
        if self.bounds is None:
            return
        last = self.lasts[-1]
        grown = min(last * times, self.bounds.weight + 1)
        self.totals[-1] += grown - last
        self.lasts[-1] = grown
        self._bound()

    def _bound(self) -> None:
        if self.bounds is not None and self.totals[-1] > self.bounds.weight:
            raise _Refused(f"its counted repeats stand for over {self.bounds.weight:,} characters and class "
                           "members", "size")


def _count(digits: str) -> tuple[tuple[int, str], int]:
    """The number `digits` write: a key that orders numbers of any length, and its value
    capped at a billion (Python refuses to read over 4,300 digits as a number)."""
    digits = digits.lstrip("0")
    return (len(digits), digits), (int(digits) if 0 < len(digits) <= 9 else 0 if not digits else 10**9 + 1)


def group_name(pattern: str, i: int) -> tuple[str, int]:
    """The name `<name>` at `pattern[i]` stands for and the index after it: ECMA-262's
    RegExpIdentifierName (22.2.1), its `\\uXXXX`, `\\u{X...}` and surrogate-pair escapes
    read (`<a\\u0041>` is `aA`); an identifier's characters, `$`, and ZWNJ or ZWJ after the first.

    Raises:
        ValueError: no such name there (`_Refused`, its reason naming the position).
    """
    chars: list[str] = []
    j, n = i + 1, len(pattern)
    if pattern.startswith("<", i):
        while j < n and pattern[j] != ">":
            if pattern[j] == "\\":
                if not pattern.startswith("u", j + 1):
                    raise _at(pattern, i, "a group name that is no identifier")
                chars.append(chr(_unicode_escape(pattern, j)))
                j = _escape_end(pattern, j)
            else:
                chars.append(pattern[j])
                j += 1
    name = "".join(chars)
    if j >= n or not name or not _identifier(name):
        raise _at(pattern, i, "a group name that is no identifier")
    return name, j + 1


def _identifier(name: str) -> bool:
    """Whether `name` is ECMA-262's identifier: ID_Start, `$` or `_` first, then ID_Continue,
    `$`, ZWNJ or ZWJ (Python's `isidentifier` reads Unicode's XID_ properties)."""
    first, rest = name[0], name[1:]
    return (first == "$" or first.isidentifier()) and all(
        c in "$\u200c\u200d" or f"_{c}".isidentifier() for c in rest)


def _atom_escape(pattern: str, i: int, named_refs: list[tuple[str, int]],
                 numbered_refs: list[tuple[int, int]]) -> tuple[str, int, int]:
    """The escape at `pattern[i]` outside a class: its kind ("assertion" for `\\b`, `\\B`,
    "reference" for a backreference, else "character": a character or a set), the nodes
    `regex` builds of its translation (`_SET_WEIGHTS`) and the index after it;
    backreferences are noted for the end's checks."""
    letter = pattern[i + 1] if i + 1 < len(pattern) else ""
    if letter in ("b", "B"):
        return "assertion", 1, i + 2
    if letter == "k":
        name, after = group_name(pattern, i + 2)
        named_refs.append((name, i))
        return "reference", _REFERENCE_WEIGHT, after
    if letter and letter in "123456789":
        end = i + 2
        while end < len(pattern) and pattern[end].isdecimal() and pattern[end].isascii():
            end += 1
        numbered_refs.append((int(pattern[i + 1:end]), i))
        return "reference", _REFERENCE_WEIGHT, end
    _character_escape(pattern, i)
    return "character", _SET_WEIGHTS.get(letter, 1), _escape_end(pattern, i)


def _character_escape(pattern: str, i: int) -> int:
    """The code point the escape at `pattern[i]` stands for (`_SET` for `\\d`, `\\p{L}`).

    Raises:
        _Refused: no escape ECMA-262 has with the `u` flag.
    """
    letter = pattern[i + 1] if i + 1 < len(pattern) else ""
    if not letter:
        raise _at(pattern, i, "a \\ at the end")
    if letter in _SETS:
        return _SET
    if letter in "pP":
        _property(pattern, i)
        return _SET
    if letter in _CONTROL:
        return {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}[letter]
    if letter == "c":
        after = pattern[i + 2:i + 3]
        if not (after.isascii() and after.isalpha()):
            raise _at(pattern, i, "a \\c not followed by a letter")
        return ord(after) % 32
    if letter == "0":
        if pattern[i + 2:i + 3].isdecimal():
            raise _at(pattern, i, "an octal escape")
        return 0
    if letter == "x":
        digits = pattern[i + 2:i + 4]
        if len(digits) != 2 or not set(digits) <= _HEX:
            raise _at(pattern, i, "a \\x not followed by two hex digits")
        return int(digits, 16)
    if letter == "u":
        return _unicode_escape(pattern, i)
    if letter in _IDENTITY:
        return ord(letter)
    raise _at(pattern, i, "an escape")


def _property(pattern: str, i: int) -> None:
    """Check the property escape `\\p{...}` at `pattern[i]`: a name or `name=value` of
    ECMA-262's tables as written (schema/ecma_properties.py), one `regex` has.

    Raises:
        _Refused: no such property ("syntax"), or one `regex` has not ("unsupported").
    """
    match = _PROPERTY.match(pattern, i + 2)
    if match is None:
        raise _at(pattern, i, "a property escape that is not \\p{Name} or \\p{Name=Value}")
    written = in_regex(match.group(1))
    if written is None:
        raise _at(pattern, i, "a property ECMA-262 does not name")
    if written in LACKING:
        raise _Refused(f"\\p{{{match.group(1)}}} at {i} is ECMA-262's {written}, which the `regex` "
                       "package has not", "unsupported")


def _unicode_escape(pattern: str, i: int) -> int:
    """The code point of `\\uXXXX`, `\\u{X...}` or a surrogate pair `\\uD83D\\uDE00` at `pattern[i]`."""
    if pattern.startswith("{", i + 2):
        end = pattern.find("}", i + 3)
        digits = pattern[i + 3:end] if end != -1 else ""
        if not digits or not set(digits) <= _HEX or int(digits, 16) > 0x10FFFF:
            raise _at(pattern, i, "a \\u{...} that is no code point")
        return int(digits, 16)
    digits = pattern[i + 2:i + 6]
    if len(digits) != 4 or not set(digits) <= _HEX:
        raise _at(pattern, i, "a \\u not followed by four hex digits")
    high = int(digits, 16)
    low = pattern[i + 8:i + 12] if pattern.startswith("\\u", i + 6) else ""
    if 0xD800 <= high <= 0xDBFF and len(low) == 4 and set(low) <= _HEX and 0xDC00 <= int(low, 16) <= 0xDFFF:
        return 0x10000 + ((high - 0xD800) << 10) + (int(low, 16) - 0xDC00)
    return high


def _escape_end(pattern: str, i: int) -> int:
    """The index after the (valid) character escape at `pattern[i]`."""
    letter = pattern[i + 1]
    if letter in "pP":
        return pattern.index("}", i) + 1
    if letter == "c":
        return i + 3
    if letter == "x":
        return i + 4
    if letter == "u":
        if pattern.startswith("{", i + 2):
            return pattern.index("}", i) + 1
        high = int(pattern[i + 2:i + 6], 16)
        low = pattern[i + 8:i + 12] if pattern.startswith("\\u", i + 6) else ""
        if 0xD800 <= high <= 0xDBFF and len(low) == 4 and set(low) <= _HEX and 0xDC00 <= int(low, 16) <= 0xDFFF:
            return i + 12
        return i + 6
    return i + 2


def _class_atom(pattern: str, i: int) -> tuple[int, int]:
    """The class member at `pattern[i]` (a code point, or `_SET`) and the index after it."""
    if pattern[i] != "\\":
        return ord(pattern[i]), i + 1
    letter = pattern[i + 1] if i + 1 < len(pattern) else ""
    if letter == "b":
        return 0x08, i + 2
    if letter == "-":
        return ord("-"), i + 2
    return _character_escape(pattern, i), _escape_end(pattern, i)


def _class(pattern: str, start: int) -> tuple[int, int]:
    """The index after the class that opens at `pattern[start]` (its first unescaped `]`
    closes it), and the nodes `regex` builds of its translation (one, and one per member:
    `\\s` ten, a range one; more for a negated class with a property, `_NEGATED_PROPERTY_WEIGHT`);
    a range's ends are single characters in order."""
    negated = pattern.startswith("^", start + 1)
    i = start + 1 + negated
    n = len(pattern)
    weight, properties = 1, False
    while i < n and pattern[i] != "]":
        letter = pattern[i + 1:i + 2] if pattern[i] == "\\" else ""
        weight += _SET_WEIGHTS.get(letter, 2) - 1
        properties = properties or letter in ("p", "P")
        low, i = _class_atom(pattern, i)
        if pattern.startswith("-", i) and i + 1 < n and pattern[i + 1] != "]":
            at = i
            high, i = _class_atom(pattern, i + 1)
            if low == _SET or high == _SET:
                raise _at(pattern, at, "a range from or to a set such as \\d")
            if low > high:
                raise _at(pattern, at, "a range out of order")
    if i >= n:
        raise _Refused(f"missing ] at {n}: the class opened at {start} is not closed")
    if weight == 1 and not negated:
        return i + 1, _EMPTY_CLASS_WEIGHT
    return i + 1, weight + (_NEGATED_PROPERTY_WEIGHT if negated and properties else 0)
