"""Answer files and `-a` flags: answers prepared before the run (docs/design.md, "Answer files").

An answer file is a JSON object with any of `inputResponses` (by input-request
key, values in the spec's own shapes; a list is consumed one entry per round in
which that key is asked), `inOrder` (answers for a task's questions whose keys hold
the task's own id, so they differ on every run: used in the order asked),
`fields` (form values by property name) and `roots`.
A file with none of these members is read as a bare `inputResponses` object.
Members whose names start with `_` or `$` are ignored (templates carry help there).
Several files merge, later files winning.

`-a` flags are `FIELD=VALUE`, `INPUTKEY.FIELD=VALUE` (typed by the form's schema)
or `FIELD:=JSON` for a literal value.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.errors import UsageError, refused
from mrtr_cli.jsonfile import a_json_type, loads_strict
from mrtr_cli.userfiles import load_json_document

KNOWN_MEMBERS = ("inputResponses", "inOrder", "fields", "roots")


@dataclass(eq=False, repr=False)
class AnswerFile:
    """One loaded answer file.

    Attributes:
        path: the path as given (used in every message about this file).
        input_responses: key -> an InputResponse, or a list of them (one per round).
        fields: property name -> value, for form elicitation.
        roots: a `roots` list (ListRootsResult.roots), or None.
    """

    path: str
    input_responses: dict[str, Any] = field(default_factory=dict)
    fields: dict[str, Any] = field(default_factory=dict)
    roots: list[Any] | None = None
    in_order: list[Any] = field(default_factory=list)


def parse_answer_document(doc: Any, path: str) -> AnswerFile:
    """Read an already-parsed answer document.

    Raises:
        UsageError: the document is not an object or a member has the wrong type.
    """
    if not isinstance(doc, dict):
        raise UsageError(f"{path}: an answer file must be a JSON object, not {a_json_type(doc)}")
    if not any(member in doc for member in KNOWN_MEMBERS):
        doc = {"inputResponses": {k: v for k, v in doc.items() if not k.startswith(("_", "$"))}}
    answers = AnswerFile(path)
    responses = doc.get("inputResponses", {})
    if not isinstance(responses, dict):
        raise UsageError(f"{path}: inputResponses must be an object keyed by input request key")
    answers.input_responses = dict(responses)
    in_order = doc.get("inOrder", [])
    if not isinstance(in_order, list):
        raise UsageError(f"{path}: inOrder must be a list of input responses, in the order asked")
    answers.in_order = list(in_order)
    fields = doc.get("fields", {})
    if not isinstance(fields, dict):
        raise UsageError(f"{path}: fields must be an object of property name -> value")
    answers.fields = dict(fields)
    roots = doc.get("roots")
    if roots is not None and not isinstance(roots, list):
        raise UsageError(f"{path}: roots must be a list of {{uri, name}} objects")
    answers.roots = roots
    return answers


def load_answer_file(path: str, stdin_text: str | None = None) -> AnswerFile:
    """Load one answer file (`-` reads `stdin_text`).

    Raises:
        UsageError: the file cannot be read, is not JSON, or has the wrong shape.
    """
    doc = load_json_document(path, what="answer file", stdin_text=stdin_text)
    return parse_answer_document(doc, path)


@dataclass(eq=False, repr=False)
class FlagAnswer:
    """One `-a` flag: `name` is `FIELD` or `INPUTKEY.FIELD`; `raw` is the text after `=`,
    or the parsed JSON value when `is_json` (`:=`)."""

    name: str
    raw: Any
    is_json: bool
    text: str

    @property
    def named(self) -> str:
        """The flag as a message names it: its name and `=` (or `:=`), never its value, which
        may be a secret (`NAME=...`)."""
        return f"{self.name}{':=' if self.is_json else '='}..."

    def matches(self, key: str, field_name: str) -> bool:
        return self.name == field_name or self.name == f"{key}.{field_name}"

    @property
    def awaits(self) -> str:
        """What the flag waits for, for a note: "question 'KEY'" for `KEY.FIELD`, else
        "form with a field 'FIELD' or URL request 'FIELD'" (sanitised, quoted): a bare
        name is a form's field, or the key of a URL-mode request it answers (`-a KEY=accept`)."""
        from mrtr_cli.render.sanitize import quote_text  # noqa: PLC0415 - lazy for start-up time

        if "." in self.name:
            return f"question {quote_text(self.name.rsplit('.', 1)[0])}"
        return f"form with a field {quote_text(self.name)} or URL request {quote_text(self.name)}"


