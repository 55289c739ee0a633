"""Checks for the spec's InputResponse shapes given in answer files.

Spec (2026-07-28 schema): `ElicitResult` `{action: accept|decline|cancel, content?}`,
`CreateMessageResult` `{role, content: block | block[], model, stopReason?}`,
`ListRootsResult` `{roots: [{uri: "file://...", name?}]}`.
Each function returns a list of one-line problems (empty when the value is fine).
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.schema.elicit import json_type, validate_content

ACTIONS = ("accept", "decline", "cancel")


def elicit_result_problems(value: Any, params: dict[str, Any]) -> list[str]:
    """Problems with `value` as the ElicitResult for an `elicitation/create` with `params`."""
    if not isinstance(value, dict):
        return [f"expected an ElicitResult object {{action, content}}, got {json_type(value)}"]
    action = value.get("action")
    if action not in ACTIONS:
        return [f"action must be one of accept, decline, cancel (got {action!r})"]
    mode = params.get("mode") or "form"
    if action != "accept":
        return []
    if mode == "url":
        if value.get("content") not in (None, {}):
            return ["a URL-mode answer has no content: use {\"action\": \"accept\"}"]
        return []
    content = value.get("content")
    if content is None:
        content = {}
    return [p.describe() for p in validate_content(params.get("requestedSchema") or {}, content)]


def looks_like_sampling_result(value: Any) -> bool:
    """True when `value` has the shape of a CreateMessageResult (role + model + content)."""
    return isinstance(value, dict) and "role" in value and "model" in value and "content" in value


def sampling_result_problems(value: Any) -> list[str]:
    """Problems with `value` as a CreateMessageResult."""
    if not isinstance(value, dict):
        return [f"expected a CreateMessageResult object, got {json_type(value)}"]
    problems = []
    if value.get("role") not in ("user", "assistant"):
        problems.append("role must be 'user' or 'assistant'")
    if not isinstance(value.get("model"), str):
        problems.append("model must be a string (use \"human\" for a typed answer)")
    content = value.get("content")
    blocks = content if isinstance(content, list) else [content]
    if not blocks or not all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in blocks):
        problems.append("content must be a content block (or list of blocks) with a type, e.g. "
                        "{\"type\": \"text\", \"text\": \"...\"}")
    return problems


def roots_result_problems(value: Any) -> list[str]:
    """Problems with `value` as a ListRootsResult."""
    if not isinstance(value, dict) or not isinstance(value.get("roots"), list):
        return ["expected a ListRootsResult object {\"roots\": [...]}"]
    problems = []
    for i, root in enumerate(value["roots"]):
        if not isinstance(root, dict) or not isinstance(root.get("uri"), str):
            problems.append(f"roots[{i}] must be an object with a uri")
        elif not root["uri"].startswith("file://"):
            problems.append(f"roots[{i}].uri must be a file:// URI")
    return problems
