"""Checks for the spec's InputResponse shapes given in answer files.

Spec (2026-07-28 schema): `ElicitResult` `{action: accept|decline|cancel, content?}`,
`CreateMessageResult` `{role, content: block | block[], model, stopReason?}`,
`ListRootsResult` `{roots: [{uri: "file://...", name?}]}`.
Each function returns a list of one-line problems (empty when the value is fine).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ACTIONS = ("accept", "decline", "cancel")


def elicit_action_problems(value: object) -> list[str] | None:
    """Problems with `value`'s `action` as an ElicitResult: a list (empty when a refusal is
    fine), or None for an `accept`, whose content its kind checks."""
    from mrtr_cli.jsonfile import json_type  # noqa: PLC0415 - start-up time

    if not isinstance(value, dict):
        return [f"expected an ElicitResult object {{action, content}}, got {json_type(value)}"]
    action = value.get("action")
    if action not in ACTIONS:
        return [f"action must be one of accept, decline, cancel (got {action!r})"]
    if action != "accept":
        if "content" in value:  # the spec sends content only with accept: nothing may leak with a refusal
            return [f"a {action} answer has no content: use {{\"action\": \"{action}\"}}"]
        return []
    return None


def looks_like_sampling_result(value: object) -> bool:
    """True when `value` has the shape of a CreateMessageResult (role + model + content)."""
    return isinstance(value, dict) and "role" in value and "model" in value and "content" in value


def sampling_result_problems(value: object, params: Mapping[str, object] | None = None) -> list[str]:
    """Problems with `value` as the CreateMessageResult for a request with `params`.

    Checks the shape (role, model, content blocks with their required members) and,
    when `params` is given, tool use: `tool_use` blocks only when the request offered
    `tools`, naming one of them, and `stopReason: "toolUse"` only with a `tool_use` block.
    """
    from mrtr_cli.jsonfile import json_type  # noqa: PLC0415 - start-up time

    if not isinstance(value, dict):
        return [f"expected a CreateMessageResult object, got {json_type(value)}"]
    problems = []
    if value.get("role") not in ("user", "assistant"):
        problems.append("role must be 'user' or 'assistant'")
    if not isinstance(value.get("model"), str):
        problems.append("model must be a string (use \"human\" for a typed answer)")
    if "stopReason" in value and not isinstance(value["stopReason"], str):
        problems.append("stopReason must be a string")
    content = value.get("content")
    blocks = content if isinstance(content, list) else [content]
    if not blocks or not all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in blocks):
        problems.append("content must be a content block (or list of blocks) with a type, e.g. "
                        "{\"type\": \"text\", \"text\": \"...\"}")
        return problems
    for i, block in enumerate(blocks):
        where = f"content[{i}]" if isinstance(content, list) else "content"
        problems.extend(f"{where}: {p}" for p in _block_problems(block))
    if params is not None:
        problems.extend(_tool_use_problems([b for b in blocks if isinstance(b, dict)], value, params))  # every one is
    return problems


_BLOCK_MEMBERS = {
    "text": (("text", str),),
    "image": (("data", str), ("mimeType", str)),
    "audio": (("data", str), ("mimeType", str)),
    "tool_use": (("id", str), ("name", str), ("input", dict)),
    "tool_result": (("toolUseId", str), ("content", list)),
}


def _block_problems(block: dict[str, Any]) -> list[str]:
    members = _BLOCK_MEMBERS.get(block["type"])
    if members is None:
        return [f"unknown content type {block['type']!r} (text, image, audio, tool_use, tool_result)"]
    return [f"a {block['type']} block needs {name!r} ({'string' if kind is str else kind.__name__})"
            for name, kind in members if not isinstance(block.get(name), kind)]


def _tool_use_problems(blocks: list[dict[str, Any]], value: dict[str, Any],
                       params: Mapping[str, object]) -> list[str]:
    tools = raw_tools if isinstance(raw_tools := params.get("tools"), list) else []
    offered = {t.get("name") for t in tools if isinstance(t, dict)}
    uses = [b for b in blocks if b.get("type") == "tool_use"]
    problems = []
    if uses and not tools:
        problems.append("tool_use blocks are only allowed when the request offers tools")
    for block in uses:
        if tools and block.get("name") not in offered:
            problems.append(f"tool_use names {block.get('name')!r}, which the request does not offer "
                            f"(offered: {', '.join(sorted(map(str, offered)))})")
    if value.get("stopReason") == "toolUse" and not uses:
        problems.append("stopReason is \"toolUse\" but the content has no tool_use block")
    return problems


def looks_like_roots_result(value: object) -> bool:
    """True when `value` has the shape of a ListRootsResult (a `roots` list)."""
    return isinstance(value, dict) and isinstance(value.get("roots"), list) and "action" not in value


def roots_result_problems(value: object) -> list[str]:
    """Problems with `value` as a ListRootsResult (each uri a local, absolute `file://`
    URI without `..` segments; client/roots)."""
    from mrtr_cli.responders.roots import check_root_uri  # noqa: PLC0415 - lazy for start-up time

    if not isinstance(value, dict) or not isinstance(value.get("roots"), list):
        return ["expected a ListRootsResult object {\"roots\": [...]}"]
    problems = []
    for i, root in enumerate(value["roots"]):
        if not isinstance(root, dict) or not isinstance(root.get("uri"), str):
            problems.append(f"roots[{i}] must be an object with a uri")
            continue
        problem = check_root_uri(root["uri"])
        if problem:
            problems.append(f"roots[{i}].{problem}")
        if "name" in root and not isinstance(root["name"], str):
            problems.append(f"roots[{i}].name must be a string")
    return problems
