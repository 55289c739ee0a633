"""The run as the protocol layer sees it: `ProtocolRun`, the run's interface
(`runcontext.RunContext`) with what the run builds once and hands to a session, typed
by this layer (the deadline, the tool catalog, the list cache, the `--strict` checker,
the OAuth hook of an HTTP target, the `task` field of a call, an HTTP session to rejoin).

`runcontext.RunContext` sits below the protocol layer, so it cannot name these types;
the application layer's `App` implements both (docs/architecture.md "Layers").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from mrtr_cli.runcontext import RunContext

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.config.target import Target
    from mrtr_cli.protocol.checks.strict import StrictChecker
    from mrtr_cli.protocol.deadline import Deadline
    from mrtr_cli.protocol.lists.cache import ListCache
    from mrtr_cli.protocol.lists.catalog import ToolCatalog
    from mrtr_cli.protocol.session import Session
    from mrtr_cli.transport.base import SignIn


class RejoinSession(TypedDict):
    """A 2025-11-25 HTTP session left open for a task (its task record keeps it,
    tasks/records.py): `protocol.legacy.LegacySession.open` rejoins it instead of sending `initialize`
    (2025-11-25 basic/transports "Session Management")."""

    #: Its `Mcp-Session-Id`.
    sessionId: str
    #: The `capabilities` of the `InitializeResult` that opened it, or None when unknown.
    serverCapabilities: dict[str, Any] | None


class CapabilitySource(Protocol):
    """What a session asks of the run's responder chain (`responders.chain.ResponderChain`)."""

    def capabilities(self) -> dict[str, Any]:
        """The `ClientCapabilities` this run can honour (2026-07-28 basic/index)."""


class ProtocolRun(RunContext, Protocol):
    """One run, as the protocol layer sees it (implemented by `mrtr_cli.app.App`)."""

    @property
    def rejoin_session(self) -> RejoinSession | None:
        """A 2025-11-25 HTTP session left open for a task, to rejoin instead of initializing
        one (`tasks.runner.use_record_protocol` finds it in the task's record), or None."""

    def deadline(self) -> Deadline:
        """The time bound of the run (a fresh one per batch line)."""

    def session_deadline(self) -> Deadline:
        """The time bound for opening a session."""

    def chain(self) -> CapabilitySource:
        """The run's responder chain (built once)."""

    def catalog(self, session: Session) -> ToolCatalog:
        """The server's tools (one catalog per session)."""

    def list_cache(self) -> ListCache | None:
        """The server's list cache, or None (`MRTR_NO_CACHE`)."""

    def strict_checker(self) -> StrictChecker | None:
        """`--strict`: the run's checker, or None."""

    def authorizer(self, target: Target) -> SignIn | None:
        """The OAuth hook of an HTTP target (a `transport.base.SignIn`: transport/http/authhook.py's
        `Authorizer`), or None."""

    def task_field(self, session: Session, name: str, catalog: ToolCatalog) -> dict[str, Any] | None:
        """The `task` member of `tools/call NAME` on a 2025-11-25 server (tasks/field.py),
        or None. Raises UsageError."""
