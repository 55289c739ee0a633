"""`mrtr batch` output: one JSON record per line, `--resume`, and the summary.

A record is one JSON line:

    {"id": "a1", "line": 1, "exitCode": 0, "result": {...}}     the server's result, exactly as sent
    {"id": "a2", "line": 2, "exitCode": 1, "result": {...}}     (isError: true; 6: a form was declined)
    {"id": "a3", "line": 3, "exitCode": 5, "pending": {...}}    the pending document (docs/design.md)
    {"id": 4, "line": 4, "exitCode": 2, "error": {"exitCode": 2, "code": null, "message": "...", "data": ...}}

`exitCode` is what `mrtr call` would have exited with for that line (docs/design.md,
"Exit codes"); with `--strict` the record of every line that ran counts its `strictViolations`
(a line with any exits 4 as `call --strict` would); `error` has the shape of a `--json` error. A detached task's record
is its creation result (`resultType: "task"`, exit 0).

The batch exits 0 when every line's record says 0; otherwise with the exit code of
the first failing line in input order (whatever `-j` and `--unordered` did to the
timing), and 130 after Ctrl-C.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, TypedDict

from mrtr_cli.batch.lines import BatchLine, id_key
from mrtr_cli.env import Environment
from mrtr_cli.errors import ExitStatus, MrtrError, UsageError
from mrtr_cli.render.errors import error_object
from mrtr_cli.render.sanitize import dumps_safe

#: Words for exit codes in the summary (docs/design.md, "Exit codes").
CODE_NAMES = {
    0: "ok", 1: "tool error", 2: "usage", 3: "transport", 4: "protocol", 5: "input required",
    6: "declined", 7: "timeout", 8: "auth", 70: "internal error", 130: "interrupted",
}


def first_failure_line(who: str, code: int, number: int, which: str) -> str:
    """The stderr line naming the line whose exit code a run of many lines (`batch`, `shell`)
    exits with: `mrtr: WHO: exit CODE: the first failing line is line NUMBER (WHICH)`."""
    return f"mrtr: {who}: exit {code}: the first failing line is line {number} ({which})"


# ---------------------------------------------------------------------- records
class _BatchRecordBase(TypedDict):
    id: str | int
    line: int
    exitCode: int


class BatchRecord(_BatchRecordBase, total=False):
    """One record mrtr writes (module docstring): `id`, `line`, `exitCode`, then one of
    `result` (the server's, exactly as sent: unchecked, so only a mapping), `pending` (the
    pending document), `error` (`render.errors.error_object`); `strictViolations` with
    `--strict`. A record read back (`load_records`) is a line of a file, not this type."""

    result: Mapping[str, object]
    pending: Mapping[str, object]
    error: dict[str, Any]
    strictViolations: int


def _record(line: BatchLine, code: int) -> BatchRecord:
    return {"id": line.id, "line": line.number, "exitCode": code}


def result_record(line: BatchLine, code: int, result: Mapping[str, object]) -> BatchRecord:
    """A finished line: the result as the server sent it, with the exit code `call` would give."""
    return {**_record(line, code), "result": result}


def pending_record(line: BatchLine, pending: Mapping[str, object]) -> BatchRecord:
    """A line that needs input nobody gave: exit 5 and its pending document."""
    return {**_record(line, int(ExitStatus.INPUT_REQUIRED)), "pending": pending}


def error_record(line: BatchLine, err: MrtrError, env: Environment) -> BatchRecord:
    """A failed line: `{"exitCode", "code", "message", "data"}` (and `hint`), secrets redacted
    from every string of it (`data`'s too: a refused answer's `problems` quote the value)."""
    from mrtr_cli.render.trace import redact_values  # noqa: PLC0415 - only when a line fails

    error = error_object(err)
    error["message"] = err.message
    if err.hint:
        error["hint"] = str(err.hint)
    redacted: dict[str, Any] = redact_values(error, env.redact)
    return {**_record(line, int(err.exit_status)), "error": redacted}


def dumps_record(record: Mapping[str, object]) -> str:
    """One record as a JSON line: lossless, and inert on a terminal."""
    return dumps_safe(record)


class RecordSink:
    """Writes records as they finish: in input order (buffering early finishers), or as
    they come with `ordered=False`. Not thread-safe: the runner calls it under its lock.

    Args:
        write: writes one line of text (the record and a newline).
        order: the line numbers this run will record, in input order.
        ordered: keep input order.
        flush: pushes what was written out (`flush()`; the runner calls it after each record,
            so a record is on its way as soon as its line is done).
    """

    def __init__(self, write: Callable[[str], object], order: list[int], *, ordered: bool = True,
                 flush: Callable[[], None] | None = None):
        self._write = write
        self._order = order
        self._ordered = ordered
        self._next = 0
        self._buffer: dict[int, str] = {}  # line number -> its encoded record, waiting for earlier lines
        self.flush_output: Callable[[], None] = flush or (lambda: None)

    def add(self, record: BatchRecord, text: str | None = None) -> None:
        """Take one finished line's record (`text`: its JSON line, when already encoded)."""
        text = text if text is not None else dumps_record(record) + "\n"
        if not self._ordered:
            self._write(text)
            return
        self._buffer[record["line"]] = text
        while self._next < len(self._order) and self._order[self._next] in self._buffer:
            self._write(self._buffer.pop(self._order[self._next]))
            self._next += 1

    def flush(self) -> None:
        """Write every record still held back (lines before them never finished: Ctrl-C), in
        input order, and push everything out."""
        for number in sorted(self._buffer):
            self._write(self._buffer.pop(number))
        self.flush_output()


