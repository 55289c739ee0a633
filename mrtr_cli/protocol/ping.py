"""Round trips that only check the server is there (`mrtr ping`).

Spec: 2025-11-25 basic/utilities/ping (`ping` -> `{}`, "The receiver MUST respond
promptly"). 2026-07-28 removed `ping` (changelog, "Remove `ping`"; its servers answer
`-32601`), so on a 2026-07-28 session the round trip is `server/discover`, the one
request every such server answers without arguments.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.session import Session


def ping_method(session: Session) -> str:
    """The request that pings `session`'s server: `ping` (legacy), `server/discover` (2026-07-28)."""
    return "ping" if session.era == "legacy" else "server/discover"


@dataclass
class Echo:
    """One answered ping: its request method, round-trip time in seconds, and the result as sent."""

    method: str
    seconds: float
    result: dict[str, Any]


def ping_once(session: Session, deadline: Deadline) -> Echo:
    """Send one ping request and time it (monotonic clock, send to response).

    Raises:
        TimeoutExpired: no reply within `deadline` (the request is cancelled).
        TransportError / JsonRpcError / ProtocolError: from the session.
    """
    method = ping_method(session)
    start = time.monotonic()
    result = session.request(method, {}, deadline=deadline)
    return Echo(method, time.monotonic() - start, result)
