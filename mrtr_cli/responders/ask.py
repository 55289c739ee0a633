"""What the responder chain hands to whoever answers: the input request being asked
(`InputAsk`), the request methods, and the `Person` interface the terminal responder
(responders/terminal.py) implements. Below both the chain and the terminal, so that
neither imports the other (2026-07-28 basic/patterns/mrtr: `inputRequests`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import InputResponse

ELICIT = "elicitation/create"
SAMPLING = "sampling/createMessage"
ROOTS = "roots/list"
INPUT_METHODS = (ELICIT, SAMPLING, ROOTS)


@dataclass
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

    @property
    def mode(self) -> str:
        return str(self.params.get("mode") or "form") if self.method == ELICIT else ""


class Person(Protocol):
    """Someone at a terminal who answers input requests (responders/terminal.py's
    `TerminalResponder`); the chain builds one only when a person is asked.

    Attributes:
        partial: the fields typed so far into the form being filled (field -> value), kept
            when the person presses Ctrl-C.
    """

    partial: dict[str, Any]

    def ask(self, ask: InputAsk, prefill: dict[str, Any]) -> InputResponse | None:
        """The answer to `ask` in the spec's shape (ElicitResult, CreateMessageResult);
        `prefill` holds form fields found in flags or files. Raises Declined, PromptInterrupted."""
