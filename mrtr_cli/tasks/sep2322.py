"""The SEP-2322 "Persistent Tool Workflow" (sep-2322-MRTR.mdx; superseded by the extension).

A pre-release server of this kind says `input_required` (or `completed`) on
`tasks/get` without the payload; the client then:

- calls `tasks/result {taskId}`, which returns `{resultType: "input_required",
  inputRequests}` while input is needed, the final result once completed, or the
  task's JSON-RPC error once failed;
- answers with `tasks/input_response {inputResponses}` carrying the task id only in
  `_meta["io.modelcontextprotocol/related-task"]`;
- names the TTL and interval `ttl`/`pollInterval` (the `...Ms` names are accepted too).

Only what differs from the extension lives here; polling and cancelling are the
shared `tasks/get` and `tasks/cancel` of `TaskWire`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mrtr_cli.errors import JsonRpcError
from mrtr_cli.tasks.state import COMPLETED, FAILED, INPUT_REQUIRED, TaskState, error_object, parse_task
from mrtr_cli.tasks.wire import TaskWire

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import InputResponses

RELATED_TASK = "io.modelcontextprotocol/related-task"
METHOD_NOT_FOUND = -32601


def parse_sep2322_task(obj: object, what: str, known_id: str | None = None) -> TaskState:
    """Read a SEP-2322 task (flat, or nested under `task` as its creation result is)."""
    if isinstance(obj, dict) and isinstance(obj.get("task"), dict):
        obj = obj["task"]  # the SEP's creation result nests the task
    names = obj if isinstance(obj, dict) else {}
    return parse_task(obj, what=what, known_id=known_id,
                      ttl_key="ttlMs" if "ttlMs" in names else "ttl",
                      poll_key="pollIntervalMs" if "pollIntervalMs" in names else "pollInterval")


class Sep2322Wire(TaskWire):
    """Polls with `tasks/get`, fetches input requests and results with `tasks/result`."""

    variant = "sep-2322"

    @classmethod
    def recognises(cls, result: dict[str, Any]) -> bool:
        """The SEP's shapes: the task nested under `task`, or `ttl`/`pollInterval` without
        the extension's `...Ms` names."""
        if isinstance(result.get("task"), dict):
            return True
        return ("ttl" in result and "ttlMs" not in result) or (
            "pollInterval" in result and "pollIntervalMs" not in result)

    def read(self, obj: object, what: str, known_id: str | None = None) -> TaskState:
        return parse_sep2322_task(obj, what, known_id)

    def complete(self, state: TaskState) -> TaskState:
        wanted = (state.status == INPUT_REQUIRED and state.input_requests is None) or (
            state.status == COMPLETED and state.result is None) or (state.status == FAILED and state.error is None)
        if not wanted:
            return state
        try:
            payload = self.request("tasks/result", {"taskId": state.task_id})
        except JsonRpcError as err:
            if state.status == FAILED:
                return replace(state, error=error_object(err))
            if err.code == METHOD_NOT_FOUND:
                return state  # nothing more to learn; keep polling
            raise
        if state.status == INPUT_REQUIRED:
            requests = payload.get("inputRequests") if payload.get("resultType") == INPUT_REQUIRED else None
            return replace(state, input_requests=requests if isinstance(requests, dict) else None)
        if state.status == COMPLETED:
            return replace(state, result=payload)
        return state

    def send_input(self, task_id: str, responses: InputResponses) -> None:
        self.request("tasks/input_response",
                     {"inputResponses": responses, "_meta": {RELATED_TASK: {"taskId": task_id}}})
