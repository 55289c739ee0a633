"""Diagnostics that can repeat without end, shown within bounds: the first few as they
come, then only counted, and one summary line at the end ("... and 49,990 more").

A server that writes 50,000 lines of noise to its stdout must not make 14 MB of
warnings; see docs/limits.md ("Floods").
"""

from __future__ import annotations

import threading

#: How many diagnostics of one kind are shown before the rest are only counted.
FIRST_SHOWN = 10


class RepeatedNotes:
    """Counts diagnostics of one kind; `take()` says whether to show this one.

    Args:
        what: the kind, plural, for the summary ("lines the server wrote to stdout that
            were not JSON-RPC messages").
        first: how many are shown.

    Thread-safe: a reader thread takes, the main thread summarises.
    """

    def __init__(self, what: str, first: int = FIRST_SHOWN):
        self.what = what
        self.first = first
        self.count = 0
        self._summarised = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        """Count one; True while it is among the first `first` (show it)."""
        with self._lock:
            self.count += 1
            return self.count <= self.first

    def summary(self, *, lead: str = "mrtr: warning: ", where: str = "", restart: bool = False) -> str | None:
        """One line for those not shown since the last summary (None: none were left out):
        `lead`, "... and 49,990 more WHAT (not shown`where`)".

        `restart`: begin counting again (the next `first` are shown again): a bound that
        holds per request, not per run."""
        with self._lock:
            left = self.count - max(self.first, self._summarised)
            if restart:
                self.count = self._summarised = 0
            elif left > 0:
                self._summarised = self.count
        if left <= 0:
            return None
        return f"{lead}... and {left:,} more {self.what} (not shown{where})"
