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

from mrtr_cli.errors import ProtocolError
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.session import Session


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
    method = session.ping_method
    start = time.monotonic()
    result = session.request(method, {}, deadline=deadline)
    seconds = time.monotonic() - start
    check_reply(method, result)
    return Echo(method, seconds, result)


def check_reply(method: str, result: object) -> None:
    """Refuse a reply that is not what the ping asked for: `ping`'s result is empty (an
    `EmptyResult`: nothing but `_meta`), and neither `ping` nor `server/discover` is ever
    answered with a task (`CreateTaskResult`) or another `resultType` than "complete".

    Raises:
        ProtocolError: such a reply (exit 4), naming what came back.
    """
    from mrtr_cli.render.sanitize import one_line  # noqa: PLC0415 - lazy for start-up time

    result = result if isinstance(result, dict) else {}
    kind = result.get("resultType")
    if "task" in result or kind == "task":
        what = "a task (CreateTaskResult)"
    elif kind not in (None, "complete"):
        what = f"resultType {one_line(kind, 60)!r}"
    elif method == "ping" and set(result) - {"_meta", "resultType"}:
        members = ", ".join(one_line(m, 40) for m in sorted(result)[:5])
        what = f"a result with members ({members}) where an empty one belongs"
    else:
        return
    raise ProtocolError(f"the server answered {method} with {what}; a ping's reply is "
                        + ("an empty result" if method == "ping" else "its discover result"))
