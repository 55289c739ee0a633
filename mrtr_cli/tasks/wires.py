"""Choosing a task wire: the variant that fits a session's era and a server's answers.

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


def wire_classes(era: str | None = None) -> list[type[TaskWire]]:
    """Every variant (of `era` only, when given), most specific first; the default of each
    era last (the extension for modern sessions)."""
    classes: list[type[TaskWire]] = [Sep2322Wire, ExtTasksWire, LegacyTasksWire]
    return [c for c in classes if era is None or c.era == era]


def wire_for(variant: str | None, session: Session, capabilities: dict[str, Any], deadline: Deadline) -> TaskWire:
    """The wire for a variant name from a task record, if it fits the session's era; else
    the era's default variant."""
    classes = wire_classes(session.era)
    cls = next((c for c in classes if c.variant == variant), classes[-1])
    return cls(session, capabilities, deadline)


def wire_for_created(result: dict[str, Any], session: Session, capabilities: dict[str, Any],
                     deadline: Deadline) -> TaskWire:
    """The wire for the variant of the session's era whose shape a task-creating
    `tools/call` result has."""
    classes = wire_classes(session.era)
    cls = next((c for c in classes if c.recognises(result)), classes[-1])
    return cls(session, capabilities, deadline)
