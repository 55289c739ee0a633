"""What the responder chain hands to whoever answers: the input request being asked
(`InputAsk`) and the `Person` interface the terminal responder (responders/terminal.py)
implements, whose questions each input kind (responders/kinds/) puts. Below the chain,
the kinds and the terminal, so that none of them imports another
(2026-07-28 basic/patterns/mrtr: `inputRequests`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import CreateMessageResult, ElicitResult


@dataclass(eq=False, repr=False)
class InputAsk:
    """One input request being answered.

    Attributes:
        key: the server's `inputRequests` key.
        method: `elicitation/create`, `sampling/createMessage` or `roots/list`.
        params: the request's params (may be empty).
        server_name: who is asking (serverInfo title/name, else the target).
        origin: what the request belongs to, e.g. "tools/call update_work_item".
        index, total: position among the requests asked interactively this round.
    """

    key: str
    method: str
    params: dict[str, Any]
    server_name: str
    origin: str
    index: int = 1
    total: int = 1


class Person(Protocol):
    """Someone at a terminal who answers input requests (responders/terminal.py's
    `TerminalResponder`); the chain builds one only when a person is asked, shows the
    request's `heading`, and the request's kind (responders/kinds/) asks its question.

    Attributes:
        partial: the fields typed so far into the form being filled (field -> value), kept
            when the person presses Ctrl-C.
        cleared: the fields of that form the person left empty (a pre-filled value they
            removed is not brought back at Ctrl-C).
    """

    partial: dict[str, Any]
    cleared: set[str]

    def heading(self, ask: InputAsk) -> None:
        """Show who asks, for what, and the request's message."""

    def fill_form(self, ask: InputAsk, prefill: dict[str, Any]) -> ElicitResult:
        """A form elicitation's answer; `prefill` holds fields found in flags or files.
        Raises KeyboardInterrupt (Ctrl-C)."""

    def consent_to_url(self, ask: InputAsk) -> ElicitResult:
        """A URL elicitation's answer (accept once done there, decline, cancel).
        Raises KeyboardInterrupt (Ctrl-C)."""

    def reply_as_model(self, ask: InputAsk) -> CreateMessageResult:
        """A sampling request's reply, typed as the assistant. Raises Declined, KeyboardInterrupt."""

    def say(self, text: str) -> None:
        """Show a line (a request that cannot be answered at the terminal says why)."""
