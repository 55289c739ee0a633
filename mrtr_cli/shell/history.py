"""The shell's history file, and what never goes into it.

Lines typed at the shell's prompt are kept in `<state dir>/shell-history` (0600), so that
the Up key and Ctrl-R find them in the next shell too. Before a line is written, every
secret in it is replaced by `***` where it stands (`scrub`): a known secret anywhere (header
values, tokens, the values of `env:`/`file:` settings: `Environment.secrets`), the value of
each `-H` header and of each option that names a credential (`--bearer-token-env`), a tool
argument or `-a` answer whose field is a secret (its name says so, or its schema says so:
`credentials.is_secret_field`, the rule pending documents use too), given as `NAME=VALUE`,
as `NAME:=JSON`, or as a member of that JSON or of `--args` JSON, and an answer to a
URL-mode request, and a word the line's command cannot take (an extra word, a word with no
`=` among `KEY=VALUE` items: a token pasted by mistake, which an error never prints either,
errors.UnreadWords). A line that cannot be split into words is not written at all. The line
recalled from the file then carries `***`: type the secret again.

The same masking shows a line in a message (`shown`: the shell's first failing line), a
line that cannot be split too: its words up to where splitting fails are masked as above,
and the rest, which cannot be read as words, is `***` whole."""

from __future__ import annotations

import io
import json
import os
import shlex
from collections.abc import Callable
from typing import Any

from mrtr_cli.credentials import REDACTED, is_secret_name
from mrtr_cli.errors import name_like

#: The history file's name in the state directory.
HISTORY_FILE = "shell-history"
#: Bytes read from the end of the history file when a shell starts (older lines are left out).
HISTORY_READ_LIMIT = 1 << 20

_HEADER = ("-H", "--header")
_ANSWER = ("-a", "--answer")
_ARGS = ("--args",)
#: Options whose value names or makes a credential (a variable holding a token, a command
#: printing one): a token pasted there by mistake is never kept. Their `-file` siblings
#: name a file, which is kept (as `NAME=@FILE` is).
_SECRET_VALUE = ("--bearer-token-env", "--client-secret-env", "--assertion-env", "--assertion-command",
                 "--id-token-env", "--id-token-command")
_VALUED = (*_HEADER, *_ANSWER, *_ARGS, *_SECRET_VALUE)
#: The answers to a URL-mode request (`-a KEY=accept`): actions, never a secret.
URL_ACTIONS = ("accept", "decline", "cancel")


def _NO_ACTION(name: str) -> bool:  # noqa: N802 - a constant's spelling: the default of `action_field`
    """No answer is a URL-mode action (the default of `scrub`'s `action_field`)."""
    return False


def history_path() -> str:
    """`<state dir>/shell-history`."""
    from mrtr_cli.state import state_dir  # noqa: PLC0415 - lazy for start-up time

    return os.path.join(state_dir(), HISTORY_FILE)


def _NO_UNREAD(words: list[str]) -> set[int]:  # noqa: N802 - a constant's spelling: the default of `unread`
    """No word of a line is one its command cannot take (the default of `scrub`'s `unread`)."""
    return set()


