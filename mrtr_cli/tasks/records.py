"""Local task records: every task `mrtr` sees is written down so it is never lost.

The protocol has no `tasks/list` (ext-tasks removed it), and ext-tasks says clients
SHOULD persist task ids durably so polling can resume after a crash or restart.
Each task gets one small JSON file under `<state dir>/tasks/` (see
`mrtr_cli.state`), written atomically:

    {"taskId": "...", "target": {"url": "..."} | {"stdio": "..."}, "tool": "deploy",
     "created": "2026-07-28T10:30:00Z", "updated": "...", "status": "working",
     "statusMessage": "...", "variant": "ext", "protocolVersion": "2026-07-28",
     "ttlMs": 60000, "pollIntervalMs": 5000, "answeredKeys": ["..."],
     "bearerTokenEnv": "VAR", "sessionId": "...", "serverCapabilities": {...},
     "config": "/abs/path/mcp.json", "expandEnv": false}

`status` is the last task status seen, or `unknown` once the server answered that it
does not know the task (expired or removed). The target is the public one (URL or stdio
command, never headers or tokens); `bearerTokenEnv` is the *name* of an environment
variable, never its value. A task on a named server (`-s NAME`) found through `--config
FILE` records that file's absolute path (and `--expand-env`), so that `mrtr task get ID`
finds the server again without them.
`sessionId` and `serverCapabilities` are kept for a task left running in a 2025-11-25 HTTP
session, which `mrtr` then leaves open: a server may keep tasks per session, so a later
`task wait` rejoins that session instead of starting a new one.
Task ids may act as bearer tokens on some servers, so files are private to the
user (directory 0700, files 0600).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from mrtr_cli.errors import UsageError
from mrtr_cli.jsonfile import write_json_atomic
from mrtr_cli.platform import shellwords

RECORD_FIELDS = {
    "task_id": "taskId", "target": "target", "tool": "tool", "created": "created", "updated": "updated",
    "status": "status", "status_message": "statusMessage", "variant": "variant",
    "protocol_version": "protocolVersion", "ttl_ms": "ttlMs", "poll_interval_ms": "pollIntervalMs",
    "answered_keys": "answeredKeys", "bearer_token_env": "bearerTokenEnv",
    "session_id": "sessionId", "server_capabilities": "serverCapabilities",
    "config": "config", "expand_env": "expandEnv",
}


def utc_now() -> str:
    """The current time as ISO 8601 UTC with a `Z`, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass
class TaskRecord:
    """One task as remembered locally (field names as in the file, camelCased)."""

    task_id: str
    target: dict[str, Any]
    tool: str | None = None
    created: str = field(default_factory=utc_now)
    updated: str = field(default_factory=utc_now)
    status: str = "working"
    status_message: str | None = None
    variant: str = "ext"
    protocol_version: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None
    answered_keys: list[str] = field(default_factory=list)
    bearer_token_env: str | None = None
    session_id: str | None = None
    server_capabilities: dict[str, Any] | None = None
    config: str | None = None
    expand_env: bool = False

    def document(self) -> dict[str, Any]:
        """The JSON object written to disk (and printed by `task list --json`)."""
        values = asdict(self)
        return {RECORD_FIELDS[k]: v for k, v in values.items() if v is not None}

    @classmethod
    def from_document(cls, doc: dict[str, Any]) -> TaskRecord | None:
        """Read a record file's object; None when it is not a usable record."""
        if (not isinstance(doc, dict) or not isinstance(doc.get("taskId"), str)
                or not isinstance(doc.get("target"), dict)):
            return None
        kwargs = {name: doc[key] for name, key in RECORD_FIELDS.items() if key in doc}
        if not isinstance(kwargs.get("answered_keys", []), list):
            kwargs["answered_keys"] = []
        return cls(**kwargs)


class TaskRecords:
    """The record files in one directory.

    Args:
        directory: where the files live; default `<state dir>/tasks`.
        warn: called once with a message if a record cannot be written (the run goes on).
    """

    def __init__(self, directory: str | None = None, warn: Any = None):
        if directory is None:
            from mrtr_cli.state import state_dir  # noqa: PLC0415 - lazy for start-up time

            directory = os.path.join(state_dir(), "tasks")
        self.directory = directory
        self._warn = warn
        self._warned = False

    def path_for(self, record: TaskRecord) -> str:
        key = json.dumps([record.target, record.task_id], sort_keys=True).encode("utf-8")
        return os.path.join(self.directory, hashlib.sha256(key).hexdigest()[:32] + ".json")

    def save(self, record: TaskRecord) -> None:
        """Write `record` atomically, stamping `updated`; a failure is reported once, not raised."""
        record.updated = utc_now()
        try:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            write_json_atomic(self.path_for(record), record.document())
        except OSError as exc:
            if self._warn is not None and not self._warned:
                self._warned = True
                self._warn(f"mrtr: warning: cannot write the task record in {self.directory}: "
                           f"{exc.strerror or exc}")

    def all(self) -> list[TaskRecord]:
        """Every readable record, newest first."""
        try:
            names = [n for n in os.listdir(self.directory) if n.endswith(".json") and not n.startswith(".")]
        except OSError:
            return []
        from mrtr_cli.userfiles import read_state_json  # noqa: PLC0415 - lazy for start-up time

        records = []
        for name in names:
            doc = read_state_json(os.path.join(self.directory, name))  # a FIFO or a device: skipped, never a hang
            if not isinstance(doc, dict):
                continue
            try:
                record = TaskRecord.from_document(doc)
            except (ValueError, TypeError):
                continue
            if record is not None:
                records.append(record)
        records.sort(key=lambda r: r.created, reverse=True)
        return records

    def find(self, task_id: str, target: dict[str, Any] | None = None, *,
             prefix: bool = True) -> TaskRecord | None:
        """The record for `task_id` (exactly, else a unique prefix unless `prefix` is
        False), optionally only on `target`.

        Raises:
            UsageError: an empty id; the prefix matches several tasks; or, with no
                `target`, the id is recorded for several servers (the message lists them).
        """
        if prefix and not task_id:
            raise UsageError("the task id is empty")
        records = [r for r in self.all() if target is None or r.target == target]
        exact = [r for r in records if r.task_id == task_id]
        if not exact and prefix:
            exact = [r for r in records if r.task_id.startswith(task_id)]
            if len({r.task_id for r in exact}) > 1:
                shown = ", ".join(dict.fromkeys(r.task_id for r in exact[:5]))
                raise UsageError(f"task id {task_id!r} is ambiguous: it starts {len(exact)} recorded tasks ({shown})")
        if len(exact) > 1:
            from mrtr_cli.render.invocation import command_line  # noqa: PLC0415 - only on an error path

            servers = [shellwords.shell_line(target_words(r.target)) for r in exact]
            example = command_line(["task", "..."], target=target_words(exact[0].target), at_command_line=True)
            raise UsageError(f"task id {exact[0].task_id!r} is ambiguous: it is recorded for {len(exact)} servers "
                             f"({'; '.join(servers)})",
                             hint="name the server before `task`" + (f", e.g. {example}" if example else ""))
        return exact[0] if exact else None


def target_words(target: dict[str, Any]) -> list[str]:
    """The options that reach a public target again: `--url URL`, `--stdio CMD` or `-s NAME`."""
    if target.get("url"):
        return ["--url", str(target["url"])]
    if target.get("stdio"):
        return ["--stdio", str(target["stdio"])]
    return ["-s", str(target.get("server", ""))]
