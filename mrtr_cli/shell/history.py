"""The shell's history file, and what never goes into it.

Lines typed at the shell's prompt are kept in `<state dir>/shell-history` (0600), so that
the Up key and Ctrl-R find them in the next shell too. Before a line is written, every
secret in it is replaced by `***` (`scrub`): a known secret anywhere (header values, tokens,
the values of `env:`/`file:` settings: `Environment.secrets`), the value of each `-H`
header, a tool argument or `-a` answer whose field is a secret (its name says so,
or its schema says so: `credentials.is_secret_field`, the rule pending documents use too), and
an answer to a URL-mode request. A line that cannot be split into words is not written at
all. The line recalled from the file then carries `***`: type the secret again.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable
from typing import Any

from mrtr_cli.credentials import REDACTED, is_secret_name

#: The history file's name in the state directory.
HISTORY_FILE = "shell-history"
#: Bytes read from the end of the history file when a shell starts (older lines are left out).
HISTORY_READ_LIMIT = 1 << 20

_HEADER = ("-H", "--header")
_ANSWER = ("-a", "--answer")


def history_path() -> str:
    """`<state dir>/shell-history`."""
    from mrtr_cli.state import state_dir  # noqa: PLC0415 - lazy for start-up time

    return os.path.join(state_dir(), HISTORY_FILE)


def _redact_json(value: object) -> Any:
    if isinstance(value, dict):
        return {k: REDACTED if is_secret_name(str(k)) else _redact_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_json(v) for v in value]
    return value


def scrub(text: str, *, secrets: set[str], secret_field: Callable[[str, str], bool]) -> str | None:
    """`text` (a line as typed) fit for the history file, or None when it cannot be split
    into words (then it is not kept).

    Args:
        secrets: strings that must never be written (`Environment.secrets`).
        secret_field: `(where, name)` -> whether that field is a secret, where is "argument"
            (a `NAME=VALUE` of the line's command) or "answer" (an `-a` field, `KEY.FIELD`
            or `FIELD`); names that say secret are secret anyway.
    """
    try:
        words = shlex.split(text, posix=True)
    except ValueError:
        return None
    out: list[str] = []
    changed = False
    expect: str | None = None  # the option whose value comes next
    for word in words:
        new = word
        if expect is not None:
            new = _value(expect, word, secret_field)
            expect = None
        elif word in _HEADER or word in _ANSWER or word == "--args":
            expect = word
        elif word.startswith(("--header=", "--answer=", "--args=")):
            option, _, value = word.partition("=")
            new = f"{option}={_value(option, value, secret_field)}"
        elif word[:2] in ("-H", "-a") and len(word) > 2:
            new = word[:2] + _value(word[:2], word[2:], secret_field)
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


def _value(option: str, value: str, secret_field: Callable[[str, str], bool]) -> str:
    if option in _HEADER:
        name, colon, _ = value.partition(":")
        return f"{name}: {REDACTED}" if colon else REDACTED
    if option in _ANSWER:
        return _item(value, "answer", secret_field)
    if option == "--args" and value[:1] in ("{", "["):
        try:
            return json.dumps(_redact_json(json.loads(value)), ensure_ascii=False)
        except ValueError:
            return REDACTED
    return value


def _item(word: str, where: str, secret_field: Callable[[str, str], bool]) -> str:
    """`NAME=VALUE` (or `NAME:=JSON`) with its value hidden when NAME is a secret field
    (`credentials.is_secret_field`: its name, or the schema `secret_field` finds for it);
    `NAME=@FILE` names a file and is kept."""
    name, _, value = word.partition("=")
    field = name.rstrip(":")
    if value.startswith("@") or not (is_secret_name(field.rsplit(".", 1)[-1]) or secret_field(where, field)):
        return word
    return f"{name}={REDACTED}"
