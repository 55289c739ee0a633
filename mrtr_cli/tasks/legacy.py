"""2025-11-25 core tasks (2025-11-25 `basic/utilities/tasks`, "experimental"), on legacy sessions only.

What differs from the tasks extension, and how `mrtr` maps it onto the shared driver:

- Opt-in per request: a `tools/call` becomes a task only when the client adds
  `params.task = {"ttl": <ms>}`, which it MUST NOT do unless the server's `initialize`
  result has `capabilities.tasks.requests.tools.call` and the tool's
  `execution.taskSupport` is `"required"` (always) or `"optional"` (with `--task`);
  absent means `"forbidden"` (`task_augmentation`).
- Creation: the result is a CreateTaskResult `{"task": Task}` (no `resultType` in this
  era), recognised by `task.taskId`; `Task` names its TTL and interval `ttl` and
  `pollInterval` (milliseconds, `ttl` null for unlimited).
- `tasks/get {taskId}` returns `Result & Task`: status only, never the payload.
- `tasks/result {taskId}` BLOCKS until the task is terminal and returns exactly what
  `tools/call` would have (the CallToolResult, or the JSON-RPC error). While it blocks,
  a task in `input_required` sends ordinary server requests (`elicitation/create`,
  `sampling/createMessage`, `roots/list`, tagged `_meta["io.modelcontextprotocol/
  related-task"]`), which the legacy session answers through the responder chain. So
  input is given through `tasks/result`; there is no `tasks/update`.
- `failed` includes a tool result with `isError: true` (in the extension that is `completed`).
- `tasks/cancel {taskId}` returns the Task (status `cancelled`); a terminal task, or an
  unknown id, gets -32602 (one `tasks/get` tells which).
- `tasks/list {cursor?}` pages the server's tasks (`capabilities.tasks.list`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mrtr_cli.errors import JsonRpcError, MrtrError, UsageError
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.legacy import is_create_task_result
from mrtr_cli.protocol.session import Session
from mrtr_cli.render.invocation import command
from mrtr_cli.render.sanitize import sanitize
from mrtr_cli.tasks.state import COMPLETED, FAILED, INPUT_REQUIRED, TaskState, error_object, parse_task
from mrtr_cli.tasks.wire import TaskWire

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import InputResponses

VARIANT = "2025-11-25"
#: `--task-ttl` default: how long the server should keep a task (and its result) after creation.
DEFAULT_TASK_TTL_SECONDS = 3600.0
INVALID_PARAMS = -32602
REQUIRED, OPTIONAL, FORBIDDEN = "required", "optional", "forbidden"


def tool_task_support(tool: dict[str, Any] | None) -> str:
    """The tool's `execution.taskSupport` (`"forbidden"` when absent or unknown)."""
    execution = tool.get("execution") if isinstance(tool, dict) else None
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return support if support in (REQUIRED, OPTIONAL, FORBIDDEN) else FORBIDDEN


def task_augmentation(session: Session, name: str, tool: dict[str, Any] | None, *, requested: bool,
                      ttl_seconds: float | None) -> dict[str, Any] | None:
    """The `task` member to add to `tools/call NAME`, or None (2025-11-25 "Tool-Level Negotiation").

    Args:
        session: the open session (only a legacy one ever gets a task member).
        name: the tool name (for messages).
        tool: the tool from `tools/list`, or None when the list could not be read.
        requested: the user passed `--task`.
        ttl_seconds: `--task-ttl`, or None for `DEFAULT_TASK_TTL_SECONDS`.

    Returns:
        `{"ttl": <milliseconds>}` when the tool is `required`, or `optional` and requested
        (or unknown and requested), on a server with `tasks.requests.tools.call`; else None.

    Raises:
        UsageError: `--task` for a server without that capability or a tool whose
            `taskSupport` is `forbidden` (exit 2), or a `--task-ttl` that is not positive.
    """
    if ttl_seconds is not None and ttl_seconds <= 0:
        raise UsageError(f"--task-ttl {ttl_seconds:g}: expected a positive number of seconds")
    ttl = {"ttl": max(1, round((ttl_seconds if ttl_seconds is not None else DEFAULT_TASK_TTL_SECONDS) * 1000))}
    if not session.augments_tasks:
        return None  # 2026-07-28: the server decides (the tasks extension is declared on every call)
    server = sanitize(session.server_name, single_line=True)
    if not session.task_capability("requests", "tools", "call"):
        if requested:
            raise UsageError(f"--task: {server} cannot run tools as tasks (its initialize result has no "
                             "capabilities.tasks.requests.tools.call)", hint="call the tool without --task")
        return None
    support = tool_task_support(tool) if tool is not None else None
    if support == REQUIRED or (requested and support in (OPTIONAL, None)):
        return ttl
    if requested:
        raise UsageError(f"--task: tool {sanitize(name, single_line=True)} on {server} cannot run as a task "
                         "(its execution.taskSupport is forbidden)", hint="call the tool without --task")
    return None


def parse_legacy_task(obj: object, what: str, known_id: str | None = None) -> TaskState:
    """Read a 2025-11-25 Task (flat, or nested under `task` as in a CreateTaskResult)."""
    if isinstance(obj, dict) and isinstance(obj.get("task"), dict):
        obj = obj["task"]
    return parse_task(obj, what=what, known_id=known_id, ttl_key="ttl", poll_key="pollInterval")


