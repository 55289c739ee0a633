"""Ctrl-C, twice: the first cancels cleanly, the second exits at once.

Spec: basic/patterns/cancellation. The first Ctrl-C raises `KeyboardInterrupt` as
usual; the code that catches it cancels the in-flight request (`notifications/cancelled`
on stdio, closing the response stream on HTTP) and shuts the server down, which may
take a moment. `arm_hard_exit` makes a second Ctrl-C during that moment skip the rest:
it kills the stdio server's process group (so no server is left behind), restores the
terminal cursor and exits 130 immediately.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from types import FrameType

from mrtr_cli.errors import ExitStatus, terminated
from mrtr_cli.platform.signals import on_termination

_cleanups: list[Callable[[], None]] = []


def arm_hard_exit(*cleanups: Callable[[], None]) -> None:
    """Make the next SIGINT run `cleanups` (e.g. kill the server) and exit 130 at once.

    Only the main thread can install signal handlers; elsewhere the cleanups are still
    registered (for a later call from the main thread) and the default stays.
    """
    for cleanup in cleanups:
        if cleanup not in _cleanups:
            _cleanups.append(cleanup)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _hard_exit)
        on_termination(_hard_exit)  # handled like Ctrl-C (cli/main.py)


def disarm() -> None:
    """Restore the default Ctrl-C behaviour and forget the cleanups."""
    _cleanups.clear()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
        on_termination(terminated)


def _hard_exit(signum: int, frame: FrameType | None) -> None:
    for cleanup in list(_cleanups):
        try:  # noqa: SIM105 - a catch of Exception stays marked for BLE001; suppress() would hide it
            cleanup()
        except Exception:  # noqa: BLE001 - exiting regardless
            pass
    try:
        show_cursor = b"\x1b[?25h" if os.isatty(2) else b""
        os.write(2, show_cursor + b"\nmrtr: interrupted again; stopped at once\n")
    except OSError:
        pass
    os._exit(int(ExitStatus.INTERRUPTED))
