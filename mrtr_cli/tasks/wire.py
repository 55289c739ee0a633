"""The interface every task variant's wire code implements.

A `TaskWire` knows the methods and shapes of one task protocol and nothing else:
it reads the task a server created, fetches its current state, delivers input
responses and asks for cancellation, always returning a normalised `TaskState`.
The waiting loop (`mrtr_cli.tasks.driver`) only talks to this interface, so a new
variant (e.g. 2025-11-25 core tasks) is one more small subclass.
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.session import Session
from mrtr_cli.tasks.state import TaskState


class TaskWire:
    """Variant-specific task requests on one session.

    Args:
        session: the server session.
        capabilities: the `ClientCapabilities` declared on every task request (the
            tasks extension is always among them).
        deadline: bounds every request (`--timeout`).

    Attributes:
        variant: a short name stored in task records ("ext", "sep-2322", ...).
    """

    variant = "base"

    def __init__(self, session: Session, capabilities: dict[str, Any], deadline: Deadline):
        self.session = session
        self.capabilities = capabilities
        self.deadline = deadline

    def request(self, method: str, params: dict[str, Any], *, deadline: Deadline | None = None) -> dict[str, Any]:
        """Send one task request with this wire's capabilities; returns the result object."""
        return self.session.request(method, params, capabilities=self.capabilities,
                                    deadline=deadline or self.deadline)

    # ------------------------------------------------------------------ the variant's job
    def created(self, result: dict[str, Any]) -> TaskState:
        """The task a `tools/call` result created (raises ProtocolError when malformed)."""
        raise NotImplementedError

    def get(self, task_id: str) -> TaskState:
        """Poll the task once."""
        raise NotImplementedError

    def complete(self, state: TaskState) -> TaskState:
        """Fetch what this variant does not put in its status message (input requests,
        the final result); the extension inlines everything, so by default nothing."""
        return state

    def send_input(self, task_id: str, responses: dict[str, Any]) -> None:
        """Deliver input responses for outstanding input request keys."""
        raise NotImplementedError

    def cancel(self, task_id: str, *, deadline: Deadline | None = None) -> None:
        """Ask the server to cancel the task (cooperative; the task may still finish)."""
        raise NotImplementedError

    def adapt(self, state: TaskState) -> TaskWire:
        """The wire that fits how this server behaves, judging by `state` (default: self)."""
        return self


def wire_for(variant: str | None, session: Session, capabilities: dict[str, Any], deadline: Deadline) -> TaskWire:
    """The wire for a variant name from a task record ("ext" when unknown)."""
    from mrtr_cli.tasks.ext import ExtTasksWire  # noqa: PLC0415
    from mrtr_cli.tasks.sep2322 import Sep2322Wire  # noqa: PLC0415

    for cls in (Sep2322Wire, ExtTasksWire):
        if cls.variant == variant:
            return cls(session, capabilities, deadline)
    return ExtTasksWire(session, capabilities, deadline)
