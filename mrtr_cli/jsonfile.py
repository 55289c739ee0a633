"""JSON as mrtr reads and writes it: strict parsing (`loads_strict`), depth and number
checks, and the writers (`dumps_utf8`, `write_json_atomic`). A JSON document the user
names (answer files, pending documents) is read by `userfiles.load_json_document`, with
the rules of every user file.

JSON has no NaN or Infinity (RFC 8259 section 6), though Python's `json` reads and writes
them: `loads_strict` refuses them (and numbers too large for a float, such as `1e400`),
for everything the user types or a server sends; `dumps_strict` for everything sent.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from typing import Any

from mrtr_cli.platform.fileopen import BINARY

#: A lone surrogate: valid as a JSON escape ("\\ud800"), but with no UTF-8 form. (A pattern
#: text, compiled at its first use and kept by `re`'s own cache: ASCII text holds none, and
#: is not searched, docs/performance.md.)
_LONE_SURROGATE = "[\ud800-\udfff]"


#: The most digits an integer in JSON may have (Python's own limit on converting a
#: string to an int, `sys.get_int_max_str_digits()`, is 4300 by default).
MAX_INT_DIGITS = 4300

#: `json.dumps(value, ensure_ascii=False)`'s encoder, made once (`json.dumps` makes one for
#: each call given options; an encoder keeps no state between calls, so threads share it).
_UNICODE_TEXT = json.JSONEncoder(ensure_ascii=False)
#: The same for one compact line with no NaN or Infinity (`wire_text`).
_WIRE_TEXT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def json_type(value: object) -> str:
    """The JSON type name of a parsed JSON value, for messages: "null", "boolean",
    "integer", "number", "string", "array" or "object" (never a Python type name)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


def a_json_type(value: object) -> str:
    """`json_type` with its article, for a sentence: "null", "an array", "a string"."""
    kind = json_type(value)
    return kind if kind == "null" else ("an " if kind[0] in "aeio" else "a ") + kind


class UnreadableNumber(ValueError):
    """A JSON text holds a number mrtr does not run: NaN, Infinity, one that overflows a
    float (`NonFiniteNumber`) or an integer of more than `MAX_INT_DIGITS` digits
    (`NumberTooLong`).

    Attributes:
        token: the offending text as written (`NaN`, `1e400`, the digits).
    """

    def __init__(self, message: str, token: str):
        super().__init__(message)
        self.token = token


class NonFiniteNumber(UnreadableNumber):
    """A JSON text holds NaN, Infinity, -Infinity or a number that overflows a float."""

    def __init__(self, token: str):
        if overflows(token):
            shown = token if len(token) <= 40 else token[:39] + "…"
            super().__init__(f"the number {shown} is out of range (beyond what a 64-bit float holds)", token)
        else:
            super().__init__(f"{token} is not a finite number (JSON has no NaN or Infinity)", token)


def overflows(token: str) -> bool:
    """`token` is a JSON number (as JSON writes them) too large for a float, e.g. `1e400`;
    False for `NaN`, `Infinity` and `-Infinity`, which are no JSON at all."""
    return token[:1] in "-0123456789" and token not in ("-Infinity", "")


class NumberTooLong(UnreadableNumber):
    """A JSON text holds an integer of more than `MAX_INT_DIGITS` digits."""

    def __init__(self, token: str):
        digits = len(token.lstrip("-"))
        super().__init__(f"an integer of {digits} digits is too long (the limit is {MAX_INT_DIGITS} digits)",
                         token)


def _bounded_int(token: str) -> int:
    if len(token) > MAX_INT_DIGITS and len(token.lstrip("-")) > MAX_INT_DIGITS:
        raise NumberTooLong(token)
    return int(token)


def _constant(token: str) -> Any:
    raise NonFiniteNumber(token)


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise NonFiniteNumber(token)
    return value


def parse_strict(text: str | bytes) -> Any:
    """`json.loads` refusing non-finite numbers and integers of more than
    `MAX_INT_DIGITS` digits (each number costs a Python call; NaN and Infinity cost
    nothing until they appear).

    Raises:
        NonFiniteNumber: NaN, Infinity or an overflowing number.
        NumberTooLong: an integer with too many digits.
        ValueError: not valid JSON.
    """
    return json.loads(text, parse_constant=_constant, parse_float=_finite_float, parse_int=_bounded_int)


