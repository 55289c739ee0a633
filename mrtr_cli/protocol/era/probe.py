"""The era probe: `server/discover` with the modern `_meta` envelope, sent first on both
transports (it has no side effects, so the era is known before any era-ambiguous call is
sent), and what its outcome is as a `Verdict` (protocol/era/verdict.py).

No answer within the probe timeout means legacy, but only as a guess (`silent`). On
stdio the probe timeout counts from when the server has read the probe from its stdin
(`LocalProcess.unread_input`, the evidence that it is running): a server that has not begun
reading is still starting, and is waited for (`STARTING_LIMIT`, within --timeout) without
any verdict; its answer may still come late (the pending probe is handed back). On HTTP
(2026-07-28 streamable-http "Backward Compatibility": the modern request whose 400 body is
inspected) an HTTP 4xx without a modern error body, a broken stream or an answer that is
no JSON-RPC means legacy; a 401/403 is never a reason to fall back. A message no server may
send (`InvalidMessage`: over a limit, not UTF-8) is no evidence either: it fails the run
(exit 4) as it would with a pinned protocol; only a well-formed answer that is not a
DiscoverResult, or an error, says legacy. `--timeout` running
out during the probe is a timeout (exit 7) saying which request waited, never a verdict.
"""

from __future__ import annotations

import time
from typing import Any

from mrtr_cli.errors import AuthError, MrtrError, ProtocolError, TimeoutExpired, TransportError
from mrtr_cli.limits import describe_seconds
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.era.verdict import Verdict, classify_response
from mrtr_cli.protocol.headers import request_headers
from mrtr_cli.protocol.jsonrpc import make_request
from mrtr_cli.protocol.modern import LATEST_MODERN, META, client_info
from mrtr_cli.protocol.waiting import timeout_error
from mrtr_cli.render.invocation import for_new_shell
from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line
from mrtr_cli.render.trace import Tracer
from mrtr_cli.transport.base import InvalidMessage, Message, Transport
from mrtr_cli.transport.errors import BrokenStream, StatusError
from mrtr_cli.transport.future import Future

#: Seconds the probe waits for a stdio server to begin reading its stdin before the
#: probe timeout starts counting (within --timeout): a server still starting is no
#: evidence of either era. Beyond this, the probe timeout counts anyway.
STARTING_LIMIT = 120.0
#: Seconds between two looks at whether a starting stdio server has read the probe.
READ_POLL = 0.02


