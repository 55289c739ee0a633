"""A stop signal at a question (responders/stopping.py `signals_end`) at each moment it can
come: before the application's loop runs, while it asks, as it ends with an answer, and while
the block ends with an error of its own; then the first signal's interrupt is raised and
the answer is not taken. In this process: a real prompt_toolkit application reading its keys
from a pipe, mrtr's own signal handlers installed (test_signal_in_prompt.py: a form's question
and the shell's line editor over a pseudo-terminal).
These are fast tests mutation testing runs (tests/README.md "Mutation testing").
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from prompt_toolkit.application import Application
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.output import DummyOutput

from mrtr_cli import errors
from mrtr_cli.platform.signals import on_termination
from mrtr_cli.responders.stopping import signals_end

pytestmark = pytest.mark.skipif(os.name == "nt", reason="SIGHUP and os.kill of a signal are POSIX")

STOPS = ["SIGTERM", "SIGHUP", "SIGINT"]


@pytest.fixture(autouse=True)
def mrtr_handlers(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """mrtr's handlers, as `mrtr` installs them (cli/entry.py); the signals noted by
    `errors.terminated` are forgotten after the test, and the handlers before it restored."""
    monkeypatch.setattr(errors, "_received", [])
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    on_termination(errors.terminated)
    yield
    for signum, handler in before.items():
        signal.signal(signum, handler)


def _send(signum: int) -> None:
    """Send this process `signum`; its Python handler has run when this returns (it runs
    in the main thread at the next bytecode boundaries: a few statements after the kill)."""
    os.kill(os.getpid(), signum)
    for _ in range(3):
        pass


@contextmanager
def asking(on_enter: Callable[[], None] = lambda: None, *, typed: bool = True,
           ) -> Iterator[tuple[Application[str], list[str], Callable[[], None]]]:
    """A real application that reads its keys from a pipe and ends with "answered" at Enter
    (after calling `on_enter`), the keys it took, and a function that types Enter; with
    `typed`, one Enter is typed already, so a run that a signal does not end ends all the
    same (and the test sees the key taken)."""
    taken: list[str] = []
    keys = KeyBindings()

    @keys.add("enter")
    def _enter(event: object) -> None:
        taken.append("enter")
        app.exit(result="answered")
        on_enter()

    with create_pipe_input() as pipe:
        app: Application[str] = Application(layout=Layout(Window()), key_bindings=keys, input=pipe,
                                            output=DummyOutput())
        if typed:
            pipe.send_text("\r")
        yield app, taken, lambda: pipe.send_text("\r")


def _named(name: str) -> tuple[int, str]:
    """The signal's number and the `KeyboardInterrupt` text it ends a question with."""
    return getattr(signal, name), "" if name == "SIGINT" else name


def test_without_a_signal_the_answer_is_taken_and_the_handlers_are_back():
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    with asking() as (app, taken, _), signals_end(app):
        assert signal.getsignal(signal.SIGTERM) is not handlers[signal.SIGTERM]
        try:
            answer = app.run(handle_sigint=False)
        except KeyboardInterrupt as exc:  # an interrupt out of a test would end the whole run
            raise AssertionError(f"the question ended with an interrupt {exc!r} without a signal") from None
        assert answer == "answered"
    assert taken == ["enter"]
    assert {s: signal.getsignal(s) for s in handlers} == handlers
    assert errors.termination_received() is None


@pytest.mark.parametrize("name", STOPS)
def test_a_signal_before_the_loop_runs_ends_the_question_as_it_starts(name):
    signum, text = _named(name)
    with asking() as (app, taken, _), pytest.raises(KeyboardInterrupt) as stopped, signals_end(app):
        _send(signum)
        app.run(handle_sigint=False)
    assert str(stopped.value) == text and stopped.value.__cause__ is None
    assert taken == []  # the Enter already typed was not taken as an answer
    assert errors.termination_received() == (text or None)


