"""The secret arguments a pending document withheld, given again for `mrtr resume`.

docs/answers.md, "Secrets". A pending document leaves each secret argument of its call out
of `params.arguments` and names it in `withheld.arguments` (engine/withheld.py). The
resumed call sends the same call again (2026-07-28 basic/patterns/mrtr: the retry repeats
the original params), so each is taken again, as `call` takes a value: an `-a NAME=VALUE`
flag (`NAME:=JSON` for a literal), an answer file's `fields.NAME`, or, with none of these,
typed at the terminal (masked, never echoed). With nobody to ask, the resume stops with
exit 5 (`InputRequired`: the same document again) naming what is missing; it never waits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mrtr_cli.errors import InputRequired, UsageError
from mrtr_cli.render.sanitize import sanitize
from mrtr_cli.responders.answers import AnswerStore
from mrtr_cli.schema.arguments import ArgItem


def withheld_arguments(doc: Mapping[str, Any], path: str) -> list[str]:
    """The names a pending document's `withheld.arguments` lists ([] without `withheld`).

    Raises:
        UsageError: `withheld` in a document of another method than `tools/call` or
            `prompts/get`, not an object whose `arguments` is a list of names, or a name
            listed there is in `params.arguments` as well (`path` names the document).
    """
    if "withheld" not in doc:
        return []
    if doc.get("method") not in ("tools/call", "prompts/get"):
        raise UsageError(f"{path}: withheld arguments belong to a tools/call or prompts/get document")
    member = doc["withheld"]
    names = member.get("arguments", []) if isinstance(member, dict) else None
    if not isinstance(names, list) or not all(isinstance(name, str) and name for name in names):
        raise UsageError(f"{path}: withheld must be an object whose arguments is a list of argument names")
    given = doc["params"].get("arguments")
    if isinstance(given, dict) and any(name in given for name in names):
        raise UsageError(f"{path}: an argument listed in withheld.arguments is in params.arguments too")
    return list(dict.fromkeys(names))


def given_again(names: list[str], store: AnswerStore, ask: Callable[[str], str] | None,
                doc: Mapping[str, Any]) -> list[ArgItem]:
    """The withheld arguments `names` as argument items (`schema.arguments.ArgItem`, typed
    later by the tool's `inputSchema` as `call`'s `NAME=VALUE` items are): each from its
    `-a NAME=VALUE` flags (the last wins; the flags are marked used), else the last answer
    file's `fields.NAME`, else `ask(NAME)` (the person types it, masked). An item's `text`
    (what a message quotes) never holds the value.

    Raises:
        InputRequired: some are given nowhere and `ask` is None (nobody to ask): exit 5,
            `doc` (the pending document, which holds none of them) printed again.
        KeyboardInterrupt: Ctrl-C at the terminal.
    """
    items: list[ArgItem] = []
    missing: list[str] = []
    for name in names:
        item = _prepared(name, store)
        if item is None and ask is not None:
            item = ArgItem([name], ask(name), False, f"{name}=...")
        if item is None:
            missing.append(name)
        else:
            items.append(item)
    if missing:
        shown = [sanitize(name, single_line=True) for name in missing]  # names from a file from anywhere
        flags = " ".join(f"-a {name}=VALUE" for name in shown)
        raise InputRequired(f"the secret argument{'s' if len(missing) > 1 else ''} {', '.join(shown)} of this call "
                            f"{'are' if len(missing) > 1 else 'is'} not in the pending document: give "
                            f"{'them' if len(missing) > 1 else 'it'} again with {flags} or an answer file's fields "
                            "(nobody to ask at a terminal); the pending document is on stdout", doc)
    return items


def _prepared(name: str, store: AnswerStore) -> ArgItem | None:
    """`name`'s value from the `-a` flags (the last that names it; each marked used) or the
    answer files' `fields` (a `null` is no value), as an item; None when neither gives it."""
    flags = [(index, flag) for index, flag in enumerate(store.flags) if flag.name == name]
    for index, _ in flags:
        store.used_flags.add(index)
    if flags:
        flag = flags[-1][1]
        return ArgItem([name], flag.raw, flag.is_json, flag.named)
    found = store.field_value(name)
    if found is not None and found[0] is not None:
        return ArgItem([name], found[0], True, f"{found[1]}")
    return None
