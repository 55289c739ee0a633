"""Choosing a task wire: the variant that fits a session (`Session.augments_tasks`) and a server's answers.

Sits above the variants (tasks/ext.py, tasks/sep2322.py, tasks/legacy.py), which sit
above their common interface (tasks/wire.py): each module only imports what is below it.
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.session import Session
from mrtr_cli.tasks.ext import ExtTasksWire
from mrtr_cli.tasks.legacy import LegacyTasksWire
from mrtr_cli.tasks.sep2322 import Sep2322Wire
from mrtr_cli.tasks.wire import TaskWire


def wire_classes(session: Session) -> list[type[TaskWire]]:
    """The variants that fit `session` (asked for by the client when it `augments_tasks`,
    else decided by the server), most specific first; the default last (the extension
    for modern sessions)."""
    classes: list[type[TaskWire]] = [Sep2322Wire, ExtTasksWire, LegacyTasksWire]
    return [c for c in classes if c.augmented == session.augments_tasks]


def wire_for(variant: str | None, session: Session, capabilities: dict[str, Any], deadline: Deadline) -> TaskWire:
    """The wire for a variant name from a task record, if it fits the session; else the
    session's default variant."""
    classes = wire_classes(session)
    cls = next((c for c in classes if c.variant == variant), classes[-1])
    return cls(session, capabilities, deadline)


def wire_for_created(result: dict[str, Any], session: Session, capabilities: dict[str, Any],
                     deadline: Deadline) -> TaskWire:
    """The wire for the variant fitting the session whose shape a task-creating
    `tools/call` result has."""
    classes = wire_classes(session)
    cls = next((c for c in classes if c.recognises(result)), classes[-1])
    return cls(session, capabilities, deadline)
