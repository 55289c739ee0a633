"""A server's pattern, written in ECMA-262's dialect, rewritten so that `regex` gives it ECMA-262's meaning.

Spec: JSON Schema 2020-12 core 6.4 (a pattern is an ECMA-262 regular expression; the `u`
flag's reading of code points and escapes), ECMA-262 22.2 (RegExp, no `m`, `s` or `i`
flag). docs/design.md, "Patterns from a server".

Python's `re` syntax, which `regex` reads, differs from ECMA-262 in these constructs,
which `translate` rewrites (inside and outside character classes, escapes respected):

- `$`: the end of the text (Python's: also before a final newline);
- `.`: any character but `\\n`, `\\r`, U+2028, U+2029 (Python's: any but `\\n`);
- `\\d`, `\\w`, `\\s` and `\\D`, `\\W`, `\\S`: `[0-9]`, `[A-Za-z0-9_]`, ECMA's white space
  and line terminators (Python's: any Unicode digit, letter, space);
- `\\b`, `\\B`: a boundary of ECMA's (ASCII) `\\w` (Python's: of Unicode letters);
- `\\k<name>`, `\\1`: what the group matched, or nothing when it has not matched (Python
  refuses `\\k<name>` and a backreference inside its own group, and fails one to a group
  that has not matched; one to a repeated group that may be empty or to a group inside a
  repeated group never comes here: `regex` keeps a repeat's text where ECMA-262 clears it,
  and schema/ecma_syntax.py refuses it);
- `\\cX`, `\\u{1F600}`, `\\uD83D\\uDE00`: a control character, a code point, one code point
  (Python refuses the first two, and reads two lone surrogates);
- `[]`, `[^]`: no character, any character (Python reads a `]` first in a class as a member);
- `[` and `-` in a class: a member, unless `-` stands between two characters (a range);
  Python warns of a nested set, and makes a range of `[\\w-z]`;
- `\\p{...}`: the property of ECMA-262's tables, its long names spelt out
  (`\\p{Lower}` is `\\p{Lowercase}`, `\\p{sc=Grek}` `\\p{Script=Greek}`): `regex` reads a
  name loosely, `\\p{Lower}` and `\\p{space}` as POSIX classes of its own;
- a negated class with a property in it (`[^\\p{L}\\P{L}]`): any character its members do
  not match, `(?:(?![\\p{L}\\P{L}])(?s:.))` (`regex` reads that class as any character);
- a group name: `(?<a\\u0041>x)` and `\\k<aA>` name group `aA` (Python has no escapes in a
  name, nor `$`): each name is written as one of `regex`'s own, `g` and its code points in hex.

Everything else is kept as written: groups, lookarounds, quantifiers; `regex` reads them
as ECMA-262 does. Syntax that only Python has (`(?i)`, `(?P<n>x)`, `\\A`, `a*+`) never
comes here: `schema/ecma_syntax.py` has refused it.
"""

from __future__ import annotations

import functools

from mrtr_cli.schema.ecma_properties import in_regex
from mrtr_cli.schema.ecma_syntax import group_name

#: Inclusive code-point ranges of ECMA-262's classes (22.2.2.9 CharacterClassEscape).
_DIGIT = ((0x30, 0x39),)
_WORD = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
#: WhiteSpace (tab, VT, FF, space, NBSP, ZWNBSP and the Zs category) and LineTerminator.
_SPACE = ((0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A), (0x2028, 0x2029),
          (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF))
_LINE_TERMINATORS = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))
_LAST = 0x10FFFF


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out, start = [], 0
    for low, high in ranges:
        if low > start:
            out.append((start, low - 1))
        start = high + 1
    if start <= _LAST:
        out.append((start, _LAST))
    return tuple(out)


_SETS = {"d": _DIGIT, "D": _complement(_DIGIT), "w": _WORD, "W": _complement(_WORD),
         "s": _SPACE, "S": _complement(_SPACE)}
