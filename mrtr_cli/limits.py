"""Documented limits on what `mrtr` reads (docs/limits.md), in one place so that every
reader uses the same numbers.

- `MAX_JSON_DEPTH`: how deeply arrays and objects may nest in any JSON `mrtr` parses
  (the user's `--args`, `k:=` values, dotted keys, answer files, pending documents, batch
  lines). Deeper is refused before Python's recursion limit is reached. A server's
  messages have their own, tighter bounds (`mrtr_cli/transport/limits.py`: size and a
  depth of 128).
- `MAX_USER_FILE_BYTES`: the size of one file (or stdin) the user names: answer files,
  `--args @FILE`, `k=@FILE`, `file:` header values, `--config`, pending documents, batch
  input and the `--resume` output file.

The sizes and durations messages state are said by one formatter each (`describe_bytes`,
`describe_seconds`): truthful at a sensible precision ("10 ms", never "0s" for a
hundredth of a second).
"""

from __future__ import annotations

import math

MAX_JSON_DEPTH = 1000
MAX_USER_FILE_BYTES = 64 * 1024 * 1024


def describe_bytes(n: int) -> str:
    """`n` bytes for people: "64 MiB", "1.5 KiB", "12 bytes"."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return "1 byte" if n == 1 else f"{n} bytes"


#: A wait longer than this many seconds is said as "for ever" (a server's Retry-After date
#: centuries away, an unbounded float).
FOR_EVER = 1e12


def describe_seconds(seconds: float | None) -> str:
    """`seconds` for a message, to three significant figures: below a second in
    milliseconds ("10 ms", "250 ms", "1.5 ms"), from a second on in seconds ("1 s",
    "2.5 s", "30 s", "3600 s"; whole seconds beyond three figures, never an exponent);
    "0 s" for zero or less; "for ever" for None (no bound), infinity, NaN, or more than
    `FOR_EVER`."""
    if seconds is None or math.isnan(seconds) or seconds > FOR_EVER:
        return "for ever"
    if seconds <= 0:
        return "0 s"
    if seconds < 1:
        ms = _significant(seconds * 1000)
        if float(ms) < 1000:  # 999.96 ms rounds to 1000: said in seconds
            return f"{ms} ms"
    return f"{_significant(seconds)} s"


def _significant(value: float) -> str:
    """`value` (> 0) to three significant figures, in plain decimals without trailing zeros
    (whole numbers beyond three figures are kept whole: 3600)."""
    decimals = max(0, 2 - math.floor(math.log10(value)))
    text = f"{value:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def ensure_recursion_headroom() -> None:
    """Let Python recurse far enough that JSON nested `MAX_JSON_DEPTH` levels can be parsed,
    checked, printed and sent (json, jsonschema and the renderers recurse per level; the
    default limit of 1000 frames stops them short of 1000 levels). Deeper input is refused
    by the depth checks before it gets there."""
    import sys  # noqa: PLC0415 - lazy for start-up time

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * MAX_JSON_DEPTH))
