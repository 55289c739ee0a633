"""stdio transport: a server subprocess speaking newline-delimited JSON-RPC.

Spec: basic/transports/stdio (2026-07-28). One JSON message per line on the
child's stdin/stdout, UTF-8, no embedded newlines. The child's stderr is passed
through to ours (sanitised) or hidden, and its last lines are kept to explain a
crash. Shutdown: close stdin, wait, SIGTERM, wait, SIGKILL.
"""

from __future__ import annotations

import collections
import io
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping
from typing import IO, TYPE_CHECKING, Any

from mrtr_cli.errors import TransportError
from mrtr_cli.render.sanitize import sanitize
from mrtr_cli.transport.base import Message, MessageHandler, NonFiniteMessage, Transport, decode_or_none, encode_message

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Future

STDERR_TAIL_LINES = 20
_READ_BUFFER = 1 << 16


_loads = decode_or_none  # one line's JSON value, or None when it is not JSON


def encode_line(message: Message) -> bytes:
    """One JSON-RPC message as a compact UTF-8 line (json escapes any newline in strings).

    Raises:
        UsageError: the message holds a non-finite number.
    """
    return encode_message(message) + b"\n"


def kill_process_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL a child started with `start_new_session=True` and everything it launched
    (its process group; e.g. npx -> node). Never raises; safe in a signal handler."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # type: ignore[attr-defined]
    except (OSError, AttributeError):  # AttributeError: no process groups on this platform
        try:
            proc.kill()
        except OSError:
            pass


