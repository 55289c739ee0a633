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

The same reading counts the characters the pattern stands for once its counted repeats
(`{n}`, `{n,m}`) are multiplied out (`read`'s `max_expanded`), so that no class or escape
Python would read otherwise (`[^]`, `\\u{100000}`) hides a repeat from the count.
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


@dataclass(frozen=True)
class Flaw:
    """Why a pattern cannot be compiled: `kind` "syntax" (no ECMA-262 regular expression),
    "unsupported" (ECMA-262's, but `regex` cannot match it) or "size" (over `max_expanded`
    characters once its counted repeats are multiplied out); `reason` says where and what."""

    kind: Literal["syntax", "unsupported", "size"]
    reason: str


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


def read(pattern: str, max_expanded: int | None = None) -> Flaw | None:
    """The first flaw of `pattern` in reading order, or None: syntax ECMA-262 (with the `u`
    flag) refuses, a property `regex` has not, or (with `max_expanded`) over `max_expanded`
    characters once its counted repeats are multiplied out (every atom counts one, a group
    the sum of its atoms; alternatives are added, an overestimate).

    Linear in the length of `pattern` and free of recursion (a pattern of thousands of
    nested groups is read as any other). The reason names the position (0-based) and a
    few characters there: `an inline flag or Python group at 0: '(?i)ab' is not ECMA-262`.
    """
    try:
        _Reader(pattern, max_expanded).read()
    except _Refused as exc:
        return Flaw(exc.kind, exc.reason)
    return None


class _Reader:
    """One pass over a pattern, ECMA-262's grammar (22.2.1) and its early errors checked."""

    def __init__(self, pattern: str, max_expanded: int | None = None):
        self.pattern = pattern
        self.groups = 0
        self.names: set[str] = set()
        self.named_refs: list[tuple[str, int]] = []
        self.numbered_refs: list[tuple[int, int]] = []
        self.lookaround: list[bool] = []  # one entry per open group: is it a lookaround?
        self.quantifiable = False
        self.max_expanded = max_expanded
        # Per open group: the characters its atoms stand for so far, and its last atom's.
        self.totals: list[int] = [0]
        self.lasts: list[int] = [0]

    def read(self) -> None:
        pattern, i, n = self.pattern, 0, len(self.pattern)
        while i < n:
            c = pattern[i]
            if c == "\\":
                kind, i = _atom_escape(pattern, i, self.named_refs, self.numbered_refs)
                self.quantifiable = kind != "assertion"
                self._atom(1 if self.quantifiable else 0)
            elif c == "[":
                i = _class(pattern, i)
                self.quantifiable = True
                self._atom(1)
            elif c == "(":
                i = self._open(i)
                self.totals.append(0)
                self.lasts.append(0)
            elif c == ")":
                if not self.lookaround:
                    raise _at(pattern, i, "an unmatched )")
                self.quantifiable = not self.lookaround.pop()  # with `u` a lookaround takes no quantifier
                self.lasts.pop()
                self._atom(self.totals.pop())
                i += 1
            elif c in "*+?{":
                i = self._quantifier(i)
            elif c in "}]":
                raise _at(pattern, i, f"an unescaped {c}")
            else:
                self.quantifiable = c not in "|^$"
                self._atom(1 if self.quantifiable else 0)
                i += 1
        if self.lookaround:
            raise _Refused(f"missing ) at {n}: {len(self.lookaround)} group(s) not closed")
        for number, at in self.numbered_refs:
            if number > self.groups:
                raise _at(pattern, at, f"a backreference to group {number} of {self.groups}")
        for name, at in self.named_refs:
            if name not in self.names:
                raise _at(pattern, at, "a backreference to a group name the pattern has not")

    def _open(self, i: int) -> int:
        """The index after the opening of the group at `i`: `(`, `(?:`, a lookaround, `(?<name>`."""
        pattern = self.pattern
        self.quantifiable = False
        if not pattern.startswith("(?", i):
            self.groups += 1
            self.lookaround.append(False)
            return i + 1
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
            self.lookaround.append(False)
            return after
        raise _at(pattern, i, "an inline flag or Python group")

    def _quantifier(self, i: int) -> int:
        """The index after the quantifier at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each
        perhaps lazy: `*?`); a second one (Python's possessive `*+`) has nothing to repeat."""
        pattern, end, times = self.pattern, i + 1, 1
        if pattern[i] == "{":
            match = _QUANTIFIER.match(pattern, i)
            if match is None:
                raise _at(pattern, i, "a { that is no quantifier (write \\{)")
            low, high = _count(match.group(1)), _count(match.group(3) or "")
            if match.group(3) and low > high:
                raise _at(pattern, i, "a quantifier whose minimum is over its maximum")
            end, times = match.end(), max(low, high)[1]
        if not self.quantifiable:
            raise _at(pattern, i, "a quantifier with nothing to repeat")
        self.quantifiable = False
        if times > 1:
            self._repeat(times)
        return end + pattern.startswith("?", end)

    def _atom(self, size: int) -> None:
        """Count an atom that stands for `size` characters (a group: the sum of its own)."""
        self.totals[-1] += size
        self.lasts[-1] = size
        self._bound()

    def _repeat(self, times: int) -> None:
        """Count the last atom `times` times over (a counted repeat `{n}` or `{n,m}`)."""
        if self.max_expanded is None:
            return
        last = self.lasts[-1]
        grown = min(last * times, self.max_expanded + 1)
        self.totals[-1] += grown - last
        self.lasts[-1] = grown
        self._bound()

    def _bound(self) -> None:
        if self.max_expanded is not None and self.totals[-1] > self.max_expanded:
            raise _Refused(f"its counted repeats stand for over {self.max_expanded:,} characters", "size")


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
                 numbered_refs: list[tuple[int, int]]) -> tuple[str, int]:
    """The escape at `pattern[i]` outside a class: ("assertion" for `\\b`, `\\B`, else
    "atom") and the index after it; backreferences are noted for the end's check."""
    letter = pattern[i + 1] if i + 1 < len(pattern) else ""
    if letter in ("b", "B"):
        return "assertion", i + 2
    if letter == "k":
        name, after = group_name(pattern, i + 2)
        named_refs.append((name, i))
        return "atom", after
    if letter and letter in "123456789":
        end = i + 2
        while end < len(pattern) and pattern[end].isdecimal() and pattern[end].isascii():
            end += 1
        numbered_refs.append((int(pattern[i + 1:end]), i))
        return "atom", end
    _character_escape(pattern, i)
    return "atom", _escape_end(pattern, i)


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


def _class(pattern: str, start: int) -> int:
    """The index after the class that opens at `pattern[start]` (its first unescaped `]`
    closes it); a range's ends are single characters in order."""
    i = start + 1 + pattern.startswith("^", start + 1)
    n = len(pattern)
    while i < n and pattern[i] != "]":
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
    return i + 1
