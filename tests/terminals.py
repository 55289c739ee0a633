"""Processes in a real pseudo-terminal (pexpect), each ended after its test.

`spawn_pty` starts a pexpect child and notes it; the autouse fixture `end_pty_children`
(a pytest plugin here, loaded by tests/conftest.py) calls `end_children` after every test, also one that failed by a
pexpect timeout or pytest-timeout's: every child not closed by its test is ended with its
process group (pexpect starts each in a session of its own, so the group is everything it
started that kept the group: the shell of `sh -c`, a pipeline's commands, `mrtr` and the
processes it left in its group). SIGTERM first (`mrtr` ends its own servers' groups on
it), SIGKILL after a grace period.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
import tty
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import pytest

from tests.bounds import SAFETY
from tests.probe_bound import check_process

#: The children `spawn_pty` started that no `end_children` has ended yet.
_CHILDREN: list[Any] = []

#: Seconds a child has to end on SIGTERM before its group is killed.
GRACE = 5.0


def spawn_pty(command: str, args: list[str], **options: Any) -> Any:
    """`pexpect.spawn(command, args, **options)`, ended after the test (`end_children`). A
    `mrtr` it runs against an HTTP test server carries the era probe's bound
    (tests/probe_bound.py `check_process`)."""
    import pexpect  # only the pty tests need it

    check_process(command, args, options.get("env"))

    child = pexpect.spawn(command, args, **options)
    _CHILDREN.append(child)
    return child


def end_children() -> None:
    """End every child `spawn_pty` started that its test did not close, with its process group."""
    children = list(_CHILDREN)
    _CHILDREN.clear()
    for child in children:
        if not child.closed:
            end(child)


def end(child: Any) -> None:
    """End pexpect `child` and its process group: SIGTERM, SIGKILL after `GRACE` seconds."""
    _signal_group(child.pid, signal.SIGTERM)
    deadline = time.monotonic() + GRACE
    while child.isalive() and time.monotonic() < deadline:
        time.sleep(0.05)  # a poll for the child's end, never a wait for an event of the test
    _signal_group(child.pid, signal.SIGKILL)  # what is left of the group (a child that ignored SIGTERM)
    child.close(force=True)


def _signal_group(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signum)


@pytest.fixture(autouse=True)
def end_pty_children() -> Iterator[None]:
    """After every test: `end_children` (its teardown runs after a failure or a timeout too)."""
    yield
    end_children()


def type_as_shown(controller: int, steps: list[tuple[bytes, bytes]], *, strict: bool = False) -> None:
    """A person at the pseudo-terminal whose controller side is `controller`: reads what is
    drawn, answers cursor-position requests (`ESC[6n`), and types each step's keys once its
    text shows, in order (`steps`, `(text, keys)`, is consumed: what is left was never
    shown). `strict`: a later step's text showing first means keys answered an earlier
    question, so Ctrl-C is typed to end it (the test then fails at what is left of
    `steps`). Returns when the terminal closes; run it in a thread."""
    drawn = bytearray()
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:
            return
        if not chunk:
            return
        drawn.extend(chunk)
        if b"\x1b[6n" in chunk:
            os.write(controller, b"\x1b[1;1R")
        while steps and steps[0][0] in drawn:
            del drawn[:drawn.index(steps[0][0]) + len(steps[0][0])]
            os.write(controller, steps.pop(0)[1])
        if strict and any(text in drawn for text, _ in steps[1:]):
            os.write(controller, b"\x03")


@dataclass
class TypedTerminal:
    """A pseudo-terminal that `typed_terminal` opened, seen from the process under test.

    Attributes:
        fd: the terminal's file descriptor (for `termios`).
        keys: the terminal read as text (a responder's stdin).
        screen: the terminal written as text (a responder's stderr).
    """

    fd: int
    keys: IO[str]
    screen: IO[str]


@contextlib.contextmanager
def typed_terminal(steps: list[tuple[bytes, bytes]], *, typed_ahead: bytes = b"", raw: bool = False,
                   strict: bool = False) -> Iterator[TypedTerminal]:
    """A real pseudo-terminal in this process with a person at it (`type_as_shown` in a
    thread, given `steps` and `strict`), for the block; then both ends are closed and the
    person's thread joined. `typed_ahead`: keys typed before anything is drawn; `raw`: the
    terminal starts in raw mode (as mrtr's prompts run it), so those keys arrive as typed."""
    controller, terminal_fd = os.openpty()
    if raw:
        tty.setraw(terminal_fd)
    if typed_ahead:
        os.write(controller, typed_ahead)
    keys = open(terminal_fd, encoding="utf-8", closefd=False)  # noqa: SIM115 - closed below
    screen = open(terminal_fd, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 - closed below
    typist = threading.Thread(target=type_as_shown, args=(controller, steps), kwargs={"strict": strict}, daemon=True)
    typist.start()
    try:
        yield TypedTerminal(terminal_fd, keys, screen)
    finally:
        keys.close()
        screen.close()
        os.close(terminal_fd)
        os.close(controller)
        typist.join(timeout=SAFETY)
