"""How a message names a command of mrtr: the one place that decides, by where the command
runs. At the command line a hint says `mrtr WORDS` (and, for a command that must reach the
same server, that it takes the same `--url`, `--stdio` or `-s`); inside `mrtr shell` the
truthful hint is `WORDS` alone, typed at the shell's prompt, whose one server needs no
naming (a target option is refused there), and a command's help is `help COMMAND`.

`cli/commands/shell.py` `run_line` runs each line `in_shell`; hints built while it runs
read it (a context variable: it holds in the thread that runs the line, and in the threads
that run its HTTP requests). While the shell's loop runs its lines (`shell_running`, once
its session is open), every thread of the process reads it too: a message a stdio reader
thread builds (a message too large) is printed inside the shell as well. A stop signal
(SIGTERM, SIGHUP) ends the shell with the line it stops: from then on every message names
commands as at the command line (`inside_shell`), where it will be read."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from mrtr_cli.errors import termination_received

#: `mrtr`, as a command line starts.
PROGRAM = "mrtr"

_IN_SHELL: ContextVar[bool] = ContextVar("mrtr_in_shell", default=False)
#: The shell's loop runs its lines (`shell_running`): a process-wide fact, for every thread.
_SHELL_RUNNING: list[bool] = [False]


@contextlib.contextmanager
def in_shell() -> Iterator[None]:
    """While a line of `mrtr shell` runs: commands are named as typed at its prompt."""
    token = _IN_SHELL.set(True)
    try:
        yield
    finally:
        _IN_SHELL.reset(token)


@contextlib.contextmanager
def shell_running() -> Iterator[None]:
    """While the shell's loop reads and runs its lines (shell/loop.py), after its session
    opened: whatever this process prints is read at the shell's prompt."""
    _SHELL_RUNNING[0] = True
    try:
        yield
    finally:
        _SHELL_RUNNING[0] = False


def inside_shell() -> bool:
    """Where a message built now will be read, the one decision every hint takes: True
    while a line of `mrtr shell` runs (`in_shell`), or the shell's loop runs its lines
    (`shell_running`), and the shell goes on after it; False at the command line, and once
    a stop signal (SIGTERM, SIGHUP: `errors.termination_received`) came, which ends the
    shell with the line it stopped: what is printed then is read at the user's own shell,
    where only `mrtr ...` command lines work."""
    return (_IN_SHELL.get() or _SHELL_RUNNING[0]) and termination_received() is None


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


def for_new_shell(text: str) -> str:
    """Advice naming what sets up the session or the process (`--client-id ID`,
    `-H 'NAME: VALUE'`, `--protocol V`, an environment variable such as `MRTR_OAUTH_DPOP=0`)
    as a message gives it here: `text` at the command line; inside the shell, where a line
    refuses such an option and cannot change the environment, `text` for a new shell's
    command line (docs/shell.md, "What runs inside")."""
    if inside_shell():
        return f"{text} (on the command line of a new shell: mrtr ... shell)"
    return text
