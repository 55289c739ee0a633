"""Markdown help pages (`mrtr help TOPIC`) as a person reads them.

- `plain_text(markdown, width=80)`: for a pipe or a file: plain text with no Markdown
  syntax left (no `#` headings, backticks, emphasis marks, table rules or code fences),
  every line at most `width` columns (a single word longer than that is cut), commands
  in code blocks kept whole where they fit. Tables become definition lists: a narrow
  first column (an exit code, a short flag) beside its wrapped text, a wide one on its
  own line with the other cells indented under it (`header: cell` when there are more
  than two columns).
- `rendered(env, markdown, width)`: for a terminal: rich's Markdown rendering (headings,
  tables, code), styled as `render.color` decides. rich is imported only here.

Only the subset of Markdown the pages use is read: ATX headings, paragraphs, `-`/`*`
and numbered lists, pipe tables, fenced code blocks, `>` quotes, inline code, emphasis
and links.
"""

from __future__ import annotations

import re
import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.env import Environment

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+(.*)$")
_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*]+?)(?<=[^\s*])\*(?![\w*])")
#: A first table column at most this wide sits beside its text; a wider one gets a line of its own.
_NARROW = 12


def inline(text: str) -> str:
    """One line of Markdown without its inline syntax: code spans keep their text without
    the backticks (and nothing inside them changes), emphasis marks go, a link becomes
    `label (target)`, an escaped character (`\\|`) loses its backslash."""
    parts = re.split(r"(`+)(.+?)\1", text)
    out: list[str] = []
    for i in range(0, len(parts), 3):
        prose = parts[i]
        prose = _LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})", prose)
        prose = _STRONG.sub(r"\2", prose)
        prose = _EMPHASIS.sub(r"\1", prose)
        prose = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|])", r"\1", prose)
        out.append(prose)
        if i + 2 < len(parts):
            out.append(parts[i + 2].strip() if parts[i + 2].strip() else parts[i + 2])
    return "".join(out)


def _wrap(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    """`text` filled to `width` columns after the prefixes `first` (first line) and `rest`;
    words are never split unless one alone is wider than the line."""
    return textwrap.wrap(" ".join(text.split()), width=width, initial_indent=first, subsequent_indent=rest,
                         break_on_hyphens=False, break_long_words=True) or [first.rstrip()]


def _cells(row: str) -> list[str]:
    """The cells of a pipe-table row (an escaped `\\|` stays inside its cell)."""
    row = row.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row)]


def _table(rows: list[list[str]], width: int) -> list[str]:
    """A pipe table (header row first) as a definition list."""
    header, body = [inline(c) for c in rows[0]], [[inline(c) for c in row] for row in rows[1:]]
    out: list[str] = []
    key_width = max((len(row[0]) for row in body if row), default=0)
    if len(header) == 2 and key_width <= _NARROW:
        pad = " " * (2 + key_width + 2)
        for row in body:
            text = row[1] if len(row) > 1 else ""
            out += _wrap(text, width, first=f"  {row[0]:<{key_width}}  ", rest=pad)
        return out
    for n, row in enumerate(body):
        if n:
            out.append("")
        out += _wrap(row[0], width, first="  ", rest="  ")
        for name, cell in zip(header[1:], row[1:], strict=False):
            label = f"{name}: " if len(header) > 2 and name else ""
            if cell:
                out += _wrap(label + cell, width, first="      ", rest="        " if label else "      ")
    return out


def _code(lines: list[str], width: int) -> list[str]:
    """A fenced code block, indented four columns; a line too long for the width is cut
    at a space and continued on the next line (POSIX shell `\\` continuation) when it has
    spaces, else at the width."""
    out: list[str] = []
    for line in lines:
        line = "    " + line.rstrip()
        while len(line) > width:
            cut = line.rfind(" ", 8, width - 1)
            if cut <= 8:
                out.append(line[:width])
                line = "      " + line[width:]
            else:
                out.append(line[:cut] + " \\")
                line = "      " + line[cut + 1:]
        out.append(line)
    return out


def plain_text(markdown: str, width: int = 80) -> str:
    """`markdown` as plain text at most `width` columns wide (see the module docstring).

    Args:
        markdown: a help page (the subset of Markdown listed above).
        width: the widest line, in columns (at least 40).

    Returns:
        The text, one trailing newline.
    """
    page = _Page(markdown.splitlines(), width)
    i = 0
    while i < len(page.lines):
        i = page.block(i)
    return page.text()


