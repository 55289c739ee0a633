"""What Tab offers in the shell, from the command line's grammar (shell/grammar.py) and the
live server: command names, option names, option values (fixed choices, files), tool,
prompt and resource names and template URIs, a tool's argument names and enum values from
its `inputSchema` (`call update_work_item st<Tab>` gives `state=`, `state=Res<Tab>`
`state=Resolved`), prompt arguments, template variables, and after `-a` the fields of the
forms the server left unanswered (a pending document kept by the shell).

Pure logic: terminal.py hands the text before the cursor to `Completer.complete` and shows
what comes back. Names a server sends are untrusted: one with a control character is never
offered, and descriptions are sanitised; of the values a server suggests, at most
`MAX_SUGGESTIONS` are offered, none with a control character or longer than
`MAX_SUGGESTION_CHARS`.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from mrtr_cli.render.sanitize import sanitize
from mrtr_cli.shell.grammar import CommandSpec, walk
from mrtr_cli.shell.objects import member
from mrtr_cli.shell.words import EXIT_WORDS

#: Characters of description shown beside a candidate.
META_CHARS = 60
#: Most candidates a file completion lists.
MAX_FILES = 200
#: Most values a server's suggestion offers (the spec: a completion carries at most 100).
MAX_SUGGESTIONS = 100
#: Longest value a server's suggestion may offer (characters); a longer one is not offered.
MAX_SUGGESTION_CHARS = 1000


@dataclass(frozen=True)
class Candidate:
    """One completion.

    Attributes:
        text: what replaces the word being typed (quoted for the shell line when needed).
        start: where the replaced text begins, counted back from the cursor (<= 0).
        display: what the menu shows, when not `text`.
        meta: a one-line description shown beside it.
    """

    text: str
    start: int
    display: str = ""
    meta: str = ""


class LiveNames(Protocol):
    """What the live server tells completion (shell/host.py `ShellHost`)."""

    pending: Mapping[str, object] | None
    asked: dict[str, dict[str, Any]]

    def names(self, method: str) -> list[dict[str, Any]]:
        """The items of list `method` (`tools/list`, ...), or []."""

    def suggest(self, kind: str, ref: str, argument: str, value: str, context: dict[str, str]) -> list[str]:
        """The values the server suggests for `argument` of prompt `ref` (`kind` "prompt")
        or variable `argument` of URI template `ref` (`kind` "resource"), `value` typed so
        far, `context` the other arguments typed on the line; [] when it suggests none, does
        not offer completions, or cannot answer now (server/utilities/completion)."""


def _plain(text: str) -> bool:
    """A server string fit to be offered as typed text: no control or escape characters."""
    return sanitize(text, single_line=True) == text


def _meta(value: object) -> str:
    from mrtr_cli.render.listing import one_line  # noqa: PLC0415 - lazy for start-up time

    return one_line(value, META_CHARS) if isinstance(value, str) else ""


def _fixed(schema: object) -> list[object]:
    """The values a property schema allows when they are a fixed set (enum, const branches,
    booleans; an array's items'), as JSON values."""
    if not isinstance(schema, dict):
        return []
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    for combo in ("oneOf", "anyOf"):
        branches = schema.get(combo)
        if isinstance(branches, list) and all(isinstance(b, dict) and "const" in b for b in branches):
            return [b["const"] for b in branches]
    if schema.get("type") == "boolean":
        return [True, False]
    items = schema.get("items")
    if schema.get("type") == "array" and isinstance(items, dict):
        return _fixed(items)
    return []


def _typed_by(schema: object) -> object:
    """The schema a `KEY=VALUE` item's text is typed by: an array's `items`, else `schema`
    (schema/arguments.py: each item of an array property is one element)."""
    if isinstance(schema, dict) and schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        return schema["items"]
    return schema


def answer_fields(input_requests: object, missing: Any = None) -> dict[str, dict[str, Any]]:
    """The fields `-a` can answer for `input_requests` (only the `missing` keys when given):
    `FIELD` -> its schema; when several requests ask, also `KEY.FIELD`."""
    requests: dict[str, Any] = input_requests if isinstance(input_requests, dict) else {}
    forms: dict[str, dict[str, Any]] = {}
    for key in [k for k in requests if missing is None or k in missing]:
        props = member(member(member(requests, key), "params"), "requestedSchema").get("properties")
        props = props if isinstance(props, dict) else {}
        forms[str(key)] = {str(name): prop if isinstance(prop, dict) else {} for name, prop in props.items()}
    out: dict[str, dict[str, Any]] = {}
    for key, props in forms.items():
        for name, prop in props.items():
            out.setdefault(name, prop)
            if len(forms) > 1:
                out[f"{key}.{name}"] = prop
    return out


def partial_words(text: str) -> tuple[list[str], str, int]:
    """`text` (a line up to the cursor) as (its complete words, the word being typed
    unquoted, how many characters that word takes in `text`), read as a POSIX shell
    reads words; an open quote belongs to the word being typed."""
    words: list[str] = []
    current: list[str] = []
    quote: str | None = None
    start = 0
    in_word = False
    i = 0
    while i < len(text):
        c = text[i]
        if quote is not None:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"' and i + 1 < len(text) and text[i + 1] in '"\\$`':
                i += 1
                current.append(text[i])
            else:
                current.append(c)
        elif c in " \t":
            if in_word:
                words.append("".join(current))
                current, in_word = [], False
        else:
            if not in_word:
                in_word, start = True, i
            if c in "'\"":
                quote = c
            elif c == "\\" and i + 1 < len(text):
                i += 1
                current.append(text[i])
            else:
                current.append(c)
        i += 1
    if not in_word:
        return words, "", 0
    return words, "".join(current), len(text) - start


class Completer:
    """Completion for the shell's lines.

    Args:
        commands: gives the command line's commands (loaded on first use: cli/commands/shell.py).
        live: the live server's names (`LiveNames`).
        help_words: what `help WORD` takes (topics and commands).
    """

    def __init__(self, commands: Callable[[], dict[str, CommandSpec]], live: LiveNames,
                 help_words: Callable[[], list[str]] = list):
        self._commands = commands
        self.live = live
        self._help_words = help_words

    def complete(self, text: str) -> list[Candidate]:
        """The candidates for the word under the cursor at the end of `text`."""
        words, word, typed = partial_words(text)
        if words[:1] == ["mrtr"]:
            words = words[1:]
        commands = self._commands()
        if not words:
            names = [*(n for n in commands), *EXIT_WORDS, "help"]
            return self._offer(((n, commands[n].summary if n in commands else "") for n in dict.fromkeys(names)),
                               word, typed)
        found = walk(commands, words)
        if found is None:
            return []
        spec = found.path[-1]
        if found.pending_option is not None:
            option = found.pending_option
            if option.choices:
                return self._offer(((c, "") for c in option.choices), word, typed)
            if "-a" in option.spellings:
                return self._answers(found.path[0].name, found.positionals, word, typed)
            if option.path:
                return self._files(word, typed)
            return []
        if word.startswith("-"):
            seen: set[int] = set()
            out = []
            for spelling, option in spec.options.items():
                if id(option) in seen and not spelling.startswith("--"):
                    continue
                seen.add(id(option))
                out.append((spelling, option.help))
            return self._offer(sorted(out, key=lambda o: (not o[0].startswith("--"), o[0])), word, typed)
        if spec.subcommands and not found.positionals:
            return self._offer(((n, s.summary) for n, s in spec.subcommands.items()), word, typed)
        name = " ".join(s.name for s in found.path)
        return self._positional(name, found.positionals, word, typed, after_dashes="--" in words)

    # ------------------------------------------------------------------ positional words
    def _positional(self, command: str, given: list[str], word: str, typed: int, *,
                    after_dashes: bool = False) -> list[Candidate]:
        if command == "help":
            return self._offer(((w, "") for w in self._help_words()), word, typed) if not given else []
        if command == "resume":
            return self._files(word, typed) if not given else []
        if command == "complete":
            if not given:
                return self._offer((("prompt", ""), ("resource", "")), word, typed)
            command, given = ("prompt" if given[0] == "prompt" else "read"), given[1:]
        if command in ("call", "tools"):
            if not given:
                return self._names(((t.get("name"), _meta(t.get("description")))
                                    for t in self.live.names("tools/list")),
                                   word, typed, after_dashes=after_dashes)
            if command == "tools":
                return []
            tool = next((t for t in self.live.names("tools/list") if t.get("name") == given[0]), None)
            return self._arguments(self._tool_params(tool), given[1:], word, typed)
        if command == "prompt":
            if not given:
                return self._names(((p.get("name"), _meta(p.get("description")))
                                    for p in self.live.names("prompts/list")),
                                   word, typed, after_dashes=after_dashes)
            prompt = next((p for p in self.live.names("prompts/list") if p.get("name") == given[0]), None)
            arguments = prompt.get("arguments") if isinstance(prompt, dict) else None
            params: list[tuple[str, dict[str, Any], str]] = [
                (str(a.get("name")), {}, _meta(a.get("description"))) for a in arguments or []
                if isinstance(a, dict) and isinstance(a.get("name"), str) and typeable((a["name"],))]
            return self._arguments(params, given[1:], word, typed, ask=("prompt", given[0]))
        if command == "read":
            if not given:
                resources = [(r.get("uri"), _meta(r.get("description") or r.get("name")))
                             for r in self.live.names("resources/list")]
                templates = [(t.get("uriTemplate"), _meta(t.get("description") or t.get("name")))
                             for t in self.live.names("resources/templates/list")]
                return self._offer([*resources, *templates], word, typed)
            from mrtr_cli.protocol.lists.templates import is_template, template_variables  # noqa: PLC0415 - lazy for start-up time

            ask = ("resource", given[0]) if is_template(given[0]) else None
            return self._arguments([(v, {}, "") for v in template_variables(given[0]) if typeable((v,))],
                                   given[1:], word, typed, ask=ask)
        return []

    @staticmethod
    def _tool_params(tool: object) -> list[tuple[str, dict[str, Any], str]]:
        """The tool's parameters as (dotted name, schema, description), each one a
        `NAME=VALUE` item can name (`typeable`)."""
        from mrtr_cli.render.listing import parameter_paths  # noqa: PLC0415 - lazy for start-up time

        schema = tool.get("inputSchema") if isinstance(tool, dict) else None
        return [(".".join(path), prop, _meta(prop.get("description")))  # a title mostly repeats the name
                for path, prop, _ in parameter_paths(schema) if typeable(path)]

    def _arguments(self, params: list[tuple[str, dict[str, Any], str]], given: list[str], word: str,
                   typed: int, *, ask: tuple[str, str] | None = None) -> list[Candidate]:
        """`NAME=` for the parameters not given yet, or the values of NAME after `NAME=`:
        those its schema fixes, else (`ask`: the reference, (kind, prompt name or URI
        template), of a parameter the server may complete) the server's suggestions."""
        if "=" in word:
            name, _, value = word.partition("=")
            key, literal = name.removesuffix(":"), name.endswith(":")
            schema = next((p for n, p, _ in params if n == key), None)
            fixed = _fixed(schema)
            if fixed or ask is None or literal or not any(n == name for n, _, _ in params):
                return self._offer(((item, "") for item in _fixed_items(key, schema, fixed, literal=literal)),
                                   word, typed)
            return self._suggested(ask, name, value, given, typed)
        done = {g.split("=", 1)[0].rstrip(":") for g in given if "=" in g}
        return self._offer(((f"{n}=", meta) for n, _, meta in params if n not in done),
                           word, typed, closed=False)

    def _answers(self, command: str, given: list[str], word: str, typed: int) -> list[Candidate]:
        """After `-a`: the fields of the forms the server left unanswered for this call (or
        for a bare `resume`, the kept pending document's), then their values."""
        pending = self.live.pending
        requests: Any = None
        if command == "resume" and pending is not None:
            requests = answer_fields(pending.get("inputRequests"), pending.get("missing"))
        elif given:
            requests = answer_fields(self.live.asked.get(given[0]))
        params = [(name, schema, _meta(schema.get("description") or schema.get("title")))
                  for name, schema in (requests or {}).items()]
        return self._arguments(params, [], word, typed)

    def _suggested(self, ask: tuple[str, str], name: str, value: str, given: list[str],
                   typed: int) -> list[Candidate]:
        """The server's values for parameter `name` (`value` typed so far), the other
        `NAME=VALUE` words of the line as the context: at most `MAX_SUGGESTIONS`, none
        with a control or escape character, none longer than `MAX_SUGGESTION_CHARS`."""
        context = {n: v for n, _, v in (g.partition("=") for g in given if "=" in g)
                   if n and n != name and not n.endswith(":")}
        out: list[Candidate] = []
        for item in dict.fromkeys(self.live.suggest(ask[0], ask[1], name, value, context)):
            if len(out) >= MAX_SUGGESTIONS:
                break
            if (isinstance(item, str) and len(item) <= MAX_SUGGESTION_CHARS and _plain(item)
                    and _fixed_items(name, None, [item], literal=False)):  # typed as it stands: no `@x`
                out.append(Candidate(_quoted(f"{name}={item}"), -typed, display=item))
        return out

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _files(word: str, typed: int) -> list[Candidate]:
        """Files and directories whose path begins with `word`."""
        folder, sep, stem = word.rpartition("/")
        directory = os.path.expanduser((folder or "/") if sep else ".")
        try:
            names = sorted(n for n in os.listdir(directory) if n.startswith(stem) and (stem or not n.startswith(".")))
        except OSError:
            return []
        out = []
        for n in names[:MAX_FILES]:
            path = f"{folder}{sep}{n}"
            if os.path.isdir(os.path.join(directory, n)):
                path += "/"
            out.append(Candidate(_quoted(path, closed=not path.endswith("/")), -typed, display=n))
        return out

    def _names(self, items: Iterable[tuple[Any, str]], word: str, typed: int, *,
               after_dashes: bool) -> list[Candidate]:
        """Candidates for a tool's or prompt's name (`items`: name, description): a name that
        starts with `-` is read as an option unless it follows `--`, so it is offered as
        `-- NAME` (shown as NAME) until `--` is on the line."""
        listed = list(items)
        out = self._offer(((n, m) for n, m in listed if after_dashes or not str(n).startswith("-")), word, typed)
        if after_dashes or word:  # a word that starts with `-` completes an option
            return out
        return out + [Candidate("-- " + _quoted(n), -typed, display=n, meta=m) for n, m in listed
                      if isinstance(n, str) and n.startswith("-") and _plain(n)]

    @staticmethod
    def _offer(items: Iterable[tuple[Any, str]], word: str, typed: int, *, closed: bool = True) -> list[Candidate]:
        """Candidates among `items` (text, description) that begin with `word`."""
        out = []
        for text, meta in items:
            if isinstance(text, str) and text.startswith(word) and _plain(text):
                out.append(Candidate(_quoted(text, closed=closed and not text.endswith("=")), -typed,
                                     display=text, meta=meta))
        return out


