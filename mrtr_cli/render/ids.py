"""Long opaque ids shortened for a heading or a status line (a task id, an input key):
the start, which is what tells two apart and what a prefix match takes, then `…`.
Where the id must be typed back (`-a KEY.FIELD=`, a printed command), the whole id is used."""

from __future__ import annotations

#: An id up to this long is shown whole; a longer one keeps its first `KEEP` characters.
LIMIT = 20
KEEP = 16


def short_id(value: str) -> str:
    """`value` whole when at most `LIMIT` characters, else its first `KEEP` and `…`."""
    return value if len(value) <= LIMIT else value[:KEEP] + "…"
