"""The `App` of a run of many lines over one session, shared by `mrtr batch`
(batch/runner.py) and `mrtr shell` (shell/host.py): each line, and each tool-list fetch,
gets its own `--timeout` window, and opening the session a floor of its own
(docs/batch.md, docs/shell.md).

A module of its own so that the shell loads neither the batch's input format nor its
records (docs/performance.md).
"""

from __future__ import annotations

from mrtr_cli.app import App, bounding_patterns
from mrtr_cli.protocol.deadline import Deadline

#: Seconds at least for opening the batch's session: a per-line `--timeout` is no bound for
#: starting a server (an SDK server over stdio may need seconds on a busy machine).
SESSION_OPEN_FLOOR = 30.0


class ManyLinesApp(App):
    """The `App` of a run of many lines over one session (`mrtr batch`, `mrtr shell`): every
    line, and every tool-list fetch, gets its own `--timeout` window."""

    def deadline(self) -> Deadline:
        """A fresh `--timeout` window (for one line, or one tool-list fetch), which also
        bounds the matching of a server's patterns (`bounding_patterns`)."""
        return bounding_patterns(Deadline(self.opts.timeout, self.opts.max_timeout))

    def session_deadline(self) -> Deadline:
        """Opening the session is no line's time: the larger of `--timeout` and
        `SESSION_OPEN_FLOOR` seconds (unbounded without `--timeout`, as for one call)."""
        timeout = self.opts.timeout
        return Deadline(None if timeout is None else max(timeout, SESSION_OPEN_FLOOR), self.opts.max_timeout)
