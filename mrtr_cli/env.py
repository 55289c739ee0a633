"""The run's environment: standard streams, terminal facts, verbosity and secrets.

Every part of `mrtr` that writes to the user or asks a question gets its
streams from one `Environment` instead of touching `sys.*`, so output rules
(stdout carries results only) hold everywhere and tests can inspect them.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from mrtr_cli.errors import WriteFailed

if TYPE_CHECKING:
    from mrtr_cli.credentials import SecretPlaces
    from mrtr_cli.settings import Settings

_SLICE = 1 << 20  # characters written at a time by `out_chunks`


class ClosedStream:
    """Stands in for a standard stream that was closed when `mrtr` started (`>&-`, `2>&-`):
    writing raises `OSError(EBADF)` (so stdout's writers report it as a write failure;
    diagnostics to a closed stderr are dropped), reading gives end of file."""

    def __init__(self, name: str):
        self.name = name

    def write(self, text: str) -> int:
        import errno  # noqa: PLC0415 - lazy for start-up time

        raise OSError(errno.EBADF, f"{self.name} is closed")

    def flush(self) -> None:
        pass

    def read(self, size: int = -1) -> str:
        return ""

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError(f"{self.name} is closed")


class GuardedStdout:
    """`sys.stdout` for the whole run, so text written past `Environment.out` (click's
    help and `--version`, `mrtr help`) meets the same write-failure path: a write that
    fails with an `OSError` other than a broken pipe (a full disk, a closed stdout) raises
    `errors.WriteFailed` (exit 2) and later writes go to /dev/null. Everything else is the
    wrapped stream's."""

    def __init__(self, stream: Any):
        self._stream = stream

    def _failed(self, exc: OSError) -> Exception:
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the interpreter's final flush too
        return WriteFailed(f"cannot write to stdout: {exc.strerror or exc}")

    def write(self, text: str) -> int:
        try:
            written: int = self._stream.write(text)
            return written
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._failed(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._failed(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class LinkLine(str):
    """A line of text that shows a person a link to open (`link`: the link as it stands in
    the line, sanitised): `Environment.err` masks the credentials of other URLs in it, never
    the link's, which is the person's own and must open as shown (docs/design.md, "Secrets
    are never printed"). Only where a link is shown to be opened: a diagnostic or trace
    that names it otherwise masks it as any URL."""

    link: str

    def __new__(cls, text: str, link: str) -> LinkLine:
        """`text`, which shows `link`."""
        line = super().__new__(cls, text)
        line.link = link
        return line


class RedactedStream:
    """A stream whose writes are redacted (`Environment.redact`) before they reach the
    wrapped one: for rich's consoles on stderr (status line, progress bar, forms), whose
    output a person reads as rendered, styles and wrapped lines included. Everything else
    is the wrapped stream's."""

    def __init__(self, stream: Any, redact: Any):
        self._stream = stream
        self._redact = redact

    def write(self, text: str) -> int:
        self._stream.write(self._redact(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def standard_streams() -> dict[str, Any]:
    """`stdin`, `stdout`, `stderr` for an `Environment`: the process's own, with a closed
    one replaced by a `ClosedStream` (also in `sys`, so nothing meets None). Its file
    descriptor is pointed at /dev/null, so a file opened later cannot take it over."""
    streams = {}
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        stream = getattr(sys, name)
        if stream is None:
            try:
                os.fstat(fd)
            except OSError:
                try:
                    null = os.open(os.devnull, os.O_RDWR)
                    if null != fd:
                        os.dup2(null, fd)
                        os.close(null)
                except OSError:
                    pass
            stream = ClosedStream(name)
            setattr(sys, name, stream)
        streams[name] = stream
    sys.stdout = GuardedStdout(streams["stdout"])  # the Environment writes to the stream itself
    return streams


@dataclass(eq=False, repr=False)
class Environment:
    """Streams and facts for one run.

    Attributes:
        stdout: results only (text, JSON, pending documents).
        stderr: diagnostics, progress, logs, traces, and prompts when it is a terminal.
        stdin: arguments or answers read with `-` / `@-`.
        no_input: `--no-input` was given (never prompt).
        verbosity: 0 normal, 1 (`-v`) JSON-RPC messages, 2 (`-vv`) also HTTP headers.
        quiet: `-q`: hide server stderr and non-essential notes.
        json_mode: `--json`: results and errors as JSON.
        color: `--color`: "auto" (styles on a terminal only), "always" or "never"
            (render/color.py; NO_COLOR and FORCE_COLOR apply to "auto").
        secrets: strings that must never be printed (header values, tokens); every
            diagnostic write replaces them with `***`.
        places: the secret places of the messages this run sends (`credentials.SecretPlaces`:
            the secret form fields and tool arguments), whose values every writer of a message
            replaces with `***` whatever their type and length (`masked`).
        config_words: the options that find a named server's config file (`--config FILE`,
            `--expand-env`), for printed commands that must find the same server again.
        strict: `--strict`'s checker (protocol/checks/strict.py) once a session made one; its
            `violations` decide exit 4 (cli/main.py).
        no_pager: `--no-pager`: help is never paged (render/pager.py).
        line_host: `mrtr shell` (shell/host.py): builds the run of each line it reads over the
            shell's one session (`line_options`, `line_app`) and says what to do after exit 5
            there (`pending_notes`); None for a command run on its own.
        line_number: the number of the script line this run is (`mrtr shell` reading a
            script): its `--json` error carries it as `"line"`; None otherwise.
    """

    stdout: IO[str] = field(default_factory=lambda: sys.stdout)
    stderr: IO[str] = field(default_factory=lambda: sys.stderr)
    stdin: IO[str] = field(default_factory=lambda: sys.stdin)
    no_input: bool = False
    verbosity: int = 0
    quiet: bool = False
    json_mode: bool = False
    color: str = "auto"
    secrets: set[str] = field(default_factory=set)
    places: SecretPlaces = field(default_factory=lambda: _new_places())
    stdin_consumed: bool = False
    #: `--trace` could not be written (a `WriteFailed`): the run ends with exit 2.
    write_failure: Any = None
    strict: Any = None
    config_words: list[str] = field(default_factory=list)
    no_pager: bool = False
    line_host: Any = None
    line_number: int | None = None
    #: the `MRTR_*` variables (settings.py); None: the process environment's, made when first asked
    settings_given: Settings | None = field(default=None, repr=False)
    _tty: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def settings(self) -> Settings:
        """The run's `MRTR_*` settings (settings.py): `settings_given`, else the process
        environment's (the module loads on first use: start-up time)."""
        if self.settings_given is None:
            from mrtr_cli.settings import Settings  # noqa: PLC0415 - lazy for start-up time

            self.settings_given = Settings()
        return self.settings_given

    # ------------------------------------------------------------------ terminal facts
    @staticmethod
    def _isatty(stream: Any) -> bool:
        try:
            return bool(stream.isatty())
        except (AttributeError, ValueError):
            return False

    @property
    def stdout_isatty(self) -> bool:
        return self._isatty(self.stdout)

    @property
    def stderr_isatty(self) -> bool:
        return self._isatty(self.stderr)

    @property
    def stdin_isatty(self) -> bool:
        return self._isatty(self.stdin)

    def can_prompt(self) -> bool:
        """True when a person can be asked: input allowed and a terminal on stdin and stderr.

        `MRTR_NO_INPUT=1` in the environment has the same effect as `--no-input`.
        """
        if self.no_input or self.settings.no_input:
            return False
        if not self.stderr_isatty:
            return False
        return self.stdin_isatty or self.prompt_input() is not None

    def prompt_input(self) -> IO[str] | None:
        """Where a person's keys come from: stdin when it is a terminal; when stdin was read
        for data (`--args -`, `--answers -`), the terminal (`/dev/tty`, or the console's
        `CONIN$` on Windows: `platform.console`), as `git` and `ssh` do; else None."""
        if self.stdin_isatty:
            return self.stdin
        if not self.stdin_consumed:
            return None
        if self._tty is None:
            from mrtr_cli.platform.console import open_terminal  # noqa: PLC0415 - lazy for start-up time

            self._tty = open_terminal() or False  # kept for the run
        return self._tty or None

    # ------------------------------------------------------------------ writing
    def redact(self, text: str, *, link: str = "") -> str:
        """Replace every known secret in `text` with `***`, and the credentials of every URL
        in it (`credentials.redact_urls`: a URL's password, secret-named parameters), whatever
        their length. A secret is found as a person would read it (`redaction.find`): also
        cut in two by an escape sequence, a control or zero-width character (raw, or as
        `render.sanitize` and JSON show them: `\\x1b[0m`, `\\u200b`) or a line break.

        `link`: a link the person is asked to open, as it stands in `text` (a `LinkLine`'s):
        its URL credentials are left whole where it stands, so that it opens as shown (the
        run's own secrets are masked in it too); elsewhere in `text` they are masked."""
        if "://" in text:
            from mrtr_cli.credentials import redact_urls  # noqa: PLC0415 - lazy for start-up time

            text = link.join(map(redact_urls, text.split(link))) if link else redact_urls(text)
        if self.secrets:
            from mrtr_cli.redaction import redact  # noqa: PLC0415 - lazy for start-up time

            text = redact(text, tuple(self.secrets))
        return text

    def hides(self, text: str) -> bool:
        """Whether `redact` masks part of `text`: a command printed on stderr that holds
        such a value could not work as printed (engine/pending.py `start_again_command`)."""
        return self.redact(text) != text

    def masked(self, msg: Mapping[str, Any]) -> Mapping[str, Any]:
        """`msg` (a JSON-RPC message this run sends) with the value at each secret place
        replaced by `***` (`credentials.SecretPlaces.masked`), for any writer of it."""
        return self.places.masked(msg)

    def holds_secret(self, text: str, *, shortest: int = 1, also: Iterable[str] = ()) -> bool:
        """Whether `text` shows one of the run's secrets of at least `shortest` characters
        (or one of `also`), whole or cut as `redact` finds them: for values a server hands
        back, checked before they are stored or printed."""
        from mrtr_cli.redaction import holds  # noqa: PLC0415 - lazy for start-up time

        return holds(text, [*(s for s in tuple(self.secrets) if len(s) >= shortest), *also])

    def add_secret(self, value: str) -> None:
        """Register a value that must never appear in diagnostics (ignored if under 4 chars,
        so that short common words are not blanked everywhere; a URL's credentials are
        redacted by their place in it instead, whatever their length: `redact`)."""
        if value and len(value) >= 4:
            self.secrets.add(value)

    def err(self, text: str = "") -> None:
        """Write one diagnostic line to stderr, redacted (a `LinkLine`'s link left openable:
        `redact`). Text from a server is sanitised by the caller first
        (`render.sanitize.sanitize`: this module sits below render)."""
        with self._lock:
            try:
                self.stderr.write(self.redact(text, link=text.link if isinstance(text, LinkLine) else "") + "\n")
                self.stderr.flush()
            except (OSError, ValueError):  # stderr closed, full or gone: a diagnostic has nowhere to go
                pass

    def out(self, text: str) -> None:
        """Write result text to stdout, ending with a newline (no redaction: results are the
        server's own)."""
        self.out_chunks((text, "" if text.endswith("\n") else "\n"))

    def out_chunks(self, chunks: Iterable[str]) -> None:
        """Write result text given in pieces (e.g. a JSON encoder's output) to stdout, then flush.

        Large pieces are written in slices, so a 50 MB result is never copied whole again
        on its way out (the text layer encodes what it is given at once)."""
        try:
            write = self.stdout.write
            for chunk in chunks:
                if len(chunk) <= _SLICE:
                    write(chunk)
                    continue
                for start in range(0, len(chunk), _SLICE):
                    write(chunk[start:start + _SLICE])
            self.stdout.flush()
        except BrokenPipeError:
            # The reader went away (e.g. `| head`); nothing more to say.
            self._silence_stdout()
        except OSError as exc:  # a full disk, a closed stdout: the results are not delivered (exit 2)
            self._silence_stdout()
            raise WriteFailed(f"cannot write the results to stdout: {exc.strerror or exc}") from None

    def _silence_stdout(self) -> None:
        """Send later writes (and the interpreter's final flush) to /dev/null."""
        with contextlib.suppress(OSError):
            sys.stdout = self.stdout = open(os.devnull, "w")  # noqa: SIM115


def _new_places() -> SecretPlaces:
    """A run's empty `SecretPlaces` (the module loads when an environment is made)."""
    from mrtr_cli.credentials import SecretPlaces  # noqa: PLC0415 - lazy for start-up time

    return SecretPlaces()


class RunScope:
    """The scope of one run (a command, a batch, one line of `mrtr shell`) for the registry
    of the files it reads and writes (userfiles.RunFiles), opened by cli/main.py `run` for
    every run. The registry itself is made by userfiles.current_run_files at its first use,
    so a run that names no file (`mrtr --help`, `--version`) never imports userfiles.

    Attributes:
        parent: the scope of the run this one is part of (a shell line's: the shell's).
        inherit_as: the prefix ("the shell's ") under which this run's registry starts with
            the files of `parent`'s; None: it starts empty.
        registry: the registry, once made (a `userfiles.RunFiles`), else None.
        ends: what runs as the run ends, whatever its outcome, last added first (an output
            it claimed and did not write is closed: userfiles.claim_output).
    """

    def __init__(self, parent: RunScope | None, inherit_as: str | None):
        self.parent = parent
        self.inherit_as = inherit_as
        self.registry: object | None = None
        self.ends: list[Callable[[], None]] = []


#: The scope of the run going on (`run_scope`), None outside one. Process-wide, not per
#: thread: the lines of a batch (worker threads) read under the batch's.
_scope: RunScope | None = None


@contextlib.contextmanager
def run_scope(inherit_as: str | None = None, *, again: bool = False) -> Iterator[RunScope]:
    """A fresh `RunScope` for the run in the `with` block; the one before comes back after.
    `inherit_as`: its registry starts with the files of the one before, named with this
    prefix (a shell line inside the shell's run). `again`: the run in the block is the one
    before, run again (cli/main.py, after `EraChanged`): its scope is kept and its
    registry, if made, restarts (`userfiles.RunFiles.restart`)."""
    global _scope  # noqa: PLW0603 - the run's one scope, for every reader of a user file
    before = _scope
    if again and before is not None:
        restart = getattr(before.registry, "restart", None)
        if restart is not None:
            restart()
        yield before
        return
    scope = _scope = RunScope(before, inherit_as)
    try:
        yield scope
    finally:
        _scope = before
        for end in reversed(scope.ends):
            end()


def current_run_scope() -> RunScope | None:
    """The scope of the run going on (`run_scope`), None outside one."""
    return _scope