def parse_flag(text: str) -> FlagAnswer:
    """Parse one `-a` value.

    Raises:
        UsageError: no `=` in the flag, an empty name, a name with an empty part around a
            dot (`.=x`, `.x=1`, `x..y=1`), or invalid JSON after `:=`.
    """
    json_sep = text.find(":=")
    eq = text.find("=")
    if json_sep != -1 and (eq == -1 or json_sep < eq):
        name, raw = text[:json_sep], text[json_sep + 2 :]
        _check_name(name, ":=")
        try:
            value = loads_strict(raw)
        except json.JSONDecodeError as exc:
            raise UsageError(f"-a {name}:=...: the value after := is not valid JSON ({exc.msg})") from None
        if not name:
            raise UsageError("-a :=...: missing the field name before :=")
        return FlagAnswer(name, value, True, text)
    if eq == 0:  # `-a=NAME=VALUE` reaches here as `=NAME=VALUE`: its value is never shown
        raise UsageError("-a =...: missing the field name before = (expected -a FIELD=VALUE, with a space "
                         "or nothing between -a and FIELD)")
    if eq < 0:  # no `=`: what it holds may be a value (`NAME:VALUE`, a token): shown only if a name (errors.refused)
        raise refused("-a {0}: a flag without '=': expected FIELD=VALUE, INPUTKEY.FIELD=VALUE or FIELD:=JSON", text,
                      hint="a file of answers goes to --answers FILE")
    _check_name(text[:eq], "=")
    return FlagAnswer(text[:eq], text[eq + 1 :], False, text)


def _check_name(name: str, sep: str) -> None:
    """Refuse a flag `name` with an empty part around a dot: `.` would be field '' of
    question '' (`sep`: `=` or `:=`, for the message, which never shows the value).

    Raises:
        UsageError: one line (exit 2).
    """
    if name and "" in name.split("."):
        raise UsageError(f"-a {name}{sep}...: a dot in the name has nothing before or after it "
                         "(expected FIELD or INPUTKEY.FIELD)")


