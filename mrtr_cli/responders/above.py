"""Diagnostics written above a running prompt: a stream standing for stderr that, while a
prompt_toolkit application asks (the shell's line editor, a form's field), prints each whole
line above the prompt (`run_in_terminal`: the prompt is erased, the line written, the prompt
drawn again with what was typed), as prompt_toolkit's `patch_stdout` does. A log the server
sends, a list that changed or a server that stopped never lands inside the line being typed.
prompt_toolkit is imported only when a line goes above a running prompt (start-up time).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["Relay"]


class Relay:
    """A text stream standing for stderr. While the prompt waits (`app` is the running line
    editor), each whole line written goes above the prompt (prompt_toolkit's
    `run_in_terminal`: the prompt is erased, the line written, the prompt drawn again with
    what was typed), from whichever thread writes it; otherwise writes go straight to the
    real stream. Everything else (isatty, fileno, encoding) is the real stream's."""

    def __init__(self, stream: IO[str]):
        self.stream = stream
        self.app: Any = None
        self._pending = ""
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        app = self.app
        if app is None:
            return self.stream.write(text)
        with self._lock:
            whole, _, self._pending = (self._pending + text).rpartition("\n")
        if whole:
            self._above(app, whole + "\n")
        return len(text)

    def flush(self) -> None:
        if self.app is None:
            self.stream.flush()

    @contextlib.contextmanager
    def over(self, app: Any) -> Iterator[None]:
        """While the block runs, whole lines go above prompt_toolkit application `app` (a
        form's question); then `stop`."""
        self.app = app
        try:
            yield
        finally:
            self.stop()

    def stop(self) -> None:
        """The prompt ended: what is left of a line goes out as it is."""
        self.app = None
        with self._lock:
            rest, self._pending = self._pending, ""
        if rest:
            self.stream.write(rest)
            self.stream.flush()

    def _above(self, app: Any, text: str) -> None:
        loop, context = getattr(app, "loop", None), getattr(app, "context", None)
        if loop is None or context is None or not app.is_running:
            self.stream.write(text)
            self.stream.flush()
            return
        from prompt_toolkit.application import run_in_terminal  # noqa: PLC0415 - lazy for start-up time

        def write() -> None:
            self.stream.write(text)
            self.stream.flush()

        def show() -> None:
            run_in_terminal(write, in_executor=False)

        try:
            loop.call_soon_threadsafe(lambda: context.copy().run(show))
        except RuntimeError:  # the prompt has just ended: its loop is closed
            write()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)
