"""Watching a server for changes (`mrtr listen`).

Spec: 2026-07-28 basic/patterns/subscriptions (`subscriptions/listen` with a
`notifications` filter, `notifications/subscriptions/acknowledged` first, every message
tagged with `io.modelcontextprotocol/subscriptionId`, the client cancels by closing the
SSE stream (HTTP) or `notifications/cancelled` (stdio), a server ending the stream sends
the listen request's result); 2025-11-25 server/resources ("Subscriptions":
`resources/subscribe` / `resources/unsubscribe`, `notifications/resources/updated`) and
the `listChanged` notifications of tools, prompts and resources.

Both eras end the same three ways: `count` notifications delivered (`Ended.reason`
"count"), the time bound (TimeoutExpired, exit 7), Ctrl-C (KeyboardInterrupt, exit 130),
each after closing the subscription; or the server ends it ("closed").
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.errors import JsonRpcError, ProtocolError, TimeoutExpired
from mrtr_cli.limits import describe_seconds
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.modern import META
from mrtr_cli.protocol.session import Session
from mrtr_cli.transport.base import Message, kill_server

SUBSCRIPTION_ID = META + "subscriptionId"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
UPDATED = "notifications/resources/updated"
#: kind -> (filter field, list-changed notification)
LISTS = {
    "tools": ("toolsListChanged", "notifications/tools/list_changed"),
    "prompts": ("promptsListChanged", "notifications/prompts/list_changed"),
    "resources": ("resourcesListChanged", "notifications/resources/list_changed"),
}
METHOD_NOT_FOUND = -32601
_UNSUBSCRIBE_SECONDS = 3.0  # for resources/unsubscribe on the way out


def listenable(capabilities: object) -> list[str]:
    """What `mrtr listen` can watch on a server with `capabilities`: "tools", "prompts",
    "resources" (their `listChanged`) and "resource updates" (`resources.subscribe`)."""
    caps = capabilities if isinstance(capabilities, dict) else {}
    out = [k for k in LISTS if isinstance(caps.get(k), dict) and caps[k].get("listChanged") is True]
    resources = raw_resources if isinstance(raw_resources := caps.get("resources"), dict) else {}
    if resources.get("subscribe") is True:
        out.append("resource updates")
    return out


class ListenDeadline(Deadline):
    """A `Deadline` that can also be ended early (`stop`): the session's wait then
    cancels the listen request as it does on a timeout, telling the server `stop_reason`."""

    def __init__(self, timeout: float | None = None):
        super().__init__(timeout)
        if timeout is None:
            self.timeout = 0.0  # only for the session's timeout message, which `stop` may cause
        self._stopped = threading.Event()
        self.stop_reason: str | None = None

    def stop(self, reason: str) -> None:
        """End the wait now (from any thread)."""
        self.stop_reason = reason
        self._stopped.set()

    @property
    def stopped(self) -> bool:
        """True once `stop` was called."""
        return self._stopped.is_set()

    def remaining(self) -> float | None:
        """Seconds left: 0 once stopped, else as `Deadline.remaining`."""
        return 0.0 if self._stopped.is_set() else super().remaining()

    def wait(self, seconds: float) -> None:
        """Sleep up to `seconds`, waking early on `stop`."""
        self._stopped.wait(seconds)


@dataclass
class Want:
    """What to listen for: list changes of `kinds` ("tools", "prompts", "resources") and
    updates of the resource `uris`."""

    kinds: list[str] = field(default_factory=list)
    uris: list[str] = field(default_factory=list)

    def filter(self) -> dict[str, Any]:
        """The 2026-07-28 `notifications` filter object."""
        out: dict[str, Any] = {LISTS[k][0]: True for k in self.kinds}
        if self.uris:
            out["resourceSubscriptions"] = list(self.uris)
        return out

    def matches(self, msg: Message) -> bool:
        """Whether notification `msg` is one of the kinds asked for."""
        method = msg.get("method")
        if method == UPDATED:
            raw_params = msg.get("params")
            params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
            return params.get("uri") in self.uris
        return any(method == LISTS[k][1] for k in self.kinds)

    def missing_from(self, acknowledged: object) -> list[str]:
        """The requested filter entries the server's acknowledgement left out."""
        ack = acknowledged if isinstance(acknowledged, dict) else {}
        missing = [LISTS[k][0] for k in self.kinds if ack.get(LISTS[k][0]) is not True]
        honoured = raw_honoured if isinstance(raw_honoured := ack.get("resourceSubscriptions"), list) else []
        missing += [f"resource {u}" for u in self.uris if u not in honoured]
        return missing