def probe(transport: Transport, tracer: Tracer, *, timeout: float, deadline: Deadline,
          capabilities: dict[str, Any] | None = None) -> tuple[Verdict, Future[Message] | None]:
    """Send `server/discover` with the modern envelope (declaring `capabilities`: what the
    run declares on a call, protocol/capabilities/declared.py) and classify what comes back.

    Returns:
        (verdict, late): `late` is the still-pending probe on stdio when it timed out,
        so a slow-starting modern server's answer can still be recognised.

    Raises:
        AuthError: HTTP 401/403 (never a reason to fall back).
        TransportError: the server cannot be started or reached.
        ProtocolError: a modern server that speaks no version in common.
        InvalidMessage: the answer is no acceptable message (too large, too deep, not
            UTF-8...): exit 4, never a legacy verdict.
    """
    params = {"_meta": {META + "protocolVersion": LATEST_MODERN, META + "clientCapabilities": capabilities or {},
                        META + "clientInfo": client_info()}}
    msg = make_request("server/discover", params)
    tracer.message("send", msg)
    fut = transport.request(msg, request_headers("server/discover", params, LATEST_MODERN))
    # The probe timeout counts from when the server has read the probe: one that has not
    # begun reading its stdin is still starting, and its silence says nothing yet.
    read_after = _wait_until_read(fut, transport, deadline)
    if read_after is not None:
        tracer.note(f"era probe: the server read server/discover {describe_seconds(read_after)} after it was sent "
                    "(the probe timeout counts from then)")
    left = deadline.remaining()
    limit = timeout if left is None else max(min(timeout, left), 0.0)
    cut_by_deadline = left is not None and left <= timeout  # --timeout, not the probe timeout, ends the wait
    try:
        response = _probe_result(fut, limit, transport)
    except TimeoutError:
        if cut_by_deadline or deadline.expired():  # --timeout ran out during the probe: no evidence of any era
            if transport.cancel_by_close:
                transport.abort(msg["id"])
            raise _probe_timeout_error(transport, deadline) from None
        silence = Verdict("legacy", None, None, f"server/discover: no answer within {describe_seconds(limit)}",
                          silent=True)
        if transport.cancel_by_close:
            transport.abort(msg["id"])
            return silence, None
        return silence, fut
    except AuthError:
        raise
    except StatusError as exc:
        if exc.status >= 500:
            add_hint(exc, "if this server speaks an older protocol, try --protocol 2025-11-25")
            raise
        return Verdict("legacy", None, None, f"server/discover: HTTP {exc.status} without a modern error"), None
    except BrokenStream as exc:
        return Verdict("legacy", None, None, f"server/discover: {one_line(exc.message, SERVER_TEXT_CHARS)}"), None
    except InvalidMessage:
        # A message no server of either era may send (over the size or nesting limit, not
        # UTF-8, a number JSON has not): no evidence of an era, and the request it answers
        # fails at once, as with a pinned protocol (docs/limits.md).
        raise
    except ProtocolError as exc:
        return Verdict("legacy", None, None, f"server/discover: {one_line(exc.message, SERVER_TEXT_CHARS)}"), None
    except TransportError as exc:
        process = transport.process()
        if not exc.hint and process is not None and process.unread_input() == 0:
            # Only a server that read the probe and then failed may have failed on it (an
            # older server that does not know server/discover); one that died before reading
            # it, or a connection that never opened, says nothing about its protocol.
            exc.hint = "if this server speaks an older protocol, " + for_new_shell("try --protocol 2025-11-25")
        raise
    tracer.message("recv", response)
    return classify_response(response), None


def _probe_timeout_error(transport: Transport, deadline: Deadline) -> TimeoutExpired:
    """The exit-7 error of a probe that `--timeout` cut short: the server did not answer
    `server/discover` in time, which says nothing about its era (never a legacy verdict)."""
    allowed = deadline.bound_seconds()
    return timeout_error(transport, deadline, "server/discover",
                         text=f"the server did not answer server/discover (the era probe) within {deadline.bound}"
                              + ("" if allowed is None else f" ({describe_seconds(allowed)})"))


def _wait_until_read(fut: Future[Message], transport: Transport,
                     deadline: Deadline) -> float | None:
    """Wait while a stdio server has not read the probe from its stdin (it is still
    starting: importing, installing, pulling an image), at most `STARTING_LIMIT` seconds
    and within `deadline`.

    Returns:
        the seconds waited, or None where the transport cannot tell (HTTP, a system
        without FIONREAD): the probe timeout then counts from the send.
    """
    process = transport.process()
    if process is None or process.unread_input() is None:
        return None
    start = time.monotonic()
    while not fut.done() and process.alive():
        if not process.unread_input():
            break
        left = deadline.remaining()
        if (left is not None and left <= 0) or time.monotonic() - start >= STARTING_LIMIT:
            break
        try:  # noqa: SIM105 - a catch of Exception stays marked for BLE001; suppress() would hide it
            fut.exception(timeout=READ_POLL if left is None else min(READ_POLL, left))
        except Exception:  # noqa: BLE001 - only waiting (TimeoutError: not yet); the caller reads the result
            pass
    return time.monotonic() - start


def _probe_result(fut: Future[Message], limit: float, transport: Transport) -> Message:
    """The probe's response within `limit` seconds, not counting the time its request waits
    for a token (a person signing in for a 401, a stored token refreshed before it is sent):
    the probe then gets `limit` again, and a token exchange that failed (a token endpoint
    that did not answer within --timeout) is its error, not the server's silence.

    Raises:
        TimeoutError: no answer in time.
    """
    while True:
        try:
            return fut.result(timeout=limit)
        except TimeoutError:
            if not transport.wait_sign_in():
                raise


def add_hint(exc: MrtrError, line: str) -> None:
    """Add `line` to the error's hint (after what is there, e.g. the response body)."""
    exc.hint = f"{exc.hint}\n{line}" if exc.hint else line

