"""A resumed call is the ordinary call, seeded: where a pending document stopped, as one value.

2026-07-28 basic/patterns/mrtr ("Input-required rounds": a retry carries `inputResponses` and
the exact `requestState`); docs/design.md, "Pending documents". `mrtr resume` reads a pending
document (engine/pending.py `load_pending`), makes a `Seed` of it, and hands that to the
engine's one entry point (`engine/run.py` `run_request`): the engine starts from the round
the document stopped at instead of sending the first request, and is otherwise the call
`mrtr call` makes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


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
            input key: shown pre-filled when the form is asked again, never sent unless the
            person sends them.
    """

    input_requests: dict[str, Any]
    request_state: str | None = None
    answered: dict[str, Any] = field(default_factory=dict)
    sent: dict[str, Any] = field(default_factory=dict)
    typed: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def of_pending(cls, doc: Mapping[str, Any]) -> Seed:
        """The seed of a pending document checked by `engine.pending.load_pending` (its
        `inputRequests` an object, its `requestState` a string when present); an `answered`
        or `sentResponses` member that is not an object counts as none."""
        answered, sent = doc.get("answered"), doc.get("sentResponses")
        state = doc.get("requestState")
        return cls(input_requests=doc["inputRequests"], request_state=state if isinstance(state, str) else None,
                   answered=answered if isinstance(answered, dict) else {},
                   sent=sent if isinstance(sent, dict) else {}, typed=_typed_in_template(doc))

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
