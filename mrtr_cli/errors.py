"""Exit statuses and the error hierarchy every failure path goes through.

Every way `mrtr` can end is one `ExitStatus` (docs/design.md, "Exit codes"). Code below
the CLI raises a `MrtrError` subclass; the CLI catches it once, prints one line
(or one JSON line with `--json`) and exits with the error's status.
"""

from __future__ import annotations

from enum import IntEnum

# Only the type checker reads these: `typing` is not loaded before a stdio server is launched
# (cli/entry.py imports this module first; docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping, Sequence
    from typing import TypeVar


class ExitStatus(IntEnum):
    """Process exit codes (docs/design.md, "Exit codes")."""

    SUCCESS = 0
    TOOL_ERROR = 1  # the result has isError: true
    USAGE = 2  # bad option, argument, answer file, or arguments failing inputSchema
    TRANSPORT = 3  # cannot start/reach the server, process died, HTTP 5xx, broken stream
    PROTOCOL = 4  # JSON-RPC error, invalid response, round cap, task failed
    INPUT_REQUIRED = 5  # input needed and nobody can answer: pending document on stdout
    DECLINED = 6  # the user declined or cancelled an input request, or a task was cancelled
    TIMEOUT = 7
    AUTH = 8  # HTTP 401/403
    INTERNAL = 70  # a bug in mrtr (sysexits EX_SOFTWARE); never expected
    INTERRUPTED = 130  # Ctrl-C


