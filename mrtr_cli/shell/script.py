"""Lines from a script: stdin that is not a terminal, read one line at a time as it comes
(a program may feed the shell as it goes), each at most `MAX_LINE_BYTES`. A byte order
mark at the very start (some editors write one) is no part of the first line, as in a
`mrtr batch` file."""

from __future__ import annotations

from typing import IO, Any

from mrtr_cli.errors import UsageError

#: The longest line a script may give the shell (docs/limits.md).
MAX_LINE_BYTES = 1 << 20


class ScriptReader:
    """Reads the lines of `stream` (the shell's stdin).

    `read` returns the next line without its line ending, or None at the end; a line over
    `MAX_LINE_BYTES` (its rest is skipped) or not UTF-8 raises UsageError, for that line only.
    """

    interactive = False

    def __init__(self, stream: IO[Any]):
        self._buffer = getattr(stream, "buffer", None)
        self._stream = stream
        self._first = True

    def read(self, prompt: object = None) -> str | None:
        """The next line, or None at the end of the input. Raises UsageError (see the class)."""
        line = self._read()
        if self._first and line is not None:
            self._first = False
            return line.removeprefix("\ufeff")
        return line

    def _read(self) -> str | None:
        if self._buffer is None:  # a text stream without bytes underneath (a test's), or a closed stdin
            readline = getattr(self._stream, "readline", None)
            text = readline(MAX_LINE_BYTES + 1) if readline is not None else ""
            return None if not text else text.rstrip("\r\n")
        raw = self._buffer.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return None
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while True:  # skip the rest of the line, a block at a time
                more = self._buffer.readline(MAX_LINE_BYTES)
                if not more or more.endswith(b"\n"):
                    break
            raise UsageError(f"the line is longer than {MAX_LINE_BYTES} bytes; it was skipped",
                             hint="put a large value in a file: key=@FILE, --args @FILE")
        try:
            line: str = raw.decode("utf-8").rstrip("\r\n")
            return line
        except UnicodeDecodeError:
            raise UsageError("the line is not UTF-8 text; it was skipped") from None

    def discard(self) -> None:
        """Nothing: a script's lines are never pasted."""
