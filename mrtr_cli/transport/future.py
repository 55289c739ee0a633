"""The pending answer to one request: a small thread-safe future.

A transport's `request` returns one; a reader thread settles it with the response (or
an error) and the caller waits on it (protocol/waiting.py, protocol/era/probe.py). It has the
part of `concurrent.futures.Future` that mrtr uses, without its import cost:
`concurrent.futures` loads `logging` (and with it `traceback`, `string`, `textwrap`),
which no call needs (docs/performance.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from mrtr_cli.limits import describe_seconds

T = TypeVar("T")


class CancelledError(Exception):
    """The request was abandoned (`Future.cancel`) before its answer came."""


class Future(Generic[T]):
    """One result, set once by any thread; waited for by others.

    States: pending, then exactly one of done (a result or an exception) or cancelled.
    Setting a settled future changes nothing (the first outcome stands), so a reader
    thread and a cancelling caller cannot race into an error.
    """

    def __init__(self) -> None:
        #: One held lock per thread waiting, released by `_settle`: a waiter only ever blocks
        #: on a lock of its own, so one interrupted in its wait (Ctrl-C) keeps no other waiting.
        self._waiters: list[threading.Lock] = []
        self._settled = False
        self._lock = threading.Lock()
        self._result: T | None = None
        self._exception: BaseException | None = None
        self._cancelled = False
        self._callbacks: list[Callable[[Future[T]], object]] = []

    def done(self) -> bool:
        """True once the future has a result, an exception, or was cancelled."""
        return self._settled

    def cancelled(self) -> bool:
        """True when `cancel` settled it."""
        return self._cancelled

    def cancel(self) -> bool:
        """Cancel a pending future; returns False when it was already done."""
        return self._settle(cancelled=True)

    def set_result(self, result: T) -> None:
        """Settle with `result` (ignored when already settled)."""
        self._settle(result=result)

    def set_exception(self, exception: BaseException) -> None:
        """Settle with `exception`, raised by `result` (ignored when already settled)."""
        self._settle(exception=exception)

    def add_done_callback(self, fn: Callable[[Future[T]], object]) -> None:
        """Call `fn(self)` once settled (at once, on this thread, when it already is)."""
        with self._lock:
            if not self._settled:
                self._callbacks.append(fn)
                return
        self._call(fn)

    def result(self, timeout: float | None = None) -> T:
        """The result, waiting up to `timeout` seconds (None: for ever).

        Raises:
            TimeoutError: not settled within `timeout`.
            CancelledError: the future was cancelled.
            BaseException: the exception it was settled with.
        """
        if not self._wait(timeout):
            raise TimeoutError(f"no result within {describe_seconds(timeout)}")
        if self._cancelled:
            raise CancelledError()
        if self._exception is not None:
            raise self._exception
        return self._result  # type: ignore[return-value]  # settled without an exception: the result was set (it may be None when T allows it)

    def exception(self, timeout: float | None = None) -> BaseException | None:
        """The exception it was settled with, or None (waits as `result` does).

        Raises:
            TimeoutError: not settled within `timeout`.
            CancelledError: the future was cancelled.
        """
        if not self._wait(timeout):
            raise TimeoutError(f"no result within {describe_seconds(timeout)}")
        if self._cancelled:
            raise CancelledError()
        return self._exception

    def _wait(self, timeout: float | None) -> bool:
        """Wait until settled, at most `timeout` seconds (None: for ever); whether it is.

        Interrupt-safe: the lock waited on is this call's own (`_settle` releases it), so an
        exception raised anywhere in the wait (KeyboardInterrupt) leaves the other waiters
        and the future as they were."""
        if self._settled:
            return True
        waiter = threading.Lock()
        waiter.acquire()
        with self._lock:
            if self._settled:
                return True
            self._waiters.append(waiter)
        try:
            waiter.acquire(timeout=-1 if timeout is None else max(timeout, 0.0))
        finally:
            with self._lock:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
        return self._settled

    def _settle(self, *, result: T | None = None, exception: BaseException | None = None,
                cancelled: bool = False) -> bool:
        with self._lock:
            if self._settled:
                return False
            self._result, self._exception, self._cancelled = result, exception, cancelled
            self._settled = True
            waiters, self._waiters = self._waiters, []
            callbacks, self._callbacks = self._callbacks, []
        for waiter in waiters:
            waiter.release()
        for fn in callbacks:
            self._call(fn)
        return True

    def _call(self, fn: Callable[[Future[T]], object]) -> None:
        """Run a done-callback; one that fails does not stop the others, nor the thread that
        settled the future (as with `concurrent.futures`)."""
        try:  # noqa: SIM105 - a catch of Exception stays marked for BLE001; suppress() would hide it
            fn(self)
        except Exception:  # noqa: BLE001 - a callback's failure is its own
            pass
