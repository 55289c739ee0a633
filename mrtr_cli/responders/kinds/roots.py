"""Roots: the server asks which directories it may work in (2026-07-28 client/roots).

Declared only when roots are given: `--root` flags, a server config's `roots`, or roots in
an answer file (a `roots` member, or a ListRootsResult keyed to a request). Each root is
a local, absolute `file://` URI. A person at the terminal cannot answer it; an older
server gets an error when nobody answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrtr_cli.protocol.capabilities.kinds import ROOTS
from mrtr_cli.responders.kinds.base import AnswerSources, Kind, Prepared, check_answer
from mrtr_cli.responders.shapes import looks_like_roots_result, roots_result_problems

if TYPE_CHECKING:
    from mrtr_cli.responders.ask import InputAsk, Person


class Roots(Kind):
    """`roots/list`."""

    spec = ROOTS

    def declaration(self, sources: AnswerSources) -> dict[str, Any] | None:
        """`{}` when roots were given in any way, else None."""
        if (sources.roots is not None or sources.store.roots() is not None
                or sources.store.has_exact_of_shape(looks_like_roots_result)):
            return {}
        return None

    def shaped(self, ask: InputAsk, value: Any, source: str, sources: AnswerSources) -> tuple[Any, str]:
        """`"name": null` (as in a filled-in template) leaves the name out."""
        if isinstance(value, dict) and isinstance(value.get("roots"), list):
            roots = [{k: v for k, v in r.items() if not (k == "name" and v is None)} if isinstance(r, dict) else r
                     for r in value["roots"]]
            return {**value, "roots": roots}, source
        return value, source

    def answer_problems(self, value: object, params: dict[str, Any]) -> list[str]:
        """A ListRootsResult of local, absolute `file://` URIs (responders/shapes.py)."""
        return roots_result_problems(value)

    def from_sources(self, ask: InputAsk, sources: AnswerSources) -> Prepared:
        """The `--root` flags' roots (or a config's), else an answer file's `roots` member.

        Raises:
            UsageError: the file's roots do not make a ListRootsResult.
        """
        roots = sources.roots
        source = sources.roots_source
        if roots is None:
            from_file = sources.store.roots()
            if from_file is not None:
                roots, source = from_file
                check_answer(self, ask, {"roots": roots}, source)
        if roots is None:
            return Prepared()
        return Prepared({"roots": [dict(r) for r in roots]}, source)

    def template(self, params: dict[str, Any], prefill: dict[str, Any] | None) -> object:
        """One root with `null` uri and name."""
        return {"roots": [{"uri": None, "name": None}]}

    def question(self, person: Person, ask: InputAsk, prefill: dict[str, Any]) -> None:
        """None: a person is told where roots come from."""
        person.say("  (this request can only be answered with --root or an answer file)")
        return None
