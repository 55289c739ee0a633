"""Prompt arguments checked against the server's `prompts/list` before `prompts/get` is sent
(2026-07-28 server/prompts: `Prompt.arguments`, each `{name, description?, required?}`),
as tool arguments are checked against `inputSchema` (schema/arguments.py).
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.errors import UsageError
from mrtr_cli.jsonfile import json_type
from mrtr_cli.render.sanitize import QUOTE_CHARS, one_line, sanitize
from mrtr_cli.render.suggest import close_matches


def _clean(text: Any) -> str:
    """A name for a message: on one line, cut short (`render.sanitize.one_line`)."""
    return one_line(str(text))


def _clean_hint(text: str) -> str:
    return sanitize(text, single_line=True)


def listed_arguments(prompt: dict[str, Any]) -> list[dict[str, Any]]:
    """The prompt's `arguments` entries that have a string `name`."""
    args = prompt.get("arguments")
    return [a for a in args if isinstance(a, dict) and isinstance(a.get("name"), str)] if isinstance(args, list) else []




def check_prompt_arguments(name: str, prompt: dict[str, Any], arguments: dict[str, Any], *,
                           partial: bool = False) -> None:
    """Refuse arguments the prompt does not list and required ones that are missing.

    Args:
        name: the prompt's name (for messages).
        prompt: its `Prompt` object from `prompts/list`.
        arguments: the arguments about to be sent.
        partial: only the names are checked (a completion request: some are not typed yet).

    Raises:
        UsageError: an unknown argument name ("did you mean" only with a close match,
            else the prompt's arguments), or missing required arguments (exit 2).
    """
    listed = listed_arguments(prompt)
    known = [a["name"] for a in listed]
    unknown = [n for n in arguments if n not in known]
    if unknown:
        close = [c for n in unknown for c in close_matches(n, known)[:1]]
        hint = (f"did you mean {', '.join(close)}?" if close
                else f"its arguments: {', '.join(known)}" if known else "it takes no arguments")
        raise UsageError(f"prompt {_clean(name)!r} has no argument {', '.join(map(_clean, unknown))}",
                         hint=_clean_hint(hint))
    missing = [] if partial else [a["name"] for a in listed if a.get("required") is True and a["name"] not in arguments]
    if missing:
        required = [a["name"] for a in listed if a.get("required") is True]
        example = prompt_example(name, required)
        raise UsageError(f"prompt {_clean(name)!r} needs the argument{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(map(_clean, missing))}",
                         hint=f"give every required one: {example}" if example else
                         "give every required one (a name cannot be shown as typed: prompts --json lists them)")


def prompt_example(name: str, required: list[str]) -> str | None:
    """`mrtr prompt NAME KEY=VALUE...` with every argument in `required`, `VALUE` standing
    for each value, as render/invocation.py `command_line` prints it (quoted, `--` before
    an operand that starts with `-`, the same target); an argument whose `KEY=VALUE` item
    would not read back as that one argument (`schema.example.item`: a `.`, `=`, `:=` in
    its name, a control character) goes into `--args JSON`. None when the prompt's name
    cannot be shown as typed, or the line would be too long."""
    from mrtr_cli.render.invocation import command_line  # noqa: PLC0415 - only on an error path
    from mrtr_cli.schema.example import args_words, item  # noqa: PLC0415 - only on an error path

    items: list[str] = []
    rest: dict[str, Any] = {}
    for key in required:
        given = item((key,), "VALUE", "VALUE")
        if given is None:
            rest[key] = "VALUE"
        else:
            items.append(given)
    return command_line(["prompt", *args_words(rest)], [name, *items], same_target=True)


def unknown_name(kind: str, name: str, names: list[str], *, hidden: str | None = None) -> UsageError:
    """The error for a `kind` ("tool", "prompt") the server does not list: "did you mean"
    only with a close match, else the names it lists; `hidden` (a second hint line, e.g.
    `protocol.capabilities.declared.hidden_note`): why the one meant may not be listed to this run."""
    close = close_matches(name, names)
    hint = (f"did you mean: {', '.join(close)}?" if close
            else f"no {kind} has a name like it; the {kind}s command lists the server's {_how_many(len(names), kind)}"
            if names
            else f"the server lists no {kind}s")
    return UsageError(f"unknown {kind} {_clean(name)!r}",
                      hint=_clean_hint(hint) + (f"\n{hidden}" if hidden else ""))


def _how_many(count: int, kind: str) -> str:
    """`count` things of `kind` in words: "one tool", "3 tools"."""
    return f"one {kind}" if count == 1 else f"{count} {kind}s"


def unknown_prompt(name: str, prompts: list[Any]) -> UsageError:
    """The error for a prompt the server does not list (`unknown_name`)."""
    return unknown_name("prompt", name, [str(p.get("name")) for p in prompts if isinstance(p, dict)])


def require_strings(arguments: dict[str, Any] | None, what: str) -> dict[str, Any]:
    """`arguments` when every value is a string (prompt arguments and template variables
    are strings: GetPromptRequest `arguments: {[name]: string}`); `what` names them in
    the error, e.g. "prompt argument".

    Raises:
        UsageError: a value of another JSON type (typed with `key:=`, `--args`), with the
            text form to give instead.
    """
    for name, value in (arguments or {}).items():
        if not isinstance(value, str):
            import json  # noqa: PLC0415 - lazy for start-up time

            from mrtr_cli.render.invocation import quote_word  # noqa: PLC0415 - only on an error path
            from mrtr_cli.schema.example import item  # noqa: PLC0415 - only on an error path

            text = json.dumps(value, ensure_ascii=False)
            given = item((name,), text, text)  # KEY=TEXT or KEY:="TEXT"; None: neither reads back as this one
            shown = quote_word(given) if given is not None else None
            raise UsageError(f"{what} {_clean(name)}: {what}s are strings, not {json_type(value)}",
                             hint="leave it out" if value is None else
                             f"give it as text: {shown}" if shown and len(shown) <= QUOTE_CHARS else
                             "give it as text (NAME=TEXT, or a JSON string in --args)")
    return dict(arguments or {})
