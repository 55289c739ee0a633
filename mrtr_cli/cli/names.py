"""Completing names and values for the shell: the tool, prompt and resource names of the
last list fetched from a server (the list cache), server names from config files, and the
server's own suggestions for prompt arguments and template variables (`completion/complete`,
server/utilities/completion). The script that calls these is cli/commands/completion.py's.

Completion never prints diagnostics and never fails loudly: any error gives no items.
"""

from __future__ import annotations

import io
import os
import shlex
from typing import TYPE_CHECKING, Any

import click

from mrtr_cli.cli.build import make_app

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.app import App

#: What each completion kind lists: (list method, item member holding the value).
KINDS = {
    "tools": ("tools/list", "tools", "name"),
    "prompts": ("prompts/list", "prompts", "name"),
    "resources": ("resources/list", "resources", "uri"),
}


def complete_names(kind: str, ctx: click.Context, incomplete: str) -> list[Any]:
    """Completion items for a server name (`servers`) or a cached tool/prompt/resource name.

    Errors of any kind give no items: completion must never fail loudly.
    """
    from click.shell_completion import CompletionItem  # noqa: PLC0415 - lazy for start-up time

    from mrtr_cli.protocol.headers import invalid_x_mcp_header  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.listing import one_line  # noqa: PLC0415 - lazy for start-up time

    try:
        app = _quiet_app(ctx)
        if kind in SERVER_VALUES:
            return server_values(app, kind, ctx, incomplete)
        if kind == "tool-arguments":
            return tool_arguments(app, ctx, incomplete)
        if kind == "servers":
            from mrtr_cli.config.servers import find_servers  # noqa: PLC0415 - lazy for start-up time

            servers = [s for s in find_servers(app.opts.config) if s.select]  # the winners, then HOST:NAME
            return [CompletionItem(s.select, help=s.kind) for s in servers
                    if s.select and s.select.startswith(incomplete)]
        method, member, key = KINDS[kind]
        cache = app.list_cache()
        # Whichever capabilities the listing declared (it depends on the options and on
        # whether it ran at a terminal): a name is offered however it was listed.
        entries = cache.get_every_declaration(method) if cache is not None else []
        check_headers = kind == "tools" and bool(app.target().url)
        items: dict[str, Any] = {}
        for entry in entries:
            for page in entry.pages:
                for item in page.get(member) or []:
                    value = item.get(key) if isinstance(item, dict) else None
                    if check_headers and invalid_x_mcp_header(item.get("inputSchema")) is not None:
                        continue  # left out over HTTP (streamable-http "x-mcp-header")
                    if value in items or not isinstance(value, str) or not value.startswith(incomplete):
                        continue
                    if value.startswith("-"):  # read as an option: typed as `-- NAME`, never offered
                        continue
                    word = shell_word(value)
                    if word is not None:
                        items[value] = CompletionItem(word, help=one_line(item.get("description"), 60) or None)
        return list(items.values())
    except Exception:  # noqa: BLE001
        return []


def tool_arguments(app: App, ctx: click.Context, incomplete: str) -> list[Any]:
    """`call TOOL NAME=VALUE` words from the cached `inputSchema` of TOOL (the list cache,
    whatever the listing declared; the server is never contacted): the top-level property
    names not given yet that a `NAME=VALUE` item can name (`shell.completion.typeable`), as
    `NAME=`, and a property's fixed values (enum, const choices, booleans) once `NAME=` is
    typed, those sent as typed (`shell.completion.typed_values`). Names and values with
    control characters are never offered; values with spaces are quoted."""
    from click.shell_completion import CompletionItem  # noqa: PLC0415 - lazy for start-up time

    from mrtr_cli.render.listing import one_line  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.shell.completion import typeable, typed_values  # noqa: PLC0415 - lazy for start-up time

    tool = ctx.params.get("tool")
    cache = app.list_cache()
    if not isinstance(tool, str) or cache is None:
        return []
    schema: Any = None
    for entry in cache.get_every_declaration("tools/list"):
        for page in entry.pages:
            for item in page.get("tools") or []:
                if schema is None and isinstance(item, dict) and item.get("name") == tool:
                    schema = item.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return []

    def plain(text: str) -> bool:
        return sanitize(text, single_line=True) == text and " " not in text

    items = rejoin(list(ctx.params.get("items") or ()))
    typed = _being_typed(items, incomplete)
    if typed is not None:
        argument, value, split, _ = typed
        out = []
        for choice in typed_values(argument, props.get(argument)):
            if choice.startswith(value) and sanitize(choice, single_line=True) == choice:
                word = choice if split else f"{argument}={choice}"
                quoted = _quoted(word)
                if quoted is not None:
                    out.append(CompletionItem(quoted))
        return out
    given = {word.split("=", 1)[0].split(".", 1)[0].rstrip(":") for word in items if "=" in word}
    named = [(shell_word(f"{name}="), prop) for name, prop in props.items()
             if isinstance(name, str) and plain(name) and name.startswith(incomplete) and name not in given
             and typeable((name,))]
    return [CompletionItem(word, help=one_line(prop.get("description"), 60) or None if isinstance(prop, dict) else None)
            for word, prop in named if word is not None]


def _quoted(word: str) -> str | None:
    """`word` quoted when it has to be (`shlex.quote`), for every shell (as values always
    were); None when bash cannot be given it (`shell_word`)."""
    if _bash() and "\\" in word:
        return None
    return shlex.quote(word) if shlex.quote(word) != word else word