@dataclass
class Ended:
    """How a listen ended without an error: "count" (enough notifications) or "closed"
    (the server ended the subscription gracefully), and how many were delivered."""

    reason: str
    delivered: int


class Listener:
    """Delivers the notifications of one subscription to `on_event`, at most `count` (0: no
    limit), then stops `deadline`. Runs on a transport reader thread."""

    def __init__(self, want: Want, on_event: Callable[[Message], None], count: int, deadline: ListenDeadline,
                 on_ack: Callable[[Message], None] | None = None, *, modern: bool):
        self.want = want
        self.on_event = on_event
        self.on_ack = on_ack
        self.count = count
        self.deadline = deadline
        self.modern = modern
        self.subscription: Any = None
        self.acknowledged = not modern
        self.delivered = 0
        self._lock = threading.Lock()

    def __call__(self, msg: Message) -> None:
        """Take one notification from the session (`Session.on_notification`)."""
        raw_params = msg.get("params")
        params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
        meta = raw_meta if isinstance(raw_meta := params.get("_meta"), dict) else {}
        with self._lock:
            if self.modern:
                if msg.get("method") == ACKNOWLEDGED and not self.acknowledged:
                    self.acknowledged = True
                    self.subscription = meta.get(SUBSCRIPTION_ID)
                    if self.on_ack is not None:
                        self.on_ack(msg)
                    return
                # Before the acknowledgement nothing belongs to the subscription; after
                # it, only what carries its id (stdio shares one channel).
                if not self.acknowledged or meta.get(SUBSCRIPTION_ID) != self.subscription:
                    return
            if not self.want.matches(msg) or self.deadline.stopped:
                return
            self.delivered += 1
            self.on_event(msg)
            if self.count and self.delivered >= self.count:
                self.deadline.stop(f"received the {self.count} notification(s) asked for")


def listen(session: Session, want: Want, *, on_event: Callable[[Message], None], count: int = 0,
           timeout: float | None = None, on_ack: Callable[[Message], None] | None = None,
           warn: Callable[[str], None] | None = None) -> Ended:
    """Listen on `session` until `count` notifications arrived, `timeout` seconds passed,
    Ctrl-C, or the server ends the subscription.

    Args:
        on_event: gets each matching notification as sent (on a reader thread).
        on_ack: gets the 2026-07-28 acknowledgement (not counted); on a 2025-11-25
            server, `{}` once listening starts (after any resources/subscribe).
        warn: gets one line per thing the server will not deliver.

    Raises:
        TimeoutExpired: `timeout` ran out (after the subscription was closed).
        KeyboardInterrupt: Ctrl-C (after it was closed).
        ProtocolError: a 2025-11-25 server that offers nothing asked for; or as
            `Session.request` (JsonRpcError, TransportError...).
    """
    deadline = ListenDeadline(timeout)
    listener = Listener(want, on_event, count, deadline, on_ack, modern=session.listens_by_request)
    before = session.on_notification  # another watcher of the session (`mrtr shell`) keeps its own
    session.route_notifications(listener if before is None else _both(listener, before))
    try:
        if not session.listens_by_request:
            return _listen_legacy(session, want, listener, deadline, warn or (lambda _l: None))
        return _listen_modern(session, want, listener, deadline, warn)
    finally:
        session.route_notifications(before)