@pytest.mark.parametrize("name", STOPS)
def test_a_signal_while_it_asks_ends_the_question_through_its_loop(name):
    signum, text = _named(name)

    async def signal_then_type() -> None:
        try:
            _send(signum)
        finally:
            enter()  # a question the signal did not end takes it as its answer, also after a handler's error

    with asking(typed=False) as (app, taken, enter), pytest.raises(KeyboardInterrupt) as stopped, signals_end(app):
        app.pre_run_callables.append(lambda: app.create_background_task(signal_then_type()))
        app.run(handle_sigint=False)
    assert str(stopped.value) == text
    assert taken == []
    assert errors.termination_received() == (text or None)


@pytest.mark.parametrize("name", STOPS)
def test_a_signal_as_the_question_ends_with_an_answer_is_raised_after_it(name):
    signum, text = _named(name)
    with asking(lambda: _send(signum)) as (app, taken, _), pytest.raises(KeyboardInterrupt) as stopped, \
            signals_end(app):
        app.run(handle_sigint=False)
    assert str(stopped.value) == text
    assert taken == ["enter"]
    assert errors.termination_received() == (text or None)


def test_the_first_of_two_signals_is_the_one_raised():
    with asking() as (app, _, _), pytest.raises(KeyboardInterrupt) as stopped, signals_end(app):
        _send(signal.SIGHUP)
        _send(signal.SIGTERM)
        app.run(handle_sigint=False)
    assert str(stopped.value) == "SIGHUP"


@pytest.mark.parametrize("error", [EOFError(), OSError(5, "Input/output error"), KeyboardInterrupt("other")])
@pytest.mark.parametrize("name", STOPS)
def test_a_signal_wins_over_the_error_that_ended_the_block_with_it(name, error):
    # The terminal closed with SIGHUP: the question ends with end of input or EIO as the signal comes.
    signum, text = _named(name)
    with asking() as (app, _, _), pytest.raises(KeyboardInterrupt) as stopped, signals_end(app):
        _send(signum)
        raise error
    assert stopped.value is not error and str(stopped.value) == text
    assert stopped.value.__cause__ is None and stopped.value.__suppress_context__


@pytest.mark.parametrize("error", [EOFError(), OSError(5, "Input/output error"), KeyboardInterrupt("other")])
def test_without_a_signal_the_blocks_own_error_is_raised(error):
    with asking() as (app, _, _), pytest.raises(type(error)) as raised, signals_end(app):
        raise error
    assert raised.value is error
    assert errors.termination_received() is None


def test_a_question_a_signal_ends_is_drawn_as_ctrl_c_leaves_it():
    """Greyed out (prompt_toolkit's `aborting` style), as Ctrl-C at a question leaves it."""
    import io

    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.layout.controls import FormattedTextControl
    from prompt_toolkit.output.color_depth import ColorDepth
    from prompt_toolkit.output.vt100 import Vt100_Output

    screen = io.StringIO()
    output = Vt100_Output(screen, lambda: Size(rows=5, columns=40), term="xterm",
                          default_color_depth=ColorDepth.TRUE_COLOR)
    with create_pipe_input() as pipe:
        app: Application[str] = Application(layout=Layout(Window(FormattedTextControl("Go on?"))), input=pipe,
                                            output=output)
        with pytest.raises(KeyboardInterrupt), signals_end(app):
            _send(signal.SIGTERM)
            app.run(handle_sigint=False)
    assert "38;2;136;136;136" in screen.getvalue()  # #888888, the last frame's colour


def test_ending_a_question_that_has_ended_does_nothing():
    from mrtr_cli.responders import stopping

    with asking() as (app, taken, _), signals_end(app):
        assert app.run(handle_sigint=False) == "answered"
        stopping._end(app)  # a signal's end of it came as it ended: nothing to end
        stopping._end_soon(app)
    assert taken == ["enter"]
