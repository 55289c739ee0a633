"""The interface every task variant's wire code implements.

A `TaskWire` knows the methods and shapes of one task protocol and nothing else:
it reads the task a server created, fetches its current state, delivers input
responses and asks for cancellation, always returning a normalised `TaskState`.
The waiting loop (`mrtr_cli.tasks.driver`) only talks to this interface, so each
variant (the extension, SEP-2322, 2025-11-25 core tasks) is one small subclass.
Choosing the wire for a session is tasks/wires.py's job (it sits above the variants).
A variant belongs to one protocol era: a modern session uses only modern variants,
a legacy (handshake) session only the 2025-11-25 one (digest 6d, "dispatch on era first").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.session import Session
from mrtr_cli.tasks.state import TaskState

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import InputResponses, TaskParams


class TaskWire:
    """Variant-specific task requests on one session.

    Args:
        session: the server session.
        capabilities: the `ClientCapabilities` declared on every task request (the
            tasks extension is always among them).
        deadline: bounds every request (`--timeout`).

    Attributes:
        variant: a short name stored in task records ("ext", "sep-2322", "2025-11-25").
        augmented: the variant's tasks are asked for by the client (`params.task`, 2025-11-25
            task augmentation): it fits a session that `augments_tasks`; False: the server
            decides (the variants of 2026-07-28).
        takes_input_by_update: answers can be sent on their own (`send_input`, for
            `mrtr task update`); False when they only go in while waiting for the result.
    """

    variant = "base"
    augmented = False
    takes_input_by_update = True
    #: The command a hint gives to see a task, given its id (`mrtr --url URL task get ID`):
    #: tasks/runner.py sets its target's (`TaskContext.command`); None: `see_task` names
    #: the target in words.
    see_command: Callable[[str], str] | None = None

    def see_task(self, task_id: str) -> str:
        """The command that shows task `task_id` (`see_command`; else `mrtr task get ID` with
        "(with the same --url, --stdio or -s)"), built by render/invocation.py `command_line`."""
        if self.see_command is not None:
            return self.see_command(task_id)
        from mrtr_cli.render.invocation import command_line  # noqa: PLC0415 - only on an error path

        return (command_line(["task", "get"], [task_id], same_target=True)
                or "task get with the task's id (it cannot be shown as typed; task list --json shows it)")

    @classmethod
    def recognises(cls, result: dict[str, Any]) -> bool:
        """True when a `tools/call` result that created a task is in this variant's shape."""
        return False

    def __init__(self, session: Session, capabilities: dict[str, Any], deadline: Deadline):
        self.session = session
        self.capabilities = capabilities
        self.deadline = deadline

    def request(self, method: str, params: Mapping[str, object], *,
                deadline: Deadline | None = None) -> dict[str, Any]:
        """Send one task request with this wire's capabilities; returns the result object."""
        return self.session.request(method, params, capabilities=self.capabilities,
                                    deadline=deadline or self.deadline)

    # ------------------------------------------------------------------ the variant's job
    def read(self, obj: object, what: str, known_id: str | None = None) -> TaskState:
        """Normalise one task object of this variant (raises ProtocolError when malformed)."""
        raise NotImplementedError

    def created(self, result: dict[str, Any]) -> TaskState:
        """The task a `tools/call` result created."""
        return self.read(result, "CreateTaskResult")

    def get(self, task_id: str) -> TaskState:
        """Poll the task once (`tasks/get`, read by method whatever its `resultType`)."""
        params: TaskParams = {"taskId": task_id}
        return self.read(self.request("tasks/get", params), "tasks/get result", task_id)

    def blocks(self, state: TaskState) -> bool:
        """True when `complete(state)` may wait a long time (and ask the person questions
        through the session meanwhile); the driver then keeps its status line ticking."""
        return False

    def complete(self, state: TaskState) -> TaskState:
        """Fetch what this variant does not put in its status message (input requests,
        the final result); the extension inlines everything, so by default nothing."""
        return state

    def send_input(self, task_id: str, responses: InputResponses) -> None:
        """Deliver input responses for outstanding input request keys."""
        raise NotImplementedError

    def cancel(self, task_id: str, *, deadline: Deadline | None = None) -> TaskState | None:
        """Ask the server to cancel the task (`tasks/cancel`; cooperative, it may still finish).
        Returns the task's new state when the variant's answer carries one (else None)."""
        params: TaskParams = {"taskId": task_id}
        self.request("tasks/cancel", params, deadline=deadline)
        return None

    def adapt(self, state: TaskState) -> TaskWire:
        """The wire that fits how this server behaves, judging by `state` (default: self).
        A different wire re-reads `state.raw` with `read` before using it."""
        return self
