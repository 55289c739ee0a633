"""The tasks extension `io.modelcontextprotocol/tasks` (ext-tasks "Tasks"; SEP-2663).

- Creation: `tools/call` answers `resultType: "task"` with a flat CreateTaskResult
  (`taskId`, `status`, `statusMessage?`, `createdAt`, `lastUpdatedAt`, `ttlMs`,
  `pollIntervalMs?`).
- `tasks/get {taskId}` returns a DetailedTask: `inputRequests` inlined when
  `input_required`, `result` when `completed`, `error` when `failed`. It is read
  by method, whatever its `resultType` says.
- `tasks/update {taskId, inputResponses}` answers outstanding keys (partial sets allowed).
- `tasks/cancel {taskId}` asks for cancellation (an empty acknowledgement).

The extension must be declared in `clientCapabilities.extensions` on every one of
these requests; `TaskWire.request` sends the capabilities it was built with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrtr_cli.tasks.state import COMPLETED, FAILED, INPUT_REQUIRED, TaskState, parse_task
from mrtr_cli.tasks.wire import TaskWire

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import InputResponses, UpdateTaskParams


class ExtTasksWire(TaskWire):
    """Polls, feeds and cancels a task of the tasks extension."""

    variant = "ext"

    @classmethod
    def recognises(cls, result: dict[str, Any]) -> bool:
        return isinstance(result.get("taskId"), str)

    def read(self, obj: object, what: str, known_id: str | None = None) -> TaskState:
        return parse_task(obj, what=what, known_id=known_id)

    def send_input(self, task_id: str, responses: InputResponses) -> None:
        params: UpdateTaskParams = {"taskId": task_id, "inputResponses": responses}
        self.request("tasks/update", params)

    def adapt(self, state: TaskState) -> TaskWire:
        """Switch to the SEP-2322 workflow when a `tasks/get` result shows its signature: an
        `input_required` status without `inputRequests`, `completed` without `result` or
        `failed` without `error` (each means "call tasks/result" there), or the SEP's names."""
        from mrtr_cli.tasks.sep2322 import Sep2322Wire  # noqa: PLC0415 - lazy for start-up time

        if (state.status == INPUT_REQUIRED and state.input_requests is None) or (
            state.status == COMPLETED and state.result is None) or (
            state.status == FAILED and state.error is None) or Sep2322Wire.recognises(state.raw):
            self.session.tracer.note(f"task {state.task_id}: the server follows SEP-2322; "
                                     "using tasks/result and tasks/input_response")
            return Sep2322Wire(self.session, self.capabilities, self.deadline)
        return self
