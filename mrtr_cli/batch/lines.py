"""The `mrtr batch` input: one JSON object per line.

    {"id": "a1", "call": "update_work_item", "arguments": {"workItemId": 4522}, "answers": {...}}
    {"id": "a2", "prompt": "triage", "arguments": {"workItemId": "4522"}, "answersFile": "answers/eng.json"}
    {"read": "workitems://4301/export", "answers": {"fields": {"includeHistory": true}}}

Members: exactly one of `call` (a tool name), `prompt` (a prompt name) or `read` (a
resource URI); `arguments` (an object; not for `read`); `answers` (an answer document,
docs/design.md, "Answer files") and `answersFile` (a path, or a list of paths, relative to the batch
file's directory); `id` (a string or an integer; default: the line number). Members
starting with `_` are comments. Blank lines are skipped; line numbers count every line.
Lines end at `\n` only (`\r\n` is fine; U+2028 and other characters `str.splitlines`
would split at stay inside their line); a UTF-8 byte-order mark is ignored, and a line
that is not valid UTF-8 is malformed on its own.

A line that breaks these rules is *malformed*: it becomes an exit-2 record naming its
line number, and the other lines still run.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.errors import UsageError
from mrtr_cli.jsonfile import a_json_type, loads_strict
from mrtr_cli.render.suggest import close_matches
from mrtr_cli.responders.answers import AnswerFile, load_answer_file, parse_answer_document
from mrtr_cli.userfiles import SameFile

COMMANDS = ("call", "prompt", "read")
MEMBERS = ("id", *COMMANDS, "arguments", "answers", "answersFile")


@dataclass
class BatchLine:
    """One line of the input.

    Attributes:
        number: the 1-based line number in the file.
        id: the line's `id` (a string or an integer; the line number when absent).
        command: "call", "prompt" or "read"; empty for a malformed line.
        subject: the tool or prompt name, or the resource URI.
        arguments: the `arguments` object, or None.
        answers: the line's answer files (`answersFile` entries, then inline `answers`),
            used after the batch's own `--answers` files (later ones win).
        error: why the line is malformed (exit 2), or None.
    """

    number: int
    id: Any
    command: str = ""
    subject: str = ""
    arguments: dict[str, Any] | None = None
    answers: list[AnswerFile] = field(default_factory=list)
    error: UsageError | None = None

    @property
    def key(self) -> str:
        """The id as a lookup key (`7` and `"7"` are different ids)."""
        return id_key(self.id)

    @property
    def resume_key(self) -> str:
        """The key `--resume` finds this line's record by: its id, but the line number for a
        line whose id repeats an earlier line's (its record must not stand for that line)."""
        duplicate = self.error is not None and isinstance(self.error.data, dict) and "duplicateOf" in self.error.data
        return f"#{self.number}" if duplicate else self.key


