"""The `task` member a `tools/call` carries on a 2025-11-25 server (task augmentation,
tasks/legacy.py); on a 2026-07-28 server the server decides when a call becomes a task,
so nothing of tasks/ is imported for it.
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.errors import JsonRpcError


def task_field(session: Any, name: str, catalog: Any, *, requested: bool, ttl: float | None,
               note: Any) -> dict[str, Any] | None:
    """The `task` member of `tools/call NAME` (2025-11-25 basic/utilities/tasks): on a
    2025-11-25 server, for a `required` tool always and an `optional` one with `--task`
    (`requested`), asking for `ttl` seconds (`--task-ttl`); None otherwise. On a 2026-07-28
    server the server decides (`note` says `--task` changes nothing). `catalog` is the
    run's `protocol.lists.catalog.ToolCatalog`; without a tool list only `--task` can say.

    Raises:
        UsageError: `--task` for a server or tool that cannot run tasks, a bad `--task-ttl`.
    """
    if not session.augments_tasks:
        if requested:
            note("mrtr: note: --task changes nothing on a 2026-07-28 server: the server decides "
                 "when a call becomes a task")
        return None
    from mrtr_cli.tasks.legacy import task_augmentation  # noqa: PLC0415 - older servers only

    try:
        tool = catalog.find(name)
    except JsonRpcError:
        tool = None  # no tool list: only --task can say the tool runs as a task
    return task_augmentation(session, name, tool, requested=requested, ttl_seconds=ttl)