def json_depth(value: object) -> int:
    """How deeply arrays and objects nest in `value` (a scalar is 0, `[]` is 1), counted
    without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return deepest


def loads_strict(text: str) -> Any:
    """`parse_strict` for text the user gave, nested at most `MAX_JSON_DEPTH` levels; a
    byte order mark at its start is no part of the JSON (RFC 8259 section 8.1 lets a
    parser ignore it; some editors write one).

    Raises:
        json.JSONDecodeError: not valid JSON, a non-finite number or an integer of more
            than `MAX_INT_DIGITS` digits (the message says so, the position points at the
            first occurrence of its text), or nested too deeply.
    """
    from mrtr_cli.limits import MAX_JSON_DEPTH  # noqa: PLC0415 - lazy for start-up time

    too_deep = f"nested too deeply (the limit is {MAX_JSON_DEPTH} levels)"
    text = text.removeprefix("\ufeff")
    try:
        value = parse_strict(text)
    except UnreadableNumber as exc:
        raise json.JSONDecodeError(str(exc), text, max(text.find(exc.token), 0)) from None
    except RecursionError:
        raise json.JSONDecodeError(too_deep, text, 0) from None
    if isinstance(value, dict | list) and json_depth(value) > MAX_JSON_DEPTH:
        raise json.JSONDecodeError(too_deep, text, 0)
    return value


def dumps_strict(value: object, **kw: Any) -> str:
    """`json.dumps` with `allow_nan=False` (a non-finite float is a ValueError, never sent)."""
    return json.dumps(value, allow_nan=False, **kw)


def wire_text(value: object) -> str:
    """`dumps_strict(value, ensure_ascii=False, separators=(",", ":"))`: compact JSON text,
    not ASCII-escaped.

    Raises:
        ValueError: a non-finite float.
    """
    return _WIRE_TEXT.encode(value)


def escape_lone_surrogates(json_text: str) -> str:
    """`json_text` (JSON written with `ensure_ascii=False`) with every lone surrogate
    written as its JSON escape: the same JSON value, now with a UTF-8 form. (Outside
    string literals JSON text has only ASCII, so every such character is inside one.)"""
    if json_text.isascii():
        return json_text
    return re.sub(_LONE_SURROGATE, lambda m: f"\\u{ord(m.group(0)):04x}", json_text)


def lone_surrogate_in(value: object) -> str | None:
    """The first lone surrogate in any string of `value` (a JSON value), else None."""
    text = _UNICODE_TEXT.encode(value)
    found = None if text.isascii() else re.search(_LONE_SURROGATE, text)
    return found.group(0) if found else None


def unsendable_text(value: object) -> str | None:
    """Why `value` (a JSON value the user gave) cannot be sent: "not sent: the text holds a
    lone surrogate (\\uXXXX), which is not valid Unicode" (it has no UTF-8 form), else None."""
    surrogate = lone_surrogate_in(value)
    if surrogate is None:
        return None
    return f"not sent: the text holds a lone surrogate (\\u{ord(surrogate):04x}), which is not valid Unicode"


def dumps_utf8(value: object, **kw: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, **kw)` that can always be written as UTF-8:
    text a server sent may hold lone surrogates, written as the escapes they came as."""
    return escape_lone_surrogates(json.dumps(value, ensure_ascii=False, **kw))


def write_json_atomic(path: str, value: object, *, indent: int | None = 2, mode: int = 0o600) -> None:
    """Write `value` as JSON to `path` atomically (a temporary file in the same folder,
    then renamed), readable by the owner only; on any failure the temporary file is
    removed and `path` is unchanged. Any string a server can send is written.

    Raises:
        OSError: the folder or file cannot be written.
    """
    directory = os.path.dirname(path) or "."
    tmp = os.path.join(directory, f".tmp-{os.getpid()}-{os.urandom(6).hex()}.json")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | BINARY, mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(dumps_utf8(value, indent=indent))
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
