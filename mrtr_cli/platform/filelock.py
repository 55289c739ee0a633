"""A lock across processes on an open file: held by one descriptor at a time, released by
`unlock` or when the descriptor closes (also when its process dies).

POSIX: `flock` on the whole file. Windows: `msvcrt.locking` on one byte at 1 GiB, past
any data these files hold, so the lock never stops its own process (or a reader) from
reading or writing the file's contents (the offset SQLite uses for the same reason).
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    from mrtr_cli.platform._windows import filelock as _impl
else:
    from mrtr_cli.platform._posix import filelock as _impl

#: `try_lock(fd) -> bool`: take the lock without waiting; False when another holds it.
try_lock = _impl.try_lock
#: `unlock(fd)`: release it (never raises).
unlock = _impl.unlock
