"""What a request declares in `io.modelcontextprotocol/clientCapabilities` (2026-07-28 basic/index).

A listing sees what a call sees: a server may offer a tool (prompt, resource) only to
clients that declare a capability, and it decides per request. So `server/discover`
and every list request declare the capabilities the run would declare on the call
the listing is for: `tools/list` (and `server/discover`) what `tools/call` declares,
the tasks extension included; `prompts/list` what `prompts/get` declares; the
resource lists what `resources/read` declares.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
#: The requests a server may answer with `resultType: "input_required"` (2026-07-28
#: Multi Round-Trip Requests; docs/design.md, "Input-required rounds"): the ones `mrtr`
#: retries with answers.
MRTR_METHODS = ("tools/call", "prompts/get", "resources/read")
#: The client capability each kind of input request needs.
INPUT_CAPABILITY = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}

#: The call whose declaration a listing (or discovery, completion) request repeats.
CALL_OF = {
    "server/discover": "tools/call",
    "tools/list": "tools/call",
    "prompts/list": "prompts/get",
    "completion/complete": "prompts/get",
    "resources/list": "resources/read",
    "resources/templates/list": "resources/read",
    "tasks/get": "tools/call", "tasks/list": "tools/call", "tasks/cancel": "tools/call", "tasks/result": "tools/call",
    "tasks/update": "tools/call",
}


def declared_for(base: Mapping[str, Any], method: str) -> dict[str, Any]:
    """The `ClientCapabilities` declared on a request `method`, given what the run can
    answer (`base`: `ResponderChain.capabilities()`): a copy of `base`, plus the tasks
    extension on `tools/call` and on the requests that list for it."""
    caps = copy.deepcopy(dict(base))
    if CALL_OF.get(method, method) == "tools/call":
        caps.setdefault("extensions", {})[TASKS_EXTENSION] = {}
    return caps


# What to tell the user for each capability a server may require.
CAPABILITY_HINTS = {
    "elicitation": "answer forms with --answers FILE, -a FIELD=VALUE, or run in a terminal",
    "elicitation.form": "answer forms with --answers FILE, -a FIELD=VALUE, or run in a terminal",
    "elicitation.url": "URL elicitation needs a person to consent: run in a terminal (or --open-urls)",
    "sampling": "give a sampling source: --sampling-command CMD, sampling answers in --answers, or run in a terminal",
    "sampling.tools": "pass --sampling-tools with a --sampling-command that supports tool use",
    "roots": "give roots with --root PATH (repeatable), or a roots list in --answers",
    "extensions.io.modelcontextprotocol/tasks": "tasks are declared on tools/call and tasks/* requests",
}


#: The capabilities a server may offer tools (prompts, resources) behind, and the option
#: that declares each (a listing sees what a call with the same options sees).
DECLARING_OPTIONS = {"sampling": "--sampling-command CMD", "roots": "--root PATH"}


def hidden_note(kind: str, capabilities: Any) -> str | None:
    """One line saying that `kind` ("tools", "prompts", ...) offered only to clients that
    declare a capability this run did not declare (`capabilities`: what it declares) may
    be missing, and which option declares each; None when every one is declared."""
    missing = [f"{name} ({option})" for name, option in DECLARING_OPTIONS.items() if not declares(capabilities, name)]
    if not missing:
        return None
    return f"{kind} offered only to clients declaring {' or '.join(missing)} are not listed to this run"


def capability_hints(names: list[str]) -> list[str]:
    """What to tell the user for each dotted capability name (`elicitation.url`,
    `sampling`, `roots`, ...): the options that would declare it, without repeats."""
    hints: list[str] = []
    for name in names:
        hint = CAPABILITY_HINTS.get(name) or CAPABILITY_HINTS.get(name.split(".")[0])
        if hint and hint not in hints:
            hints.append(hint)
    return hints


def needed_capability(method: Any, params: Any) -> str | None:
    """The dotted client capability an input request needs (`elicitation.form`,
    `elicitation.url`, `sampling`, `sampling.tools`, `roots`), or None for another method."""
    base = INPUT_CAPABILITY.get(method) if isinstance(method, str) else None
    params = params if isinstance(params, dict) else {}
    if base == "elicitation":
        return f"elicitation.{params.get('mode') or 'form'}"
    if base == "sampling" and ("tools" in params or "toolChoice" in params):
        return "sampling.tools"
    return base


def declares(capabilities: Any, dotted: str) -> bool:
    """True when `capabilities` (a ClientCapabilities object) declares `dotted`; an
    `elicitation: {}` with no modes declares form mode (client/elicitation)."""
    caps = capabilities if isinstance(capabilities, dict) else {}
    top, _, sub = dotted.partition(".")
    if not isinstance(caps.get(top), dict):
        return False
    if not sub:
        return True
    if top == "elicitation" and sub == "form" and not caps[top]:
        return True
    return sub in caps[top]