class AnswerStore:
    """Every prepared answer of a run: files (later wins) and `-a` flags.

    Keeps per-key consumption counters so a list answer serves one entry per round.
    """

    def __init__(self, files: list[AnswerFile] | None = None, flags: list[FlagAnswer] | None = None):
        self.files = list(files or [])
        self.flags = list(flags or [])
        self._consumed: dict[str, int] = {}
        self._in_order_used = 0
        self.used_flags: set[int] = set()
        #: a bare `FIELD` flag (by index) -> the `KEY.FIELD` flag that answered that field
        #: of question KEY instead (`flags_for`), for the end-of-run note.
        self.shadowed: dict[int, str] = {}

    @property
    def empty(self) -> bool:
        return not self.files and not self.flags

    def unused_flag_notes(self, where: str = "on this run", also_used: set[int] | None = None, *,
                          stopped: Callable[[FlagAnswer], str] | None = None,
                          also_shadowed: dict[int, str] | None = None) -> list[str]:
        """A note for each `-a` flag no input request used, by index in `flags`; `also_used`
        and `also_shadowed`: what other stores used and shadowed (batch lines).

        A bare `FIELD` flag whose field a `KEY.FIELD` flag answered says so (`shadowed`). A
        run that reached its end (`stopped` None) asked for no other such field: the flag
        is a typo, or for a question the server did not ask (`no form {where} has a field
        'NAME'`). A run that stopped before its end may not have reached the question the
        flag is for: the note says the flag was not used (yet) and why, `stopped(flag)`
        ("the run stopped for input before any question 'KEY' came"; docs/answers.md,
        "Answer files")."""
        used = self.used_flags | (also_used or set())
        shadowed = {**(also_shadowed or {}), **self.shadowed}
        from mrtr_cli.render.sanitize import quote_text, sanitize  # noqa: PLC0415 - lazy for start-up time

        def why(index: int, flag: FlagAnswer) -> str:
            if index in shadowed:
                key = shadowed[index][: -len(flag.name) - 1]
                return (f": the field {quote_text(flag.name)} of question {quote_text(key)} was answered by "
                        f"-a {sanitize(shadowed[index], single_line=True)}=... (KEY.FIELD wins over FIELD)")
            if stopped is None:
                return f": no form {where} has a field {quote_text(flag.name)}"
            return f" (yet): {stopped(flag)}"

        return [f"mrtr: note: -a {sanitize(flag.named, single_line=True)} was not used{why(index, flag)}"
                for index, flag in enumerate(self.flags) if index not in used]

    def exact(self, key: str) -> tuple[Any, str] | None:
        """The `inputResponses[key]` answer for this round and its source label, consuming
        one list entry; None when no file has the key (or its list is used up)."""
        for answers in reversed(self.files):
            if key in answers.input_responses:
                value = answers.input_responses[key]
                label = f"{answers.path}, inputResponses.{key}"
                if isinstance(value, list):
                    index = self._consumed.get(key, 0)
                    self._consumed[key] = index + 1
                    if index >= len(value):
                        return None
                    return value[index], f"{label}[{index}]"
                return value, label
        return None

    def next_in_order(self, key: str) -> tuple[Any, str] | None:
        """The next `inOrder` answer (files in order, then their entries) for a task-keyed
        question `key`, and its source label; None when every entry is used."""
        entries = [(answers.path, i, value) for answers in self.files for i, value in enumerate(answers.in_order)]
        if self._in_order_used >= len(entries):
            return None
        path, index, value = entries[self._in_order_used]
        self._in_order_used += 1
        return value, f"{path}, inOrder[{index}] (for {key})"

    def is_list(self, key: str) -> bool:
        """True when the file answering `key` (as `exact` picks it) gives a list, one entry per round."""
        for answers in reversed(self.files):
            if key in answers.input_responses:
                return isinstance(answers.input_responses[key], list)
        return False

    def field_value(self, name: str) -> tuple[Any, str] | None:
        """The `fields[name]` value from the last file that has it, with its source label."""
        for answers in reversed(self.files):
            if name in answers.fields:
                return answers.fields[name], f"{answers.path}, fields.{name}"
        return None

    def flags_for(self, key: str, field_name: str) -> list[tuple[int, FlagAnswer]]:
        """The `-a` flags that answer `field_name` of input request `key`, in order
        (a `KEY.FIELD` flag beats a bare `FIELD` flag)."""
        specific = [(i, f) for i, f in enumerate(self.flags) if f.name == f"{key}.{field_name}"]
        if specific:
            self.shadowed.update((i, f"{key}.{field_name}") for i, f in enumerate(self.flags) if f.name == field_name)
            return specific
        return [(i, f) for i, f in enumerate(self.flags) if f.name == field_name]

    def given_values(self, key: str, field_name: str) -> list[Any]:
        """Every value this store gives for `field_name` of input request `key`, used or not:
        its `-a` flags, `fields`, and the `content` of each `inputResponses[key]` and `inOrder`
        entry (to be registered with the run's redaction before any is checked or shown)."""
        values: list[Any] = [flag.raw for _, flag in self.flags_for(key, field_name)]
        for answers in self.files:
            if field_name in answers.fields:
                values.append(answers.fields[field_name])
            given = answers.input_responses.get(key)
            for entry in [*(given if isinstance(given, list) else [given]), *answers.in_order]:
                content = entry.get("content") if isinstance(entry, dict) else None
                if isinstance(content, dict) and field_name in content:
                    values.append(content[field_name])
        return values

    def roots(self) -> tuple[list[Any], str] | None:
        """The `roots` list from the last file that has one, with its source label."""
        for answers in reversed(self.files):
            if answers.roots is not None:
                return answers.roots, f"{answers.path}, roots"
        return None

    def has_exact_of_shape(self, predicate: Any) -> bool:
        """True when any file's `inputResponses` holds a value for which `predicate` is true."""
        for answers in self.files:
            for value in answers.input_responses.values():
                for item in value if isinstance(value, list) else [value]:
                    if predicate(item):
                        return True
        return False
