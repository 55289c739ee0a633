"""A one-line live status on stderr, for anything that waits (task polling, progress).

On a terminal the line is redrawn in place with `rich` (status, message, elapsed
time, countdown to the next step) and cleared when the wait ends, so it never
mixes with results on stdout. Diagnostics written through `env.err` while the
line is shown are printed above it. When stderr is not a terminal, nothing is
redrawn: one plain line is written each time the status or message changes, so
logs stay readable.

`rich` is imported only when a terminal line is actually drawn.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from mrtr_cli.env import Environment
from mrtr_cli.render.color import console as styled_console
from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line

#: Seconds between redraws of a live line (elapsed time and countdown tick).
REFRESH_SECONDS = 1.0

_TONES = {"active": "cyan", "attention": "yellow", "done": "green", "error": "red"}


@dataclass
class StatusView:
    """What the line says.

    Attributes:
        label: what is being waited on, e.g. "task 786512e2-9e0d…" (sanitised here: it may
            carry a server's id).
        status: a short state word, e.g. "working", "input_required", "42%".
        message: free text from the server (untrusted; sanitised here), or None.
        started: `time.monotonic()` when the wait began (for the elapsed time).
        next_at: `time.monotonic()` of the next poll or retry, or None.
        next_label: what happens at `next_at` ("next poll").
        tone: "active", "attention", "done" or "error" (the status colour).
        hint: a short trusted note shown last, e.g. "Ctrl-C leaves it running".
    """

    label: str
    status: str
    message: str | None
    started: float
    next_at: float | None = None
    next_label: str = "next poll"
    tone: str = "active"
    hint: str | None = None


def format_seconds(seconds: float) -> str:
    """`42s`, `3m05s`, `1h02m`."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class StatusLine:
    """Shows a `StatusView` on stderr: live on a terminal, change lines otherwise.

    Args:
        env: the run's environment (stderr, terminal facts, `-q`).
        prefix: put before change lines when stderr is not a terminal.

    Use `show()` whenever the view changes, `refresh()` to tick the clock (or
    `hold()` to let it tick on its own while the caller blocks), `pause()` before
    anything else uses the terminal (a prompt) and `close()` at the end (always; it
    restores `env.stderr`).
    """

    def __init__(self, env: Environment, *, prefix: str = "mrtr: "):
        self.env = env
        self.prefix = prefix
        self.live = env.stderr_isatty and os.environ.get("TERM") != "dumb"
        self.view: StatusView | None = None
        self._last_line: tuple[str, str, str | None] | None = None
        self._live: Any = None
        self._stderr: Any = None
        self._ticker: tuple[threading.Thread, threading.Event] | None = None
        self._draw_lock = threading.Lock()

    @property
    def refresh_interval(self) -> float | None:
        """How often `refresh()` is worth calling (None: never, nothing ticks)."""
        return REFRESH_SECONDS if self.live else None

    def show(self, view: StatusView) -> None:
        """Display `view` (a change line off-terminal, only when status or message changed)."""
        self._stop_ticking()
        self.view = view
        if self.live:
            self._draw()
            return
        key = (view.label, view.status, view.message)
        if key != self._last_line and not self.env.quiet:
            self._last_line = key
            message = f": {one_line(view.message, SERVER_TEXT_CHARS)}" if view.message else ""
            self.env.err(f"{self.prefix}{one_line(view.label, SERVER_TEXT_CHARS)}: "
                         f"{one_line(view.status, SERVER_TEXT_CHARS)}{message}")

    def refresh(self) -> None:
        """Redraw the live line (elapsed time and countdown move on)."""
        if self.live and self.view is not None:
            self._draw()

    def hold(self) -> None:
        """Keep the live line's clock moving from a background thread while the caller blocks
        (e.g. in a long request), until the next `show`, `pause` or `close`. Off a terminal
        nothing ticks, so nothing happens."""
        if not self.live or self.view is None or self._ticker is not None:
            return
        stop = threading.Event()

        def tick() -> None:
            while not stop.wait(REFRESH_SECONDS):
                with self._draw_lock:
                    if stop.is_set() or self._live is None:
                        return
                    self._draw()

        thread = threading.Thread(target=tick, name="mrtr-status", daemon=True)
        self._ticker = (thread, stop)
        thread.start()

    def _stop_ticking(self) -> None:
        if self._ticker is not None:
            thread, stop = self._ticker
            self._ticker = None
            stop.set()
            with self._draw_lock:
                pass  # a redraw in progress has finished
            if thread is not threading.current_thread():
                thread.join(timeout=1.0)

    def pause(self) -> None:
        """Clear the live line and give the terminal back (before a prompt)."""
        self._stop_ticking()
        if self._live is not None:
            self._live.stop()
            self._live = None
            self.env.stderr = self._stderr

    def close(self) -> None:
        """Clear the line for good."""
        self.pause()
        self.view = None

    # ------------------------------------------------------------------ drawing
    def _draw(self) -> None:
        if self._live is None:
            from rich.file_proxy import FileProxy  # noqa: PLC0415 - lazy
            from rich.live import Live  # noqa: PLC0415 - lazy for start-up time

            self._stderr = self.env.stderr
            console = styled_console(self.env, self._stderr)
            self._live = Live(console=console, auto_refresh=False, transient=True,
                              redirect_stdout=False, redirect_stderr=False)
            self._live.start()
            # Lines other parts write meanwhile (logs, traces) go above the live line.
            # rich's FileProxy is a text stream (io.TextIOBase), typed apart from IO[str].
            self.env.stderr = FileProxy(console, self._stderr)  # type: ignore[assignment]  # a text stream, not IO[str] (above)
        self._live.update(self._render(), refresh=True)

    def _render(self) -> Any:
        from rich.text import Text  # noqa: PLC0415 - lazy for start-up time

        view = self.view
        assert view is not None
        now = time.monotonic()
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("⏳ " if view.tone == "active" else "● ", style=_TONES.get(view.tone, "cyan"))
        text.append(one_line(view.label, SERVER_TEXT_CHARS), style="bold")
        text.append("  ")
        text.append(one_line(view.status, SERVER_TEXT_CHARS), style=f"bold {_TONES.get(view.tone, 'cyan')}")
        if view.message:
            text.append("  " + one_line(view.message, SERVER_TEXT_CHARS))
        clock = format_seconds(now - view.started)
        if view.next_at is not None:
            clock += f" · {view.next_label} in {format_seconds(view.next_at - now + 0.999)}"
        text.append(f"  ({clock})", style="dim")
        if view.hint:
            text.append(f"  {view.hint}", style="dim italic")
        return text
