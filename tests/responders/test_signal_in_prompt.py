"""A stop signal that lands inside prompt_toolkit's event loop (one of its background tasks,
where a handler's `KeyboardInterrupt` used to be caught and shown as "Unhandled exception in
event loop ... Press ENTER to continue...") ends the question through the application, and
the interrupt is raised once the question is gone (responders/stopping.py): for a form's
question (`TerminalResponder`) and the shell's line editor (`TerminalReader`). In this
process, over a real pseudo-terminal, with mrtr's own signal handler installed; the signal
is sent by a background task of the running application itself, so it lands there every
time (a pty run of mrtr hits that moment only now and then: test_signal_in_form_pty.py)."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from prompt_toolkit.input import create_input
from prompt_toolkit.input.typeahead import clear_typeahead

from mrtr_cli import errors
from mrtr_cli.env import Environment
from mrtr_cli.platform.signals import on_termination
from mrtr_cli.responders.above import Relay
from mrtr_cli.responders.terminal import TerminalResponder

pytestmark = pytest.mark.skipif(os.name == "nt", reason="a pseudo-terminal and SIGHUP are POSIX")

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


@contextmanager
def terminal() -> Iterator[tuple[int, Any, Any]]:
    """A pseudo-terminal: (its controller fd, its input stream, its output stream); then
    the keys prompt_toolkit kept for a next question on it (its typeahead) are dropped."""
    controller, fd = os.openpty()
    keys = open(fd, encoding="utf-8", closefd=False)  # noqa: SIM115 - closed below
    screen = open(fd, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 - closed below
    try:
        yield controller, keys, screen
    finally:
        clear_typeahead(create_input(keys))
        keys.close()
        screen.close()
        os.close(fd)
        os.close(controller)


def signal_from_inside(app: Any, signum: int, controller: int) -> None:
    """When `app` runs, a background task of its own sends this process `signum` (its handler
    runs in that task), then types Enter at `controller`: a question the signal did not end
    takes it as its answer (prompt_toolkit's "Press ENTER to continue..." reads pytest's
    stdin, which is at its end): a failing run ends too. The Enter is dropped after the
    question (`terminal`), so that no later question on a terminal of the same number takes it."""

    async def send() -> None:
        os.kill(os.getpid(), signum)
        for _ in range(3):  # Python statements after the kill: the handler runs among them, in this task
            await asyncio.sleep(0)
        os.write(controller, b"\r")

    app.pre_run_callables.append(lambda: app.create_background_task(send()))


def stopped_by(ask: Callable[[], object], capsys: pytest.CaptureFixture[str]) -> KeyboardInterrupt:
    with pytest.raises(KeyboardInterrupt) as stopped:
        ask()
    shown = capsys.readouterr()
    assert "Press ENTER" not in shown.out + shown.err and "Unhandled exception" not in shown.out + shown.err, shown
    return stopped.value


def _named(name: str) -> tuple[int, str]:
    """The signal's number and the `KeyboardInterrupt` text it ends a question with."""
    return getattr(signal, name), "" if name == "SIGINT" else name


QUESTIONS: dict[str, Callable[[TerminalResponder], Any]] = {
    "confirm": lambda person: person._q().confirm("Go on?", default=False, **person._pt),
    "select": lambda person: person._q().select("Which?", choices=["one", "two"], **person._pt),
    "text": lambda person: person._q().text("Name?", **person._pt),
}


@pytest.mark.parametrize("kind", QUESTIONS)
@pytest.mark.parametrize("name", STOPS)
def test_a_signal_inside_a_forms_question_ends_it(capsys, name, kind):
    ask = QUESTIONS[kind]
    signum, text = _named(name)
    with terminal() as (controller, keys, screen):
        person = TerminalResponder(Environment(stdin=keys, stderr=screen))
        question = ask(person)
        signal_from_inside(question.application, signum, controller)
        stopped = stopped_by(lambda: person._ask(question), capsys)
    assert str(stopped) == text
    assert errors.termination_received() == (text or None)


@pytest.mark.parametrize("name", STOPS)
def test_a_signal_inside_the_shells_line_editor_ends_it(tmp_path, capsys, name):
    from mrtr_cli.shell.completion import Completer
    from mrtr_cli.shell.terminal import TerminalReader

    class NoServer:
        pending = None
        asked: dict[str, dict[str, Any]] = {}

        def names(self, method: str) -> list[dict[str, Any]]:
            return []

    signum, text = _named(name)
    with terminal() as (controller, keys, screen):
        reader = TerminalReader(keys, screen, Relay(screen), Completer(dict, NoServer()), str(tmp_path / "history"),
                                lambda line: line)
        signal_from_inside(reader.session.app, signum, controller)
        stopped = stopped_by(reader.read, capsys)
    assert str(stopped) == text