def scrub(text: str, *, secrets: set[str], secret_field: Callable[[str, str], bool],
          action_field: Callable[[str], bool] = _NO_ACTION,
          unread: Callable[[list[str]], set[int]] = _NO_UNREAD) -> str | None:
    """`text` (a line as typed) fit for the history file, or None when it cannot be split
    into words (then it is not kept). Each secret is replaced by `***` where it stands on
    the line: an `-H` header's value, the value of an option that names a credential
    (`--bearer-token-env`), a secret argument or answer given as `NAME=VALUE`, as
    `NAME:=JSON` or inside such JSON, and a secret member of `--args` JSON.

    Args:
        secrets: strings that must never be written (`Environment.secrets`).
        secret_field: `(where, name)` -> whether that field is a secret, where is "argument"
            (a tool argument by its dotted name, `NAME=VALUE` or a member of `--args`) or
            "answer" (an `-a` field, `KEY.FIELD` or `FIELD`); names that say secret are
            secret anyway. The root of `--args` JSON that is no object is asked for as
            argument "".
        action_field: `NAME` -> whether `-a NAME=VALUE` answers a URL-mode request: then a
            VALUE that is exactly `accept`, `decline` or `cancel` is shown (an action, no
            secret); any other value of it is masked as `secret_field` says.
    """
    try:
        words = shlex.split(text, posix=True)
    except ValueError:
        return None
    out: list[str] = []
    changed = False
    expect: str | None = None  # the option whose value comes next
    actions: tuple[str, ...] = ()  # the answer names of the word read whose value is a URL-mode action
    stray = unread(words)

    def answer_field(where: str, name: str) -> bool:
        return secret_field(where, name) and not (where == "answer" and name in actions)

    for at, word in enumerate(words):
        new = word
        actions = ()  # `answer_field` reads it
        if at in stray:  # (a long option given a value it refuses keeps its name: `--timeout=***`)
            option, eq, _ = word.partition("=")
            new = f"{option}={REDACTED}" if eq and word.startswith("--") and name_like(option) else REDACTED
            expect = None  # the option's value, hidden: the next word is no value of it
        elif expect is not None:
            actions = _actions(expect, word, action_field)
            new = _value(expect, word, answer_field)
            expect = None
        elif word in _VALUED:
            expect = word
        elif word.startswith("--") and word.partition("=")[0] in _VALUED:
            option, _, value = word.partition("=")
            actions = _actions(option, value, action_field)
            new = f"{option}={_value(option, value, answer_field)}"
        elif word[:2] in ("-H", "-a") and len(word) > 2:
            actions = _actions(word[:2], word[2:], action_field)
            new = word[:2] + _value(word[:2], word[2:], answer_field)
        elif "=" in word and not word.startswith("-"):
            new = _item(word, "argument", secret_field)
        for secret in secrets:
            if secret and secret in new:
                new = new.replace(secret, REDACTED)
        changed = changed or new != word
        out.append(new)
    if not changed:
        return text
    return shlex.join(out)


def shown(text: str, *, secrets: set[str], secret_field: Callable[[str, str], bool],
          action_field: Callable[[str], bool] = _NO_ACTION,
          unread: Callable[[list[str]], set[int]] = _NO_UNREAD) -> str:
    """`text` (a line as typed) as a message may quote it: `scrub`'s line when it can be
    split into words; else the words before the point where splitting fails (an unclosed
    quote, a trailing backslash) scrubbed, then `***` for the rest, whatever it holds.
    Arguments as for `scrub`."""
    whole, rest = _split_start(text)
    kept = scrub(whole, secrets=secrets, secret_field=secret_field, action_field=action_field, unread=unread)
    if kept is None:  # pragma: no cover - `whole` is made of words that split
        return REDACTED
    if not rest.strip():
        return kept
    return f"{kept.rstrip()} {REDACTED}".lstrip()


def line_words(text: str) -> list[str]:
    """The words of `text` as `scrub` splits them, up to where splitting fails (an unclosed
    quote, a trailing backslash)."""
    return shlex.split(_split_start(text)[0], posix=True)


def _actions(option: str, value: str, action_field: Callable[[str], bool]) -> tuple[str, ...]:
    """The answer name of `-a NAME=VALUE` (`option` and its `value`) when VALUE is a URL-mode
    action word (`accept`, `decline`, `cancel`) and NAME a URL-mode request's key (`action_field`):
    its value is shown. Else ()."""
    if option not in _ANSWER:
        return ()
    name, eq, action = value.partition("=")
    return (name,) if eq and ":" not in name and action in URL_ACTIONS and action_field(name) else ()


