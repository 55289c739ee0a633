"""What every input-request kind does for the responders, and what it reads from the run.

An input kind (one module each beside this one; their table in `__init__`) carries, for
its requests (2026-07-28 basic/patterns/mrtr `inputRequests`; 2025-11-25 the server's own
requests): the capability the client declares for it, the check of a request before it is
answered, the check and shaping of a prepared answer (`-a` flags, answer files), the answer
from the run's other sources, its entry in a pending document's `answersTemplate`, its
question to a person, and what an older server is sent when nobody answers. `Kind` holds
the defaults; the protocol facts (method, mode, capability) are its `spec`
(protocol/capabilities/kinds.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from mrtr_cli.errors import UsageError
from mrtr_cli.protocol.capabilities.kinds import InputKind

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import InputResponse
    from mrtr_cli.responders.answers import AnswerStore
    from mrtr_cli.responders.ask import InputAsk, Person


class AnswerSources(Protocol):
    """The run's sources of answers that a kind reads (`responders.chain.ResponderChain` fits).

    Attributes:
        store: prepared answers (`-a` flags and `--answers` files).
        roots: resolved roots as Root objects `{uri, name?}`, or None.
        roots_source: where `roots` came from, for `-v`.
        sampler: answers `sampling/createMessage` params with a CreateMessageResult, or None.
        sampling_tools: the sampling sources support tool use.
        url_consent: whether a person can consent to URL elicitation (None: assumed so).
    """

    store: AnswerStore
    roots: list[dict[str, Any]] | None
    roots_source: str
    sampler: Callable[[dict[str, Any]], dict[str, Any]] | None
    sampling_tools: bool
    url_consent: bool | None

    @property
    def interactive(self) -> bool:
        """A person can be asked on this run."""
        ...


@dataclass(eq=False, repr=False)
class Prepared:
    """A kind's answer from the run's sources other than a stored one (`Kind.from_sources`).

    Attributes:
        answer: the InputResponse, or None when these sources have none.
        source: where it came from, for `-v` ("" without an answer).
        once: the answer is given once (used in this round, never sent again).
        prefill: form fields found although the answer is incomplete (for the terminal or a template).
    """

    answer: Any = None
    source: str = ""
    once: bool = False
    prefill: dict[str, Any] = field(default_factory=dict)


class Kind:
    """One kind of input request, as the responders answer it; subclasses override what
    differs. `spec` holds its protocol facts (method, mode, capability)."""

    spec: InputKind

    def declaration(self, sources: AnswerSources) -> dict[str, Any] | None:
        """What the client declares for this kind under `spec.capability` (2026-07-28
        basic/index `ClientCapabilities`), or None when the run cannot answer it."""
        return None

    def check_request(self, ask: InputAsk) -> str | None:
        """A problem with the request itself that makes it unanswerable (exit 4), or None."""
        return None

    def shaped(self, ask: InputAsk, value: Any, source: str, sources: AnswerSources) -> tuple[Any, str]:
        """A stored answer (from `source`) as it is checked: `null`s of a filled-in template
        dropped, `-a` flags laid over it. Returns (value, source). Raises UsageError."""
        return value, source

    def answer_problems(self, value: object, params: dict[str, Any]) -> list[str]:
        """One-line problems with `value` as the answer to a request with `params` (empty: fine)."""
        raise NotImplementedError

    def normalized(self, value: Any, params: dict[str, Any]) -> Any:
        """A checked answer as it is sent."""
        return value

    def from_sources(self, ask: InputAsk, sources: AnswerSources) -> Prepared:
        """The answer from the run's other sources (`-a` fields, roots, a sampling command)
        when no stored answer is keyed to the request. Raises UsageError."""
        return Prepared()

    def template(self, params: dict[str, Any], prefill: dict[str, Any] | None) -> object:
        """The InputResponse skeleton in a pending document's `answersTemplate`, `null` where
        an answer goes (`prefill`: form fields already found)."""
        raise NotImplementedError

    def field_names(self, params: dict[str, Any]) -> set[str]:
        """The names of the fields a person fills for the request (`-a KEY.FIELD`), if any."""
        return set()

    def template_help(self, params: dict[str, Any]) -> dict[str, object] | None:
        """The request's `_fields` entry in an `answersTemplate` (form field help, a URL), or None."""
        return None

    def pending_notes(self, key: str, params: dict[str, Any]) -> list[str]:
        """Lines for stderr when a pending document leaves the request `key` unanswered."""
        return []

    def question(self, person: Person, ask: InputAsk, prefill: dict[str, Any]) -> InputResponse | None:
        """Ask a person (after the chain showed the request's heading); None when this kind
        cannot be answered at a terminal. Raises Declined, KeyboardInterrupt."""
        raise NotImplementedError

    def unanswered(self) -> dict[str, Any] | None:
        """The result an older server gets when nobody answered its request, or None for a
        JSON-RPC error (2025-11-25 client/elicitation: `cancel`; client/sampling: an error)."""
        return None

    def answered_note(self, server_name: str, params: dict[str, Any], response: Any, source: str) -> str | None:
        """A line for stderr after an older server's request was answered from `source`, or None."""
        return None


def check_answer(kind: Kind, ask: InputAsk, value: object, source: str) -> None:
    """Refuse a prepared answer (from `source`) that does not fit `ask`.

    Raises:
        UsageError: the first problem, the others in its hint; `data` names the key. Text
            with a lone surrogate (no UTF-8 form: a server may never answer it) is one.
    """
    refuse_lone_surrogate(value, source, ask.key)
    problems = kind.answer_problems(value, ask.params)
    if problems:
        hint = "also: " + "; ".join(problems[1:]) if len(problems) > 1 else None
        raise UsageError(f"{source}, {problems[0]}", data={"key": ask.key, "problems": problems}, hint=hint)


def refuse_lone_surrogate(value: object, source: str, key: str) -> None:
    """Raises UsageError: a string of the answer `value` (from `source`, for input `key`)
    holds a lone surrogate (U+D800 to U+DFFF), which is not valid Unicode: it has no UTF-8
    form, and is never sent."""
    from mrtr_cli.jsonfile import unsendable_text  # noqa: PLC0415 - start-up time

    problem = unsendable_text(value)
    if problem is not None:
        raise UsageError(f"{source}, {problem}", data={"key": key})