# ---------------------------------------------------------------------- --resume
def _as_record(raw: bytes) -> dict[str, Any] | None:
    """One line of a records file as a record, or None (not JSON, not UTF-8, not a record)."""
    try:
        record = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict) or "id" not in record:
        return None
    code = record.get("exitCode")
    if isinstance(code, bool) or not isinstance(code, int) or not 0 <= code <= 255:
        return None
    return record


def _torn_record(raw: bytes) -> bool:
    """A last line that is the start of a record cut short (a killed run): records begin
    `{"id": `, and a line cut short is not JSON; anything else in that place (a whole JSON
    line that is no record, other text) means the file is not batch output."""
    if not raw.lstrip().startswith(b'{"id"'):
        return False
    try:
        json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return True
    return False


def record_key(record: dict[str, Any]) -> str:
    """The key a record is found by (`BatchLine.resume_key`): its id, or `#LINE` for the
    record of a line whose id repeated an earlier line's."""
    error = record.get("error")
    data = error.get("data") if isinstance(error, dict) else None
    if isinstance(data, dict) and "duplicateOf" in data:
        return f"#{record.get('line')}"
    return id_key(record["id"])


def load_records(path: str) -> dict[str, dict[str, Any]]:
    """The records in an earlier run's output, by `record_key` (the last record of a key wins).

    The last line may be cut short (a killed run) and is then ignored; any other line
    must be a record, so that `--resume` never appends to a file that is not batch output.

    Raises:
        UsageError: the file cannot be read, or is not a batch output file.
    """
    from mrtr_cli.userfiles import read_user_bytes  # noqa: PLC0415 - lazy for start-up time

    try:
        data = read_user_bytes(path, what="--resume", role="records")
    except FileNotFoundError:
        return {}
    records: dict[str, dict[str, Any]] = {}
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        record = _as_record(raw)
        if record is None:
            if number == len(lines) and _torn_record(raw):
                continue  # the last line, a record cut short: open_output removes it
            raise UsageError(f"--resume {path}: line {number} is not a batch record",
                             hint="--resume takes the output of an earlier `mrtr batch` run")
        records[record_key(record)] = record
    return records


def open_output(path: str, *, append: bool) -> IO[str]:
    """Open the records file, locked against a second `mrtr batch` writing it at the same time.

    Appending (`--resume`), a last line cut short (a killed run) is removed and a whole
    last record lacking its newline gets one. Not appending, the file is emptied only when
    the first record is written: a batch that cannot start leaves it as it was.

    Raises:
        UsageError: the file cannot be opened, or another run holds its lock.
    """
    try:
        fh = open(path, "a+b")  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    from mrtr_cli.platform import filelock  # noqa: PLC0415 - lazy for start-up time

    try:
        locked = filelock.try_lock(fh.fileno())
    except OSError:
        locked = False
    if not locked:
        fh.close()
        raise UsageError(f"cannot write {path}: another mrtr batch is writing it",
                         hint="wait for it to finish (two runs would run the same lines twice)")
    try:
        if append:
            fh.seek(0)
            data = fh.read()
            if data and not data.endswith(b"\n"):
                cut = data.rfind(b"\n") + 1
                if _as_record(data[cut:]) is None and _torn_record(data[cut:]):
                    fh.truncate(cut)
                else:
                    fh.write(b"\n")
                fh.flush()
    except OSError as exc:
        fh.close()
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    return _RecordsFile(fh, truncate=not append)