def wait_exit(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait up to `timeout` seconds for `proc` to exit (and reap it); True when it did.

    On Linux the wait wakes the moment the process exits (a pidfd); elsewhere it is
    `Popen.wait`, which polls with growing sleeps."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is not None and proc.returncode is None:
        try:
            fd = pidfd_open(proc.pid)
        except OSError:  # already reaped, or not supported by the kernel
            pass
        else:
            import select  # noqa: PLC0415

            try:
                ready, _, _ = select.select([fd], [], [], timeout)
            finally:
                os.close(fd)
            if not ready:
                return False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return True


class StdioTransport(Transport):
    """Launch `argv` and exchange messages over its stdin/stdout.

    Args:
        argv: the command and its arguments (already split; no shell is used).
        env: extra environment variables for the child (added to ours).
        cwd: working directory for the child, or None.
        stderr_sink: called with each sanitised stderr line of the child; None hides it.
        close_timeout: seconds to wait at each step of shutdown.

    Raises (from `start`):
        TransportError: the command cannot be started (not found, not executable).
    """

    local_process = True

    def __init__(
        self,
        argv: list[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        stderr_sink: Callable[[str], None] | None = None,
        close_timeout: float = 2.0,
    ):
        if not argv:
            raise TransportError("the --stdio command is empty")
        self.argv = list(argv)
        self.label = "stdio: " + " ".join(argv)
        self._env = dict(env or {})
        self._cwd = cwd
        self._stderr_sink = stderr_sink
        self._close_timeout = close_timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._pending: dict[Any, Future[Message]] = {}
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._on_message: MessageHandler = lambda m: None
        self._closing = False
        self._dead: TransportError | None = None
        self._spawn_error: TransportError | None = None
        self._stderr_thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    def spawn(self) -> None:
        """Launch the server process now (it boots while `mrtr` carries on); `start` adopts it.
        A failure to launch is kept and raised by `start`, so it is reported in order."""
        if self._proc is not None or self._spawn_error is not None:
            return
        env = {**os.environ, **self._env} if self._env else None
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                cwd=self._cwd,
                bufsize=0,
                # Own process group: a Ctrl-C at the terminal reaches mrtr only, which
                # then cancels the request and shuts the server down cleanly.
                start_new_session=True,
            )
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
        threading.Thread(target=self._read_loop, name="mrtr-stdio-reader", daemon=True).start()

    def close(self) -> None:
        proc = self._proc
        if proc is None or self._closing:
            return
        self._closing = True
        try:
            if proc.stdin:
                proc.stdin.close()
        except OSError:
            pass
        for step in (None, proc.terminate, proc.kill):
            if step is not None:
                try:
                    step()
                except OSError:
                    pass
            if wait_exit(proc, self._close_timeout):
                break
        if self._stderr_thread is not None:
            self._stderr_thread.join(timeout=0.5)

    def kill(self) -> None:
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return
        self._closing = True
        kill_process_group(proc)

    # ------------------------------------------------------------------ messages
    def request(self, message: Message, headers: Mapping[str, str] | None = None) -> Future[Message]:
        from concurrent.futures import Future  # noqa: PLC0415 - after the server was launched (startup time)

        fut: Future[Message] = Future()
        with self._lock:
            if self._dead is not None:
                fut.set_exception(self._dead)
                return fut
            self._pending[message["id"]] = fut
        try:
            self._write(message)
        except TransportError as exc:
            with self._lock:
                self._pending.pop(message["id"], None)
            if not fut.done():
                fut.set_exception(exc)
        return fut

    def send(self, message: Message, headers: Mapping[str, str] | None = None) -> None:
        self._write(message)

    def abort(self, request_id: Any) -> None:
        with self._lock:
            fut = self._pending.pop(request_id, None)
        if fut is not None and not fut.done():
            fut.cancel()

    def alive(self) -> bool:
        proc = self._proc  # no system call: the reader notices a server that is gone (its stdout closes)
        return self._dead is None and proc is not None and proc.returncode is None

    def describe_failure(self) -> str | None:
        # When the server's stderr was shown live, its last lines are already on screen.
        if not self._tail or self._stderr_sink is not None:
            return None
        return "last lines of the server's stderr:\n" + "\n".join("  " + line for line in self._tail)

    # ------------------------------------------------------------------ internals
    def _write(self, message: Message) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise TransportError("the server process is not running")
        data = encode_line(message)
        with self._write_lock:
            try:
                proc.stdin.write(data)
                proc.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                raise self._death() from None

    def _death(self) -> TransportError:
        """The error describing why the server is gone (computed once)."""
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
            msg = "the server closed its stdout"
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
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        # Buffered: the pipe itself is unbuffered, and its readline would read a byte at a time.
        stdout: IO[bytes] = io.BufferedReader(proc.stdout, _READ_BUFFER)  # type: ignore[arg-type]
        try:
            while True:
                raw = stdout.readline()
                if not raw:
                    break
                if len(raw) <= 2 and not raw.strip():
                    continue
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    self._note_noise(raw.decode("utf-8", "replace"))
                    continue
                del raw  # decoded: a large message is not held as bytes and text while it is parsed
                try:
                    msg = _loads(text)
                except NonFiniteMessage as exc:
                    self._fail(exc, text)
                    continue
                if not isinstance(msg, dict):
                    self._note_noise(text)
                    continue
                del text
                self._dispatch(msg)
        except (OSError, ValueError):
            pass
        if self._closing:
            err = TransportError("the connection to the server was closed")
            with self._lock:
                self._dead = self._dead or err
        else:
            err = self._death()
        with self._lock:
            pending, self._pending = self._pending, {}
        for fut in pending.values():
            if not fut.done():
                fut.set_exception(err)

    def _dispatch(self, msg: Message) -> None:
        if "method" not in msg and ("result" in msg or "error" in msg):
            with self._lock:
                fut = self._pending.pop(msg.get("id"), None)
            if fut is not None:
                if not fut.done():
                    fut.set_result(msg)
                return
            # A response to nothing we are waiting for (e.g. after cancellation): ignore.
            return
        try:
            self._on_message(msg)
        except Exception:  # noqa: BLE001 - a bad handler must not kill the reader
            pass

    def _fail(self, exc: NonFiniteMessage, text: str) -> None:
        """A message that is not valid JSON-RPC: the request it answers fails with `exc`
        (anything else is noted as noise)."""
        with self._lock:
            fut = self._pending.pop(exc.request_id, None) if exc.request_id is not None else None
        if fut is None:
            self._note_noise(text)
        elif not fut.done():
            fut.set_exception(exc)

    def _note_noise(self, text: str) -> None:
        self._tail.append("(stdout) " + sanitize(text[:200]))
        if self._stderr_sink is not None:
            self._stderr_sink("server wrote a non-JSON line to stdout: " + sanitize(text[:200], single_line=True))

    def _pump_stderr(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stderr is not None
        try:
            for raw in iter(proc.stderr.readline, b""):
                text = sanitize(raw.decode("utf-8", "replace").rstrip("\r\n"), drop_colours=True)
                self._tail.append(text)
                if self._stderr_sink is not None:
                    self._stderr_sink(text)
        except (OSError, ValueError):
            pass
