"""`sockets` on Linux and macOS: `poll`, which takes any descriptor number (`select` stops at
`FD_SETSIZE`)."""

from __future__ import annotations

import math
import select
import socket
import sys

# POSIX only (the platform facade picks the Windows module); the type checker skips the rest on Windows.
assert sys.platform != "win32", "POSIX only"


def wait_socket(sock: socket.socket, writing: bool, timeout: float | None) -> bool:
    """True when `sock` can be written (`writing`) or read, or has ended or failed; False when
    `timeout` seconds (None: no bound; rounded up to a millisecond) passed first.

    Raises:
        ValueError: `sock` is closed.
    """
    poller = select.poll()
    poller.register(sock, select.POLLOUT if writing else select.POLLIN)
    return bool(poller.poll(None if timeout is None else math.ceil(max(timeout, 0.0) * 1000)))
