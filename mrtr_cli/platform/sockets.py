"""Waiting on a non-blocking socket (the HTTP direct lane's, transport/http/direct.py).

| | POSIX | Windows |
|---|---|---|
| `wait_socket(sock, writing, timeout)` | `poll` (any descriptor number) | `select` (which takes sockets) |

A socket in Python's timeout mode waits the same way inside each call, but setting its
timeout before each call is a system call of its own; a socket kept non-blocking and
waited on here costs one wait and one transfer per step.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    from mrtr_cli.platform._windows import sockets as _impl
else:
    from mrtr_cli.platform._posix import sockets as _impl

#: `wait_socket(sock, writing, timeout) -> bool`: True when `sock` can be written (`writing`)
#: or read, or has ended or failed (the call that follows says which); False when `timeout`
#: seconds passed first (None: no bound; 0: no wait).
#: Raises OSError or ValueError for a socket that is closed.
wait_socket = _impl.wait_socket
