"""`mrtr batch` output: one JSON record per line, `--resume`, and the summary.

A record is one JSON line:

    {"id": "a1", "line": 1, "exitCode": 0, "result": {...}}     the server's result, exactly as sent
    {"id": "a2", "line": 2, "exitCode": 1, "result": {...}}     (isError: true; 6: a form was declined)
    {"id": "a3", "line": 3, "exitCode": 5, "pending": {...}}    the pending document (DESIGN.md section 4)
    {"id": 4, "line": 4, "exitCode": 2, "error": {"exitCode": 2, "code": null, "message": "...", "data": ...}}

`exitCode` is what `mrtr call` would have exited with for that line (DESIGN.md
section 2); `error` has the shape of a `--json` error. A detached task's record
is its creation result (`resultType: "task"`, exit 0).

The batch exits 0 when every line's record says 0; otherwise with the exit code of
the first failing line in input order (whatever `-j` and `--unordered` did to the
timing), and 130 after Ctrl-C.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from mrtr_cli.batch.lines import BatchLine, id_key
from mrtr_cli.env import Environment
from mrtr_cli.errors import ExitStatus, MrtrError, UsageError
from mrtr_cli.render.sanitize import dumps_safe

#: Words for exit codes in the summary (DESIGN.md section 2).
CODE_NAMES = {
    0: "ok", 1: "tool error", 2: "usage", 3: "transport", 4: "protocol", 5: "input required",
    6: "declined", 7: "timeout", 8: "auth", 70: "internal error", 130: "interrupted",
}


# ---------------------------------------------------------------------- records
def _record(line: BatchLine, code: int) -> dict[str, Any]:
    return {"id": line.id, "line": line.number, "exitCode": code}


def result_record(line: BatchLine, code: int, result: dict[str, Any]) -> dict[str, Any]:
    """A finished line: the result as the server sent it, with the exit code `call` would give."""
    return {**_record(line, code), "result": result}


def pending_record(line: BatchLine, pending: dict[str, Any]) -> dict[str, Any]:
    """A line that needs input nobody gave: exit 5 and its pending document."""
    return {**_record(line, int(ExitStatus.INPUT_REQUIRED)), "pending": pending}


def error_record(line: BatchLine, err: MrtrError, env: Environment) -> dict[str, Any]:
    """A failed line: `{"exitCode", "code", "message", "data"}` (and `hint`), secrets redacted."""
    error: dict[str, Any] = {"exitCode": int(err.exit_status), "code": err.code,
                             "message": env.redact(err.message), "data": err.data}
    if err.hint:
        error["hint"] = env.redact(str(err.hint))
    return {**_record(line, int(err.exit_status)), "error": error}


def dumps_record(record: dict[str, Any]) -> str:
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

    def __init__(self, write: Callable[[str], None], order: list[int], *, ordered: bool = True,
                 flush: Callable[[], None] | None = None):
        self._write = write
        self._order = order
        self._ordered = ordered
        self._next = 0
        self._buffer: dict[int, str] = {}  # line number -> its encoded record, waiting for earlier lines
        self.flush_output: Callable[[], None] = flush or (lambda: None)

    def add(self, record: dict[str, Any], text: str | None = None) -> None:
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
def load_records(path: str) -> dict[str, dict[str, Any]]:
    """The records in an earlier run's output, by id (the last record of an id wins).

    A line that is not a record (e.g. cut short when the run was killed) is ignored.

    Raises:
        UsageError: the file cannot be read.
    """
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UsageError(f"--resume {path}: cannot read it: {exc.strerror or exc}") from None
    records: dict[str, dict[str, Any]] = {}
    for raw in text.splitlines():
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if isinstance(record, dict) and "id" in record and isinstance(record.get("exitCode"), int):
            records[id_key(record["id"])] = record
    return records


def open_output(path: str, *, append: bool) -> IO[str]:
    """Open the records file; when appending, a last line cut short (a killed run) is removed first.

    Raises:
        UsageError: the file cannot be opened.
    """
    try:
        if append and os.path.exists(path):
            with open(path, "rb+") as fh:
                data = fh.read()
                if data and not data.endswith(b"\n"):
                    fh.truncate(data.rfind(b"\n") + 1)
        return open(path, "a" if append else "w", encoding="utf-8")  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


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
    """

    lines: int = 0
    codes: dict[int, int] = field(default_factory=dict)
    ids: dict[int, Any] = field(default_factory=dict)
    skipped: int = 0
    not_run: int = 0
    interrupted: bool = False

    def first_failure(self) -> int | None:
        """The number of the first line (in input order) whose code is not 0."""
        return next((n for n in sorted(self.codes) if self.codes[n] != 0), None)

    def exit_code(self) -> int:
        """0 when every line succeeded; else the first failing line's code; 130 after Ctrl-C."""
        if self.interrupted:
            return int(ExitStatus.INTERRUPTED)
        first = self.first_failure()
        return self.codes[first] if first is not None else int(ExitStatus.SUCCESS)

    def counts(self) -> Counter[int]:
        return Counter(self.codes.values())

    def text(self) -> list[str]:
        """The summary lines for stderr."""
        counts = self.counts()
        parts = [f"{counts[code]} {CODE_NAMES.get(code, 'exit')} ({code})" if code else f"{counts[code]} ok"
                 for code in sorted(counts)]
        head = f"mrtr: batch: {self.lines} line{'s' if self.lines != 1 else ''}: " + (", ".join(parts) or "none run")
        extra = []
        if self.skipped:
            extra.append(f"{self.skipped} recorded earlier (--resume)")
        if self.not_run:
            extra.append(f"{self.not_run} without a record")
        lines = [head + ("; " + ", ".join(extra) if extra else "")]
        first = self.first_failure()
        if self.interrupted:
            lines.append("mrtr: batch: interrupted; run it again with --resume to finish the lines not recorded")
        elif first is not None:
            lines.append(f"mrtr: batch: exit {self.codes[first]}: the first failing line is line {first} "
                         f"(id {id_key(self.ids.get(first))})")
        return lines

    def document(self) -> dict[str, Any]:
        """The summary as JSON (`--json`): `{"batch": {...}}`."""
        first = self.first_failure()
        return {"batch": {
            "lines": self.lines, "exitCode": self.exit_code(),
            "exitCodes": {str(code): n for code, n in sorted(self.counts().items())},
            "skipped": self.skipped, "notRun": self.not_run, "interrupted": self.interrupted,
            "firstFailure": None if first is None else {"line": first, "id": self.ids.get(first),
                                                        "exitCode": self.codes[first]},
        }}
