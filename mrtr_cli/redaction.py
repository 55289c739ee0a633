"""Finding secrets in text as a person will read it (`Environment.redact` applies it).

A secret a server echoes need not come back as one run of characters: it may be cut in
two by an escape sequence (`abcd\\x1b[0mefgh`), which a terminal hides and which
`render.sanitize` turns into the visible text `\\x1b[0m`; by a control character, shown as
`\\x07` or, in a JSON line, `\\u0007`; by a zero-width or bidi character, which nothing
shows; by a line break and indentation where the text is wrapped. A reader joins the two
parts again at a glance. So a secret is looked for in the text's *skeleton*: the text with
all of that left out, and with the escapes a reader decodes (`\\"`, `\\\\`, `\\u00e9`)
decoded. Whatever the skeleton match covers in the text, breaks included, is replaced.

What is left out of the skeleton (`_SEQUENCES`, `_OTHER_NOISE`), in every form it is
written in (raw, as `sanitize` shows it, as JSON escapes it):
- escape sequences: CSI (`ESC [ ... m`), OSC (`ESC ] ... BEL`), and any other `ESC x`;
- C0 and C1 control characters and DEL (tab and newline included);
- Unicode's default-ignorable code points (zero-width space and joiners, bidi marks,
  embeddings, overrides and isolates, the soft hyphen, variation selectors, the byte order
  mark, Hangul fillers, tag characters) and the line and paragraph separators;
- a line break with the spaces or tabs around it (wrapped text).

Spaces inside a line stay: `ab cd` is not `abcd`. A secret whose skeleton is shorter than
`MIN_SKELETON` characters is only replaced where it stands whole. Where text was cut short
(`render.sanitize` ends every cut with `…`), a secret's first `MIN_CUT` characters or more
just before the ellipsis are replaced too.

Cost: a text without a backslash, control or ignorable character (most) is searched with
`str.find` alone; only the others are read token by token.

This module sits at the bottom of the layers (docs/architecture.md): it knows no
`Environment`.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable

#: The shortest skeleton of a secret that is looked for across breaks (characters).
MIN_SKELETON = 4

#: The fewest first characters of a secret that count as showing it where text was cut
#: short (before an `ELLIPSIS`).
MIN_CUT = 6

#: What ends text that was cut short (`render.sanitize.quote_text`, `cut`).
ELLIPSIS = "\u2026"

#: What stands for a secret in text.
MARK = "***"

_HEX = "[0-9a-fA-F]"
# An escape character in each of its written forms: raw, as `sanitize` shows it (`\x1b`,
# `\x9b` for the C1 CSI), as JSON writes it (`\u001b`), and as people write it (`\033`).
_ESC = r"(?:\x1b|\\x1[bB]|\\u001[bB]|\\033)"
_CSI1 = r"(?:\x9b|\\x9[bB]|\\u009[bB])"
_OSC1 = r"(?:\x9d|\\x9[dD]|\\u009[dD])"
_BEL = r"(?:\x07|\\x07|\\u0007)"
_ST = rf"(?:{_BEL}|{_ESC}\\\\?|\x9c|\\x9[cC]|\\u009[cC])"
# Default-ignorable code points (Unicode DerivedCoreProperties) and the line/paragraph separators.
_IGNORABLE = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e"
              "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
              "\U0001d173-\U0001d17a\U000e0000-\U000e0fff")
# The same as `\uXXXX` escapes (JSON with ensure_ascii, `sanitize`), and the controls as `\xXX`.
_IGNORABLE_ESCAPED = (r"\\u(?:00[01]" + _HEX + r"|007[fF]|00[89]" + _HEX + r"|00[aA][dD]|034[fF]|061[cC]"
                      r"|115[fF]|1160|17[bB][45]|180[b-fB-F]|20[0-6]" + _HEX + r"|3164|[fF][eE]0" + _HEX +
                      r"|[fF][eE][fF][fF]|[fF][fF][aA]0|[fF][fF][fF][0-8])")
# Those beyond the BMP as surrogate-pair escapes (`sanitize` writes the tag character U+E0041 as
# `\udb40\udc41`, as JSON does): U+1BCA0-1BCA3, U+1D173-1D17A, U+E0000-E0FFF.
_ASTRAL_IGNORABLE_ESCAPED = (r"\\u[dD]82[fF]\\u[dD][cC][aA][0-3]|\\u[dD]834\\u[dD][dD]7[3-9aA]"
                             r"|\\u[dD][bB]4[0-3]\\u[dD][c-fC-F]" + _HEX * 2)
# An escape cut short by the ellipsis that ends a cut (`\udb40\udc4…`, `\x1…`): the break it began.
_CUT_ESCAPE = (r"\\(?:u[dD][89abAB]" + _HEX * 2 + r"(?:\\(?:u" + _HEX + r"{0,3})?)?|u" + _HEX + r"{0,3}|x" + _HEX
               + r"?)?(?=\u2026)")
_CONTROL_ESCAPED = r"\\x(?:[01]" + _HEX + r"|7[fF]|[89]" + _HEX + r")|\\[rntbf]"

# An escape sequence read as a terminal reads it: CSI (cursor, colour, erase) with its final
# byte, OSC with its text (a hyperlink's target, a title: not shown) up to its terminator,
# any other escape with its intermediate and final bytes.
_SEQUENCES = (rf"{_OSC1}|{_ESC}\](?:(?!{_ST})[^\u2026]){{0,512}}{_ST}?"
              rf"|(?:{_ESC}\[|{_CSI1})[0-?]*[ -/]*[@-~]?"
              rf"|{_ESC}[ -/]*[0-~]?")
# The same read literally: the escape character (and a CSI's or OSC's bracket and numbers)
# alone, the letters after it kept. A secret is looked for in both readings, as a reader
# of `sanitize`d text (`\x1b[efgh`) may take either.
_LITERAL = rf"(?:{_ESC}[\[\]]?|{_CSI1}|{_OSC1})[0-?]*"
_OTHER_NOISE = (
    r"|(?:\r\n|\r|\n|\\r\\n|\\n|\\r)[ \t]*"  # a line break, with the indentation after it
    r"|[\x00-\x1f\x7f-\x9f" + _IGNORABLE + "\ud800-\udfff]"  # a lone surrogate: an escape cut in two, decoded
    rf"|{_ASTRAL_IGNORABLE_ESCAPED}|{_IGNORABLE_ESCAPED}|{_CONTROL_ESCAPED}|{_CUT_ESCAPE}"
)
# What a reader decodes: a surrogate pair, a `\uXXXX` escape (JSON), `\"`, `\\`, `\/`.
_DECODED = (r"\\u[dD][89abAB]" + _HEX * 2 + r"\\u[dD][c-fC-F]" + _HEX * 2 + r"|\\u" + _HEX * 4 +
            r'|\\["\\\\/]')


def _token(sequences: str) -> re.Pattern[str]:
    return re.compile(f"(?P<noise>(?:{sequences}{_OTHER_NOISE})+)|(?P<decoded>{_DECODED})", re.DOTALL)


#: Where a token can start: every one starts with a backslash, a control or an ignorable
#: character (found at C speed; the tokens are tried only there).
_START = re.compile("[" + r"\\" + "\x00-\x1f\x7f-\x9f" + _IGNORABLE + "\ud800-\udfff]")


_TOKEN = _token(_SEQUENCES)
_DECODE = re.compile(f"(?P<decoded>{_DECODED})")
_TOKEN_LITERAL = _token(_LITERAL)
_ANY_ESC = re.compile(f"{_ESC}|{_CSI1}|{_OSC1}")


def _decode(escape: str) -> str:
    """The character a `_DECODED` escape stands for."""
    if escape[1] != "u":
        return escape[1]
    if len(escape) == 12:  # a surrogate pair
        high, low = int(escape[2:6], 16), int(escape[8:12], 16)
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    return chr(int(escape[2:6], 16))


def _tokens(text: str, token: re.Pattern[str]) -> Iterable[tuple[int, int, str]]:
    """The tokens of `text`, in order, not overlapping, as (start, end, what the reader
    takes: "" for a break, the character for a decoded escape): `token` is tried only
    where `_START` finds a place to start, and a line break also covers the spaces and
    tabs before it."""
    at = 0
    for candidate in _START.finditer(text):
        pos = candidate.start()
        if pos < at:
            continue
        m = token.match(text, pos)
        if m is None:
            continue
        if m.lastgroup == "decoded":
            yield pos, m.end(), _decode(m.group())
        else:
            while pos > at and text[pos - 1] in " \t" and text[m.start()] in "\r\n\\":
                pos -= 1
            yield pos, m.end(), ""
        at = m.end()


class Skeleton:
    """`text` as a reader takes it in (see the module docstring), with the way back to
    `text`: `text_span(start, end)` is the part of `text` that the skeleton's characters
    `start` to `end` come from, breaks between them included.

    Attributes:
        text: the skeleton (str).
    """

    def __init__(self, text: str, token: re.Pattern[str] = _TOKEN):
        # Each piece: its start in the skeleton, its start and end in the text, and whether
        # it is the text itself (one skeleton character per character) or one decoded escape.
        self._starts: list[int] = []
        self._pieces: list[tuple[int, int, bool]] = []
        parts: list[str] = []
        size = 0
        at = 0
        for start, end, taken in _tokens(text, token):
            if start > at:
                self._add(size, at, start, True)
                parts.append(text[at:start])
                size += start - at
            if taken:
                self._add(size, start, end, False)
                parts.append(taken)
                size += 1
            at = end
        if at < len(text):
            self._add(size, at, len(text), True)
            parts.append(text[at:])
        self.text = "".join(parts)

    def _add(self, start: int, begin: int, end: int, verbatim: bool) -> None:
        self._starts.append(start)
        self._pieces.append((begin, end, verbatim))

    def _where(self, index: int) -> tuple[int, int]:
        """The span of `text` that skeleton character `index` comes from."""
        i = bisect.bisect_right(self._starts, index) - 1
        begin, end, verbatim = self._pieces[i]
        if not verbatim:
            return begin, end
        at = begin + index - self._starts[i]
        return at, at + 1

    def text_span(self, start: int, end: int) -> tuple[int, int]:
        """The span of `text` from skeleton character `start` to `end` (exclusive, end > start)."""
        return self._where(start)[0], self._where(end - 1)[1]


def skeleton(text: str) -> str:
    """`text` as a reader takes it in: breaks left out, escapes decoded (module docstring)."""
    if not _START.search(text):
        return text
    return Skeleton(text).text


@functools.lru_cache(maxsize=1024)
def _secret_skeleton(secret: str) -> str:
    return skeleton(secret)


def _occurrences(haystack: str, needle: str) -> Iterable[tuple[int, int]]:
    at = haystack.find(needle)
    while at >= 0:
        yield at, at + len(needle)
        at = haystack.find(needle, at + 1)


#: The beginning of a visible escape (`\\x1`, `\\u20`) where text was cut short.
_PARTIAL_ESCAPE = re.compile(r"\\(?:[xX][0-9a-fA-F]?|u[0-9a-fA-F]{0,3}|03?)?$")


def _shown(haystack: str, bones: str) -> Iterable[tuple[int, int]]:
    """Where `haystack` (a skeleton) shows the secret skeleton `bones`: whole, or its
    beginning (`MIN_CUT` characters or more) just before an ellipsis, where text was cut."""
    if bones in haystack:
        yield from _occurrences(haystack, bones)
    if ELLIPSIS not in haystack or len(bones) <= MIN_CUT:
        return
    head = bones[:MIN_CUT]
    for cut in _occurrences(haystack, ELLIPSIS):
        end = cut[0]
        partial = _PARTIAL_ESCAPE.search(haystack, max(end - 8, 0), end)  # an escape cut short
        if partial:
            end = partial.start()
        at = haystack.find(head, max(end - len(bones) + 1, 0), end)
        while at >= 0:
            if bones.startswith(haystack[at:end]):
                yield at, end
                break
            at = haystack.find(head, at + 1, end)


def find(text: str, secrets: Iterable[str]) -> list[tuple[int, int]]:
    """The spans of `text` that show one of `secrets`, merged and in order: whole, cut in
    two by breaks, or cut short before an ellipsis (`…`, the end of every cut
    `render.sanitize` makes) with at least its first `MIN_CUT` characters shown. A secret
    whose skeleton is shorter than `MIN_SKELETON` counts only whole.

    The text is read in layers: its JSON escapes decoded first (so that `sanitize`d text
    in a JSON line, with `\\\\x1b` in it, is read as `\\x1b`), then its breaks left out,
    in the terminal's and the literal reading of escape sequences."""
    spans: list[tuple[int, int]] = []
    shaped: list[str] = []
    for secret in secrets:
        if not secret:
            continue
        if secret in text:
            spans.extend(_occurrences(text, secret))
        bones = _secret_skeleton(secret)
        if len(bones) >= MIN_SKELETON:
            shaped.append(bones)
    if shaped and _START.search(text):
        decoded = Skeleton(text, _DECODE) if "\\" in text else None
        inner = decoded.text if decoded else text
        readings = (_TOKEN, _TOKEN_LITERAL) if _ANY_ESC.search(inner) else (_TOKEN,)
        for token in readings:
            plan = Skeleton(inner, token)
            for bones in shaped:
                for found in _shown(plan.text, bones):
                    span = plan.text_span(*found)
                    spans.append(decoded.text_span(*span) if decoded else span)
    else:
        for bones in shaped:
            spans.extend(_shown(text, bones))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every span that shows one of `secrets` (`find`) replaced by `MARK`."""
    spans = find(text, secrets)
    if not spans:
        return text
    out: list[str] = []
    at = 0
    for start, end in spans:
        out += [text[at:start], MARK]
        at = end
    out.append(text[at:])
    return "".join(out)


def holds(text: str, secrets: Iterable[str]) -> bool:
    """Whether `text` shows one of `secrets`, whole or cut by breaks (`find`)."""
    return bool(find(text, secrets))