def id_key(value: object) -> str:
    """A record id as a dictionary key: its JSON text."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def read_batch_text(path: str, stdin: Any, deadline: Any = None) -> str:
    """The batch input from `path` (`-`: the binary buffer of `stdin`), decoded as UTF-8 with
    `surrogateescape`: bytes that are not UTF-8 survive as U+DC80..U+DCFF, so that only
    their line is malformed (`read_batch`), not the whole input.

    `deadline` (a `Deadline`, `--timeout`) bounds waiting for stdin.

    Raises:
        UsageError: the file cannot be read, is not a regular file, or is too large.
        TimeoutExpired: stdin stayed silent past the deadline.
    """
    from mrtr_cli.userfiles import read_stdin_bytes, read_user_bytes  # noqa: PLC0415 - lazy for start-up time

    try:
        if path == "-":
            data = read_stdin_bytes(stdin, what="batch input", deadline=deadline)
        else:
            data = read_user_bytes(path, what="batch input")
    except FileNotFoundError:
        raise UsageError(f"cannot read batch input {path}: no such file") from None
    return data.decode("utf-8", "surrogateescape")


_UNDECODABLE = re.compile("[\udc80-\udcff]")


def read_batch(text: str, base_dir: str, files: dict[str, AnswerFile] | None = None) -> list[BatchLine]:
    """Parse the batch input `text`; never raises for a bad line (it comes back with `error`).

    Args:
        text: the whole input (JSON lines).
        base_dir: the directory `answersFile` paths are relative to.
        files: a cache of answer files already loaded, by absolute path (shared by lines).

    Returns:
        One `BatchLine` per non-blank line, in input order. A line whose `id` repeats an
        earlier line's is malformed (records and `--resume` find lines by id).
    """
    cache = files if files is not None else {}
    lines: list[BatchLine] = []
    first_seen: dict[str, int] = {}
    text = text.removeprefix("\ufeff")
    if text.endswith("\n"):
        text = text[:-1]
    for number, raw in enumerate(text.split("\n") if text else [], 1):
        raw = raw.removesuffix("\r")
        if not raw.strip():
            continue
        bad = _UNDECODABLE.search(raw)
        if bad:
            byte = ord(bad.group(0)) - 0xDC00
            line = _malformed(number, number, f"not valid UTF-8 (byte 0x{byte:02x} at column {bad.start() + 1})",
                              hint="save the file as UTF-8")
        else:
            line = parse_line(raw, number, base_dir, cache)
        earlier = first_seen.setdefault(line.key, number)
        if earlier != number and line.error is None:
            line.error = UsageError(f"line {number}: the id {line.key} is already used by line {earlier}",
                                    data={"line": number, "duplicateOf": earlier}, hint="give every line its own id")
        lines.append(line)
    return lines


def parse_line(raw: str, number: int, base_dir: str, cache: dict[str, AnswerFile]) -> BatchLine:
    """One input line (see the module docstring); a malformed one carries its `error`."""
    try:
        doc = loads_strict(raw)
    except json.JSONDecodeError as exc:
        return _malformed(number, number, f"not valid JSON (column {exc.colno}: {exc.msg})")
    except RecursionError:
        return _malformed(number, number, "not valid JSON here: nested too deeply")
    if not isinstance(doc, dict):
        return _malformed(number, number, f"expected a JSON object, not {a_json_type(doc)}")
    line_id = doc.get("id", number)
    if "id" in doc and (isinstance(line_id, bool) or not isinstance(line_id, str | int)):
        return _malformed(number, number, f"the id must be a string or an integer, not {a_json_type(line_id)}")
    try:
        return _parse_members(doc, number, line_id, base_dir, cache)
    except SameFile as exc:  # a file the batch writes: the whole batch stops, before anything is written
        raise exc.read_by(f"line {number}") from None
    except UsageError as exc:
        return _malformed(number, line_id, exc.message, hint=exc.hint)


def _parse_members(doc: dict[str, Any], number: int, line_id: object, base_dir: str,
                   cache: dict[str, AnswerFile]) -> BatchLine:
    unknown = [k for k in doc if k not in MEMBERS and not k.startswith("_")]
    if unknown:
        close = close_matches(unknown[0], MEMBERS, n=1)
        from mrtr_cli.render.sanitize import quote_text  # noqa: PLC0415 - only on an error path

        raise UsageError(f"unknown member {quote_text(unknown[0])}",
                         hint=f"did you mean {close[0]!r}?" if close else f"members: {', '.join(MEMBERS)}")
    commands = [c for c in COMMANDS if c in doc]
    if len(commands) != 1:
        raise UsageError("give exactly one of \"call\", \"prompt\" and \"read\""
                         + (f" (found {', '.join(commands)})" if commands else ""))
    command = commands[0]
    subject = doc[command]
    if not isinstance(subject, str) or not subject:
        what = "resource URI" if command == "read" else "tool name" if command == "call" else "prompt name"
        raise UsageError(f"\"{command}\" must be a non-empty string (the {what})")
    arguments = doc.get("arguments")
    if arguments is not None:
        if command == "read":
            raise UsageError("\"read\" takes no \"arguments\" (a resource is named by its URI)")
        if not isinstance(arguments, dict):
            raise UsageError(f"\"arguments\" must be an object, not {a_json_type(arguments)}")
    answers = _answer_files(doc.get("answersFile"), base_dir, cache)
    if "answers" in doc:
        answers.append(parse_answer_document(doc["answers"], f"line {number} answers"))
    return BatchLine(number, line_id, command, subject, arguments, answers)


def _answer_files(value: Any, base_dir: str, cache: dict[str, AnswerFile]) -> list[AnswerFile]:
    if value is None:
        return []
    paths = value if isinstance(value, list) else [value]
    if not paths or not all(isinstance(p, str) and p for p in paths):
        raise UsageError("\"answersFile\" must be a path or a list of paths")
    out = []
    for path in paths:
        if path == "-":
            raise UsageError("\"answersFile\" cannot be - (stdin) in a batch")
        full = os.path.join(base_dir, os.path.expanduser(path))
        if full not in cache:
            cache[full] = load_answer_file(full)
        out.append(cache[full])
    return out


def _malformed(number: int, line_id: object, message: str, *, hint: str | None = None) -> BatchLine:
    text = message if message.startswith(f"line {number}") else f"line {number}: {message}"
    return BatchLine(number, line_id, error=UsageError(text, data={"line": number}, hint=hint))