class _RecordsFile(io.TextIOWrapper):
    """The locked records file as text; emptied (when asked) on the first write."""

    def __init__(self, raw: IO[bytes], *, truncate: bool):
        super().__init__(raw, encoding="utf-8", newline="\n")
        self._pending_truncate = truncate

    def write(self, text: str) -> int:
        if self._pending_truncate:
            self._pending_truncate = False
            self.buffer.truncate(0)
        return super().write(text)


# ---------------------------------------------------------------------- summary
@dataclass
class Summary:
    """What a batch did, for stderr and the exit code.

    Attributes:
        lines: lines in the input.
        codes: line number -> exit code, for every line with a record (this run's or an
            earlier one's with `--resume`).
        ids: line number -> id (for naming the first failure).
        skipped: lines already recorded (`--resume`).
        not_run: lines left without a record (`--fail-fast`, Ctrl-C).
        interrupted: Ctrl-C stopped the batch.
        stopped: the exit code of what else stopped the batch early (0: nothing did).
    """

    lines: int = 0
    codes: dict[int, int] = field(default_factory=dict)
    ids: dict[int, Any] = field(default_factory=dict)
    skipped: int = 0
    not_run: int = 0
    interrupted: bool = False
    stopped: int = 0

    def first_failure(self) -> int | None:
        """The number of the first line (in input order) whose code is not 0."""
        return next((n for n in sorted(self.codes) if self.codes[n] != 0), None)

    def exit_code(self) -> int:
        """0 when every line succeeded; else the first failing line's code; 130 after Ctrl-C.

        A batch stopped early because its records could not be written exits with `stopped`
        (set by the runner); and it is never 0 while a line has no record."""
        if self.interrupted:
            return int(ExitStatus.INTERRUPTED)
        if self.stopped:
            return self.stopped
        first = self.first_failure()
        if first is not None:
            return self.codes[first]
        return int(ExitStatus.INTERNAL) if self.not_run else int(ExitStatus.SUCCESS)

    def ran(self) -> int:
        """Lines that got a record in this run (not the ones `--resume` found recorded)."""
        return len(self.codes) - self.skipped

    def counts(self) -> Counter[int]:
        return Counter(self.codes.values())

    def text(self) -> list[str]:
        """The summary lines for stderr."""
        counts = self.counts()
        parts = [f"{counts[code]} {CODE_NAMES.get(code, 'exit')} ({code})" if code else f"{counts[code]} ok"
                 for code in sorted(counts)]
        head = f"mrtr: batch: {self.lines} line{'s' if self.lines != 1 else ''}: " + (", ".join(parts) or "none run")
        extra = []
        if self.skipped and not self.ran() and not self.not_run and not self.interrupted:
            # `--resume` found every line recorded: say that nothing ran, not "3 ok".
            head = (f"mrtr: batch: nothing ran: all {self.lines} line{'s' if self.lines != 1 else ''} "
                    f"were recorded earlier (--resume; {', '.join(parts)})")
            if any(self.codes.values()):
                head += "; --retry-failed runs the failed ones again"
        elif self.skipped:
            extra.append(f"{self.skipped} recorded earlier (--resume)")
        if self.not_run:
            extra.append(f"{self.not_run} without a record")
        lines = [head + ("; " + ", ".join(extra) if extra else "")]
        first = self.first_failure()
        if self.interrupted:
            lines.append("mrtr: batch: interrupted; run it again with --resume to finish the lines not recorded")
        elif first is not None:
            lines.append(first_failure_line("batch", self.codes[first], first, f"id {id_key(self.ids.get(first))}"))
        return lines

    def document(self) -> dict[str, Any]:
        """The summary as JSON (`--json`): `{"batch": {...}}`."""
        first = self.first_failure()
        return {"batch": {
            "lines": self.lines, "exitCode": self.exit_code(),
            "exitCodes": {str(code): n for code, n in sorted(self.counts().items())},
            "ran": self.ran(), "skipped": self.skipped, "notRun": self.not_run, "interrupted": self.interrupted,
            "firstFailure": None if first is None else {"line": first, "id": self.ids.get(first),
                                                        "exitCode": self.codes[first]},
        }}
