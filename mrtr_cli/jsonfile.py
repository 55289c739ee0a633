"""Reading JSON documents the user names on the command line (answer files, pending
documents, batch inputs): one place for the "cannot read" and "not valid JSON" messages.

JSON has no NaN or Infinity (RFC 8259 section 6), though Python's `json` reads and writes
them: `loads_strict` refuses them (and numbers too large for a float, such as `1e400`),
for everything the user types or a server sends; `dumps_strict` for everything sent.
"""

from __future__ import annotations

import json
import math
from typing import Any


class NonFiniteNumber(ValueError):
    """A JSON text holds NaN, Infinity, -Infinity or a number that overflows a float.

    Attributes:
        token: the offending text as written (`NaN`, `1e400`).
    """

    def __init__(self, token: str):
        super().__init__(f"{token} is not a finite number (JSON has no NaN or Infinity)")
        self.token = token


def _constant(token: str) -> Any:
    raise NonFiniteNumber(token)


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise NonFiniteNumber(token)
    return value


def parse_strict(text: str | bytes) -> Any:
    """`json.loads` refusing non-finite numbers (a float costs a Python call; NaN and
    Infinity cost nothing until they appear).

    Raises:
        NonFiniteNumber: NaN, Infinity or an overflowing number.
        ValueError: not valid JSON.
    """
    return json.loads(text, parse_constant=_constant, parse_float=_finite_float)


def json_depth(value: Any) -> int:
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
    """`parse_strict` for text the user gave, nested at most `MAX_JSON_DEPTH` levels.

    Raises:
        json.JSONDecodeError: not valid JSON, a non-finite number (the message says so,
            the position points at the first occurrence of its text), or nested too deeply.
    """
    from mrtr_cli.limits import MAX_JSON_DEPTH  # noqa: PLC0415

    too_deep = f"nested too deeply (the limit is {MAX_JSON_DEPTH} levels)"
    try:
        value = parse_strict(text)
    except NonFiniteNumber as exc:
        raise json.JSONDecodeError(str(exc), text, max(text.find(exc.token), 0)) from None
    except RecursionError:
        raise json.JSONDecodeError(too_deep, text, 0) from None
    if isinstance(value, dict | list) and json_depth(value) > MAX_JSON_DEPTH:
        raise json.JSONDecodeError(too_deep, text, 0)
    return value


def dumps_strict(value: Any, **kw: Any) -> str:
    """`json.dumps` with `allow_nan=False` (a non-finite float is a ValueError, never sent)."""
    return json.dumps(value, allow_nan=False, **kw)

from mrtr_cli.errors import UsageError


def load_json_document(path: str, *, what: str, stdin_text: str | None = None) -> Any:
    """Parse the JSON document at `path` (`-` means `stdin_text`).

    Args:
        path: the file name as the user gave it (used in messages).
        what: what the file is, for messages ("answer file", "pending document").
        stdin_text: the text of stdin, when `path` is `-`.

    Raises:
        UsageError: the file cannot be read (not a regular file, too large: `userfiles`),
            or is not valid JSON (line and column named).
    """
    from mrtr_cli.userfiles import read_user_text  # noqa: PLC0415

    try:
        if path == "-":
            text = stdin_text if stdin_text is not None else ""
        else:
            text = read_user_text(path, what=what)
    except FileNotFoundError:
        raise UsageError(f"cannot read {what} {path}: no such file") from None
    try:
        return loads_strict(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path} is not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise UsageError(f"{path} is not usable JSON: nested too deeply") from None
