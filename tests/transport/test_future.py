"""The transports' own Future (transport/future.py): the part of `concurrent.futures.Future`
that mrtr uses, settled once, from any thread. In-process."""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType

import pytest

from mrtr_cli.transport.future import CancelledError, Future
from tests.support import SAFETY


def test_a_result_set_by_another_thread_wakes_the_waiter():
    fut: Future[int] = Future()
    waiting = threading.Event()
    got: list[int] = []
    waiter = threading.Thread(target=lambda: (waiting.set(), got.append(fut.result(timeout=SAFETY))))
    waiter.start()
    waiting.wait(60)
    fut.set_result(7)
    waiter.join(60)
    assert got == [7] and fut.done() and not fut.cancelled() and fut.exception() is None


def test_the_first_outcome_stands():
    fut: Future[int] = Future()
    fut.set_result(1)
    fut.set_exception(ValueError("late"))
    fut.set_result(2)
    assert not fut.cancel()
    assert fut.result() == 1


def test_an_exception_is_raised_by_result():
    fut: Future[int] = Future()
    fut.set_exception(KeyError("k"))
    with pytest.raises(KeyError):
        fut.result()
    assert isinstance(fut.exception(), KeyError)


def test_no_result_in_time_is_a_timeout_error():
    fut: Future[int] = Future()
    with pytest.raises(TimeoutError):
        fut.result(timeout=0)
    with pytest.raises(TimeoutError):
        fut.exception(timeout=0)
    assert not fut.done()


def test_a_cancelled_future_raises_cancelled_error():
    fut: Future[int] = Future()
    assert fut.cancel()
    assert fut.cancelled() and fut.done()
    fut.set_result(3)  # a late answer changes nothing
    with pytest.raises(CancelledError):
        fut.result()
    with pytest.raises(CancelledError):
        fut.exception()


def test_callbacks_run_once_settled_and_at_once_after():
    fut: Future[int] = Future()
    calls: list[str] = []

    def broken(_f: Future[int]) -> None:
        raise RuntimeError("a callback's own failure")

    fut.add_done_callback(broken)
    fut.add_done_callback(lambda f: calls.append(f"before {f.result()}"))
    assert calls == []
    fut.set_result(5)  # the failing callback stops neither the others nor the setter
    fut.add_done_callback(lambda f: calls.append(f"after {f.result()}"))
    assert calls == ["before 5", "after 5"]


def test_every_waiter_is_woken():
    fut: Future[int] = Future()
    started = threading.Barrier(5)
    got: list[int] = []
    waiters = [threading.Thread(target=lambda: (started.wait(60), got.append(fut.result(timeout=SAFETY))))
               for _ in range(4)]
    for waiter in waiters:
        waiter.start()
    started.wait(60)
    fut.set_result(9)
    for waiter in waiters:
        waiter.join(60)
    assert got == [9, 9, 9, 9]
    assert fut.result(timeout=0) == 9 and fut.exception(timeout=0) is None  # and later, at once


def test_a_ctrl_c_the_moment_a_wait_ends_leaves_the_other_waiters_woken():
    """SIGINT delivered to a waiter just as its lock acquire returns (the handler runs at the
    next instruction, before the wait's next step): that waiter gets KeyboardInterrupt, and
    another waiter of the same future, still on its way into the wait, is woken all the same."""
    fut: Future[int] = Future()
    main_waiting, main_interrupted, other_waiting = threading.Event(), threading.Event(), threading.Event()
    got: list[object] = []

    def other_hook(frame: FrameType, event: str, arg: object) -> None:
        if event == "c_call" and getattr(arg, "__name__", "") == "acquire" and not other_waiting.is_set():
            other_waiting.set()  # into the wait; it goes on once the main thread's wait was interrupted
            main_interrupted.wait(SAFETY)

    def other() -> None:
        sys.setprofile(other_hook)
        try:
            got.append(fut.result(timeout=SAFETY))
        except TimeoutError as exc:
            got.append(exc)
        finally:
            sys.setprofile(None)

    def main_hook(frame: FrameType, event: str, arg: object) -> None:
        if getattr(arg, "__name__", "") != "acquire":
            return
        if event == "c_call":
            main_waiting.set()
        elif event == "c_return":
            sys.setprofile(None)
            signal.raise_signal(signal.SIGINT)

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, interrupt)
    other_thread = threading.Thread(target=other)
    settler = threading.Thread(target=lambda: (main_waiting.wait(SAFETY), fut.set_result(1)))
    try:
        other_thread.start()
        assert other_waiting.wait(SAFETY)
        settler.start()
        sys.setprofile(main_hook)
        with pytest.raises(KeyboardInterrupt):
            fut.result(timeout=SAFETY)
    finally:
        sys.setprofile(None)
        signal.signal(signal.SIGINT, previous)
        main_interrupted.set()
        other_thread.join(SAFETY * 2)
        settler.join(SAFETY)
    assert got == [1]
    assert fut.result(timeout=0) == 1
