"""The stdio transport's writes (transport/stdio/transport.py, docs/performance.md): a
request the pipe takes at once is written by the caller, and the writer thread starts only
when a message has to wait (a server that does not read its stdin never blocks the run).
In-process, with real server processes."""

from __future__ import annotations

import sys
import threading

import pytest

from mrtr_cli.errors import TransportError
from mrtr_cli.transport.stdio import transport as transport_module
from mrtr_cli.transport.stdio.transport import StdioTransport
from tests.conftest import SERVERS
from tests.support import SAFETY, wait_for

#: Answers each request line with an empty result, until its stdin ends.
ECHO = [sys.executable, "-c", """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {}}) + "\\n")
    sys.stdout.flush()
"""]
#: Never reads its stdin; ends when asked to.
DEAF = [sys.executable, "-c", "import time; time.sleep(600)"]


def _writers(transport: StdioTransport) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t is transport._writer]


def test_requests_the_pipe_takes_at_once_start_no_writer_thread():
    transport = StdioTransport(ECHO, close_timeout=SAFETY)
    try:
        transport.start(lambda message: None)
        for n in range(3):
            reply = transport.request({"jsonrpc": "2.0", "id": n, "method": "ping"}).result(timeout=SAFETY)
            assert reply == {"jsonrpc": "2.0", "id": n, "result": {}}
        assert transport._writer is None
    finally:
        transport.close()
    proc = transport._proc
    assert proc is not None
    wait_for(lambda: proc.poll() is not None, what="the server to end once its stdin was closed")
    assert proc.returncode == 0  # it saw the end of its input: closed here, with no writer thread


def test_messages_that_wait_start_the_writer_thread_and_never_block_the_caller():
    """A server that does not run: the first messages fill the pipe, the rest wait in the
    outbox for the writer thread (started for them), and the caller goes on."""
    transport = StdioTransport(DEAF, close_timeout=0.5)
    try:
        transport.start(lambda message: None)
        big = "x" * 60_000
        futures = [transport.request({"jsonrpc": "2.0", "id": n, "method": "m", "params": {"p": big}})
                   for n in range(8)]  # about half a megabyte: more than a pipe holds
        assert transport._writer is not None and _writers(transport)
        assert not any(f.done() for f in futures)  # queued or written, none answered, none blocked
    finally:
        transport.close()
    proc = transport._proc
    assert proc is not None and proc.poll() is not None  # ended by the close's later stages


#: A reader slow but steady (tests/servers/slow_reader_server.py): it never stops reading.
SLOW = [sys.executable, str(SERVERS / "slow_reader_server.py")]
#: The outbox bound for these tests (the real one is 16 MiB: the same rule, less to send).
SMALL_OUTBOX = 1 << 20


def test_a_server_that_reads_slowly_gets_every_request_and_memory_stays_bounded(monkeypatch):
    """Sixteen threads (as `mrtr batch -j 16`) send requests far beyond the outbox bound to a
    server that reads slowly but steadily: none fails, each caller waits for room
    (back-pressure), and the outbox never holds more than the bound."""
    monkeypatch.setattr(transport_module, "OUTBOX_LIMIT", SMALL_OUTBOX)
    transport = StdioTransport(SLOW, close_timeout=SAFETY)
    big = "x" * 100_000
    peaks: list[int] = []
    failures: list[BaseException] = []

    def caller(worker: int) -> None:
        try:
            futures = []
            for n in range(4):
                futures.append(transport.request({"jsonrpc": "2.0", "id": worker * 100 + n, "method": "m",
                                                  "params": {"p": big}}))
                with transport._outbox_cv:
                    peaks.append(transport._outbox_bytes)
            for fut in futures:
                fut.result(timeout=SAFETY)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            failures.append(exc)

    try:
        transport.start(lambda message: None)
        workers = [threading.Thread(target=caller, args=(w,)) for w in range(16)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(SAFETY)
        assert not any(w.is_alive() for w in workers)
    finally:
        transport.close()
    assert failures == []
    assert len(peaks) == 64 and max(peaks) <= SMALL_OUTBOX  # 6.4 MB sent through a 1 MiB outbox


def test_a_server_that_never_reads_is_blamed_once_its_stdin_takes_nothing_for_the_stall_time(monkeypatch):
    """The outbox full and the server taking no bytes: the caller waits for room for the
    stall time from the last progress, then it and every request in flight fail (exit 3)."""
    monkeypatch.setattr(transport_module, "OUTBOX_LIMIT", SMALL_OUTBOX)
    transport = StdioTransport(DEAF, close_timeout=0.5, stall_timeout=1.0)
    big = "x" * 100_000
    futures = []
    try:
        transport.start(lambda message: None)
        with pytest.raises(TransportError) as caught:
            for n in range(40):  # 4 MB: more than the pipe and the outbox hold
                futures.append(transport.request({"jsonrpc": "2.0", "id": n, "method": "m", "params": {"p": big}}))
                fut = futures[-1]
                if fut.done():
                    fut.result(timeout=0)
    finally:
        transport.close()
    assert caught.value.message.startswith("the server does not read its stdin: ")
    assert "took none for 1" in caught.value.message
    assert futures and all(f.done() for f in futures)


def test_a_server_that_stops_reading_fails_a_request_that_waits_alone():
    """One large request the pipe cannot take, and nobody writing after it: the writer thread
    is blocked in its write, so the stall watch fails the request once the server's stdin
    took no bytes for the stall time (exit 3), instead of waiting for ever."""
    transport = StdioTransport(DEAF, close_timeout=0.5, stall_timeout=1.0)
    try:
        transport.start(lambda message: None)
        fut = transport.request({"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"p": "x" * 2_000_000}})
        with pytest.raises(TransportError) as caught:
            fut.result(timeout=SAFETY)
    finally:
        transport.close()
    assert caught.value.message.startswith("the server does not read its stdin: ")
