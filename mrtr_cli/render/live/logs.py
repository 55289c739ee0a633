"""Printing the server's `notifications/message` (log) notifications on stderr.

Spec: server/utilities/logging (deprecated by SEP-2577 but functional). A request
opts in with `_meta["io.modelcontextprotocol/logLevel"]` (`--log-level`); the server
then sends `{level, logger?, data}` at or above that level. Each one becomes one
entry on stderr, `[server LEVEL LOGGER] text`, with the server's text sanitised,
structured `data` as compact JSON, and continuation lines indented. On a terminal
the level is coloured (unless NO_COLOR is set). Each entry is cut to `LOG_MESSAGE_LINES`
lines (a count of the lines cut ends it; whole at -vv), and what one request of mrtr's puts
on stderr to `LOG_LINES_SHOWN` lines and `LOG_CHARS_SHOWN` characters: the entries beyond
are counted, and one line says how many (`--trace FILE` keeps every one).
"""

from __future__ import annotations

import threading
from typing import Any

from mrtr_cli.env import Environment
from mrtr_cli.render.color import styled
from mrtr_cli.render.live.repeats import RepeatedNotes
from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, cut_text, dumps_safe, one_line, quote_value, sanitize

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
MAX_LOG_CHARS = 4000  # longer data is cut (shown whole at -vv)
#: The most lines of log notifications shown on stderr for one request of mrtr's
#: (docs/limits.md "Floods"), and the most characters; the notifications beyond are counted,
#: and one line says how many were not shown.
LOG_LINES_SHOWN = 100
LOG_CHARS_SHOWN = 32_000
#: The most lines one log notification is shown in (below -vv); the rest are counted.
LOG_MESSAGE_LINES = 10

_COLOURS = {"debug": "2", "info": "36", "notice": "34", "warning": "33"}  # SGR; error and above: bold red


def level_rank(level: object) -> int:
    """Position of `level` in the syslog order (unknown levels rank as `info`)."""
    return LOG_LEVELS.index(level) if level in LOG_LEVELS else LOG_LEVELS.index("info")


def format_log(params: dict[str, Any], *, colour: bool = False, limit: int | None = MAX_LOG_CHARS,
               max_lines: int | None = None) -> str:
    """One log notification as text for stderr.

    Args:
        params: the notification's params `{level, logger?, data}`.
        colour: colour the level with an SGR sequence.
        limit: cut the data text at this many characters (None: never; the logger is cut
            to `SERVER_TEXT_CHARS` either way, the level to `QUOTE_CHARS`).
        max_lines: show at most this many lines of the data, the last ending with "…
            (2,990 more lines)" (None: every line; structured data is one line).
    """
    level = one_line(params.get("level", "info"))
    logger = params.get("logger")
    data = params.get("data")
    lines_cut = 0
    if isinstance(data, str) and max_lines is not None:
        head = data.split("\n", max_lines)
        if len(head) > max_lines:
            lines_cut = data.count("\n") + 1 - max_lines
            data = "\n".join(head[:max_lines])
    if limit is None:
        text = sanitize(data if isinstance(data, str) else dumps_safe(data))
    elif isinstance(data, str):
        text = cut_text(data, limit + 1)  # `limit` characters and the ellipsis
        text += f" ({len(data)} chars)" if len(data) > limit and text.endswith("…") else ""
    else:  # only as much of it encoded as is shown
        text = sanitize(quote_value(data, limit=limit))
    if max_lines is not None:  # (sanitising keeps every line break: cut again, whatever the data was)
        shown = text.split("\n", max_lines)
        if len(shown) > max_lines:
            lines_cut += text.count("\n") + 1 - max_lines
            text = "\n".join(shown[:max_lines])
    text += f" … ({lines_cut:,} more lines)" if lines_cut else ""
    where = f" {one_line(logger, SERVER_TEXT_CHARS)}" if logger is not None else ""
    shown_level = level
    if colour:
        sgr = _COLOURS.get(level, "1;31")
        shown_level = f"\x1b[{sgr}m{level}\x1b[0m"
    return f"[server {shown_level}{where}] " + text.replace("\n", "\n  ")


class LogPrinter:
    """Prints log notifications, dropping any below the requested level.

    Args:
        env: the run's environment (stderr, terminal facts, verbosity).
        min_level: the `--log-level` asked for, or None (then every log the server sends is shown).
    """

    def __init__(self, env: Environment, min_level: str | None = None):
        self.env = env
        self.min_rank = level_rank(min_level) if min_level else 0
        self._left_out = RepeatedNotes("log messages from the server", first=0)
        self._lines = self._chars = 0  # shown since the last `summarise`
        self._lock = threading.Lock()  # a reader thread prints, the main thread summarises

    def __call__(self, params: dict[str, Any]) -> None:
        """Print one log notification (its `params`), unless below the level asked for or
        beyond the first `LOG_LINES_SHOWN` lines or `LOG_CHARS_SHOWN` characters since the
        last `summarise` (then only counted): cut to `LOG_MESSAGE_LINES` lines and
        `MAX_LOG_CHARS` characters (whole at -vv), and to what is left of those bounds."""
        if level_rank(params.get("level")) < self.min_rank:
            return
        whole = self.env.verbosity >= 2
        with self._lock:
            lines_left, chars_left = LOG_LINES_SHOWN - self._lines, LOG_CHARS_SHOWN - self._chars
            if lines_left <= 0 or chars_left <= 0:
                self._left_out.take()
                return
            text = format_log(params, colour=styled(self.env), limit=None if whole else min(MAX_LOG_CHARS, chars_left),
                              max_lines=None if whole else min(LOG_MESSAGE_LINES, lines_left))
            self._lines += text.count("\n") + 1
            self._chars += len(text)
        self.env.err(text)

    def summarise(self) -> None:
        """One line saying how many log notifications were not shown since the last summary
        (none when none were left out), then the bounds start again: called as each request
        of mrtr's ends (`protocol.routing.LogSink`)."""
        with self._lock:
            self._lines = self._chars = 0
        line = self._left_out.summary(lead="mrtr: ", where="; --trace FILE keeps them all", restart=True)
        if line is not None:
            self.env.err(line)
