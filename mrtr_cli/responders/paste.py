"""Text pasted at a terminal (bracketed paste: the terminal marks where a paste starts and
ends, and prompt_toolkit hands it over whole as `Keys.BracketedPaste`).

Spec: client/elicitation (2026-07-28) leaves how a form is typed to the client; a form's
text field (and a sampling reply) is one line, so a paste of several lines never puts a
newline into its value: the field keeps the paste's first line that has text, and the
person is told how many more lines were left out (`one_line`). The shell's prompt
(shell/terminal.py) runs the lines of a paste in turn instead; both read a paste's line
ends the same way (`newlines`).
"""

from __future__ import annotations

__all__ = ["newlines", "one_line", "left_out_notice"]


def newlines(data: str) -> str:
    r"""`data` with every line end as `\n` (some terminals paste `\r\n`, others `\r`)."""
    return data.replace("\r\n", "\n").replace("\r", "\n")


def one_line(data: str) -> tuple[str, int]:
    """What a paste of `data` puts into a one-line field: (its first line with text, or ""
    for a paste of blank lines; the number of later lines with text, left out)."""
    lines = [line for line in newlines(data).split("\n") if line.strip()]
    if not lines:
        return newlines(data).split("\n")[0], 0
    return lines[0], len(lines) - 1


def left_out_notice(count: int) -> str:
    """The line that tells the person `count` (>= 1) pasted lines were left out of a field."""
    lines = "1 more line was" if count == 1 else f"{count} more lines were"
    return f"pasted text: a field is one line, so it keeps the first; {lines} left out"
