"""Keys typed while one prompt of a form ends and the next starts reach the next prompt as
typed: the terminal responder (responders/terminal.py) keeps a real pseudo-terminal in raw
mode for the whole form, so its line discipline never edits, echoes or translates them
(2026-07-28 client/elicitation: the person fills and reviews the form)."""

from __future__ import annotations

import termios

import pytest

from mrtr_cli.env import Environment
from mrtr_cli.responders.ask import InputAsk
from mrtr_cli.responders.terminal import TerminalResponder
from tests.terminals import typed_terminal

pytestmark = pytest.mark.pty

SCHEMA = {"type": "object", "properties": {"name": {"type": "string", "title": "Name", "minLength": 3}},
          "required": ["name"]}


def test_keys_typed_at_a_refused_value_reach_the_field_asked_again(monkeypatch):
    # What the person types once each text is on the screen: the refused value's reason is
    # drawn while no prompt reads the keyboard, and the keys typed at it are Backspace, "Ada", Enter.
    script = [(b"Name *", b"A\r"), (b"at least 3", b"\x7fAda\r"), (b"Send these answers?", b"\r")]
    line_mode_at_refusal: list[bool] = []
    with typed_terminal(script) as terminal:
        person = TerminalResponder(Environment(stdin=terminal.keys, stderr=terminal.screen))
        refuse = person._refused

        def refused(reason: object) -> None:  # between the prompt that ended and the one asked again
            line_mode_at_refusal.append(bool(termios.tcgetattr(terminal.fd)[3] & termios.ICANON))
            refuse(reason)

        monkeypatch.setattr(person, "_refused", refused)
        answer = person.fill_form(InputAsk("k", "elicitation/create", {"requestedSchema": SCHEMA}, "srv", "call"), {})
    assert line_mode_at_refusal == [False]  # the terminal's line discipline would edit, echo and translate keys
    assert answer == {"action": "accept", "content": {"name": "Ada"}}


def test_a_choice_of_thousands_of_values_is_typed_not_listed():
    """A server's enum of 200,000 values is asked as typed text (its value or title), with
    one line saying how many there are: drawing it as a list took seconds at every key; a
    wrong value's reason names the first values and how many more, in one short line."""
    from mrtr_cli.schema.elicit import CHOICES_NAMED

    values = [f"v{n}" for n in range(200_000)]
    schema = {"type": "object", "properties": {"pick": {"type": "string", "title": "Pick", "enum": values}},
              "required": ["pick"]}
    script = [(b"200000 allowed values", b""), (b"Pick *", b"nope\r"), (b"and 199980 more", b"\x15v123456\r"),
              (b"Send these answers?", b"\r")]
    with typed_terminal(script) as terminal:
        person = TerminalResponder(Environment(stdin=terminal.keys, stderr=terminal.screen))
        answer = person.fill_form(InputAsk("k", "elicitation/create", {"requestedSchema": schema}, "srv", "call"), {})
    assert not script, f"never shown: {script[0][0]!r}"
    assert answer == {"action": "accept", "content": {"pick": "v123456"}}
    assert CHOICES_NAMED == 20