class MrtrError(Exception):
    """Base of every error that ends a run with a documented exit status.

    Attributes:
        message: one line for the user (never a traceback).
        code: the JSON-RPC error code when the error came from the server, else None.
        data: the JSON-RPC `error.data` or other structured detail, else None.
        hint: an optional second line telling the user what to do.
        from_server: `message` is the server's own (a JSON-RPC error's `message`, kept as
            sent; mrtr's own words about it are in `hint`): shown as "server error CODE: ...".
    """

    exit_status: ExitStatus = ExitStatus.PROTOCOL
    from_server: bool = False

    def __init__(self, message: str, *, code: int | None = None, data: object = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.data = data
        self.hint = hint


if TYPE_CHECKING:  # pragma: no cover
    E = TypeVar("E", bound=MrtrError)


class UsageError(MrtrError):
    """Bad command line, argument, answer file or answer (exit 2)."""

    exit_status = ExitStatus.USAGE


class UnreadWords(UsageError):
    """A usage error about words of the command line mrtr could not read: an extra argument,
    an argument with no `=`, an unknown command or option with no name close to it, a
    value an option refuses. Such a word is never printed (a word pasted by mistake may be a
    token): the message names it by its place on the line and its length, `word 5 (16
    characters, not shown)` (`place`: cli/main.py does, for every usage error, at the
    command line and in `mrtr shell`).

    Args:
        template: the message, with `{0}`, `{1}`, ... where each word is named (other
            braces doubled, as for `str.format`).
        words: the words, as typed.
    """

    def __init__(self, template: str, words: Sequence[str], *, hint: str | None = None):
        self.template = template
        self.words = tuple(words)
        #: the indices in the line of the words named by place (`place`): the words the
        #: message hid, which `mrtr shell`'s history and first failing line hide too
        self.places: frozenset[int] = frozenset()
        super().__init__(template.format(*(unshown(w) for w in self.words)), hint=hint)

    def place(self, line: Sequence[str]) -> None:
        """Name each word by its place in `line` (the words after `mrtr`, or a shell
        line's words: 1 is the first), the last such word not named yet (or the last that
        starts `WORD=`, an option given its value, `--opt=VALUE`, or gives an option the
        value WORD in its own word, `--opt=WORD`, `-oWORD`); by its length alone when the
        line does not hold it. `places` then holds the indices (0-based) of the words named."""
        taken: set[int] = set()
        names = []
        for word in reversed(self.words):
            at = next((i for i in reversed(range(len(line))) if i not in taken and line[i] == word), None)
            if at is None:
                at = next((i for i in reversed(range(len(line)))
                           if i not in taken and line[i].startswith(word + "=")), None)
            if at is None:  # a value given in its option's word: `--opt=VALUE`, `-oVALUE`
                at = next((i for i in reversed(range(len(line))) if i not in taken and line[i].startswith("-")
                           and (line[i].endswith("=" + word) or line[i][2:] == word)), None)
            if at is not None:
                taken.add(at)
            names.append(unshown(word, None if at is None else at + 1))
        self.message = self.template.format(*reversed(names))
        self.args = (self.message,)
        self.places = frozenset(taken)


def name_like(word: str) -> bool:
    """Whether `word` is spelled as a name, which no token is: letters and single dashes
    between them (`cal`, `list-tools`; an option's leading dashes aside, `--bogus`). A word
    mrtr cannot read is repeated in a message only when it is one (`UnreadWords`)."""
    bare = word[2:] if word.startswith("--") else word[1:] if word.startswith("-") else word
    return all(part.isalpha() and part.isascii() for part in bare.split("-"))


def refused(template: str, word: str, *, hint: str | None = None, quote: bool = False) -> UsageError:
    """The usage error for `word`, a value given on the command line that mrtr refuses (an
    option's value, a help topic), said by `template` (`{0}` where the word goes, other
    braces doubled, as for `str.format`): the word is repeated (as `repr` with `quote`)
    only when spelled as a name (`name_like`: `--log-level debg`, `help tols`), else named
    by its place and length (`UnreadWords`: a token pasted there by mistake is never printed,
    and `mrtr shell` keeps it out of its history)."""
    if name_like(word):
        return UsageError(template.format(repr(word) if quote else word), hint=hint)
    return UnreadWords(template, [word], hint=hint)


def unshown(word: str, place: int | None = None) -> str:
    """How a message names a word it does not print (`UnreadWords`): `word 5 (16 characters,
    not shown)`, or without its `place` (1-based) `a word of 16 characters (not shown)`."""
    size = f"{len(word)} character{'' if len(word) == 1 else 's'}"
    return f"word {place} ({size}, not shown)" if place is not None else f"a word of {size} (not shown)"


class TransportError(MrtrError):
    """The server cannot be started or reached, died, or broke the stream (exit 3)."""

    exit_status = ExitStatus.TRANSPORT


class ProtocolError(MrtrError):
    """Invalid or unrecognised response, or a protocol rule broken (exit 4)."""

    exit_status = ExitStatus.PROTOCOL


class JsonRpcError(ProtocolError):
    """The server answered with a JSON-RPC error object (exit 4).

    `code`, `message` and `data` are the server's own `error` members.
    """

    from_server = True

    def __init__(self, code: int, message: str, data: object = None, *, hint: str | None = None):
        super().__init__(message, code=code, data=data, hint=hint)


def explained(err: JsonRpcError, cls: type[E], explanation: str, *, hint: str | None = None) -> E:
    """The server's JSON-RPC error `err` kept as sent (its code, message and data: `--json`
    prints them as they came), as a `cls` error whose hint is mrtr's `explanation` of it,
    then `hint` (one line each). The server's message is never replaced by mrtr's words."""
    new = cls(err.message, code=err.code, data=err.data,
              hint="\n".join(line for line in (explanation, hint) if line))
    new.from_server = True
    return new


class EraChanged(ProtocolError):
    """A session opened in the era the era cache remembered got an answer only the other
    era's servers send (exit 4 if the command cannot simply run again). The cache entry
    is already dropped; `cli.main.run` runs the command once more, which probes afresh."""


class InputRequired(MrtrError):
    """Input is needed and nobody can answer it now (exit 5).

    Attributes:
        pending: the pending document (docs/design.md, "Pending documents") to print on stdout.
    """

    exit_status = ExitStatus.INPUT_REQUIRED

    def __init__(self, message: str, pending: Mapping[str, object]):
        super().__init__(message)
        self.pending = pending


class Declined(MrtrError):
    """The user declined or cancelled, or a task was cancelled (exit 6)."""

    exit_status = ExitStatus.DECLINED


class TimeoutExpired(MrtrError):
    """`--timeout` ran out (exit 7)."""

    exit_status = ExitStatus.TIMEOUT


class AuthError(MrtrError):
    """HTTP 401 or 403 from the server (exit 8)."""

    exit_status = ExitStatus.AUTH


class Interrupted(MrtrError):
    """Ctrl-C (exit 130).

    Attributes:
        pending: the pending document of the call interrupted at a prompt (also saved in
            the state directory, named in `hint`), or None; `mrtr shell` keeps it for a bare
            `resume`.
    """

    exit_status = ExitStatus.INTERRUPTED

    def __init__(self, message: str, *, data: object = None, hint: str | None = None,
                 pending: Mapping[str, object] | None = None):
        super().__init__(message, data=data, hint=hint)
        self.pending = pending


#: Which exit code wins when several apply to one run, first wins (the README's
#: exit-code table and `mrtr help exit-codes` say the same). What stopped the run outranks
#: what the run found: Ctrl-C, then a timeout (a task that was cancelled or failed after
#: `--timeout` struck is reported, but the run ended by timing out), then an authorization,
#: transport, protocol or usage failure, then input nobody could give; of a finished result,
#: `isError: true` (the server's own verdict on the call) outranks a declined or cancelled
#: form that came before it. One rule sits outside this list: output that cannot be written
#: (`WriteFailed`, exit 2) ends the run with 2 whatever it found, except 70 and 130
#: (cli/main.py `run`), since what was asked for was not delivered.
PRECEDENCE: tuple[ExitStatus, ...] = (
    ExitStatus.INTERNAL, ExitStatus.INTERRUPTED, ExitStatus.TIMEOUT, ExitStatus.AUTH, ExitStatus.TRANSPORT,
    ExitStatus.PROTOCOL, ExitStatus.USAGE, ExitStatus.INPUT_REQUIRED, ExitStatus.TOOL_ERROR,
    ExitStatus.DECLINED, ExitStatus.SUCCESS,
)


def winning_status(*codes: int) -> int:
    """The exit code of a run to which all of `codes` apply, by `PRECEDENCE` (0 for none).

    Args:
        codes: exit codes (`ExitStatus` values; an unknown code ranks after 70).
    """
    if not codes:
        return int(ExitStatus.SUCCESS)
    rank = {int(status): i for i, status in enumerate(PRECEDENCE)}
    return int(min(codes, key=lambda c: rank.get(int(c), 1)))


class WriteFailed(MrtrError):
    """What the user asked for could not be written: stdout (a full disk, a closed stdout),
    `--trace FILE`, `--save-answers FILE` (exit 2, as batch records that cannot be written).
    Not a bug in mrtr: the message names the stream and the system's reason."""

    exit_status = ExitStatus.USAGE


def terminated(signum: int, frame: object) -> None:
    """The handler of the signals that stop a run (`platform.signals.TERMINATION`: SIGTERM,
    a CI job cancelled or `kill`; SIGHUP, the terminal closed; SIGBREAK on Windows): the
    run ends as on Ctrl-C (a running task's id and the command to resume are printed, a
    pending call is saved, the server is shut down), with `KeyboardInterrupt(NAME)`
    ("SIGTERM", "SIGHUP", ...) so that messages can name the signal that came instead of
    suggesting a key nobody pressed."""
    raise stop_signal(signum)


def stop_signal(signum: int) -> KeyboardInterrupt:
    """The `KeyboardInterrupt` that stop signal `signum` ends the run with: a bare one for
    SIGINT (Ctrl-C), `KeyboardInterrupt(NAME)` for the others, which `termination_received`
    then names (`terminated`; a prompt that a signal ends raises it once the prompt is gone,
    responders/stopping.py)."""
    import signal  # noqa: PLC0415 - loaded already: the handler was installed with it

    if signum == signal.SIGINT:
        return KeyboardInterrupt()
    name = signal.Signals(signum).name
    _received.append(name)
    return KeyboardInterrupt(name)


_received: list[str] = []


def termination_received() -> str | None:
    """The name of the first stop signal `terminated` handled in this process ("SIGTERM",
    "SIGHUP", ...), or None: a long-lived loop (`mrtr shell`) ends on one, where it takes a
    Ctrl-C as "cancel this command" only."""
    return _received[0] if _received else None
