"""`sockets` on Windows: `select`, which takes sockets (only sockets there)."""

from __future__ import annotations

import select
import socket


def wait_socket(sock: socket.socket, writing: bool, timeout: float | None) -> bool:
    """True when `sock` can be written (`writing`) or read, or has failed; False when `timeout`
    seconds (None: no bound) passed first.

    Raises:
        OSError, ValueError: `sock` is closed.
    """
    wanted = [sock]
    ready = select.select([] if writing else wanted, wanted if writing else [], wanted,
                          None if timeout is None else max(timeout, 0.0))
    return any(ready)
