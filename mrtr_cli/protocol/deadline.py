"""An overall time bound for a run (`--timeout`), optionally extended by progress.

Spec: basic/patterns/cancellation ("Timeouts"): a client MAY reset its timer on
progress notifications but SHOULD enforce a maximum (`--max-timeout`).

The bound counts the server's time, not a person's: while a prompt is open at the
terminal the deadline is `paused()`, and moves later by the time the person took.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

from mrtr_cli.limits import describe_seconds


class Deadline:
    """A point in monotonic time after which waiting stops.

    Args:
        timeout: seconds from now, or None for no bound.
        max_timeout: seconds from now that progress may never push the deadline past;
            None means progress does not extend the deadline.
        clock: the monotonic clock, in seconds (a test's own clock makes it deterministic).
        bound: what set `timeout`, as a timeout message names it ("--timeout", or the
            bound `mrtr ping` gives opening a session).
        unattended: no person waits for the request (the shell's Tab asks the server while
            the line is edited): a silent server gets no "still waiting" line
            (protocol/waiting.py), whose "Ctrl-C to stop" would not be true there.
    """

    def __init__(self, timeout: float | None = None, max_timeout: float | None = None, *,
                 clock: Callable[[], float] = time.monotonic, bound: str = "--timeout", unattended: bool = False):
        self._clock = clock
        self.bound = bound
        self.unattended = unattended
        now = clock()
        self.timeout = timeout
        self.max_timeout = max_timeout
        self._start = now
        self._paused_total = 0.0
        self._at = None if timeout is None else now + timeout
        self._cap = None if max_timeout is None or timeout is None else now + max(max_timeout, timeout)
        self._lock = threading.Lock()
        self._pauses = 0
        self._start_pause = 0.0
        #: True once progress has pushed the deadline later than `timeout` from the start.
        self.extended = False

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None when unbounded. While `paused()` the
        clock stands still: another thread waiting on this deadline (a request whose
        sign-in a person is doing on its worker thread) sees the time left at the pause."""
        with self._lock:
            if self._at is None:
                return None
            now = self._start_pause if self._pauses else self._clock()
            return max(0.0, self._at - now)

    def expired(self) -> bool:
        """True once the deadline has passed."""
        left = self.remaining()
        return left is not None and left <= 0

    def on_progress(self) -> None:
        """Restart the `timeout` window, bounded by the `max_timeout` cap (if any)."""
        with self._lock:
            if self._at is None or self._cap is None or self.timeout is None:
                return
            at = min(self._cap, self._clock() + self.timeout)
            if at > self._at:
                self._at = at
                self.extended = True

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Stop the clock while the block runs (a person answering at the terminal): the
        deadline and the `max_timeout` cap move later by the time it took. Nests."""
        with self._lock:
            self._pauses += 1
            outer = self._pauses == 1
            start = self._clock()
            if outer:
                self._start_pause = start
        try:
            yield
        finally:
            took = self._clock() - start
            with self._lock:
                self._pauses -= 1
                if outer and self._at is not None:
                    self._at += took
                    self._paused_total += took
                    if self._cap is not None:
                        self._cap += took

    def bound_seconds(self) -> float | None:
        """The server time this deadline allowed in the end (seconds from the start to the
        deadline, less the time paused for a person): `timeout`, or more once progress
        extended it (at most `max_timeout`); None when unbounded."""
        with self._lock:
            if self._at is None:
                return None
            return max(0.0, self._at - self._start - self._paused_total)

    def describe(self) -> str:
        """" after 3 s (--timeout 2 s, extended by progress up to --max-timeout 3 s)" for a
        timeout message: the time really allowed, never just the first window; "" when
        unbounded."""
        allowed = self.bound_seconds()
        if allowed is None or self.timeout is None:
            return ""
        text = f" after {describe_seconds(allowed)}"
        if self.extended:
            cap = f" up to --max-timeout {describe_seconds(self.max_timeout)}" if self.max_timeout is not None else ""
            text += f" (--timeout {describe_seconds(self.timeout)}, extended by progress{cap})"
        return text

    @classmethod
    def unbounded(cls) -> Deadline:
        """A deadline that never expires."""
        return cls(None)

