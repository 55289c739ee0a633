"""Make untrusted server text inert before it reaches a terminal.

Text from a server (messages, titles, descriptions, URLs, tool output) may carry
ANSI/OSC escape sequences, carriage-return overwrite tricks, C1 controls,
bidirectional overrides or characters that render as nothing (the soft hyphen, tag
characters, variation selectors: text hidden in plain sight). `sanitize` keeps newlines
and tabs and turns every other control, format and default-ignorable character into a
visible escape such as `\\x1b`, `\\r` or `\\u00ad`, so the person sees exactly what was
sent and the terminal interprets none of it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator

# What is made visible: every character of Unicode's general categories Cc (C0 and C1
# controls, DEL), Cf (format characters: bidi embeddings, overrides, isolates and marks, the
# soft hyphen, the word joiner, the tag characters U+E0000-E007F that "smuggle" invisible
# ASCII, ...), Cs (lone surrogates: valid JSON escapes, but no UTF-8 exists for them), Zl and
# Zp (terminals and editors treat the line/paragraph separators as line breaks), and the
# other default-ignorable code points (`_OTHER_IGNORABLE`), which render as nothing. The
# categories are read from the running Python's Unicode data (`unicodedata`), so a format
# character a later Unicode adds is covered too.
_HIDDEN_CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))

#: Default-ignorable code points (Unicode DerivedCoreProperties.txt) outside those categories:
#: `Other_Default_Ignorable_Code_Point` (the combining grapheme joiner, the Hangul fillers, the
#: Khmer inherent vowels, the Mongolian free variation selectors, the reserved U+2065,
#: U+FFF0-FFF8 and U+E0000-E0FFF) and the variation selectors (U+FE00-FE0F, U+E0100-E01EF).
#: `unicodedata` has no such property: these are Unicode's own list, which is stable.
_OTHER_IGNORABLE = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
                    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0),
                    (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF))

#: Of those, the printable ones (`str.isprintable` accepts them): text with none of these,
#: and printable, has nothing to make visible. Written out, not computed at import (a
#: fraction of a millisecond every run pays); tests/render/test_terminal_output.py checks
#: it against the running Python's Unicode data.
_PRINTABLE_IGNORABLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u3164\uffa0"
                                 + "".join(map(chr, (*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)))))

#: Invisible characters that real text needs: the zero-width joiner and non-joiner (emoji
#: sequences, Persian and Indic scripts), the zero-width space (a word break in Thai, Khmer,
#: ...) and the text/emoji presentation selectors (U+FE0E, U+FE0F: `❤️`). They are kept where
#: text uses them: at most two in a row, right after a visible character (`❤️‍🔥` is U+2764
#: U+FE0F U+200D U+1F525). Anywhere else (at the start, after a space or another invisible
#: character, three or more in a row: a way to hide bits in text) they are made visible too;
#: the zero-width space always is in single-line text (commands, URLs, names).
_JOINERS = "[\u200b-\u200d\ufe0e\ufe0f]+"
_JOINER_SET = frozenset("\u200b\u200c\u200d\ufe0e\ufe0f")


def _is_hidden(ch: str) -> bool:
    """Whether `ch` is a control, format or default-ignorable character (see above)."""
    import unicodedata  # noqa: PLC0415 - only text with an unprintable character needs the Unicode data

    if unicodedata.category(ch) in _HIDDEN_CATEGORIES:
        return True
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in _OTHER_IGNORABLE)


def _escape(ch: str) -> str:
    """`ch` as an escape that shows its code: `\\r`, `\\x1b`, `\\u00ad`, `\\u202e`, and a character beyond
    the BMP as its UTF-16 surrogate pair, as JSON writes it (`\\udb40\\udc41` for U+E0041)."""
    code = ord(ch)
    if ch == "\r":
        return "\\r"
    if code <= 0x9F:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _json_escape(ch: str) -> str:
    """`ch` as a JSON string escape (`\\u00ad`; beyond the BMP a surrogate pair)."""
    return _escape(ch) if ord(ch) > 0x9F else f"\\u{ord(ch):04x}"


def _make_visible(text: str, escape: Callable[[str], str], *, single_line: bool) -> str:
    """`text` with each hidden character (`_is_hidden`, and a joiner out of place) written
    as `escape` writes it. Each distinct character is judged once, the text rewritten by
    `str.translate` (at C speed)."""
    table: dict[int, str] = {}
    joiners = False
    for ch in set(text):
        if ch in _JOINER_SET and not (single_line and ch == "\u200b"):
            joiners = True
        elif ch in "\n\t":
            if single_line:
                table[ord(ch)] = "\\n" if ch == "\n" else "\\t"
        elif _is_hidden(ch):
            table[ord(ch)] = escape(ch)
    if joiners:
        def joiner_run(match: re.Match[str]) -> str:
            run, start = match.group(0), match.start()
            before = text[start - 1] if start else " "  # a quote opens a string: nothing to join
            if len(run) <= 2 and not before.isspace() and before != '"' and ord(before) not in table \
                    and before not in _JOINER_SET:
                return run
            return "".join(escape(ch) for ch in run)

        text = re.sub(_JOINERS, joiner_run, text)
    return text.translate(table) if table else text


_SGR = "\x1b\\[[0-9;:]*m"


def sanitize(text: str, *, single_line: bool = False, drop_colours: bool = False) -> str:
    """Return `text` with every terminal control and invisible character made visible and inert.

    Args:
        text: untrusted text from a server.
        single_line: also make `\\n`, `\\t` and the zero-width space visible (for titles,
            URLs, names).
        drop_colours: remove plain SGR colour sequences (`ESC [ ... m`) instead of
            showing them (used for a server's own stderr log lines).

    Returns:
        A string safe to write to a terminal; visible characters are unchanged, each
        control, format and default-ignorable character is shown as its escape (`\\x1b`,
        `\\u00ad`, `\\udb40\\udc41` for the tag character U+E0041).
    """
    if not isinstance(text, str):
        text = str(text)
    if text.isprintable() and (text.isascii() or _PRINTABLE_IGNORABLE.isdisjoint(text)):
        return text  # nothing below would change it
    if drop_colours:
        text = re.sub(_SGR, "", text)
    return _make_visible(text, _escape, single_line=single_line)


# JSON output keeps every value exactly, but escapes the characters `sanitize` makes visible
# (json.dumps already escapes C0 controls) as \uXXXX: all of them are in strings, where an
# escape stands for the same character. ASCII text without DEL is kept as it is.
def _json_safe(text: str) -> str:
    if text.isascii() and "\x7f" not in text:
        return text
    if text.isprintable() and _PRINTABLE_IGNORABLE.isdisjoint(text):
        return text
    return _make_visible(text, _json_escape, single_line=False)


def dumps_safe(value: object, *, indent: int | None = None) -> str:
    """Serialise `value` as JSON that is lossless and inert on a terminal.

    The output parses back to exactly `value`; non-ASCII text stays readable,
    only control and bidi-override characters are written as `\\uXXXX` escapes.
    """
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return _json_safe(text)


def iter_dumps_safe(value: object, *, indent: int | None = None) -> Iterator[str]:
    """`dumps_safe(value)` in pieces, as the JSON encoder produces them: the same text,
    without ever holding all of it (a 50 MB result is printed with one more copy of its
    largest string at most, not three)."""
    for chunk in json.JSONEncoder(ensure_ascii=False, indent=indent).iterencode(value):
        yield _json_safe(chunk)


#: The most characters of a value quoted in a message (`quote_value`, `quote_text`),
#: the ellipsis included.
QUOTE_CHARS = 120


#: The most characters of a server's own words one line of a message shows, the ellipsis
#: included: a JSON-RPC error's `message`, a reason, a task's or a progress notification's
#: status message, a log entry's logger (`one_line(text, SERVER_TEXT_CHARS)`). Longer than
#: `QUOTE_CHARS`: this is the text a person reads to learn what went wrong.
SERVER_TEXT_CHARS = 500
#: The most characters of one line of an error or hint `render.errors` writes (mrtr's own
#: words, with the server values they quote already cut): a bound on the line, whatever
#: it was built from.
LINE_CHARS = 2000


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(text: object, limit: int = QUOTE_CHARS) -> str:
    """Server text as it goes into a one-line message, unquoted: every control, bidi
    character, newline and lone surrogate made visible (`sanitize(single_line=True)`), cut to
    `limit` characters with an ellipsis. Text is only ever cut so, with the ellipsis: where
    a secret is cut short, redaction (`redaction.find`) sees that the text went on."""
    return _cut(sanitize(str(text)[: limit + 1], single_line=True), limit)


def cut_text(text: object, limit: int) -> str:
    """Server text that may span lines (a log entry) as it goes to stderr: every control,
    bidi character and lone surrogate made visible (`sanitize`; newlines and tabs kept),
    cut to `limit` characters with an ellipsis, as `one_line` cuts."""
    return _cut(sanitize(str(text)[: limit + 1]), limit)


def quote_value(value: object, *, limit: int = QUOTE_CHARS) -> str:
    """A value from a server (or anything JSON) as it goes into a one-line message: its
    JSON text (`{"": {}}`, `"t\\ud800"`, `7`), with terminal controls, bidi characters and
    lone surrogates escaped, cut to `limit` characters with an ellipsis. Only as much of
    the value is encoded as is shown (a 60 MB value costs no more than a short one).
    Values JSON cannot hold are shown by `str()`."""
    pieces: list[str] = []
    size = 0
    try:
        for chunk in iter_dumps_safe(value):
            pieces.append(chunk)
            size += len(chunk)
            if size > limit:
                break
        text = "".join(pieces)
    except (TypeError, ValueError):
        text = sanitize(str(value)[: limit + 1], single_line=True)
    return _cut(text, limit)


def quote_text(text: object, *, limit: int = QUOTE_CHARS) -> str:
    """Text someone typed (an argument, a file name, an id) or a server's name as it goes
    into a one-line message: in single quotes, every control, bidi character, newline and
    lone surrogate made visible (`sanitize(single_line=True)`), cut to `limit` characters
    with an ellipsis."""
    return "'" + one_line(text, limit) + "'"


#: The most digits of an integer shown whole in text output (`short_number`).
NUMBER_DIGITS = 15


def short_number(value: int | float) -> str:
    """A number from a server for text output: an integer of more than `NUMBER_DIGITS`
    digits as its first digits and its length (`123456…(4000 digits)`), a float as `:g`.
    (`--json` prints the number whole.)"""
    if isinstance(value, bool) or not isinstance(value, int):
        return f"{value:g}" if isinstance(value, float) else str(value)
    digits = str(abs(value))
    if len(digits) <= NUMBER_DIGITS:
        return str(value)
    return f"{'-' if value < 0 else ''}{digits[:6]}…({len(digits)} digits)"
