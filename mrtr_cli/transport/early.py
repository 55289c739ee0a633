"""Launching a stdio server before the session opens, so that it boots while `mrtr`
finishes loading (docs/performance.md); the session adopts the transport
(protocol/opening.py). Nothing happens for an HTTP target.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def spawn_early(target: Any, env: Any, tracer: Any, check: Callable[[], Any]) -> Any:
    """Start `target`'s stdio server now and return its transport (None for HTTP).

    Args:
        target: a `config.target.Target`.
        env, tracer: the run's environment and tracer (the transport's stderr and `-v`).
        check: checks the options the session will need (`protocol.opening.check_session_options`);
            if it raises, the server is stopped again and the error raised.

    A server that cannot be launched is reported when the session opens.
    """
    if not target.command:
        return None
    transport = target.make_transport(env, tracer)
    transport.spawn()
    try:
        check()
    except BaseException:
        transport.kill()
        raise
    return transport
