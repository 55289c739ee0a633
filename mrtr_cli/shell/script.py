"""Lines from a script: stdin that is not a terminal, read one line at a time as it comes
(a program may feed the shell as it goes), each at most `MAX_LINE_BYTES` (its line end,
`\\n` or `\\r\\n`, aside; a last line may have none). A byte order mark at the very start
(some editors write one) is no part of the first line, as in a `mrtr batch` file. Only the
line being read is held: a script of any number of lines reads in bounded memory."""

from __future__ import annotations

from typing import IO, Any

from mrtr_cli.errors import UsageError

#: The longest line a script may give the shell (docs/limits.md).
MAX_LINE_BYTES = 1 << 20


class UnreadableLine(UsageError):
    """A script line that is not run as it cannot be a command line (exit 2, that line only).

    Attributes:
        summary: what it is, in a few words (`longer than 1048576 bytes`), for the line
            that names the first failing line.
    """

    def __init__(self, what: str, summary: str, *, hint: str | None = None):
        super().__init__(f"the line {what}; it was not run", hint=hint)
        self.summary = summary


def _too_long() -> UnreadableLine:
    return UnreadableLine(f"is longer than {MAX_LINE_BYTES} bytes (1 MiB)", f"longer than {MAX_LINE_BYTES} bytes",
                          hint="put a large value in a file: key=@FILE, --args @FILE")


class ScriptReader:
    """Reads the lines of `stream` (the shell's stdin).

    `read` returns the next line without its line ending, or None at the end; a line over
    `MAX_LINE_BYTES` (its rest is skipped), not UTF-8, or holding a NUL character (which no
    command line can) raises `UnreadableLine`, for that line only.
    """

    interactive = False

    def __init__(self, stream: IO[Any]):
        self._buffer = getattr(stream, "buffer", None)
        self._stream = stream
        self._first = True

    def read(self, prompt: object = None) -> str | None:
        """The next line, or None at the end of the input. Raises UnreadableLine (see the class)."""
        line = self._read()
        if self._first and line is not None:
            self._first = False
            line = line.removeprefix("\ufeff")
        if line is not None and "\x00" in line:
            raise UnreadableLine("holds a NUL character, which no command line can (a binary file?)",
                                 "a NUL character")
        return line

    def _read(self) -> str | None:
        # a text stream without bytes underneath (a test's), or a closed stdin, reads characters
        source: Any = self._buffer if self._buffer is not None else self._stream
        readline = getattr(source, "readline", None)
        if readline is None:
            return None
        raw = readline(MAX_LINE_BYTES + 2)  # the longest line and its `\r\n`
        if not raw:
            return None
        newline = b"\n" if isinstance(raw, bytes) else "\n"
        ended = raw.endswith(newline)
        line = raw[:-1] if ended else raw
        line = line[:-1] if ended and line[-1:] in (b"\r", "\r") else line
        if len(line) > MAX_LINE_BYTES:
            while not ended:  # skip the rest of the line, a block at a time
                more = readline(MAX_LINE_BYTES)
                ended = not more or more.endswith(newline)
            raise _too_long()
        if isinstance(line, str):
            return line
        try:
            text: str = line.decode("utf-8")
            return text
        except UnicodeDecodeError:
            raise UnreadableLine("is not UTF-8 text", "not UTF-8") from None

    def discard(self) -> None:
        """Nothing: a script's lines are never pasted."""
