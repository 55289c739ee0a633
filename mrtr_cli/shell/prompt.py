"""The shell's prompt: the server's name (from its `serverInfo`, sanitised), and what is
waiting: `work-items> `, `work-items (resume)> ` after a call stopped for input (exit 5:
a bare `resume` finishes it), `work-items (stopped)> ` once the server stopped (the next
command starts it again)."""

from __future__ import annotations

#: (style, text) pieces, as prompt_toolkit's formatted text takes them.
Parts = list[tuple[str, str]]


def prompt_parts(name: str, *, pending: bool = False, stopped: bool = False, styled: bool = True) -> Parts:
    """The prompt for server `name` (already sanitised); plain text without `styled`."""
    state = "stopped" if stopped else "resume" if pending else ""
    parts: Parts = [("bold" if styled else "", name)]
    if state:
        parts.append(("ansiyellow" if styled else "", f" ({state})"))
    parts.append(("", "> "))
    return parts


def prompt_text(parts: Parts) -> str:
    """The prompt as plain text."""
    return "".join(text for _, text in parts)
