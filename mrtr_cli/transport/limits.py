"""Limits on what one message from a server may be (docs/limits.md).

A server is untrusted: one JSON-RPC message it sends may be at most
`max_message_size()` bytes (default `DEFAULT_MAX_MESSAGE_SIZE`; `--max-message-size`
or `MRTR_MAX_MESSAGE_SIZE` raise or lower it), and its JSON may nest at most
`MAX_DEPTH` arrays and objects. Readers stop at the limit (a stdio line, an HTTP body,
an SSE event is read in bounded blocks), so a message beyond it costs no more memory
than the limit; it is an invalid response (exit 4) naming the size.
"""

from __future__ import annotations

import re

from mrtr_cli.errors import UsageError, refused

#: Bytes one message from a server may take by default (64 MiB).
DEFAULT_MAX_MESSAGE_SIZE = 64 * 1024 * 1024
#: How deeply arrays and objects may nest in one message (the default of serde_json; the
#: JSON reader of Python itself gives up near 1,000).
MAX_DEPTH = 128
#: The environment variable giving the size limit when `--max-message-size` is not used.
ENV_VAR = "MRTR_MAX_MESSAGE_SIZE"

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
          "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30}
#: (Pattern texts, compiled at their first use and kept by `re`'s own cache: a run that
#: does not use them does not compile them, docs/performance.md.)
_SIZE = r"(?i)\s*(\d{1,15})\s*([a-z]*)\s*"

_override: int | None = None


def parse_size(text: str) -> int:
    """A size in bytes from `text`: digits with an optional binary unit (`K`, `M`, `G`,
    also `KiB`/`MB`...: all powers of 1024).

    Raises:
        ValueError: not such a size, or 0.
    """
    match = re.fullmatch(_SIZE, text)
    unit = match.group(2).lower() if match else ""
    if match is None or unit not in _UNITS or int(match.group(1)) <= 0:
        raise ValueError(f"{text!r}{_why_not_size(text)}")
    return int(match.group(1)) * _UNITS[unit]


def _why_not_size(text: str) -> str:
    """Why `text` is no size `parse_size` takes: the end of a message, after the value."""
    match = re.fullmatch(_SIZE, text)
    if match is not None and match.group(2).lower() in _UNITS:
        return ": expected a size greater than 0"
    return " is not a size (a number of bytes, or with K, M or G, e.g. 64M)"


def set_max_message_size(size: int | None) -> None:
    """Use `size` bytes as the limit for this process (`--max-message-size`); None: the
    environment variable's or the default."""
    global _override  # noqa: PLW0603 - one setting for the whole run, like the request id counter
    _override = size


def check_message_size_option(value: str | None) -> None:
    """Set the limit from `--max-message-size VALUE` (None: not given), and check the
    environment variable's value.

    Raises:
        UsageError: a value that is no size (exit 2), naming the option or variable.
    """
    size = None
    if value is not None:
        try:
            size = parse_size(value)
        except ValueError:  # the value is repeated only when spelled as a name (errors.refused)
            raise refused(f"--max-message-size {{0}}{_why_not_size(value)}", value) from None
    set_max_message_size(size)
    try:
        max_message_size()
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def max_message_size(*, strict: bool = True) -> int:
    """The limit in bytes on one message from a server.

    Raises:
        ValueError: `MRTR_MAX_MESSAGE_SIZE` holds no size (the message names it); with
            `strict=False` the default is used instead (a reader thread never raises).
    """
    if _override is not None:
        return _override
    from mrtr_cli.settings import current  # noqa: PLC0415 - lazy for start-up time

    value = current().max_message_size
    if not value:
        return DEFAULT_MAX_MESSAGE_SIZE
    try:
        return parse_size(value)
    except ValueError as exc:
        if not strict:
            return DEFAULT_MAX_MESSAGE_SIZE
        raise ValueError(f"{ENV_VAR}: {exc}") from None


def describe_size(size: int) -> str:
    """`size` bytes for a message: "67108864 bytes (64 MiB)"."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor:
            return f"{size} bytes ({size / factor:.4g} {unit})"
    return "1 byte" if size == 1 else f"{size} bytes"


def too_deep(value: dict[str, object] | list[object], limit: int = MAX_DEPTH) -> bool:
    """True when arrays and objects nest more than `limit` levels in `value` (iterative: no
    recursion, whatever the depth)."""
    stack: list[tuple[dict[str, object] | list[object], int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        for child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return False
