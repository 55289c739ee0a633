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
from collections.abc import Iterator, Sequence
from contextvars import ContextVar

from mrtr_cli.errors import termination_received

#: `mrtr`, as a command line starts.
PROGRAM = "mrtr"

_IN_SHELL: ContextVar[bool] = ContextVar("mrtr_in_shell", default=False)
#: This run's target as printed commands name it (`run_target`); None: not known here.
_RUN_TARGET: ContextVar[tuple[str, ...] | None] = ContextVar("mrtr_run_target", default=None)
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


@contextlib.contextmanager
def target_scope() -> Iterator[None]:
    """One run of a command line (cli/main.py `run`): the target `set_run_target` records
    holds until it ends, and no longer."""
    token = _RUN_TARGET.set(None)
    try:
        yield
    finally:
        _RUN_TARGET.reset(token)


def set_run_target(words: Sequence[str] | None) -> None:
    """Record the words after `mrtr` that reach this run's server again, in their public
    form (`--url URL`, `--stdio CMD`, `[--config FILE] -s NAME`; none when the environment
    names it), for the commands a hint prints with `same_target` (cli/build.py sets them
    as it builds the run, in the thread that runs the command); None: they cannot be
    printed (a URL whose credentials are hidden, `-H` headers), and such a command says
    "(with the same --url, --stdio or -s)" instead."""
    _RUN_TARGET.set(None if words is None else tuple(words))


def inside_shell() -> bool:
    """Where a message built now will be read, the one decision every hint takes: True
    while a line of `mrtr shell` runs (`in_shell`), or the shell's loop runs its lines
    (`shell_running`), and the shell goes on after it; False at the command line, and once
    a stop signal (SIGTERM, SIGHUP: `errors.termination_received`) came, which ends the
    shell with the line it stopped: what is printed then is read at the user's own shell,
    where only `mrtr ...` command lines work."""
    return (_IN_SHELL.get() or _SHELL_RUNNING[0]) and termination_received() is None


#: Said after a command that must reach the same server when its target is not printed.
SAME_TARGET = " (with the same --url, --stdio or -s)"
#: The longest command a hint prints (render/sanitize.py `LINE_CHARS`): a longer one is not printed.
MAX_COMMAND_CHARS = 2000


def quote_word(word: str, *, at_command_line: bool = False) -> str:
    """`word` as one word where a hint is read: at the command line, the user's shell
    (platform/shellwords.py: a POSIX shell, or PowerShell on Windows); inside `mrtr shell`
    (unless `at_command_line`), whose line reader splits as a POSIX shell does on every
    platform (shell/words.py), the POSIX spelling."""
    if inside_shell() and not at_command_line:
        import shlex  # noqa: PLC0415 - lazy for start-up time

        return shlex.quote(word)
    from mrtr_cli.platform import shellwords  # noqa: PLC0415 - lazy for start-up time

    return shellwords.quote(word)


def command_line(words: Sequence[str], operands: Sequence[str] = (), options: Sequence[str] = (), *,
                 target: Sequence[str] | None = None, same_target: bool = False,
                 at_command_line: bool = False) -> str | None:
    """The one builder of every command a message prints, as a person types it here.

    Args:
        words: the command and its options (`["task", "get"]`, `["call", "--args", JSON]`).
        operands: its positional words (a tool's or prompt's name, a task id, `KEY=VALUE`
            items), after a `--` when one starts with `-` (else it would be read as an option).
        options: options written after the operands (`call NAME --args JSON`); before the
            `--` when there is one.
        target: the words that name the server in their public form (`--url URL`,
            `--stdio CMD`, `-s NAME`; never a secret), printed after `mrtr` at the command
            line; inside `mrtr shell` none (its one server needs no naming, and a target
            option on its line is refused).
        same_target: with no `target`, the run's (`set_run_target`); when it is not known,
            say the command takes the same `--url`, `--stdio` or `-s` (at the command line).
        at_command_line: the command is for the command line whatever runs now (inside the
            shell: one to run after it ends, engine/pending.py `after_shell`).

    Every word is quoted for where the hint is read (`quote_word`).

    Returns:
        `mrtr [TARGET] WORDS OPERANDS OPTIONS` at the command line (`WORDS OPTIONS --
        OPERANDS` for an operand that starts with `-`), the same without `mrtr [TARGET]`
        inside the shell; None when a word cannot be shown as typed (a control or other
        non-printable character: a terminal would show it escaped, so the line would not
        run as printed) or the line would be longer than `MAX_COMMAND_CHARS`: the caller
        says so instead of printing a command.
    """
    if any(w.startswith("-") for w in operands):
        all_words = [*words, *options, "--", *operands]
    else:
        all_words = [*words, *operands, *options]
    if not all(w.isprintable() for w in all_words):
        return None
    if same_target and target is None and (known := _RUN_TARGET.get()) is not None:
        target = known
    shell = inside_shell() and not at_command_line
    if not shell:
        all_words = [PROGRAM, *(target or ()), *all_words]
    text = " ".join(quote_word(str(w), at_command_line=at_command_line) for w in all_words)
    if not text.isprintable() or len(text) > MAX_COMMAND_CHARS:
        return None
    return text + (SAME_TARGET if same_target and target is None and not shell else "")


def command(words: str, *, same_target: bool = False) -> str:
    """`words`, mrtr's own (a command and its options, `task list`, `task wait ID --answers
    FILE`: never server text), as a person runs it here (`command_line`): `mrtr task list`
    at the command line, with ` (with the same --url, --stdio or -s)` when `same_target`;
    `task list` inside the shell."""
    return command_line(words.split(), same_target=same_target) or words


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
