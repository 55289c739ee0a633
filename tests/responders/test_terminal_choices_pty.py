"""Keys typed before a choice is shown never answer it: a form's review ("Send these
answers?"), an enum select, a boolean confirm, the URL consent ("What now?"), the sampling
reply's review and a yes/no question are asked of the keys typed once they show, and what
was typed before is dropped with a one-line notice (2026-07-28 client/elicitation: the
person reviews the form before it is sent, and a URL is never opened without consent;
client/sampling: the person reviews the reply). A real pseudo-terminal, the terminal
responder (responders/terminal.py) at its other end."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mrtr_cli.env import Environment
from mrtr_cli.errors import Declined
from mrtr_cli.responders.ask import InputAsk
from mrtr_cli.responders.terminal import TerminalResponder
from tests.terminals import typed_terminal

pytestmark = pytest.mark.pty

DOWN, ENTER = "\x1b[B", "\r"
NOTICE = "typed before this question showed were dropped"


def _form(properties: dict[str, object]) -> InputAsk:
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    return InputAsk("k", "elicitation/create", {"mode": "form", "requestedSchema": schema}, "srv", "call")


NAME = {"type": "string", "title": "Name"}
#: Each case: what the person typed ahead, the question asked, what they type at each text once
#: it shows, and what the question answers.
CASES: dict[str, tuple[str, Callable[[TerminalResponder], object], list[tuple[str, str]], object]] = {
    "review": ("Ada" + ENTER + ENTER, lambda p: p.fill_form(_form({"name": NAME}), {}),
               [(NOTICE, DOWN * 2 + ENTER)], {"action": "decline"}),
    "enum": (ENTER, lambda p: p.fill_form(_form({"color": {"type": "string", "enum": ["red", "green"]}}), {}),
             [(NOTICE, DOWN + ENTER), ("Send these answers?", ENTER)], {"action": "accept",
                                                                         "content": {"color": "green"}}),
    "boolean": ("Ada" + ENTER + "y", lambda p: p.fill_form(_form({"name": NAME, "agree": {"type": "boolean"}}), {}),
                [(NOTICE, "n"), ("Send these answers?", ENTER)], {"action": "accept",
                                                                   "content": {"name": "Ada", "agree": False}}),
    "url": (DOWN + ENTER, lambda p: p.consent_to_url(InputAsk(
        "k", "elicitation/create", {"mode": "url", "url": "https://example.com/pay", "elicitationId": "e"},
        "srv", "call")), [(NOTICE, DOWN * 2 + ENTER)], {"action": "decline"}),
    "sampling": ("hello" + ENTER + ENTER, lambda p: p.reply_as_model(InputAsk(
        "k", "sampling/createMessage", {"messages": [], "maxTokens": 10}, "srv", "call")),
        [(NOTICE, DOWN * 2 + ENTER)], Declined),
    "confirm": ("y", lambda p: p.confirm("Reach this server?"), [(NOTICE, "n")], False),
}


@pytest.mark.parametrize("case", list(CASES))
def test_keys_typed_before_a_choice_shows_never_answer_it(case):
    typed_ahead, question, script, expected = CASES[case]
    steps = [(text.encode(), typed.encode()) for text, typed in script]
    answer: object
    # raw: the keys typed ahead reach the terminal as typed (mrtr's prompts run it raw)
    with typed_terminal(steps, typed_ahead=typed_ahead.encode(), raw=True, strict=True) as terminal:
        person = TerminalResponder(Environment(stdin=terminal.keys, stderr=terminal.screen))
        try:
            answer = question(person)
        except Declined:
            answer = Declined
        except KeyboardInterrupt:
            answer = KeyboardInterrupt
    assert not steps, f"never shown: {steps[0][0]!r}"
    assert answer == expected
