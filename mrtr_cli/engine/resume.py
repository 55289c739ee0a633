"""A resumed call is the ordinary call, seeded: a pending document read back, and where it
stopped as one value.

2026-07-28 basic/patterns/mrtr ("Input-required rounds": a retry carries `inputResponses`
and the exact `requestState`); docs/design.md, "Pending documents". `mrtr resume` reads a
pending document back (`load_pending`: checked, as a file from anywhere), makes a `Seed` of
it and hands that to the engine's one entry point (engine/run.py `run_request`): the
engine starts from the round the document stopped at instead of sending the first
request, and is otherwise the call `mrtr call` makes. A server that refuses the echoed
`requestState` says so in a way `is_rejected_state` knows. Writing a document is
engine/pending.py's job.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.engine.pending import PENDING_FORMAT, start_again_legacy
from mrtr_cli.errors import UsageError
from mrtr_cli.protocol.capabilities.declared import MRTR_METHODS


@dataclass(frozen=True)
class Seed:
    """Where a resumed call starts: the `input_required` round a pending document stopped at.

    Attributes:
        input_requests: the round's `inputRequests` (key -> input request), as the server sent them.
        request_state: the round's exact `requestState`, or None when none came.
        answered: input responses already given for keys of that round (the document's
            `answered`: key -> InputResponse); sent with the answers still missing.
        sent: the input responses sent in earlier rounds (the document's `sentResponses`,
            key -> InputResponse, or a list of them, one per round): a later pending
            document and `--save-answers` carry them on, so either replays the whole call.
        typed: form fields typed before (filled in the document's `answersTemplate`), by
            input key: shown pre-filled when the form is asked again, and kept in the template
            of a later pending document; never sent unless the person sends them.
        source: where `answered` comes from, in messages ("FILE, answered"): a document may
            come from elsewhere, so its answers are checked as an answer file's are.
        document: the pending document, in messages ("FILE", "the pending document"): its
            requests came from it, not from the server of this run.
    """

    input_requests: dict[str, Any]
    request_state: str | None = None
    answered: dict[str, Any] = field(default_factory=dict)
    sent: dict[str, Any] = field(default_factory=dict)
    typed: dict[str, dict[str, Any]] = field(default_factory=dict)
    source: str = "the pending document, answered"
    document: str = "the pending document"

    @classmethod
    def of_pending(cls, doc: Mapping[str, Any], path: str = "the pending document") -> Seed:
        """The seed of a pending document checked by `load_pending` (its `inputRequests` an
        object; `requestState` a string, `answered` and `sentResponses` objects when present),
        read from `path` (named in messages)."""
        answered, sent = doc.get("answered"), doc.get("sentResponses")
        state = doc.get("requestState")
        return cls(input_requests=doc["inputRequests"], request_state=state if isinstance(state, str) else None,
                   answered=answered if isinstance(answered, dict) else {},
                   sent=sent if isinstance(sent, dict) else {}, typed=_typed_in_template(doc),
                   source=f"{path}, answered", document=path)

    def result(self) -> dict[str, Any]:
        """The round as the server's `input_required` result: what the engine's loop starts from
        (`{"resultType": "input_required", "inputRequests": ..., "requestState"?: ...}`)."""
        result: dict[str, Any] = {"resultType": "input_required", "inputRequests": self.input_requests}
        if self.request_state is not None:
            result["requestState"] = self.request_state
        return result


def _typed_in_template(doc: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The form fields filled in a pending document's `answersTemplate` (typed before Ctrl-C,
    or defaults), by input key: pre-filled when the form is asked again, not answers."""
    template = doc.get("answersTemplate")
    responses = template.get("inputResponses") if isinstance(template, dict) else None
    out: dict[str, dict[str, Any]] = {}
    for key, response in (responses or {}).items() if isinstance(responses, dict) else ():
        content = response.get("content") if isinstance(response, dict) else None
        if isinstance(content, dict):
            filled = {name: value for name, value in content.items() if value is not None}
            if filled:
                out[str(key)] = filled
    return out


#: The requests a pending document can finish (the MRTR-capable ones, docs/design.md, "Input-required rounds").
RESUMABLE_METHODS = MRTR_METHODS


def load_pending(path: str, stdin_text: str | None = None, config_words: Sequence[str] = ()) -> dict[str, Any]:
    """Read and check a pending document (`-` reads `stdin_text`).

    Raises:
        UsageError: unreadable, not JSON, or not a `pending/1` document.
    """
    from mrtr_cli.userfiles import load_json_document  # noqa: PLC0415 - start-up time: only `mrtr resume`

    doc = load_json_document(path, what="pending document", stdin_text=stdin_text)
    if not isinstance(doc, dict) or doc.get("mrtr") != PENDING_FORMAT:
        raise UsageError(f"{path} is not an mrtr pending document (expected \"mrtr\": \"{PENDING_FORMAT}\")")
    for member in ("method", "params", "inputRequests", "target"):
        if member not in doc:
            raise UsageError(f"{path}: the pending document has no {member!r}")
    if not isinstance(doc["params"], dict) or not isinstance(doc["inputRequests"], dict):
        raise UsageError(f"{path}: params and inputRequests must be objects")
    if doc["method"] not in RESUMABLE_METHODS:
        from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time

        raise UsageError(f"{path}: method must be one of {', '.join(RESUMABLE_METHODS)}, not "
                         f"{sanitize(json.dumps(doc['method']), single_line=True)}")
    if not doc["inputRequests"]:
        raise UsageError(f"{path}: the pending document asks nothing (its inputRequests are empty)",
                         hint="there is nothing to resume: start the call again")
    for member, kind, shape in (("requestState", str, "a string"), ("taskId", str, "a string"),
                                ("answered", dict, "an object"), ("sentResponses", dict, "an object")):
        if member in doc and not isinstance(doc[member], kind):  # never read as absent: a task runs once
            raise UsageError(f"{path}: {member} must be {shape}")
    _check_era(path, doc)
    if doc.get("resumable") is False:
        version = doc.get("protocolVersion") or "an older protocol"
        raise UsageError(
            f"{path} cannot be resumed: the server speaks MCP {version}, which asks its questions during "
            "the call and has no requestState to resume",
            hint="fill in its answersTemplate and start the call again: " + start_again_legacy(doc, config_words),
        )
    _check_input_requests(path, doc["inputRequests"])
    return doc


def _check_era(path: str, doc: Mapping[str, Any]) -> None:
    """A pending document's `era`, `resumable` and `protocolVersion` tell one story: a
    document from a handshake-era server says `"era": "legacy", "resumable": false` and
    that server's version; one from a 2026-07-28 server says neither (docs/design.md,
    "Pending documents").
    A hand-edited document whose members disagree is refused, never read by one of them.

    Raises:
        UsageError: `era` is not "legacy", `resumable` is not a boolean, or two of them
            disagree (exit 2, naming both members and their values).
    """
    from mrtr_cli.protocol.modern import MODERN_VERSIONS  # noqa: PLC0415 - start-up time: only `mrtr resume`
    from mrtr_cli.render.sanitize import quote_value  # noqa: PLC0415 - start-up time: only `mrtr resume`

    def member(name: str) -> str:
        return f'"{name}": {quote_value(doc[name])}'

    if "era" in doc and doc["era"] != "legacy":
        raise UsageError(f'{path}: {member("era")} is no era a pending document names (only "legacy")')
    if "resumable" in doc and not isinstance(doc["resumable"], bool):
        raise UsageError(f"{path}: {member('resumable')} must be true or false")
    inconsistent = f"{path}: the pending document is inconsistent: "
    if doc.get("era") == "legacy" and doc.get("resumable") is True:
        raise UsageError(inconsistent + f"{member('era')} (a server that asks during the call) but "
                         f"{member('resumable')}", hint="a document mrtr wrote has both or neither")
    legacy = doc.get("era") == "legacy" or doc.get("resumable") is False
    if legacy and doc.get("protocolVersion") in MODERN_VERSIONS:
        said = member("era") if "era" in doc else member("resumable")
        raise UsageError(inconsistent + f"{said} (a server that asks during the call) but "
                         f"{member('protocolVersion')} (a server that returns its questions in its result)",
                         hint="a document mrtr wrote from a 2026-07-28 server has no era and no \"resumable\": false")


def _check_input_requests(path: str, input_requests: dict[str, Any]) -> None:
    """Each input request of a pending document by the spec's schema, as a server's would be
    checked (a document may come from elsewhere, and its forms are shown and answered).

    Raises:
        UsageError: one breaks the schema, or its form schema cannot be used (a pattern
            that is no regular expression).
    """
    from mrtr_cli.protocol.checks.validate import InvalidShape, check_input_request  # noqa: PLC0415 - lazy
    from mrtr_cli.schema.elicit import form_fields  # noqa: PLC0415 - lazy

    for key, request in input_requests.items():
        where = f"inputRequests[{json.dumps(key)}]"
        try:
            check_input_request(request, where, "modern")
        except InvalidShape as exc:
            raise UsageError(f"{path}: the pending document's {exc.what} is invalid: "
                             f"{exc.path}: {exc.problem}") from None
        requested = (request.get("params") or {}).get("requestedSchema")
        if requested is not None:
            try:
                form_fields(requested)  # the check a server's form gets (a pattern that is no regex)
            except ValueError as exc:
                raise UsageError(f"{path}: {where} {exc}") from None


def is_rejected_state(err: object) -> bool:
    """True when a JSON-RPC error says the server refused the echoed `requestState`
    (the official SDK's -32602 "Invalid or expired requestState", `data.reason`
    "invalid_request_state")."""
    if getattr(err, "code", None) != -32602:
        return False
    data = getattr(err, "data", None)
    if isinstance(data, dict) and data.get("reason") == "invalid_request_state":
        return True
    return "requeststate" in str(getattr(err, "message", "")).lower()
