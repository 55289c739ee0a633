"""When output is styled, and the rich consoles that style it.

One rule for every stream: `--color always|never` decides; without it (`auto`),
`NO_COLOR` (set and not empty) turns every style off, bold included, `FORCE_COLOR`
(set, not empty and not "0") turns styles on even off a terminal, and otherwise a stream is
styled only when it is a terminal, so nothing styled reaches a pipe or a file.
See https://no-color.org and https://force-color.org.

rich is imported only when a console is made (startup time).
"""

from __future__ import annotations

import os
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.env import Environment

COLOR_MODES = ("auto", "always", "never")


def _set(name: str) -> bool:
    return os.environ.get(name, "") != ""


def _forced() -> bool:
    """`FORCE_COLOR` asks for styles: set to anything but "" or "0" (the convention of
    Node's supports-color and most tools: FORCE_COLOR=0 is not a request to force)."""
    return os.environ.get("FORCE_COLOR", "") not in ("", "0")


def styled(env: Environment, stream: IO[str] | None = None) -> bool:
    """True when `stream` (default: stderr) gets styles and colours in this run.

    Args:
        env: the run's environment (its `color` is the `--color` mode).
        stream: the stream written to.
    """
    mode = getattr(env, "color", "auto") or "auto"
    if mode == "always":
        return True
    if mode == "never" or _set("NO_COLOR"):
        return False
    if _forced():
        return True
    return _isatty(env.stderr if stream is None else stream)


def console(env: Environment, stream: IO[str] | None = None, *, link: bool = False, **kw: Any) -> Any:
    """A `rich.console.Console` writing to `stream` (default: stderr) that styles exactly
    when `styled` says so: with styles off it emits no escape sequence for any style (bold
    included; `color_system=None`), with styles forced it styles a pipe too. Anything but
    stdout (results) is redacted as written (`env.RedactedStream`): the run's secrets never
    reach it, also where rich wraps or styles them. With `link`, what it prints is a link a
    person is asked to open: a URL's credentials in it are left whole, so that it opens as
    shown (`Environment.redact`'s `link`; the run's own secrets are still masked).

    Keywords go to `Console` (`highlight` defaults to False).
    """
    from rich.console import Console  # noqa: PLC0415 - lazy: startup time

    stream = env.stderr if stream is None else stream
    kw.setdefault("highlight", False)
    tty = _isatty(stream)  # passed on: rich would take FORCE_COLOR for a terminal (cursor moves to a pipe)
    style = styled(env, stream)
    if stream is not env.stdout:  # diagnostics: redacted as rendered (styles, wrapped lines)
        from mrtr_cli.env import RedactedStream  # noqa: PLC0415 - lazy for start-up time

        # A text stream by delegation (its `__getattr__`), not an IO[str] subclass.
        redact = (lambda text: env.redact(text, link=text)) if link else env.redact
        stream = RedactedStream(stream, redact)  # type: ignore[assignment]  # a text stream by delegation (above)
    if style:
        return Console(file=stream, force_terminal=True, no_color=False,
                       color_system="auto" if tty else "standard", **kw)
    return Console(file=stream, force_terminal=tty, color_system=None, no_color=True, **kw)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def json_text(text: str) -> Any:
    """`text` (JSON as printed) as a `rich.text.Text` with syntax colours (keys, strings,
    numbers, literals), for `Console.print`."""
    from rich.highlighter import JSONHighlighter  # noqa: PLC0415 - lazy for start-up time
    from rich.text import Text  # noqa: PLC0415 - lazy for start-up time

    value = Text(text)
    JSONHighlighter().highlight(value)
    return value
