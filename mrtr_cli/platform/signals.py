"""The signals that end a run as Ctrl-C does (docs/platforms.md, "Signals").

POSIX: SIGTERM (a CI job cancelled, `kill`) and SIGHUP (the terminal closed: the server is
ended all the same, as a person leaving expects; a SIGHUP inherited as ignored, under
`nohup`, stays ignored). Windows: SIGTERM (raised inside the process only: Windows sends
none) and SIGBREAK, which Ctrl-Break at the console and a parent's CTRL_BREAK_EVENT raise.
Ctrl-C (SIGINT) is Python's `KeyboardInterrupt` everywhere.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterator
    from types import FrameType

#: The signals handled as a request to stop (besides SIGINT).
TERMINATION: tuple[signal.Signals, ...]
if sys.platform == "win32":
    TERMINATION = (signal.SIGTERM, signal.SIGBREAK)
else:
    TERMINATION = (signal.SIGTERM, signal.SIGHUP)

#: Signals whose disposition is left alone when the process starts with it ignored.
_KEPT_IGNORED = frozenset(getattr(signal, name) for name in ("SIGHUP",) if hasattr(signal, name))


def on_termination(handler: Callable[[int, FrameType | None], None]) -> None:
    """Make `handler` the handler of every signal of `TERMINATION` (main thread only),
    except a SIGHUP this process was started with ignored (`nohup`)."""
    for signum in TERMINATION:
        if signum in _KEPT_IGNORED and signal.getsignal(signum) is signal.SIG_IGN:
            continue
        signal.signal(signum, handler)


@contextlib.contextmanager
def stop_signals_to(handler: Callable[[int, FrameType | None], None]) -> Iterator[None]:
    """While the block runs, `handler` handles SIGINT and every signal of `TERMINATION` (a
    SIGHUP started ignored stays ignored, as in `on_termination`); then each signal's handler
    before the block is back. Main thread only (elsewhere the block runs with no change)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, *TERMINATION)}
    try:
        signal.signal(signal.SIGINT, handler)
        on_termination(handler)
        yield
    finally:
        for signum, previous in before.items():
            if previous is None:  # a handler not installed from Python: Python's default instead
                previous = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
            signal.signal(signum, previous)
