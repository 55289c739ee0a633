"""Secret form fields left out of the files mrtr writes: pending documents and `--save-answers`.

docs/answers.md, "Secrets". A field is a secret by `credentials.is_secret_field` (its
`requestedSchema` property is `format: "password"` or `writeOnly: true`, or its name says
secret), which the responder chain applies to every request it sees
(`ResponderChain.secret_fields`: input key -> field names). Whatever gave the value (`-a`,
an answer file, the terminal), a file mrtr writes holds `null` in its place: in an answer,
that is a field still to give (an answer file leaves a `null` field out; `mrtr resume` asks
the form again, or takes the field from `-a KEY.FIELD=`); in a template's pre-fill, the
field is simply left out. One stderr line names each field not kept (`withheld_notes`).

A secret tool argument (`credentials.is_secret_field` by the tool's `inputSchema`, or by
its name) is left out of a pending document's `params.arguments` and named in its
`withheld` member (`arguments_without_secrets`, `withheld_member`): `mrtr resume` asks for
it again (cli/commands/resume.py).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, TypedDict

from mrtr_cli.credentials import holds_secret

#: input key -> the names of its form's secret fields.
SecretFields = Mapping[str, Collection[str]]


def without_secrets(key: str, response: object, secret_fields: SecretFields,
                    dropped: list[str]) -> object:
    """`response` (an InputResponse for input `key`, or a list of them, one per round) with
    each secret field of its accepted `content` that holds a value set to `null`; "KEY.FIELD"
    of each field left out is added to `dropped` (once): those set to `null` here, and those
    already `null` (a secret an earlier file left out: a resumed call's `sentResponses`,
    which mrtr never sends a `null` field in, carried on by its pending document and
    `--save-answers`). Anything else is returned as it is."""
    if isinstance(response, list):
        return [without_secrets(key, one, secret_fields, dropped) for one in response]
    names = secret_fields.get(key, ())
    content = response.get("content") if isinstance(response, dict) else None
    if not isinstance(response, dict) or not isinstance(content, dict):
        return response
    held = [name for name in content if name in names and content[name] is not None]
    for name in content:
        if (name in held or content[name] is None) and f"{key}.{name}" not in dropped:
            dropped.append(f"{key}.{name}")
    if not held:
        return response
    return {**response, "content": {name: None if name in held else value for name, value in content.items()}}


def responses_without_secrets(responses: Mapping[str, Any], secret_fields: SecretFields,
                              dropped: list[str]) -> dict[str, Any]:
    """`responses` (input key -> InputResponse or list of them) through `without_secrets`."""
    return {key: without_secrets(key, value, secret_fields, dropped) for key, value in responses.items()}


def prefill_without_secrets(prefill: Mapping[str, Mapping[str, Any]], secret_fields: SecretFields,
                            dropped: list[str]) -> dict[str, dict[str, Any]]:
    """Form fields kept for a template's pre-fill (input key -> {field: value}) less the
    secret ones (the template then has `null` there); "KEY.FIELD" of each added to `dropped`."""
    out: dict[str, dict[str, Any]] = {}
    for key, fields in prefill.items():
        names = secret_fields.get(key, ())
        for name, value in fields.items():
            if name in names and value is not None and f"{key}.{name}" not in dropped:
                dropped.append(f"{key}.{name}")
        kept = {name: value for name, value in fields.items() if name not in names}
        if kept:
            out[key] = kept
    return out


def withheld_notes(dropped: list[str], where: str, again: str) -> list[str]:
    """One stderr line for each "KEY.FIELD" in `dropped`: `where` names the file ("the
    pending document"), `again` says when to give it again ("on resume")."""
    return [f"mrtr: {field} is a secret: not written to {where}; give it again {again}" for field in dropped]


#: What a pending document's `withheld` member says of itself (docs/answers.md, "Secrets"),
#: with the kind of arguments (`tool`, `prompt`) and the command that starts the call again.
WITHHELD_HELP = ("Secret {kind} arguments, left out of params.arguments. mrtr resume asks for each at a terminal "
                 "(typed masked), or takes it from -a NAME=VALUE (NAME:=JSON) or an answer file's fields.NAME; "
                 "{again} started again takes it as NAME=VALUE.")


class Withheld(TypedDict):
    """A pending document's `withheld` member: `arguments`, the names of the secret tool
    arguments left out of `params.arguments`, in the call's order; `_help`, `WITHHELD_HELP`."""

    _help: str
    arguments: list[str]


def arguments_without_secrets(params: Mapping[str, Any], known: Collection[str]) -> tuple[dict[str, Any], list[str]]:
    """`params` (a `tools/call`'s) with each secret member of its `arguments` left out, and
    the names left out, in the arguments' order. A member is left out whole when `known`
    (the tool's secret arguments by its `inputSchema`, nested ones included:
    `SecretPlaces.tools`) names it, or it is or holds a member whose name says secret
    (`credentials.holds_secret`, the rule `secret_members` applies with the tool's schema).
    A copy of `params` as it is when there is none."""
    arguments = params.get("arguments")
    if not isinstance(arguments, dict):
        return dict(params), []
    names = [str(key) for key, value in arguments.items() if key in known or holds_secret(str(key), None, value)]
    if not names:
        return dict(params), []
    kept = {key: value for key, value in arguments.items() if key not in names}
    return {**params, "arguments": kept}, names


def withheld_member(names: list[str], method: str = "tools/call") -> Withheld:
    """The `withheld` member of a pending document of `method` (`tools/call`,
    `prompts/get`) that leaves the secret arguments `names` out of `params.arguments`; its
    `_help` names the tool's or the prompt's arguments."""
    prompt = method == "prompts/get"
    return {"_help": WITHHELD_HELP.format(kind="prompt" if prompt else "tool",
                                          again="a prompt command" if prompt else "a call"),
            "arguments": list(names)}