class LegacyTasksWire(TaskWire):
    """Polls with `tasks/get`; takes input and the payload through the blocking `tasks/result`.

    `complete` turns an `input_required` or terminal state into a terminal one carrying
    the payload: `result` (a CallToolResult; with `isError: true` the status is
    `failed`) or `error` (the JSON-RPC error `tasks/result` returned).
    """

    variant = VARIANT
    augmented = True
    takes_input_by_update = False

    @classmethod
    def recognises(cls, result: dict[str, Any]) -> bool:
        return is_create_task_result(result)

    def read(self, obj: object, what: str, known_id: str | None = None) -> TaskState:
        return parse_legacy_task(obj, what, known_id)

    def blocks(self, state: TaskState) -> bool:
        """`complete(state)` will wait in `tasks/result` for the task to finish (and may ask
        the person questions meanwhile)."""
        return state.status == INPUT_REQUIRED and state.result is None and state.error is None

    def complete(self, state: TaskState) -> TaskState:
        """`tasks/result` for an `input_required` or finished task (not for `working`, which is
        polled, nor `cancelled`, which has no payload worth fetching). For a task that was
        not terminal yet, one `tasks/get` afterwards tells how it ended.

        Raises:
            JsonRpcError: the follow-up `tasks/get` failed (-32602: the task is gone).
            InputRequired: the server asked something nobody could answer (it was told `cancel`).
        """
        if state.status not in (INPUT_REQUIRED, COMPLETED, FAILED) or state.result is not None \
                or state.error is not None:
            return state
        try:
            found: dict[str, Any] = {"result": self.request("tasks/result", {"taskId": state.task_id})}
        except JsonRpcError as err:
            found = {"error": error_object(err)}
        if not state.terminal:
            latest = self.get(state.task_id)
            if latest.terminal:
                state = latest
            else:  # the payload is final whatever the status still says
                failed = "error" in found or found["result"].get("isError") is True
                state = replace(latest, status=FAILED if failed else COMPLETED)
        if state.status == COMPLETED and "error" in found:
            state = replace(state, status=FAILED)
        return replace(state, **found)

    def send_input(self, task_id: str, responses: InputResponses) -> None:
        """There is no `tasks/update` in 2025-11-25: answers go through `tasks/result`."""
        raise UsageError(f"task {task_id} speaks MCP 2025-11-25, which takes answers only while "
                         "waiting for its result", hint="use: " + command("task wait ID --answers FILE"))

    def cancel(self, task_id: str, *, deadline: Deadline | None = None) -> TaskState:
        """`tasks/cancel`; returns the Task the server sends back (status `cancelled`).

        Raises:
            JsonRpcError: -32602 for a task that already ended or that the server does not
                know, with a hint saying which (`_refused_cancel`).
        """
        try:
            result = self.request("tasks/cancel", {"taskId": task_id}, deadline=deadline)
        except JsonRpcError as err:
            if err.code == INVALID_PARAMS and not err.hint:
                err.hint = self._refused_cancel(task_id)
            raise
        return self.read(result, "tasks/cancel result", task_id)

    def _refused_cancel(self, task_id: str) -> str:
        """The hint for a `-32602` to `tasks/cancel`, which 2025-11-25 answers both for a task
        in a terminal status and for an id the server does not know: one `tasks/get` tells
        which, and the hint says what the server said, nothing more."""
        try:
            state = self.get(task_id)
        except JsonRpcError as err:
            if err.code == INVALID_PARAMS:
                return f"the server does not know task {task_id} (tasks/get says so too)"
            return "see it with: " + self.see_task(task_id)
        except MrtrError:  # the cancel's own error is the one to report
            return "see it with: " + self.see_task(task_id)
        if state.terminal:
            return f"task {task_id} is {state.status}: a task that has ended cannot be cancelled"
        return f"task {task_id} is {state.status}; see it with: " + self.see_task(task_id)


def list_remote_tasks(session: Session, deadline: Deadline | None = None) -> list[Any]:
    """Every task the server lists (`tasks/list`, all pages), each as sent.

    Raises:
        UsageError: a modern server (the tasks extension has no `tasks/list`), or a legacy
            one without `capabilities.tasks.list` (exit 2).
        JsonRpcError / ProtocolError / TransportError: from the session.
    """
    from mrtr_cli.protocol.lists.listing import list_all  # noqa: PLC0415 - lazy for start-up time

    server = sanitize(session.server_name, single_line=True)
    if not session.lists_tasks:
        raise UsageError(f"{server} speaks MCP {session.protocol_version}, which has no tasks/list "
                         "(the tasks extension removed it)",
                         hint=f"`{command('task list')}` (without --remote) shows the tasks recorded on this machine")
    if not session.task_capability("list"):
        raise UsageError(f"{server} does not offer tasks/list (its initialize result has no capabilities.tasks.list)",
                         hint=f"`{command('task list')}` (without --remote) shows the tasks recorded on this machine")
    items, _ = list_all(session, "tasks/list", deadline=deadline)
    return items


#: Said wherever a task left running in a kept-open 2025-11-25 HTTP session is reported.
KEPT_SESSION_NOTE = ("the HTTP session it runs in is left open (not ended at exit), so a server that keeps "
                     "tasks per session still has it for `task wait`")


def keep_session_for(session: Session, record: Any) -> bool:
    """Leave a 2025-11-25 HTTP session open for a task the user may follow (`--detach`,
    Ctrl-C, `--timeout`): the session is not ended at exit (`Session.keep_for_task`), and
    `record` (a `TaskRecord`) keeps its id and the server's capabilities so `task wait`
    rejoins it. Returns True when it did (a legacy session over HTTP with a session id),
    else False."""
    session_id = session.keep_for_task()
    if not session_id:
        return False
    record.session_id = session_id
    record.server_capabilities = dict(getattr(session, "server_capabilities", {}) or {})
    return True


def release_session(session: Session, record: Any) -> None:
    """The task of `record` has ended: a session rejoined for it may be ended at exit again
    (`Session.release_for_task`), and the record forgets the session (`keep_session_for`)."""
    session.release_for_task()
    record.session_id = None
    record.server_capabilities = None