_CONTROLS = {"n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B, "f": 0x0C}


def _char(code: int) -> str:
    """One code point as a class member: an ASCII letter or digit as it is, else escaped."""
    text = chr(code)
    if text.isascii() and (text.isalnum() or text == "_"):
        return text
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _ranges(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(_char(low) if low == high else f"{_char(low)}-{_char(high)}" for low, high in ranges)


#: What these escapes stand for outside a class (`regex`'s ASCII `\\b` is ECMA-262's: a
#: boundary of `[A-Za-z0-9_]`).
_OUTSIDE = {"b": r"(?a:\b)", "B": r"(?a:\B)",
            **{name: f"[{_ranges(ranges)}]" for name, ranges in _SETS.items() if name.islower()},
            **{name: f"[^{_ranges(_SETS[name.lower()])}]" for name in "DWS"}}
_DOT = f"[^{_ranges(_LINE_TERMINATORS)}]"

#: A class member: a code point, a set of ranges (`\\d`), text kept as written (`\\p{L}`),
#: or None for a `-` as written (a range between two code points, else a member).
_Member = int | tuple[tuple[int, int], ...] | str | None


@functools.lru_cache(maxsize=256)
def translate(pattern: str) -> str:
    """`pattern` (ECMA-262) in `regex`'s syntax with the same meaning (the table above).
    A pattern that is no ECMA-262 regular expression is rewritten no further than its error,
    which `regex` then reports (an unclosed class is kept as written)."""
    out: list[str] = []
    groups = _Groups()
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            text, i = _escape_outside(pattern, i, groups.open)
            out.append(text)
        elif c == "[":
            text, i = _class(pattern, i)
            out.append(text)
        elif c == "(":
            text, i = groups.opening(pattern, i)
            out.append(text)
        else:
            if c == ")":
                groups.close()
            out.append({"$": r"\Z", ".": _DOT}.get(c, c))
            i += 1
    return "".join(out)


class _Groups:
    """The groups open at a point of the pattern, as backreferences name them (`1`, and
    `regex`'s name of a named group): ECMA-262 reads a backreference inside its own group
    as the empty text (the group has not matched yet), which `regex` refuses."""

    def __init__(self) -> None:
        self.count = 0
        self.stack: list[tuple[str, ...]] = []
        self.open: set[str] = set()

    def opening(self, pattern: str, i: int) -> tuple[str, int]:
        """The group that opens at `pattern[i]`, rewritten (a name as one of `regex`'s), and
        the index after its opening."""
        named = None
        if pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            named = _name(pattern, i + 2)
        refs: tuple[str, ...] = ()
        if named or not pattern.startswith("(?", i):
            self.count += 1
            refs = (str(self.count), named[0]) if named else (str(self.count),)
        self.stack.append(refs)
        self.open.update(refs)
        return (f"(?P<{named[0]}>", named[1]) if named else ("(", i + 1)

    def close(self) -> None:
        if self.stack:
            self.open.difference_update(self.stack.pop())


def _escape_outside(pattern: str, i: int, open_groups: set[str]) -> tuple[str, int]:
    """The escape at `pattern[i]` (a backslash) outside a class, rewritten, and the index
    after it; a backreference to one of `open_groups` (its own group) is the empty text."""
    letter = pattern[i + 1]
    if letter in _OUTSIDE:
        return _OUTSIDE[letter], i + 2
    if letter == "k" and (named := _name(pattern, i + 2)):
        ref = named[0]
        return ("(?:)" if ref in open_groups else f"(?({ref})(?P={ref}))"), named[1]
    if letter in "123456789":
        end = i + 2
        while end < len(pattern) and pattern[end] in "0123456789":
            end += 1
        ref = pattern[i + 1:end]
        return ("(?:)" if ref in open_groups else f"(?({ref})\\{ref})"), end
    if letter in "pP" and (written := _property(pattern, i)):
        return written
    code, after = _code_point(pattern, i)
    if code is not None:
        return f"[{_char(code)}]", after
    return pattern[i:i + 2], i + 2


def _name(pattern: str, i: int) -> tuple[str, int] | None:
    """The group name `<name>` at `pattern[i]` as a name of `regex`'s (`g` and the hex code
    points of the name ECMA-262 reads, `_` between: `<a\\u0041>` is `g61_41`), and the index
    after it; None when there is no name (kept as written, for `regex` to report)."""
    try:
        name, after = group_name(pattern, i)
    except ValueError:
        return None
    return "g" + "_".join(f"{ord(c):x}" for c in name), after


def _property(pattern: str, i: int) -> tuple[str, int] | None:
    """The property escape `\\p{...}` (or `\\P{...}`) at `pattern[i]` in `regex`'s syntax, its
    long names spelt out (`\\p{Lower}` is `\\p{Lowercase}`), and the index after it; None
    when it names no property of ECMA-262's."""
    end = pattern.find("}", i + 3) if pattern.startswith("{", i + 2) else -1
    written = in_regex(pattern[i + 3:end]) if end != -1 else None
    return (f"\\{pattern[i + 1]}{{{written}}}", end + 1) if written else None


def _code_point(pattern: str, i: int) -> tuple[int | None, int]:
    """The code point the escape at `pattern[i]` stands for when Python reads it otherwise
    (`\\cX`, `\\u{...}`, a surrogate pair `\\uD83D\\uDE00`), and the index after it; None when
    Python reads it as ECMA-262 does."""
    letter = pattern[i + 1]
    if letter == "c" and i + 2 < len(pattern) and pattern[i + 2].isascii() and pattern[i + 2].isalpha():
        return ord(pattern[i + 2]) % 32, i + 3
    if letter != "u":
        return None, i + 2
    if pattern.startswith("{", i + 2) and (end := pattern.find("}", i + 3)) != -1:
        digits = pattern[i + 3:end]
        if digits and all(d in "0123456789abcdefABCDEF" for d in digits) and int(digits, 16) <= _LAST:
            return int(digits, 16), end + 1
        return None, i + 2
    high, low = _hex(pattern, i + 2), _hex(pattern, i + 8) if pattern.startswith("\\u", i + 6) else None
    if high is not None and low is not None and 0xD800 <= high <= 0xDBFF and 0xDC00 <= low <= 0xDFFF:
        return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00), i + 12
    return None, i + 2


def _hex(pattern: str, i: int, width: int = 4) -> int | None:
    """The number that `width` hex digits at `pattern[i]` write, or None."""
    digits = pattern[i:i + width]
    if len(digits) == width and all(d in "0123456789abcdefABCDEF" for d in digits):
        return int(digits, 16)
    return None


def _class(pattern: str, start: int) -> tuple[str, int]:
    """The class that opens at `pattern[start]`, rewritten, and the index after it: its
    first `]` closes it (`[]` matches nothing, `[^]` anything); a `-` between two single
    characters makes a range, else it is a member. A negated class with a property escape
    among its members is any character the class of its members does not match."""
    i = start + 1
    negated = pattern.startswith("^", i)
    i += negated
    members: list[_Member] = []
    while i < len(pattern) and pattern[i] != "]":
        if pattern[i] == "\\" and i + 1 < len(pattern):
            member, i = _escape_inside(pattern, i)
        else:
            member, i = (None if pattern[i] == "-" else ord(pattern[i])), i + 1
        members.append(member)
    if i >= len(pattern):
        return pattern[start:], len(pattern)  # unclosed: kept, for `regex` to report
    if not members:
        return ("(?s:.)" if negated else "(?!)"), i + 1
    if negated and any(isinstance(member, str) and member[1:2] in ("p", "P") for member in members):
        return f"(?:(?![{_members(members)}])(?s:.))", i + 1
    return "[" + "^" * negated + _members(members) + "]", i + 1


def _escape_inside(pattern: str, i: int) -> tuple[_Member, int]:
    """A class member that the escape at `pattern[i]` stands for, and the index after it."""
    letter = pattern[i + 1]
    if letter in _SETS:
        return _SETS[letter], i + 2
    if letter == "b":
        return 0x08, i + 2
    if letter in _CONTROLS:
        return _CONTROLS[letter], i + 2
    code, after = _code_point(pattern, i)
    if code is not None:
        return code, after
    if letter == "u" and (code := _hex(pattern, i + 2)) is not None:
        return code, i + 6
    if letter == "x" and (code := _hex(pattern, i + 2, 2)) is not None:
        return code, i + 4
    if letter == "0" and not pattern[i + 2:i + 3].isdigit():
        return 0, i + 2
    if letter in "pP" and (written := _property(pattern, i)):
        return written
    if not (letter.isascii() and letter.isalnum()):
        return ord(letter), i + 2  # an identity escape: `\-`, `\]`, `\/`
    return pattern[i:i + 2], i + 2  # kept for `regex` to read (or refuse)


def _members(members: list[_Member]) -> str:
    out: list[str] = []
    k = 0
    while k < len(members):
        member = members[k]
        end = members[k + 2] if k + 2 < len(members) else None
        if isinstance(member, int) and isinstance(end, int) and members[k + 1] is None:
            out.append(f"{_char(member)}-{_char(end)}")
            k += 3
            continue
        out.append(_char(ord("-")) if member is None else _char(member) if isinstance(member, int) else
                   _ranges(member) if isinstance(member, tuple) else member)
        k += 1
    return "".join(out)
