"""The input-request kinds the responders answer, one module each, and the one route to them.

Spec: 2026-07-28 basic/patterns/mrtr (`inputRequests`), client/elicitation (form and URL
mode), client/sampling, client/roots; 2025-11-25 the same requests sent by the server
itself. `kind_of` decides the kind of a request (`protocol.capabilities.kinds.input_kind`, the
protocol's route, then this table); the chain, the server-request responder, the terminal
and pending documents ask that kind object (`base.Kind`) instead of testing the method or
mode. A new kind is its protocol facts in protocol/capabilities/kinds.py, one module here and one
entry in `KINDS`.
"""

from __future__ import annotations

from mrtr_cli.protocol.capabilities.kinds import input_kind
from mrtr_cli.responders.kinds.base import AnswerSources, Kind, Prepared, check_answer
from mrtr_cli.responders.kinds.elicitation_form import ElicitationForm
from mrtr_cli.responders.kinds.elicitation_url import ElicitationUrl
from mrtr_cli.responders.kinds.roots import Roots
from mrtr_cli.responders.kinds.sampling import Sampling

__all__ = ["KINDS", "AnswerSources", "Kind", "Prepared", "check_answer", "elicit_result_problems", "kind_of",
           "request_kind"]

#: Every kind the responders answer, in the order their capabilities are declared.
KINDS: tuple[Kind, ...] = (ElicitationForm(), ElicitationUrl(), Sampling(), Roots())
_BY_SPEC = {kind.spec: kind for kind in KINDS}


def kind_of(method: object, params: object) -> Kind | None:
    """The kind of the request `{method, params}` (an MRTR `inputRequests` entry, or an older
    server's own JSON-RPC request), or None: not an input request, or a mode no kind answers."""
    spec = input_kind(method, params)
    return _BY_SPEC.get(spec) if spec is not None else None


def request_kind(request: object) -> tuple[Kind, dict[str, object]] | None:
    """The kind of an `inputRequests` entry `{method, params}` and its params (empty when
    they are not an object), or None for anything else."""
    if not isinstance(request, dict):
        return None
    params = raw if isinstance(raw := request.get("params"), dict) else {}
    kind = kind_of(request.get("method"), params)
    return (kind, params) if kind is not None else None


def elicit_result_problems(value: object, params: dict[str, object]) -> list[str]:
    """Problems with `value` as the ElicitResult for an `elicitation/create` with `params`:
    its kind (form or URL mode) decides what an accepted answer holds. A list of one-line
    problems, empty when the value is fine."""
    kind = kind_of("elicitation/create", params)
    if kind is None:
        return [f"no elicitation mode {params.get('mode')!r} is answered here"]
    return kind.answer_problems(value, dict(params))