def _split_start(text: str) -> tuple[str, str]:
    """`text` cut where `shlex` (as `scrub` splits) fails to read a word: (the start made of
    whole words, the rest); (`text`, "") when all of it splits."""
    stream = io.StringIO(text)  # read one character at a time: its position is where a word ended
    lexer = shlex.shlex(stream, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    end = 0
    try:
        while lexer.get_token() is not None:
            end = stream.tell()
    except ValueError:
        return text[:end], text[end:]
    return text, ""


def _value(option: str, value: str, secret_field: Callable[[str, str], bool]) -> str:
    """The value of `option` as the history keeps it."""
    if option in _HEADER:
        name, colon, _ = value.partition(":")
        return f"{name}: {REDACTED}" if colon else REDACTED
    if option in _ANSWER:
        if value.startswith("="):  # `-a=NAME=VALUE`: click reads `=NAME=VALUE` as the value
            return "=" + _item(value[1:], "answer", secret_field)
        return _item(value, "answer", secret_field)
    if option in _ARGS:  # JSON, or `@FILE` / `-` (a file's name, stdin: kept)
        return value if value.startswith("@") or value == "-" else _json_text(value, "", "argument", secret_field)
    return REDACTED if value else value


def _item(word: str, where: str, secret_field: Callable[[str, str], bool]) -> str:
    """`NAME=VALUE` or `NAME:=JSON`, split where `mrtr` splits it (the first `:=` or `=`),
    with its value hidden when NAME is a secret field (a dotted part of it names a
    credential, or the schema `secret_field` finds for it says so), and the secret members
    hidden within JSON; `NAME=@FILE` and `NAME:=@FILE` name a file and are kept."""
    json_at, eq = word.find(":="), word.find("=")
    if eq == -1:
        return word
    literal = json_at != -1 and json_at < eq
    cut = json_at if literal else eq
    name, sep, value = word[:cut], word[cut:cut + (2 if literal else 1)], word[cut + (2 if literal else 1):]
    if value.startswith("@"):
        return word
    if _secret(name, where, secret_field):
        return f"{name}{sep}{REDACTED}"
    if literal:
        return f"{name}{sep}{_json_text(value, name, where, secret_field)}"
    return word


def _secret(name: str, where: str, secret_field: Callable[[str, str], bool]) -> bool:
    """Whether the field at dotted `name` holds a secret: a part of the name says so
    (`credentials.is_secret_name`: the value of `auth.user` is the credential's too), or
    the schema behind `secret_field` does, for a tool argument of the name or one above it
    (`x.y` of a `writeOnly` argument `x` is a part of the secret)."""
    parts = name.split(".")
    if any(is_secret_name(part) for part in parts):
        return True
    if where != "argument":
        return secret_field(where, name)
    return any(secret_field(where, ".".join(parts[:i])) for i in range(1, len(parts) + 1))


def _json_text(text: str, prefix: str, where: str, secret_field: Callable[[str, str], bool]) -> str:
    """JSON `text` at dotted `prefix` with each secret member's value `***`, written again
    when one was hidden (as typed otherwise); `***` for text that is no JSON (what it holds
    cannot be told)."""
    try:
        value = json.loads(text)
    except ValueError:
        return REDACTED
    if not prefix and not isinstance(value, dict) and secret_field(where, ""):
        return REDACTED  # `--args` that is no object, of a tool whose schema is not known
    hidden = _redact_json(value, prefix, where, secret_field)
    return text if hidden == value else json.dumps(hidden, ensure_ascii=False)


def _redact_json(value: object, prefix: str, where: str, secret_field: Callable[[str, str], bool]) -> Any:
    """`value` with the value of each member at a secret dotted name (`_secret`) `***`."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, member in value.items():
            dotted = f"{prefix}.{key}" if prefix else str(key)
            out[key] = REDACTED if _secret(dotted, where, secret_field) else _redact_json(member, dotted, where,
                                                                                          secret_field)
        return out
    if isinstance(value, list):
        return [_redact_json(v, prefix, where, secret_field) for v in value]
    return value
