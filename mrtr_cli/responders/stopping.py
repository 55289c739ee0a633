"""A stop signal (SIGINT, SIGTERM, SIGHUP; SIGBREAK on Windows) while a prompt_toolkit
application asks (a form's field, a choice, a confirmation, URL consent, a sampling review,
the shell's line editor) ends the application through its own API, and the interrupt is
raised in mrtr's code once `run()` has returned.

Outside a prompt, the signal's handler raises `KeyboardInterrupt` wherever Python runs
(errors.py `terminated`). Inside one, that may be one of prompt_toolkit's event-loop
callbacks or background tasks: prompt_toolkit catches the exception there and shows
"Unhandled exception in event loop ... Press ENTER to continue...", and the run waits for
a key instead of ending with exit 130 and its pending document. So while the application
runs, the handler raises nothing: it notes the signal and asks the application's loop
(`call_soon_threadsafe`) to `exit(exception=KeyboardInterrupt)`; a signal that comes before
the application's loop started is acted on as it starts (`pre_run_callables`), one that
comes as it ends once it has ended. prompt_toolkit never imported here: the application is
passed in.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from mrtr_cli.errors import stop_signal
from mrtr_cli.platform.signals import stop_signals_to

__all__ = ["signals_end"]


@contextlib.contextmanager
def signals_end(app: Any) -> Iterator[None]:
    """While the block runs prompt_toolkit application `app` (`Application.run()`, once), a
    stop signal ends `app` as Ctrl-C at its prompt does, and the block then raises
    `errors.stop_signal` (`KeyboardInterrupt`, named for SIGTERM and SIGHUP). Run `app` with
    `handle_sigint=False`: prompt_toolkit's own SIGINT handling would replace this one for
    the time of the run. Main thread only (elsewhere, signals are handled as outside a prompt).

    Raises:
        KeyboardInterrupt: a stop signal came while the block ran (the first one's), also
            when the block ended with an error of its own then (the terminal closed with
            SIGHUP: end of input, or an error writing to it).
    """
    came: list[int] = []

    def stop(signum: int, frame: object) -> None:
        came.append(signum)
        _end_soon(app)

    def at_start() -> None:
        if came:  # a signal before the loop ran: the run ends at once
            _end(app)

    app.pre_run_callables.append(at_start)
    with stop_signals_to(stop):
        try:
            yield
        except (KeyboardInterrupt, Exception):  # raised again unless a signal came
            if came:  # the signal wins over what ended the question with it (the terminal closed: EOF, EIO)
                raise stop_signal(came[0]) from None
            raise
    if came:  # the application ended as the signal came: its answer is not taken
        raise stop_signal(came[0])


def _end_soon(app: Any) -> None:
    """Have `app`'s loop end it (from a signal handler: nothing here raises)."""
    loop, future = app.loop, app.future
    if loop is None or future is None or future.done():  # not started (`at_start` ends it) or ending
        return
    with contextlib.suppress(RuntimeError):  # the loop has just closed: the run is over
        loop.call_soon_threadsafe(_end, app)


def _end(app: Any) -> None:
    """End `app` as Ctrl-C does, unless it has ended already (in its loop)."""
    future = app.future
    if future is not None and not future.done():
        app.exit(exception=KeyboardInterrupt, style="class:aborting")
