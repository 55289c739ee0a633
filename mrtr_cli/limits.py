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
"""

from __future__ import annotations

MAX_JSON_DEPTH = 1000
MAX_USER_FILE_BYTES = 64 * 1024 * 1024


def describe_bytes(n: int) -> str:
    """`n` bytes for people: "64 MiB", "1.5 KiB", "12 bytes"."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return "1 byte" if n == 1 else f"{n} bytes"


def ensure_recursion_headroom() -> None:
    """Let Python recurse far enough that JSON nested `MAX_JSON_DEPTH` levels can be parsed,
    checked, printed and sent (json, jsonschema and the renderers recurse per level; the
    default limit of 1000 frames stops them short of 1000 levels). Deeper input is refused
    by the depth checks before it gets there."""
    import sys  # noqa: PLC0415 - lazy for start-up time

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * MAX_JSON_DEPTH))
