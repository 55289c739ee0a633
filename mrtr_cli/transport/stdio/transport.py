"""stdio transport: a server subprocess speaking newline-delimited JSON-RPC.

Spec: basic/transports/stdio (2026-07-28). One JSON message per line on the
child's stdin/stdout, UTF-8, no embedded newlines. The child's stderr is passed
through to ours (sanitised) or hidden, and its last lines are kept to explain a
crash; both pipes are read in blocks, and a line of stdout may be at most the
message size limit (transport/limits.py; beyond it the requests in flight fail, exit 4).

The server runs in a session (process group) of its own. When the command itself
exits, the server is dead (exit 3) even if a process it started still holds the pipe.
Shutdown ends the whole group by stages (transport/stdio/procgroup.py); on Linux, what left
the group (double fork and `setsid`) is ended too, and on Windows what is left in the
server's Job Object (`platform.proctree.end_escaped`).

This module is the connection: launching (transport/stdio/launch.py), the writer thread and
its outbox (the thread started when a message has to wait), the reader thread turning stdout
lines (transport/stdio/pipes.py) into messages and routing them, and the shutdown. The server's stderr and stdout noise:
transport/stdio/stderr.py.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from mrtr_cli.errors import TransportError
from mrtr_cli.limits import describe_seconds
from mrtr_cli.platform import proctree
from mrtr_cli.transport.base import (
    InvalidMessage,
    Message,
    MessageHandler,
    MessageTooLarge,
    OutgoingMessage,
    Remaining,
    Transport,
    decode_or_none,
    encode_message,
    request_key,
)
from mrtr_cli.transport.limits import max_message_size
from mrtr_cli.transport.stdio.pipes import LineSplitter, read_stdout
from mrtr_cli.transport.stdio.procgroup import close_stdin, end_group, kill_process_group
from mrtr_cli.transport.stdio.stderr import ServerStderr

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.transport.future import Future

#: Bytes of messages to the server that may wait for it to read its stdin (a writer thread
#: writes them). A caller's message that would go beyond waits for room (back-pressure);
#: the reader thread's (a reply to the server's ping) never waits, up to twice as many bytes:
#: beyond, the server writes without reading its stdin (exit 3).
OUTBOX_LIMIT = 16 << 20
#: Seconds the server's stdin may take no bytes, while messages wait for it, before the
#: server is taken as not reading it (exit 3); measured from the last bytes it took.
STDIN_STALL_SECONDS = 30.0
#: Bytes of one write to the server's stdin by the writer thread: each write that returns is
#: progress (the server took bytes), so a slow but steady reader is never blamed.
WRITE_CHUNK = 64 << 10


_loads = decode_or_none  # one line's JSON value, or None when it is not JSON


def encode_line(message: OutgoingMessage) -> bytes:
    """One JSON-RPC message as a compact UTF-8 line (json escapes any newline in strings).

    Raises:
        UsageError: the message holds a non-finite number.
    """
    return encode_message(message) + b"\n"


class StdioTransport(Transport):
    """Launch `argv` and exchange messages over its stdin/stdout.

    Args:
        argv: the command and its arguments (already split; no shell is used).
        env: extra environment variables for the child (added to ours).
        cwd: working directory for the child, or None.
        stderr_sink: called with each sanitised stderr line of the child; None hides it.
        close_timeout: seconds to wait at each step of shutdown.
        stall_timeout: seconds the server's stdin may take no bytes while messages wait for
            it before the server is taken as not reading (`STDIN_STALL_SECONDS`).

    Raises (from `start`):
        TransportError: the command cannot be started (not found, not executable).
    """

    def __init__(
        self,
        argv: list[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        stderr_sink: Callable[[str], None] | None = None,
        close_timeout: float = 2.0,
        stall_timeout: float = STDIN_STALL_SECONDS,
    ):
        if not argv:
            raise TransportError("the --stdio command is empty")
        self.argv = list(argv)
        self.label = "stdio: " + " ".join(argv)
        self._env = dict(env or {})
        self._cwd = cwd
        self._stderr = ServerStderr(stderr_sink)
        self._close_timeout = close_timeout
        self._stall_timeout = stall_timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._pending: dict[Any, Future[Message]] = {}
        self._lock = threading.Lock()
        # Messages to the server wait in the outbox for the writer thread: a server that
        # does not read its stdin never blocks the reader or the run (only that thread).
        # The thread starts when a first message has to wait (a call's requests, as a
        # rule, are written at once: `_write_now`).
        self._outbox_cv = threading.Condition()
        self._outbox: collections.deque[bytes] = collections.deque()
        self._outbox_bytes = 0
        #: Bytes of messages that could not be written because the server had gone (never
        #: read; a message not even encoded counts as one byte).
        self._undelivered = 0
        self._writer: threading.Thread | None = None
        self._reader: threading.Thread | None = None
        #: When the server's stdin last took bytes (or the writer thread took up a message
        #: after waiting for one): a stall is measured from it (time.monotonic()).
        self._progress_at = time.monotonic()
        self._started = False  # `start` ran: messages may be sent
        self._on_message: MessageHandler = lambda m: None
        self._closing = False
        self._at_once = False  # `end_at_once`: close kills the group without grace
        self._dead: TransportError | None = None
        self._spawn_error: TransportError | None = None
        self._stderr_thread: threading.Thread | None = None
        self._heard = False  # a first line came on stdout
        self._mark = proctree.run_mark()  # in the server's environment: its descendants are found by it

    def adopt(self, proc: subprocess.Popen[bytes], mark: str) -> None:
        """Take `proc`, a server already started for this transport's command with
        `transport.stdio.launch.launch` and `mark` (`transport.stdio.early.prelaunch`), as its own: `spawn`
        then does nothing and `start` talks to it."""
        self._proc, self._mark = proc, mark

    # ------------------------------------------------------------------ lifecycle
    def spawn(self) -> None:
        """Launch the server process now (it boots while `mrtr` carries on); `start` adopts it.
        A failure to launch is kept and raised by `start`, so it is reported in order."""
        if self._proc is not None or self._spawn_error is not None:
            return
        from mrtr_cli.transport.stdio.launch import launch  # noqa: PLC0415 - lazy for start-up time

        try:
            self._proc = launch(self.argv, self._env, self._cwd, self._mark)
        except FileNotFoundError:
            if self._cwd is not None and not os.path.isdir(self._cwd):
                self._spawn_error = TransportError(f"cannot start the server: its working directory (cwd) "
                                                   f"does not exist: {self._cwd}")
                return
            self._spawn_error = TransportError(
                f"cannot start the server: command not found: {self.argv[0]}",
                hint="check the --stdio command (it is split like a shell would, but no shell runs it)",
            )
        except PermissionError:
            self._spawn_error = TransportError(f"cannot start the server: permission denied: {self.argv[0]}")
        except OSError as exc:
            self._spawn_error = TransportError(f"cannot start the server: {exc.strerror or exc}")

    def start(self, on_message: MessageHandler) -> None:
        self._on_message = on_message
        self.spawn()
        if self._spawn_error is not None:
            raise self._spawn_error
        self._stderr_thread = threading.Thread(target=self._pump_stderr, name="mrtr-stdio-stderr", daemon=True)
        self._stderr_thread.start()
        self._reader = threading.Thread(target=self._read_loop, name="mrtr-stdio-reader", daemon=True)
        self._reader.start()
        self._started = True

    def end_at_once(self) -> None:
        self._at_once = True

    def close(self) -> None:
        proc = self._proc
        if proc is None or self._closing:
            return
        if self._at_once:
            self.kill()
            return
        with self._outbox_cv:  # no message is written at once from here on (`_write_now`)
            self._closing = True
            writer = self._writer
            self._outbox_cv.notify_all()
        if writer is None:  # nothing ever waited: stdin is closed here, with no hand-off
            close_stdin(proc)
        # else the writer closes stdin once what waits is written
        end_group(proc, self._close_timeout)
        self._end_escaped(self._close_timeout)
        if self._stderr_thread is not None:
            self._stderr_thread.join(timeout=0.5)
        self._stderr.summarise_noise()

    def _end_escaped(self, grace: float) -> None:
        """End the server's descendants that left its group (`platform.proctree.end_escaped`)."""
        if self._proc is not None:
            proctree.end_escaped(self._proc, self._mark, grace)

    def kill(self) -> None:
        proc = self._proc
        if proc is not None and proc.returncode is None:
            self._closing = True
            kill_process_group(proc)
            proctree.wait_exit(proc, self._close_timeout)  # its orphans are ours only once it is gone
            self._end_escaped(0)
        self._stderr.summarise_noise()

    # ------------------------------------------------------------------ messages
    def request(self, message: OutgoingMessage, headers: Mapping[str, str] | None = None, *,
                budget: Remaining | None = None) -> Future[Message]:
        from mrtr_cli.transport.future import Future  # noqa: PLC0415 - after the server was launched (startup time)

        fut: Future[Message] = Future()
        with self._lock:
            dead = self._dead
            if dead is None:
                self._pending[message["id"]] = fut
        if dead is not None:
            with self._outbox_cv:  # not under self._lock: _write takes the two the other way round
                self._undelivered += 1  # never sent: the server cannot have read it
            fut.set_exception(dead)
            return fut
        try:
            self._write(message)
        except TransportError as exc:
            with self._lock:
                self._pending.pop(message["id"], None)
            if not fut.done():
                fut.set_exception(exc)
        return fut

    def send(self, message: OutgoingMessage, headers: Mapping[str, str] | None = None, *,
             timeout: float | None = None) -> None:
        self._write(message)

    def abort(self, request_id: object) -> None:
        with self._lock:
            fut = self._pending.pop(request_id, None)
        if fut is not None and not fut.done():
            fut.cancel()

    def process(self) -> StdioTransport:
        """This transport: its server is a process this run started (`LocalProcess`)."""
        return self

    def alive(self) -> bool:
        proc = self._proc  # no system call: the reader notices a server that is gone (its stdout closes)
        return self._dead is None and proc is not None and proc.returncode is None

    def gone(self) -> TransportError | None:
        return self._dead

    def heard_from(self) -> bool:
        return self._heard

    def unread_input(self) -> int | None:
        """Bytes of messages the server has not read from its stdin: those still queued for
        the writer thread, those a write could not deliver (the server had gone), plus those
        in the pipe (`platform.pipes.unread_bytes`). None where the system cannot tell and
        nothing is queued."""
        proc = self._proc
        if proc is None or proc.stdin is None:
            return None
        with self._outbox_cv:
            queued = self._outbox_bytes + self._undelivered
        from mrtr_cli.platform.pipes import unread_bytes  # noqa: PLC0415 - lazy for start-up time

        try:
            in_pipe = unread_bytes(proc.stdin.fileno())
        except ValueError:  # closed
            in_pipe = None
        if in_pipe is None:
            return queued or None
        return queued + in_pipe

    def describe_failure(self) -> str | None:
        return self._stderr.describe_failure()

    # ------------------------------------------------------------------ internals
    def _write(self, message: OutgoingMessage) -> None:
        """Queue `message` for the writer thread; or write it at once, when nothing is queued
        and the pipe takes it without blocking (`platform.pipes.takes_at_once`: a call's
        request, as a rule; it spares a hand-off to the writer thread per request). With
        `OUTBOX_LIMIT` bytes queued, the caller waits for room (`_await_room`).

        Raises:
            TransportError: the server is gone, or it does not read its stdin (it took no
                bytes for `stall_timeout` seconds while messages waited, or, for the
                reader thread's replies, twice `OUTBOX_LIMIT` bytes wait).
        """
        proc = self._proc
        if proc is None or proc.stdin is None or not self._started:
            raise TransportError("the server process is not running")
        data = encode_line(message)
        with self._outbox_cv:
            if self._dead is not None:
                self._undelivered += len(data)  # never sent: the server cannot have read it
                raise self._dead
            if self._write_now(proc.stdin, data):
                return
            self._await_room(len(data))
            if not self._outbox_bytes:
                self._progress_at = time.monotonic()  # a stall counts from the first byte waiting
            self._outbox.append(data)
            self._outbox_bytes += len(data)
            self._wake_writer()

    def _await_room(self, size: int) -> None:
        """Under the outbox lock: wait until `size` more bytes fit in the outbox (back-pressure:
        memory stays bounded by `OUTBOX_LIMIT`, however many callers write), as long as the
        server's stdin takes bytes. The reader thread never waits here (the server may be
        blocked writing to it): its messages may take the outbox up to twice the limit.

        Raises:
            TransportError: the connection is gone; or the server took no bytes of its stdin
                for `stall_timeout` seconds while messages waited, or the reader thread's
                message does not fit (the requests in flight fail with it).
        """
        reader = threading.current_thread() is self._reader
        limit = 2 * OUTBOX_LIMIT if reader else OUTBOX_LIMIT
        while self._outbox and self._outbox_bytes + size > limit and not self._closing:
            if self._dead is not None:
                self._undelivered += size  # never sent: the server cannot have read it
                raise self._dead
            stalled = time.monotonic() - self._progress_at
            if reader or stalled >= self._stall_timeout:
                err = TransportError(
                    f"the server does not read its stdin: {self._outbox_bytes} bytes of messages to it are "
                    f"waiting and it took none for {describe_seconds(stalled)} (it writes without reading)")
                self._fail_pending(err)
                raise err
            self._outbox_cv.wait(self._stall_timeout - stalled)

    def _wake_writer(self) -> None:
        """Under the outbox lock: have the writer thread write what is queued, starting it
        when none runs yet (not once `close` has begun: it closed stdin, and what is queued
        after that is never written, as when the writer has finished)."""
        if self._writer is None and not self._closing:
            self._writer = threading.Thread(target=self._write_loop, name="mrtr-stdio-writer", daemon=True)
            self._writer.start()
            threading.Thread(target=self._watch_stall, name="mrtr-stdio-stall", daemon=True).start()
        self._outbox_cv.notify_all()

    def _watch_stall(self) -> None:
        """The stall watch, started with the writer thread: while bytes wait for the server's
        stdin and it takes none for `stall_timeout` seconds, every request in flight fails
        (exit 3), also when the writer thread is blocked in a write that never returns (a
        server that stopped reading its stdin, with nobody else writing to find it out).
        Ends with the connection, or at `close` once nothing waits."""
        with self._outbox_cv:
            while True:
                if self._dead is not None or (self._closing and not self._outbox_bytes):
                    return
                stalled = time.monotonic() - self._progress_at
                if self._outbox_bytes and stalled >= self._stall_timeout:
                    break
                self._outbox_cv.wait(self._stall_timeout - stalled if self._outbox_bytes else None)
            err = TransportError(
                f"the server does not read its stdin: {self._outbox_bytes} bytes of messages to it are "
                f"waiting and it took none for {describe_seconds(stalled)} (it writes without reading)")
        self._fail_pending(err)

    def _write_now(self, stdin: Any, data: bytes) -> bool:
        """Under the outbox lock: write `data` here when the writer thread has nothing queued
        or in hand and the pipe takes it at once; False when it is for the writer thread.
        A write the server cannot take (it is gone) is counted undelivered and left to the
        writer thread, which meets the same error and fails the requests in flight."""
        if self._outbox or self._outbox_bytes or self._closing:
            return False
        from mrtr_cli.platform.pipes import takes_at_once  # noqa: PLC0415 - loaded with the transport

        try:
            fd = stdin.fileno()
            if not takes_at_once(fd, len(data)):
                return False
            written = os.write(fd, data)
        except (OSError, ValueError):  # gone, or closed: the writer thread says so
            return False
        if written == len(data):
            return True
        self._outbox.append(data[written:])  # never on Linux (an empty pipe takes a page whole)
        self._outbox_bytes += len(data) - written
        self._wake_writer()
        return True

    def _write_loop(self) -> None:
        """The writer thread: write queued messages in order; at `close`, once the queue is
        empty, close the server's stdin. A write that fails fails every request in flight."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        fd = proc.stdin.fileno()
        while True:
            with self._outbox_cv:
                if not self._outbox:
                    while not self._outbox and not self._closing:
                        self._outbox_cv.wait()
                    self._progress_at = time.monotonic()  # waiting for a message is no stall
                if not self._outbox:
                    break
                data = self._outbox.popleft()
            if not self._write_out(fd, memoryview(data)):
                break
        close_stdin(proc)

    def _write_out(self, fd: int, view: memoryview) -> bool:
        """The writer thread: write `view` (one queued message) in `WRITE_CHUNK` pieces, each
        one that the pipe takes counted as progress and its bytes freed from the outbox (a
        caller waiting for room is woken). False when the server is gone (every request in
        flight failed)."""
        try:
            while view:
                written = os.write(fd, view[:WRITE_CHUNK])
                view = view[written:]
                with self._outbox_cv:
                    self._outbox_bytes -= written
                    self._progress_at = time.monotonic()
                    self._outbox_cv.notify_all()
        except OSError:  # the server is gone (EPIPE): what was not written never reached it
            with self._outbox_cv:
                self._undelivered += len(view)
                self._outbox_bytes -= len(view)
                self._outbox_cv.notify_all()
            self._fail_pending(self._death(closed="stdin"))
            return False
        return True

    def _fail_pending(self, err: TransportError) -> None:
        """The connection is unusable: remember `err` and fail every request in flight."""
        with self._lock:
            self._dead = self._dead or err
            pending, self._pending = self._pending, {}
        self._wake_waiting()
        for fut in pending.values():
            if not fut.done():
                fut.set_exception(err)

    def _wake_waiting(self) -> None:
        """The connection is gone: callers waiting for room in the outbox stop waiting."""
        with self._outbox_cv:
            self._outbox_cv.notify_all()

    def _death(self, closed: str = "stdout") -> TransportError:
        """The error describing why the server is gone (computed once); `closed`: the pipe
        found closed ("stdout": the reader met its end; "stdin": a write to it failed),
        named when the server is still running."""
        with self._lock:
            if self._dead is not None:
                return self._dead
        proc = self._proc
        rc = None
        if proc is not None:
            try:
                rc = proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                rc = None
        if self._stderr_thread is not None:
            self._stderr_thread.join(timeout=1.0)
        if rc is None:
            msg = f"the server closed its {closed}"
        elif rc < 0:
            msg = f"the server process died (signal {-rc})"
        else:
            msg = f"the server process exited with code {rc}"
        err = TransportError(msg, hint=self.describe_failure())
        with self._lock:
            if self._dead is None:
                self._dead = err
            return self._dead

    def _read_loop(self) -> None:
        """Read stdout in blocks until it ends or the command exits; whatever goes wrong,
        every request in flight is failed at once (never left waiting)."""
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        err: BaseException | None = None
        try:
            read_stdout(proc, LineSplitter(max_message_size(strict=False), self._line, self._too_large))
        except Exception as exc:  # noqa: BLE001 - a bug in the reader must not leave a call hanging
            err = exc
        if err is None and self._closing:
            err = TransportError("the connection to the server was closed")
        elif err is None:
            err = self._death()
        with self._lock:
            self._dead = self._dead or (err if isinstance(err, TransportError) else TransportError(str(err)))
            pending, self._pending = self._pending, {}
        self._wake_waiting()
        for fut in pending.values():
            if not fut.done():
                fut.set_exception(err)

    def _line(self, raw: bytes) -> None:
        """Handle one line of stdout (without its newline)."""
        self._heard = True
        if len(raw) <= 2 and not raw.strip():
            return
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            self._not_utf8(raw.decode("utf-8", "replace"))
            return
        del raw  # decoded: a large message is not held as bytes and text while it is parsed
        try:
            msg = _loads(text)
        except InvalidMessage as exc:
            self._fail(exc, text)
            return
        if isinstance(msg, list):  # a JSON-RPC batch: MCP has none (basic/transports)
            self._fail(InvalidMessage("the server sent a JSON array (a JSON-RPC batch), "
                                      "which MCP does not allow: every message is one JSON object"), None)
            return
        if not isinstance(msg, dict):
            self._stderr.note_noise(text, "a line that is not a JSON-RPC message")
            return
        del text
        if "method" not in msg and "error" in msg and msg.get("id") is None:
            self._fail_all_with(msg)
            return
        self._dispatch(msg)

    def _not_utf8(self, text: str) -> None:
        """A line that is not UTF-8: when it still reads as a JSON-RPC message, the call
        fails (the message it carries cannot be taken); otherwise it is noise."""
        try:
            msg = _loads(text)
        except InvalidMessage:
            msg = None
        if isinstance(msg, dict | list):
            rid = msg.get("id") if isinstance(msg, dict) else None
            self._fail(InvalidMessage("the server sent a message that is not valid UTF-8", rid), None)
            return
        self._stderr.note_noise(text)

    def _fail_all_with(self, response: Message) -> None:
        """An error response with `"id": null` (JSON-RPC's reply to a request the server
        could not read): every request in flight gets it as its response."""
        with self._lock:
            victims, self._pending = list(self._pending.values()), {}
        if not victims:
            self._stderr.note_noise(json.dumps(response)[:200], "an error for no request")
        for victim in victims:
            if not victim.done():
                victim.set_result(response)

    def _too_large(self, size: int) -> None:
        """A line grew past the size limit: the requests in flight fail (exit 4)."""
        self._heard = True
        self._fail(MessageTooLarge(size, max_message_size(strict=False)), None)

    def _dispatch(self, msg: Message) -> None:
        if "method" not in msg and ("result" in msg or "error" in msg):
            rid = request_key(msg.get("id"))
            with self._lock:
                fut = self._pending.pop(rid, None) if rid is not None else None
            if fut is not None:
                if not fut.done():
                    fut.set_result(msg)
                return
            # A response to nothing we are waiting for (e.g. after cancellation): the
            # session ignores it (`-v` notes it, the trace keeps it).
        try:  # noqa: SIM105 - a catch of Exception stays marked for BLE001; suppress() would hide it
            self._on_message(msg)
        except Exception:  # noqa: BLE001 - a bad handler must not kill the reader
            pass

    def _fail(self, exc: InvalidMessage, text: str | None) -> None:
        """A message that is not acceptable JSON-RPC: the request it answers fails with
        `exc`; when it names no request in flight (a notification, a request of the
        server's, an id of nothing we wait for, or no id could be read), every request in
        flight does (the server broke the rules: the call ends at once); with nothing in
        flight it is noted."""
        with self._lock:
            fut = self._pending.pop(exc.request_id, None) if exc.request_id is not None else None
            if fut is not None:
                victims = [fut]
            else:  # no id, or one naming no request in flight (a server's request, a stray)
                victims, self._pending = list(self._pending.values()), {}
        if not victims:
            self._stderr.note_noise(text if text is not None else "", f"a message it cannot accept ({exc.message})")
        for victim in victims:
            if not victim.done():
                victim.set_exception(exc)

    def _pump_stderr(self) -> None:
        """The stderr thread: the server's stderr to `ServerStderr.pump`."""
        proc = self._proc
        assert proc is not None and proc.stderr is not None
        self._stderr.pump(proc.stderr.fileno())
