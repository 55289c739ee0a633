"""Sampling: the server asks for a model's reply (2026-07-28 client/sampling).

Declared only with a sampling source: a `--sampling-command`, a person at the terminal,
or sampling answers (CreateMessageResults) in an answer file; with `sampling.tools` when
`--sampling-tools` says the sources support tool use. A person answers as the assistant
(`model: "human"`); an older server gets an error when nobody answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrtr_cli.protocol.capabilities.kinds import SAMPLING
from mrtr_cli.responders.kinds.base import AnswerSources, Kind, Prepared
from mrtr_cli.responders.shapes import looks_like_sampling_result, sampling_result_problems

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import CreateMessageResult
    from mrtr_cli.responders.ask import InputAsk, Person


class Sampling(Kind):
    """`sampling/createMessage`."""

    spec = SAMPLING

    def declaration(self, sources: AnswerSources) -> dict[str, Any] | None:
        """`{}` (`{"tools": {}}` with `--sampling-tools`) when some source can answer, else None."""
        if sources.sampler is not None or sources.interactive \
                or sources.store.has_exact_of_shape(looks_like_sampling_result):
            return {"tools": {}} if sources.sampling_tools else {}
        return None

    def answer_problems(self, value: object, params: dict[str, Any]) -> list[str]:
        """A CreateMessageResult, using only the tools offered (responders/shapes.py)."""
        return sampling_result_problems(value, params)

    def from_sources(self, ask: InputAsk, sources: AnswerSources) -> Prepared:
        """The `--sampling-command`'s reply, when there is one."""
        if sources.sampler is None:
            return Prepared()
        return Prepared(sources.sampler(ask.params), "--sampling-command")

    def template(self, params: dict[str, Any], prefill: dict[str, Any] | None) -> object:
        """An assistant's text reply with the text `null`."""
        return {"role": "assistant", "content": {"type": "text", "text": None}, "model": "human"}

    def question(self, person: Person, ask: InputAsk, prefill: dict[str, Any]) -> CreateMessageResult:
        """The request shown; the person types the reply."""
        return person.reply_as_model(ask)
