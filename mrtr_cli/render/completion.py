"""`mrtr complete` in text: the values one a line, bounded, and a note for stderr."""

from __future__ import annotations

from typing import Any

from mrtr_cli.render.sanitize import sanitize, short_number

#: The most values one completion carries (the spec: `values` "Must not exceed 100
#: items"); text output prints no more (`--json` prints the result whole).
MAX_VALUES = 100


def completion_lines(result: dict[str, Any]) -> tuple[list[str], str]:
    """The lines for stdout (at most `MAX_VALUES` values, each sanitised to one line) and
    the note for stderr ("" for none) of a `CompleteResult` whose `completion.values` are
    strings (`protocol.features.completions.completion_values` checked them)."""
    completion = result["completion"]
    values = completion["values"]
    lines = [sanitize(item, single_line=True) for item in values[:MAX_VALUES]]
    total = completion.get("total")
    total = total if isinstance(total, int) and not isinstance(total, bool) else None
    if not values:
        return lines, "mrtr: the server suggests no values"
    if len(values) > MAX_VALUES:
        return lines, (f"mrtr: {MAX_VALUES} of the {len(values):,} values the server sent are shown (a completion "
                       f"carries at most {MAX_VALUES}); --json prints them all")
    if completion.get("hasMore") is True or (total is not None and total > len(values)):
        shown = f"{len(values)} of {short_number(total)}" if total is not None else f"{len(values)}"
        return lines, f"mrtr: {shown} values shown; the server has more (type more of the value)"
    return lines, ""
