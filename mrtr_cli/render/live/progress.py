"""Showing `notifications/progress` on stderr while a request runs.

Spec: basic/patterns/progress. A notification carries `progress` (increasing), an
optional `total` and an optional `message`; the server's text is sanitised before it
is shown. On a terminal the display is a live `rich` bar (a spinner with a pulsing bar
when there is no total) that disappears when the request ends; other diagnostic lines
(server logs, server stderr) are printed above it meanwhile. On anything else it is a
plain line, at most one every `plain_interval` seconds per request, so CI logs show
that a long call is alive without being flooded. `rich` is imported on first use.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import IO, Any

from mrtr_cli.env import Environment
from mrtr_cli.render.color import console as styled_console
from mrtr_cli.render.sanitize import one_line, short_number

MAX_DESCRIPTION = 60  # characters of label + message on the bar line


def _num(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "?"
    return short_number(value) if isinstance(value, int) else f"{value:g}"


def _bar_number(value: object) -> float | None:
    """A number the bar can compute with: None for a non-number or an integer too large
    for a float (thousands of digits)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def progress_amount(params: dict[str, Any]) -> str:
    """`progress/total (NN%)` or just `progress` when there is no total."""
    progress, total = params.get("progress"), params.get("total")
    if isinstance(total, int | float) and not isinstance(total, bool) and total > 0:
        amount = f"{_num(progress)}/{_num(total)}"
        if isinstance(progress, int | float) and not isinstance(progress, bool):
            with contextlib.suppress(OverflowError, ValueError):  # integers of thousands of digits
                amount += f" ({min(100.0, 100.0 * progress / total):.0f}%)"
        return amount
    return _num(progress)


def progress_text(label: str, params: dict[str, Any]) -> str:
    """The description shown for one request: its label and the server's message (sanitised, one line)."""
    message = params.get("message")
    text = one_line(label, MAX_DESCRIPTION)
    if isinstance(message, str) and message:
        text += ": " + one_line(message, MAX_DESCRIPTION)
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1] + "…"


class ProgressDisplay:
    """Renders progress notifications of in-flight requests on stderr.

    `update` may be called from any thread (transport reader threads); `end` is called
    when a request finishes, however it finishes. Implements the Session's progress sink.

    Args:
        env: the run's environment; a terminal on stderr selects the live display.
        live: force the live (True) or plain (False) display; None decides by the terminal.
        plain_interval: seconds between plain lines for one request.
    """

    def __init__(self, env: Environment, *, live: bool | None = None, plain_interval: float = 2.0):
        self.env = env
        self.live = env.stderr_isatty if live is None else live
        self.plain_interval = plain_interval
        self._lock = threading.RLock()
        self._tasks: dict[Any, Any] = {}  # token -> rich task id (live) or last print time (plain)
        self._ended: set[Any] = set()  # a late notification must not bring a finished request back
        self._progress: Any = None
        self._real_stderr: IO[str] | None = None

    def update(self, token: object, params: dict[str, Any], label: str) -> None:
        """Show one `notifications/progress` (params) for the request `label` (e.g. "tools/call slow")."""
        with self._lock:
            if token in self._ended:
                return
            if self.live:
                self._update_live(token, params, label)
            else:
                self._update_plain(token, params, label)

    def end(self, token: object) -> None:
        """The request with `token` finished: remove its line (and stop the display when none is left)."""
        with self._lock:
            self._ended.add(token)
            task = self._tasks.pop(token, None)
            if task is not None and self._progress is not None:
                self._progress.remove_task(task)
            if not self._tasks:
                self._stop()

    def close(self) -> None:
        """Stop the display, whatever is still shown."""
        with self._lock:
            self._tasks.clear()
            self._stop()

    # ------------------------------------------------------------------ plain
    def _update_plain(self, token: object, params: dict[str, Any], label: str) -> None:
        now = time.monotonic()
        last = self._tasks.get(token)
        if last is not None and now - last < self.plain_interval:
            return
        self._tasks[token] = now
        self.env.err(f"mrtr: progress {progress_amount(params)} {progress_text(label, params)}")

    # ------------------------------------------------------------------ live
    def _update_live(self, token: object, params: dict[str, Any], label: str) -> None:
        progress = self._start()
        total = _bar_number(params.get("total"))
        total = total if total is not None and total > 0 else None
        done = _bar_number(params.get("progress")) or 0
        fields = {"description": progress_text(label, params), "amount": progress_amount(params)}
        task = self._tasks.get(token)
        if task is None:
            self._tasks[token] = progress.add_task(total=total, completed=done, **fields)
        else:
            progress.update(task, total=total, completed=done, **fields)

    def _start(self) -> Any:
        if self._progress is not None:
            return self._progress
        from rich.file_proxy import FileProxy  # noqa: PLC0415 - lazy
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn  # noqa: PLC0415 - lazy for start-up time

        real = self.env.stderr
        console = styled_console(self.env, real)
        progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}", markup=False),
            BarColumn(bar_width=24),
            TextColumn("{task.fields[amount]}", markup=False),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        progress.start()
        self._progress = progress
        self._real_stderr = real
        # Other diagnostic lines go above the bar while it is shown.
        with self.env._lock:  # noqa: SLF001 - swap the stream under the writers' lock
            # rich's FileProxy is a text stream (io.TextIOBase), typed apart from IO[str].
            self.env.stderr = FileProxy(console, real)  # type: ignore[assignment]  # a text stream, not IO[str] (above)
        return progress

    def _stop(self) -> None:
        progress, self._progress = self._progress, None
        if progress is None:
            return
        if self._real_stderr is not None:
            with self.env._lock:  # noqa: SLF001
                self.env.stderr = self._real_stderr
            self._real_stderr = None
        try:  # noqa: SIM105 - a catch of Exception stays marked for BLE001; suppress() would hide it
            progress.stop()
        except Exception:  # noqa: BLE001 - a broken terminal must not hide the real outcome
            pass
