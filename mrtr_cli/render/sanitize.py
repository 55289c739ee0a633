"""Make untrusted server text inert before it reaches a terminal.

Text from a server (messages, titles, descriptions, URLs, tool output) may carry
ANSI/OSC escape sequences, carriage-return overwrite tricks, C1 controls or
bidirectional overrides. `sanitize` keeps newlines and tabs and turns every
other control character into a visible escape such as `\\x1b` or `\\r`, so the
person sees exactly what was sent and the terminal interprets none of it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

# C0 controls except TAB and LF, DEL, C1 controls, and Unicode format characters
# that reorder or hide text (bidi embeddings/overrides/isolates; zero-width joiners
# are left alone as they are needed for emoji, and the zero-width space as some scripts
# use it between words, except in single-line text such as commands, URLs and names;
# the line/paragraph separators are made visible because terminals and editors treat
# them as line breaks). Every character these patterns match is one `str.isprintable` refuses,
# so printable text is returned as it is, and the patterns are compiled only for text that
# needs them (`re`'s own cache keeps them): compiling them costs about a millisecond, which a
# run whose text is all printable does not pay (docs/performance.md).
_UNSAFE = ("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
           "\ud800-\udfff]")  # lone surrogates: valid JSON escapes, but no UTF-8 exists for them
_SINGLE_LINE_EXTRA = "[\n\t\u200b\u2060\ufeff]"


def _visible(match: re.Match[str]) -> str:
    ch = match.group(0)
    code = ord(ch)
    if ch == "\r":
        return "\\r"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


_SGR = "\x1b\\[[0-9;:]*m"


def sanitize(text: str, *, single_line: bool = False, drop_colours: bool = False) -> str:
    """Return `text` with every terminal control made visible and inert.

    Args:
        text: untrusted text from a server.
        single_line: also make `\\n` and `\\t` visible (for titles, URLs, names).
        drop_colours: remove plain SGR colour sequences (`ESC [ ... m`) instead of
            showing them (used for a server's own stderr log lines).

    Returns:
        A string safe to write to a terminal; printable characters are unchanged.
    """
    if not isinstance(text, str):
        text = str(text)
    if text.isprintable():  # nothing below would match
        return text
    if drop_colours:
        text = re.sub(_SGR, "", text)
    out = re.sub(_UNSAFE, _visible, text)
    if single_line:
        out = re.sub(_SINGLE_LINE_EXTRA, lambda m: {"\n": "\\n", "\t": "\\t"}.get(m.group(0)) or _visible(m), out)
    return out


# JSON output keeps every value exactly, but escapes the characters a terminal
# would interpret (json.dumps already escapes C0 controls) as \\uXXXX.
# Lone surrogates (a server may send "\\ud800") are escaped too: UTF-8 has no bytes for them.
# Every character it matches is DEL or beyond ASCII: ASCII text without DEL is kept as it is.
_JSON_UNSAFE = "[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"


def _json_safe(text: str) -> str:
    if text.isascii() and "\x7f" not in text:
        return text
    return re.sub(_JSON_UNSAFE, _json_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


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