def typeable(path: tuple[str, ...]) -> bool:
    """Whether Tab offers `NAME=` for the parameter at `path` (a prompt's argument, a
    template's variable: one name): its key names it in a `KEY=VALUE` item
    (`schema.example.key_reads_back`, the test the example call of `tools NAME` makes) and
    does not start with `-` (read as an option). A name that is not (`k=v`, a top-level
    `x.y`, `a:`) is never offered: `--args JSON` gives it."""
    from mrtr_cli.schema.example import key_reads_back  # noqa: PLC0415 - lazy for start-up time

    return not path[0].startswith("-") and key_reads_back(path)


def _fixed_items(key: str, schema: object, values: list[object], *, literal: bool) -> list[str]:
    """`KEY=VALUE` (`literal`: `KEY:=JSON`) for each of `values` that gives that value as
    typed (`schema.example.value_item`: a value read as a file, `@x`, or typed as another
    type, `"1"` of an integer-or-string property, is not offered after `KEY=`), for the
    parameter at dotted `key` (a name that cannot be typed: none)."""
    from mrtr_cli.schema.example import value_item  # noqa: PLC0415 - lazy for start-up time

    if key.startswith("-"):
        return []
    path = tuple(key.split("."))
    items = (value_item(path, v, _typed_by(schema), literal=literal) for v in values)
    return [item for item in items if item is not None]


def typed_values(key: str, schema: object) -> list[str]:
    """The fixed values of the parameter at dotted `key` (its `schema`) that `KEY=VALUE`
    sends as typed (`_fixed_items`), as the text after `KEY=`: for the command line's own
    completion (cli/names.py) as for the shell's."""
    return [item[len(key) + 1:] for item in _fixed_items(key, schema, _fixed(schema), literal=False)]


def _quoted(text: str, *, closed: bool = True) -> str:
    """`text` as a shell word (quoted when it has to be), followed by a space when it is
    whole; an open word (`key=`, a folder) is not, and keeps its quote open, so typing goes
    on inside it."""
    quoted = shlex.quote(text)
    if closed:
        return quoted + " "
    return quoted[:-1] if quoted != text and quoted.endswith("'") else quoted
