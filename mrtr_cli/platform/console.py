"""The terminal a person types in, when stdin is not it (stdin read for data, `--args -`;
or redirected in a terminal), as `git` and `ssh` use it.

POSIX: the controlling terminal, `/dev/tty`. Windows: the console's input, `CONIN$`.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    from mrtr_cli.platform._windows import console as _impl
else:
    from mrtr_cli.platform._posix import console as _impl

#: `open_terminal() -> IO[str] | None`: the terminal opened for reading text, or None
#: when this process has none (a CI job, a service).
open_terminal = _impl.open_terminal
#: `key_waiting(stream, timeout) -> bool | None`: whether a person typed something on
#: `stream` (a terminal) within `timeout` seconds; None when that cannot be told.
key_waiting = _impl.key_waiting
