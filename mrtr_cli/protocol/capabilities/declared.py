"""What a request declares in `io.modelcontextprotocol/clientCapabilities` (2026-07-28 basic/index).

A listing sees what a call sees: a server may offer a tool (prompt, resource) only to
clients that declare a capability, and it decides per request. So `server/discover`
and every list request declare the capabilities the run would declare on the call
the listing is for: `tools/list` (and `server/discover`) what `tools/call` declares,
the tasks extension included; `prompts/list` what `prompts/get` declares; the
resource lists what `resources/read` declares.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mrtr_cli.protocol.capabilities.kinds import ELICITATION_FORM, INPUT_KINDS, input_kind, method_member, request_mode

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
#: The requests a server may answer with `resultType: "input_required"` (2026-07-28
#: Multi Round-Trip Requests; docs/design.md, "Input-required rounds"): the ones `mrtr`
#: retries with answers.
MRTR_METHODS = ("tools/call", "prompts/get", "resources/read")

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
    caps: dict[str, Any] = _copied(dict(base))
    if CALL_OF.get(method, method) == "tools/call":
        caps.setdefault("extensions", {})[TASKS_EXTENSION] = {}
    return caps


def _copied(value: Any) -> Any:
    """A copy of a JSON value's objects and arrays (its strings, numbers and booleans are
    shared): `copy.deepcopy` for JSON, in a tenth of the calls (it runs for every request)."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


# What to tell the user for each capability a server may require: each input kind's
# (protocol/capabilities/kinds.py), a bare `elicitation` as for forms, and the tasks extension.
CAPABILITY_HINTS = {
    "elicitation": ELICITATION_FORM.hint,
    **{kind.capability: kind.hint for kind in INPUT_KINDS},
    **{kind.tools_capability[0]: kind.tools_capability[1] for kind in INPUT_KINDS if kind.tools_capability},
    "extensions.io.modelcontextprotocol/tasks": "tasks are declared on tools/call and tasks/* requests",
}


#: The capabilities a server may offer tools (prompts, resources) behind, and the option
#: that declares each (a listing sees what a call with the same options sees).
DECLARING_OPTIONS: dict[str, str] = {kind.capability: kind.option for kind in INPUT_KINDS if kind.option}


def where_declared(names: list[str], once: bool) -> str:
    """What a message adds after naming the options that declare capabilities `names`:
    inside `mrtr shell` over a session that declared its capabilities once (`once`: a
    2025-11-25 server, told at `initialize`), that the options go on the shell's own
    command line, the one place they reach such a server (docs/shell.md); else nothing."""
    from mrtr_cli.render.invocation import inside_shell  # noqa: PLC0415 - lazy for start-up time

    if not (once and names and inside_shell()):
        return ""
    options = " ".join(DECLARING_OPTIONS[name] for name in names)
    return (f" (this server was told once, when the shell started: give {'it' if len(names) == 1 else 'them'} "
            f"on the shell's own command line, mrtr {options} ... shell)")


def hidden_note(kind: str, capabilities: object, once: bool = False) -> str | None:
    """For a name the user gave that the server does not list (an unknown tool): one line
    saying the server may offer it only to clients that declare a capability this run did
    not declare (`capabilities`: what it declares), and which option declares each (and
    where, `where_declared`, `once` as there); None when every one is declared. A
    possibility, worded as one: most servers hide nothing."""
    names = [name for name in DECLARING_OPTIONS if not declares(capabilities, name)]
    missing = [f"{name} ({DECLARING_OPTIONS[name]})" for name in names]
    if not missing:
        return None
    return (f"a server may list some {kind} only to clients that declare {' or '.join(missing)}; "
            f"this run declares neither" if len(missing) > 1 else
            f"a server may list some {kind} only to clients that declare {missing[0]}; this run does not"
            ) + where_declared(names, once)


def listing_note(kind: str, capabilities: object, listed: list[str],
                 earlier: list[tuple[Any, list[str]]], once: bool = False) -> str | None:
    """The note under a listing, printed only where it can apply: when this server, listed
    earlier by a run that declared a capability this run does not (`earlier`: the
    declaration and item names of each such listing, from the list cache), listed
    `kind` that are not in this listing (`listed`). Then it names them (up to three)
    and the option that declares the capability; the earlier listing may be out of
    date, so it is worded as what the server may do. None when the run declares every
    capability, when nothing earlier was listed under another declaration, or when no
    earlier listing had more (the server hides nothing from this run).
    docs/commands.md, "Listing and describing", states the rule."""
    shown = set(listed)
    missing = [name for name in DECLARING_OPTIONS if not declares(capabilities, name)]
    extra: list[str] = []
    why: list[str] = []
    for declared, names in earlier:
        more = [n for n in names if n not in shown and n not in extra]
        also = [name for name in missing if declares(declared, name)]
        if more and also:
            extra += more
            why += [name for name in also if name not in why]
    if not extra:
        return None
    named = ", ".join(extra[:3]) + (f" and {len(extra) - 3} more" if len(extra) > 3 else "")
    options = " and ".join(DECLARING_OPTIONS[name] for name in why)
    return (f"this server listed {named} to an earlier run that declared {' and '.join(why)}; it may list "
            f"some {kind} only to clients that do: add {options} to see them") + where_declared(why, once)


def capability_hints(names: list[str]) -> list[str]:
    """What to tell the user for each dotted capability name (`elicitation.url`,
    `sampling`, `roots`, ...): the options that would declare it, without repeats."""
    hints: list[str] = []
    for name in names:
        hint = CAPABILITY_HINTS.get(name) or CAPABILITY_HINTS.get(name.split(".")[0])
        if hint and hint not in hints:
            hints.append(hint)
    return hints


def needed_capability(method: object, params: object) -> str | None:
    """The dotted client capability an input request needs (`elicitation.form`,
    `elicitation.url`, `sampling`, `sampling.tools`, `roots`; `elicitation.MODE` for a mode
    no kind answers, which nobody declares), or None for another method."""
    params = params if isinstance(params, dict) else {}
    kind = input_kind(method, params)
    if kind is not None:
        return kind.needed(params)
    member = method_member(method)
    return f"{member}.{request_mode(params)}" if member is not None else None


def declares(capabilities: object, dotted: str) -> bool:
    """True when `capabilities` (a ClientCapabilities object) declares `dotted`; an
    `elicitation: {}` with no modes declares form mode (client/elicitation)."""
    caps = capabilities if isinstance(capabilities, dict) else {}
    top, _, sub = dotted.partition(".")
    if not isinstance(caps.get(top), dict):
        return False
    if not sub:
        return True
    if dotted == ELICITATION_FORM.capability and not caps[top]:
        return True
    return sub in caps[top]
