"""How a message names a command of mrtr: the one place that decides, by where the command
runs. At the command line a hint says `mrtr WORDS` (and, for a command that must reach the
same server, that it takes the same `--url`, `--stdio` or `-s`); inside `mrtr shell` the
truthful hint is `WORDS` alone, typed at the shell's prompt, whose one server needs no
naming (a target option is refused there), and a command's help is `help COMMAND`.

`cli/commands/shell.py` `run_line` runs each line `in_shell`; hints built while it runs
read it (a context variable: it holds in the thread that runs the line)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

#: `mrtr`, as a command line starts.
PROGRAM = "mrtr"

_IN_SHELL: ContextVar[bool] = ContextVar("mrtr_in_shell", default=False)


@contextlib.contextmanager
def in_shell() -> Iterator[None]:
    """While a line of `mrtr shell` runs: commands are named as typed at its prompt."""
    token = _IN_SHELL.set(True)
    try:
        yield
    finally:
        _IN_SHELL.reset(token)


def inside_shell() -> bool:
    """True while a line of `mrtr shell` runs (`in_shell`)."""
    return _IN_SHELL.get()


def command(words: str, *, same_target: bool = False) -> str:
    """`words` (a command and its arguments, `tools echo`) as a person runs it here:
    `mrtr tools echo` at the command line, with ` (with the same --url, --stdio or -s)`
    when `same_target`; `tools echo` inside the shell."""
    if inside_shell():
        return words
    return f"{PROGRAM} {words}" + (" (with the same --url, --stdio or -s)" if same_target else "")


def command_path(path: str) -> str:
    """click's command path (`mrtr call`, `mrtr task wait`) as typed here: without `mrtr`
    inside the shell."""
    if inside_shell() and (path == PROGRAM or path.startswith(PROGRAM + " ")):
        return path[len(PROGRAM):].strip()
    return path


def help_command(path: str) -> str:
    """How to see the help of the command at click's command `path` (`mrtr call`): `mrtr
    call --help` at the command line, `help call` inside the shell (`help` alone for the
    command list)."""
    if inside_shell():
        return ("help " + command_path(path)).strip()
    return f"{path} --help"


def signin_command(cli: str | None, verb: str = "login") -> str:
    """The command that signs in (`verb` "logout": out, removing the token file) as a
    message names it here: `cli` at the command line (config/oauth_target.py `login_hint`,
    `mrtr --url URL auth login`, built once for a run: in a shell, before any line runs);
    `auth VERB` inside the shell, which runs it over its one server (docs/shell.md); an
    empty string for a `cli` of None at the command line."""
    if inside_shell():
        return f"auth {verb}"
    return cli or ""


def environment_advice(text: str) -> str:
    """Advice to set an environment variable (`MRTR_OAUTH_DPOP=0`) as a message gives it
    here: `text` at the command line; inside the shell, `text` for the shell's own command
    line (the shell read its environment when it started: a line cannot change it)."""
    if inside_shell():
        return f"{text} in the environment of a new `mrtr ... shell`"
    return text
