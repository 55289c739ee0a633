"""Pending documents: what a call that stopped for input (exit 5) needs to finish.

DESIGN.md section 4. The document names the target (never headers or tokens),
the protocol version, the original method and params, the server's
`inputRequests` and exact `requestState`, the keys still `missing`, and an
`answersTemplate` that is itself an answer file once its nulls are filled in
(its `_fields` member, ignored when read back, describes each field: type,
required, allowed values, default).

A server speaking a handshake-era version (2025-11-25 and earlier) asks during the
call, so its documents say `"era": "legacy", "resumable": false` (plus the server's
`result` or `error`); `load_pending` refuses them: the call is run again instead.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from mrtr_cli.errors import UsageError
from mrtr_cli.schema.elicit import form_fields

PENDING_FORMAT = "pending/1"


def field_help(requested_schema: Any) -> dict[str, Any]:
    """Per-field help for a form: `{field: {type, required, title?, description?, enum?, default?, ...}}`."""
    out: dict[str, Any] = {}
    try:
        fields = form_fields(requested_schema)
    except ValueError:
        return out
    for f in fields:
        info: dict[str, Any] = {"type": {"enum": "string", "multi": "array"}.get(f.kind, f.kind), "required": f.required}
        if f.options:
            info["enum"] = [c for c, _ in f.options]
            if any(c != t for c, t in f.options):
                info["titles"] = {c: t for c, t in f.options}
        for key in ("title", "description", "format", "minimum", "maximum", "minLength", "maxLength",
                    "minItems", "maxItems", "default"):
            if key in f.schema:
                info[key] = f.schema[key]
        out[f.name] = info
    return out


def template_entry(request: Any, prefill: dict[str, Any] | None = None) -> Any:
    """An InputResponse skeleton for one input request, with `null` where an answer goes."""
    if not isinstance(request, dict):
        return None
    method = request.get("method")
    params = request.get("params") if isinstance(request.get("params"), dict) else {}
    if method == "elicitation/create":
        if (params.get("mode") or "form") == "url":
            return {"action": "accept"}
        try:
            fields = form_fields(params.get("requestedSchema"))
        except ValueError:
            fields = []
        content = {f.name: (prefill or {}).get(f.name, f.default if f.has_default else None) for f in fields}
        return {"action": "accept", "content": content}
    if method == "sampling/createMessage":
        return {"role": "assistant", "content": {"type": "text", "text": None}, "model": "human"}
    if method == "roots/list":
        return {"roots": [{"uri": None, "name": None}]}
    return None


def answers_template(input_requests: dict[str, Any], missing: list[str],
                     prefill: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """An answer file for the `missing` keys, with `_fields` help for forms."""
    responses = {}
    help_: dict[str, Any] = {}
    for key in missing:
        request = input_requests.get(key)
        responses[key] = template_entry(request, (prefill or {}).get(key))
        if isinstance(request, dict) and request.get("method") == "elicitation/create":
            params = request.get("params") or {}
            if (params.get("mode") or "form") == "form":
                help_[key] = field_help(params.get("requestedSchema"))
            else:
                help_[key] = {"url": params.get("url"), "note": "open the URL yourself, then resume with accept"}
    template: dict[str, Any] = {"inputResponses": responses}
    if help_:
        template["_fields"] = help_
    return template


def build_pending(
    *,
    target: dict[str, Any],
    protocol_version: str,
    method: str,
    params: dict[str, Any],
    input_requests: dict[str, Any],
    request_state: str | None,
    missing: list[str],
    answered: dict[str, Any] | None = None,
    prefill: dict[str, dict[str, Any]] | None = None,
    task_id: str | None = None,
) -> dict[str, Any]:
    """The pending document (DESIGN.md section 4); `requestState` only if one came."""
    doc: dict[str, Any] = {
        "mrtr": PENDING_FORMAT,
        "target": target,
        "protocolVersion": protocol_version,
        "method": method,
        "params": params,
    }
    if task_id is not None:
        doc["taskId"] = task_id
    doc["inputRequests"] = input_requests
    if request_state is not None:
        doc["requestState"] = request_state
    doc["missing"] = missing
    if answered:
        doc["answered"] = answered
    doc["answersTemplate"] = answers_template(input_requests, missing, prefill)
    return doc


def load_pending(path: str, stdin_text: str | None = None) -> dict[str, Any]:
    """Read and check a pending document (`-` reads `stdin_text`).

    Raises:
        UsageError: unreadable, not JSON, or not a `pending/1` document.
    """
    try:
        if path == "-":
            text = stdin_text or ""
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
    except OSError as exc:
        raise UsageError(f"cannot read pending document {path}: {exc.strerror or exc}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path} is not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(doc, dict) or doc.get("mrtr") != PENDING_FORMAT:
        raise UsageError(f"{path} is not an mrtr pending document (expected \"mrtr\": \"{PENDING_FORMAT}\")")
    for member in ("method", "params", "inputRequests", "target"):
        if member not in doc:
            raise UsageError(f"{path}: the pending document has no {member!r}")
    if not isinstance(doc["params"], dict) or not isinstance(doc["inputRequests"], dict):
        raise UsageError(f"{path}: params and inputRequests must be objects")
    if "requestState" in doc and not isinstance(doc["requestState"], str):
        raise UsageError(f"{path}: requestState must be a string")
    if doc.get("resumable") is False:
        version = doc.get("protocolVersion") or "an older protocol"
        raise UsageError(
            f"{path} cannot be resumed: the server speaks MCP {version}, which asks its questions during "
            "the call and has no requestState to resume",
            hint="fill in its answersTemplate and run the original command again with --answers FILE",
        )
    return doc


def save_interrupted(doc: dict[str, Any]) -> str | None:
    """Write a pending document to the state dir (after Ctrl-C at a prompt); returns its path."""
    from mrtr_cli.state import state_dir  # noqa: PLC0415

    try:
        directory = os.path.join(state_dir(), "pending")
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, ensure_ascii=False, indent=2)
        return path
    except OSError:
        return None
