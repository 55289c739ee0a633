"""One normalised task state shared by every task variant.

The tasks extension (`io.modelcontextprotocol/tasks`, ext-tasks "Tasks"), the
SEP-2322 persistent workflow and the 2025-11-25 core tasks all describe a task
with the same facts under slightly different names and in different messages.
Each variant's wire code turns what its server sent into a `TaskState`, so the
waiting loop, the status display, the local records and Ctrl-C handling never
look at the wire shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.errors import JsonRpcError, ProtocolError
from mrtr_cli.protocol.checks.identifiers import check_identifier
from mrtr_cli.render.sanitize import one_line, quote_value

WORKING = "working"
INPUT_REQUIRED = "input_required"
COMPLETED = "completed"
FAILED = "failed"
CANCELLED = "cancelled"
TASK_STATUSES = (WORKING, INPUT_REQUIRED, COMPLETED, FAILED, CANCELLED)
TERMINAL_STATUSES = frozenset({COMPLETED, FAILED, CANCELLED})


@dataclass
class TaskState:
    """What is known about a task after one message from the server.

    Attributes:
        task_id: the server's `taskId`.
        status: one of `TASK_STATUSES`.
        status_message: the server's `statusMessage` (untrusted text), or None.
        input_requests: the outstanding `inputRequests` (key -> InputRequest) when the
            status is `input_required` and the variant has delivered them, else None.
        result: the final result object (for `tools/call` a CallToolResult) when
            completed and delivered, else None.
        error: the JSON-RPC error object `{code, message, data?}` when failed, else None.
        poll_interval_ms: the suggested polling interval in milliseconds, or None.
        ttl_ms: time to live from creation in milliseconds; None when unlimited or unknown.
        created_at, last_updated_at: the server's ISO 8601 timestamps, or None.
        raw: the object exactly as the server sent it (for `--json` and `task get`).
    """

    task_id: str
    status: str
    status_message: str | None = None
    input_requests: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    poll_interval_ms: int | None = None
    ttl_ms: int | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def terminal(self) -> bool:
        """True for completed, failed and cancelled: nothing more will happen."""
        return self.status in TERMINAL_STATUSES


def _millis(value: object) -> int | None:
    """A non-negative integer number of milliseconds, or None (absent, null, malformed or
    not finite)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != value \
            or value == float("inf"):
        return None
    return int(value)


def error_object(err: JsonRpcError) -> dict[str, Any]:
    """A JSON-RPC error object `{code, message, data?}` for `TaskState.error`."""
    return {"code": err.code, "message": err.message, **({"data": err.data} if err.data is not None else {})}


def _optional_object(obj: dict[str, Any], key: str, what: str) -> dict[str, Any] | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ProtocolError(f"the server's {what} has a {key!r} that is not an object")
    return value


def parse_task(obj: object, *, what: str, ttl_key: str = "ttlMs", poll_key: str = "pollIntervalMs",
               known_id: str | None = None) -> TaskState:
    """Read a flat task object (CreateTaskResult, DetailedTask, or a variant's equivalent).

    Args:
        obj: the result object as sent.
        what: how to name the message in errors, e.g. "tasks/get result".
        ttl_key, poll_key: the field names this variant uses for the TTL and the
            polling interval (`ttlMs`/`pollIntervalMs` in the extension).
        known_id: the task id the request was about; used when the object omits it.

    `resultType` is not looked at: the message is read by the method it answers
    (ext-tasks' own examples put `resultType: "task"` on `tasks/get` results).

    Raises:
        ProtocolError: no task id, one with no UTF-8 form or too long (`check_identifier`),
            an unknown status, or a payload field of the wrong type.
    """
    if not isinstance(obj, dict):
        raise ProtocolError(f"the server's {what} is not an object")
    task_id = obj.get("taskId", known_id)
    if not isinstance(task_id, str) or not task_id:
        raise ProtocolError(f"the server's {what} has no taskId")
    check_identifier(task_id, what=f"{what}'s taskId")
    if known_id is not None and task_id != known_id:  # an answer about another task is no answer
        raise ProtocolError(f"the server's {what} is about task {one_line(task_id)}, "
                            f"not {one_line(known_id)}", data={"taskId": task_id})
    status = obj.get("status")
    if status not in TASK_STATUSES:
        raise ProtocolError(f"the server's {what} has an unknown task status {quote_value(status)}",
                            data={"taskId": task_id, "status": status})
    message = obj.get("statusMessage")
    created, updated = obj.get("createdAt"), obj.get("lastUpdatedAt")
    return TaskState(
        task_id=task_id,
        status=status,
        status_message=message if isinstance(message, str) else None,
        input_requests=_optional_object(obj, "inputRequests", what),
        result=_optional_object(obj, "result", what),
        error=_optional_object(obj, "error", what),
        poll_interval_ms=_millis(obj.get(poll_key)),
        ttl_ms=_millis(obj.get(ttl_key)),
        created_at=created if isinstance(created, str) else None,
        last_updated_at=updated if isinstance(updated, str) else None,
        raw=obj,
    )