def _both(first: Callable[[Message], None], then: Callable[[Message], None]) -> Callable[[Message], None]:
    """A notification handler handing each notification to `first`, then to `then`."""
    def handle(msg: Message) -> None:
        first(msg)
        then(msg)

    return handle


def _listen_modern(session: Session, want: Want, listener: Listener, deadline: ListenDeadline,
                   warn: Callable[[str], None] | None) -> Ended:
    if warn is not None:
        given = listener.on_ack

        def on_ack(msg: Message) -> None:
            raw_params = msg.get("params")
            params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
            missing = want.missing_from(params.get("notifications"))
            if missing:
                warn("the server did not agree to send: " + ", ".join(missing))
            if given is not None:
                given(msg)

        listener.on_ack = on_ack
    try:
        session.request("subscriptions/listen", {"notifications": want.filter()}, deadline=deadline)
    except JsonRpcError as err:
        if err.code == METHOD_NOT_FOUND:
            err.hint = err.hint or ("this server does not serve subscriptions/listen "
                                    "(mrtr discover shows what it offers)")
        raise
    except TimeoutExpired:
        if deadline.stopped:
            return Ended("count", listener.delivered)
        raise TimeoutExpired(f"listened for {describe_seconds(deadline.timeout)} (--timeout); "
                             f"{listener.delivered} notification(s) received") from None
    return Ended("closed", listener.delivered)


def _listen_legacy(session: Session, want: Want, listener: Listener, deadline: ListenDeadline,
                   warn: Callable[[str], None]) -> Ended:
    caps = getattr(session, "server_capabilities", {}) or {}
    offered = []
    for kind in want.kinds:
        cap = caps.get(kind) if isinstance(caps.get(kind), dict) else None
        if cap is None or not cap.get("listChanged"):
            warn(f"the server does not declare {kind}.listChanged: it may never say its {kind} changed")
        offered.append(kind)
    resources = raw_resources if isinstance(raw_resources := caps.get("resources"), dict) else {}
    uris = list(want.uris)
    if uris and not resources.get("subscribe"):
        warn("the server does not offer resources/subscribe: no resource updates will come")
        uris = []
    if not offered and not uris:
        raise ProtocolError("the server offers nothing of what was asked to listen for")
    subscribed: list[str] = []
    interrupted = False
    try:
        for uri in uris:
            subscribed.append(uri)  # unsubscribed on the way out even if this is interrupted
            try:
                session.request("resources/subscribe", {"uri": uri}, deadline=deadline)
            except TimeoutExpired:
                if deadline.stopped and listener.count and listener.delivered >= listener.count:
                    break  # the notifications asked for came before this answer: done (no race)
                raise
        if listener.on_ack is not None:  # what was asked for is in place: listening starts now
            listener.on_ack({})
        while not deadline.stopped:
            left = deadline.remaining()
            if left is not None and left <= 0:
                raise TimeoutExpired(f"listened for {describe_seconds(deadline.timeout)} (--timeout); "
                                     f"{listener.delivered} notification(s) received")
            deadline.wait(0.2 if left is None else min(0.2, left))
        return Ended("count", listener.delivered)
    except KeyboardInterrupt:
        interrupted = True
        from mrtr_cli.protocol.interrupts import arm_hard_exit  # noqa: PLC0415 - lazy for start-up time

        arm_hard_exit(lambda: kill_server(session.transport))  # a second Ctrl-C while unsubscribing exits at once
        raise
    finally:
        listener.deadline.stop("the client stopped listening")
        for uri in subscribed:
            try:
                session.request("resources/unsubscribe", {"uri": uri}, deadline=Deadline(_UNSUBSCRIBE_SECONDS))
            except Exception:  # noqa: BLE001 - closing anyway; the session ends next
                if interrupted:
                    break
