"""Printing the server's `notifications/message` (log) notifications on stderr.

Spec: server/utilities/logging (deprecated by SEP-2577 but functional). A request
opts in with `_meta["io.modelcontextprotocol/logLevel"]` (`--log-level`); the server
then sends `{level, logger?, data}` at or above that level. Each one becomes one
entry on stderr, `[server LEVEL LOGGER] text`, with the server's text sanitised,
structured `data` as compact JSON, and continuation lines indented. On a terminal
the level is coloured (unless NO_COLOR is set). At most `LOG_LINES_SHOWN` are shown per
request of mrtr's; one line counts the rest (`--trace FILE` keeps every one).
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.env import Environment
from mrtr_cli.render.color import styled
from mrtr_cli.render.live.repeats import RepeatedNotes
from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, cut_text, dumps_safe, one_line, quote_value, sanitize

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
MAX_LOG_CHARS = 4000  # longer data is cut (shown whole at -vv)
#: The most log notifications shown on stderr for one request of mrtr's (docs/limits.md
#: "Floods"); the rest are counted, and one line says how many were not shown.
LOG_LINES_SHOWN = 100

_COLOURS = {"debug": "2", "info": "36", "notice": "34", "warning": "33"}  # SGR; error and above: bold red


def level_rank(level: object) -> int:
    """Position of `level` in the syslog order (unknown levels rank as `info`)."""
    return LOG_LEVELS.index(level) if level in LOG_LEVELS else LOG_LEVELS.index("info")


def format_log(params: dict[str, Any], *, colour: bool = False, limit: int | None = MAX_LOG_CHARS) -> str:
    """One log notification as text for stderr.

    Args:
        params: the notification's params `{level, logger?, data}`.
        colour: colour the level with an SGR sequence.
        limit: cut the data text at this many characters (None: never; the logger is cut
            to `SERVER_TEXT_CHARS` either way, the level to `QUOTE_CHARS`).
    """
    level = one_line(params.get("level", "info"))
    logger = params.get("logger")
    data = params.get("data")
    if limit is None:
        text = sanitize(data if isinstance(data, str) else dumps_safe(data))
    elif isinstance(data, str):
        text = cut_text(data, limit + 1)  # `limit` characters and the ellipsis
        text += f" ({len(data)} chars)" if len(data) > limit and text.endswith("…") else ""
    else:  # only as much of it encoded as is shown
        text = sanitize(quote_value(data, limit=limit))
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
        self._shown = RepeatedNotes("log messages from the server", first=LOG_LINES_SHOWN)

    def __call__(self, params: dict[str, Any]) -> None:
        """Print one log notification (its `params`), unless below the level asked for or
        beyond the first `LOG_LINES_SHOWN` since the last `summarise` (then only counted)."""
        if level_rank(params.get("level")) < self.min_rank or not self._shown.take():
            return
        colour = styled(self.env)
        limit = None if self.env.verbosity >= 2 else MAX_LOG_CHARS
        self.env.err(format_log(params, colour=colour, limit=limit))

    def summarise(self) -> None:
        """One line saying how many log notifications were not shown since the last summary
        (none when none were left out), then the next `LOG_LINES_SHOWN` are shown again:
        called as each request of mrtr's ends (`protocol.routing.LogSink`)."""
        line = self._shown.summary(lead="mrtr: ", where="; --trace FILE keeps them all", restart=True)
        if line is not None:
            self.env.err(line)
