"""Reading what a server sent (JSON objects of unknown shape) without trusting its shape."""

from __future__ import annotations

from typing import Any


def member(value: object, key: str) -> dict[str, Any]:
    """`value[key]` when `value` is an object and that member is an object too, else `{}`."""
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, dict) else {}