class _Page:
    """A help page being turned into plain text (`plain_text`): one reader per kind of
    block, each given the index of a line and returning the index after its block, or None
    when the line does not start one; a line no reader takes joins the paragraph."""

    def __init__(self, lines: list[str], width: int):
        self.lines = lines
        self.width = width
        self.out: list[str] = []
        self.para: list[str] = []
        self.readers = (self._fence, self._heading, self._table, self._item, self._blank_line, self._quote)

    def block(self, i: int) -> int:
        """Read the block starting at line `i`; the index of the line after it."""
        for reader in self.readers:
            after = reader(i)
            if after is not None:
                return after
        self.para.append(self.lines[i].strip())
        return i + 1

    def text(self) -> str:
        """The page so far, the last paragraph included, with one trailing newline."""
        self._flush()
        out = self.out
        while out and out[-1] == "":
            out.pop()
        return "\n".join(out) + "\n"

    def _blank(self) -> None:
        if self.out and self.out[-1] != "":
            self.out.append("")

    def _flush(self) -> None:
        if self.para:
            self.out.extend(_wrap(inline(" ".join(self.para)), self.width))
            self.para.clear()

    def _fence(self, i: int) -> int | None:
        lines, stripped = self.lines, self.lines[i].strip()
        if not (stripped.startswith("```") or stripped.startswith("~~~")):
            return None
        self._flush()
        self._blank()
        fence, code = stripped[:3], []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            code.append(lines[i])
            i += 1
        self.out += _code(code, self.width)
        self.out.append("")
        return i + 1

    def _heading(self, i: int) -> int | None:
        heading = _HEADING.match(self.lines[i])
        if not heading:
            return None
        self._flush()
        self._blank()
        title = inline(heading.group(2))
        self.out += _wrap(title.upper() if len(heading.group(1)) == 1 else title, self.width)
        self.out.append("")
        return i + 1

    def _table(self, i: int) -> int | None:
        lines = self.lines
        if not (lines[i].strip().startswith("|") and i + 1 < len(lines) and _RULE.match(lines[i + 1])):
            return None
        self._flush()
        self._blank()
        rows = [_cells(lines[i])]
        i += 2
        while i < len(lines) and lines[i].strip().startswith("|"):
            rows.append(_cells(lines[i]))
            i += 1
        self.out += _table(rows, self.width)
        self.out.append("")
        return i

    def _item(self, i: int) -> int | None:
        lines = self.lines
        item = _ITEM.match(lines[i])
        if not item:
            return None
        self._flush()
        indent, mark, text = item.groups()
        mark = "-" if mark in "-*+" else mark
        depth = 2 + min(len(indent), 8)
        i += 1
        while i < len(lines) and lines[i].strip() and not _ITEM.match(lines[i]) and lines[i].startswith(" "):
            text += " " + lines[i].strip()
            i += 1
        self.out += _wrap(inline(text), self.width, first=" " * depth + mark + " ", rest=" " * (depth + len(mark) + 1))
        return i

    def _blank_line(self, i: int) -> int | None:
        if self.lines[i].strip():
            return None
        self._flush()
        self._blank()
        return i + 1

    def _quote(self, i: int) -> int | None:
        lines = self.lines
        if not lines[i].strip().startswith(">"):
            return None
        self._flush()
        quote = []
        while i < len(lines) and lines[i].strip().startswith(">"):
            quote.append(lines[i].strip()[1:].strip())
            i += 1
        self.out += _wrap(inline(" ".join(quote)), self.width, first="  ", rest="  ")
        return i


def rendered(env: Environment, markdown: str, width: int) -> str:
    """`markdown` rendered by rich for a terminal `width` columns wide: headings, tables and
    code styled when `render.color.styled` says stdout is styled, plain otherwise; the
    escape sequences are in the returned text (a pager shows them: `less -R`)."""
    import io  # noqa: PLC0415 - lazy for start-up time

    from rich.console import Console  # noqa: PLC0415 - lazy: startup time
    from rich.markdown import Markdown  # noqa: PLC0415 - lazy: startup time

    from mrtr_cli.render.color import styled  # noqa: PLC0415 - lazy for start-up time

    buffer = io.StringIO()
    style = styled(env, env.stdout)
    console = Console(file=buffer, width=width, force_terminal=style, no_color=not style,
                      color_system="auto" if style else None, highlight=False, legacy_windows=False)
    console.print(Markdown(markdown, code_theme="ansi_dark", hyperlinks=False))
    return buffer.getvalue()
