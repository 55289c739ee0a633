"""The stdio transport's writes (transport/stdio/transport.py, docs/performance.md): a
request the pipe takes at once is written by the caller, and the writer thread starts only
when a message has to wait (a server that does not read its stdin never blocks the run).
In-process, with real server processes."""

from __future__ import annotations

import sys
import threading

from mrtr_cli.transport.stdio.transport import StdioTransport
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
    """A server that does not read: the first messages fill the pipe, the rest wait in the
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
