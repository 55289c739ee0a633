"""Values a server hands `mrtr` that `mrtr` sends back to it in a request header: the
`Mcp-Session-Id` of a 2025-11-25 session, an SSE event id (as `Last-Event-ID`, to resume a
stream), a cookie. One rule for them all (docs/limits.md, "Values sent back in a header"):
`unsendable` says why a value cannot go back as it came, and `mrtr` never alters one to
make it fit (the server would not know it again).

A header carries visible ASCII (RFC 9110 section 5.5: `field-vchar`, with spaces and tabs
between; httpx2 sends nothing else), so a value with a character outside it (`é`, a
control, the U+FFFD that stands for a byte that was not UTF-8) cannot be sent back. What
each caller then does is its own: a session id is a protocol error (exit 4), an event id
means the stream cannot be resumed (exit 3), a cookie is not kept.
"""

from __future__ import annotations

import re

#: The longest value sent back (characters): far above real session ids and event ids (a
#: few dozen), far below what a server takes in one header line.
MAX_ECHOED_CHARS = 4096

_OUTSIDE = re.compile(r"[^\x21-\x7e \t]")  # a space or tab only between visible characters
_OUTSIDE_OR_SPACE = re.compile(r"[^\x21-\x7e]")


def unsendable(value: str, *, spaces: bool = True) -> str | None:
    """Why `value` cannot be sent back as it came in a request header, in a few words
    ("it holds U+00E9, outside visible ASCII"), or None when it can.

    Args:
        value: what the server sent (may be empty: an empty header value is sendable).
        spaces: whether spaces and tabs may stand between visible characters (False for
            `Mcp-Session-Id`, which the spec keeps to visible ASCII, 0x21 to 0x7E).
    """
    if len(value) > MAX_ECHOED_CHARS:
        return f"it is {len(value)} characters long, more than the {MAX_ECHOED_CHARS} mrtr sends back"
    bad = (_OUTSIDE if spaces else _OUTSIDE_OR_SPACE).search(value)
    if bad is not None:
        return f"it holds U+{ord(bad.group()):04X}, outside visible ASCII"
    if value != value.strip(" \t"):
        return "it begins or ends with white space"
    return None