def _bash() -> bool:
    """Whether the completion runs for bash (click's `_MRTR_COMPLETE=bash_complete`)."""
    return os.environ.get("_MRTR_COMPLETE", "").startswith("bash")


def shell_word(text: str) -> str | None:
    """`text` (a name, or `NAME=`) as the login shell running the completion takes it: bash
    inserts a completion as it stands, so it is quoted when it has to be (`it's=`, `#hash=`,
    `o d'd`); zsh and fish quote what they insert themselves. None when bash cannot be given
    it: click's bash script reads each completion with `read` (no `-r`), which drops a
    backslash."""
    if not _bash():
        return text
    return _quoted(text)


#: Completion kinds whose values the server suggests: kind -> (command parameter holding the
#: reference, `complete_params` kind).
SERVER_VALUES = {"prompt-arguments": ("name", "prompt"), "template-variables": ("uri", "resource")}


class _Discard(io.StringIO):
    """Swallows what is written, but says whether the stream it stands for is a terminal:
    the run then declares what the same command line would declare in that shell (a
    person at a terminal can answer sampling), so the list cache entry is the same one."""

    def __init__(self, tty: bool):
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty

    def write(self, text: str) -> int:
        return len(text)


def _quiet_app(ctx: click.Context) -> App:
    """The App for a completion: diagnostics discarded, `-q`, and no answer file read
    from stdin (the shell's terminal)."""
    root = ctx.find_root()
    if root.obj is not None:  # diagnostics must not reach the prompt
        root.obj.stderr = _Discard(root.obj.stderr_isatty)
    app = make_app(ctx, dict(ctx.params))
    app.opts.quiet = True
    app.opts.answers = [path for path in app.opts.answers if path != "-"]
    return app


def rejoin(words: list[str]) -> list[str]:
    """Words as typed: bash splits `name=value` at `=` (COMP_WORDBREAKS) into `name`,
    `=`, `value`; they are joined again (`name=` when no value followed)."""
    out: list[str] = []
    glue = False
    for word in words:
        if word == "=" and out and not glue:
            out[-1] += "="
            glue = True
        elif glue:
            out[-1] += word
            glue = False
        else:
            out.append(word)
    return out


def _being_typed(items: list[str], incomplete: str) -> tuple[str, str, bool, list[str]] | None:
    """(argument name, value typed so far, whether the shell split the word at `=`,
    the other items) for the word under the cursor, or None when it is not NAME=VALUE yet."""
    if "=" in incomplete and not incomplete.startswith("="):
        name, _, value = incomplete.partition("=")
        return name, value, False, items
    if incomplete in ("", "=") and items and "=" not in items[-1]:
        # bash: `name` `=` with nothing typed after (click drops a lone "="); a bare word
        # is no item of its own, so it is the name being given a value.
        return items[-1], "", True, items[:-1]
    if items and items[-1].endswith("=") and items[-1].count("=") == 1 and "=" not in incomplete:
        return items[-1][:-1], incomplete, True, items[:-1]  # bash: `name` `=` `val`
    return None


def server_values(app: App, kind: str, ctx: click.Context, incomplete: str) -> list[Any]:
    """The server's suggestions for the NAME=VALUE word under the cursor: from the list
    cache when asked within `COMPLETION_TTL`, else one `completion/complete` bounded by
    `MRTR_COMPLETE_TIMEOUT`. Raises whatever goes wrong (`complete_names` gives no items)."""
    from click.shell_completion import CompletionItem  # noqa: PLC0415 - lazy for start-up time

    from mrtr_cli.protocol.features.completions import (  # noqa: PLC0415 - lazy for start-up time
        cached_completion,
        complete_params,
        completion_values,
        offers_completions,
        request_completion,
        store_completion,
    )
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time
    limit = app.env.settings.complete_timeout()  # a bad value: the default (nowhere to say so)
    # before the run's deadline exists
    app.opts.timeout = limit if app.opts.timeout is None else min(limit, app.opts.timeout)
    app.opts.probe_timeout = min(limit, app.opts.probe_timeout or limit)
    app.end_server_at_once = True  # no shutdown grace: the answer is due within the limit
    param, ref_kind = SERVER_VALUES[kind]
    ref = ctx.params.get(param)
    items = rejoin(list(ctx.params.get("items") or ()))
    typed = _being_typed(items, incomplete)
    if not isinstance(ref, str) or typed is None:
        return []
    if ref_kind == "resource":
        from mrtr_cli.protocol.lists.templates import is_template  # noqa: PLC0415 - lazy for start-up time

        if not is_template(ref):
            return []
    argument, value, split, others = typed
    context = dict(word.split("=", 1) for word in others if "=" in word and not word.startswith("="))
    context.pop(argument, None)
    params = complete_params(ref_kind, ref, argument, value, context)
    cache = app.list_cache()
    result = cached_completion(cache, params)
    if result is None:
        with app.session() as session:
            if offers_completions(session) is False:
                return []
            result = request_completion(session, params, deadline=app.deadline())
        store_completion(cache, params, result)
    out = []
    for item in completion_values(result):
        if sanitize(item, single_line=True) != item:
            continue  # control characters: nothing a shell line can take safely
        word = item if split else f"{argument}={item}"
        out.append(CompletionItem(shlex.quote(word) if shlex.quote(word) != word else word))
    return out
