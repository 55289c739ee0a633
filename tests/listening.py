"""Start a test HTTP server and learn its port from the server itself.

A server is started on port 0 (`--http 0`): it binds a free port itself and says which, the
line `listening on http://127.0.0.1:PORT` on stdout (tests/servers/common.py `announce`), or
uvicorn's own `Uvicorn running on http://127.0.0.1:PORT` (the example servers, which log
it on stderr). The test waits for that line, an event, bounded by `SAFETY`.

Never pick a free port in the test and hand it to a server to bind later: another process
(another xdist worker's server, anything on the machine) can take it in between, and the
test then talks to that process, or waits for a server that could not bind. A port nothing
may listen on (a refused connection) is held bound and not listening for as long as it is
used (`closed_port`). A port a command must be told before it binds it (a documented
command line, a server started again where it was) is taken outside the range the system
hands out for port 0 (`fixed_port`).
"""

from __future__ import annotations

import contextlib
import random
import re
import socket
import subprocess
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from tests.bounds import SAFETY
from tests.prefork import stop_group

#: The line a server prints once it listens (ours on stdout, uvicorn's on stderr).
REPORT = re.compile(r"(?:^listening|Uvicorn running) on http://127\.0\.0\.1:(\d+)\b")


def reported_port(lines: list[str]) -> int | None:
    """The port the first report among a server's output `lines` names, None before it."""
    for line in lines:
        if match := REPORT.search(line):
            return int(match.group(1))
    return None


class Listening:
    """Reads a server's merged stdout and stderr in a thread until it ends: the first port
    reported (`port()`), and the last lines, to say why a server that never listened did
    not. Reading on keeps the pipe from filling, which would block the server."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        self.proc = proc
        self.tail: list[str] = []
        self._port: int | None = None
        self._event = threading.Event()
        self._thread = threading.Thread(target=self._pump, args=(proc.stdout,), daemon=True)
        self._thread.start()

    def _pump(self, stream: IO[bytes]) -> None:
        for raw in stream:
            line = raw.decode("utf-8", "replace")
            if self._port is None and (port := reported_port([line])) is not None:
                self._port = port
                self._event.set()
            self.tail = [*self.tail[-39:], line]
        self._event.set()

    def port(self, timeout: float = SAFETY) -> int:
        """The port the server reported; RuntimeError if it ended first or said nothing
        within `timeout` seconds."""
        self._event.wait(timeout)
        if self._port is None:
            said = "".join(self.tail)[-2000:]
            state = "did not report a port within %gs" % timeout if self.proc.poll() is None \
                else f"exited with code {self.proc.returncode} before it listened"
            raise RuntimeError(f"test server {state}; its output:\n{said}")
        return self._port


def start_listening(argv: Sequence[str | Path], *, env: dict[str, str] | None = None, cwd: Path | None = None,
                    timeout: float = SAFETY) -> tuple[subprocess.Popen[bytes], int]:
    """Start `argv` (a server told to listen on port 0) in a session of its own (end it with
    `prefork.stop_group`) and wait for the port it reports: (process, port). `env`: its
    whole environment (default: this process's). RuntimeError (with the server's last output) if it
    ends or stays silent first."""
    proc = subprocess.Popen([str(a) for a in argv], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env, cwd=cwd,
                            start_new_session=True)
    try:
        return proc, Listening(proc).port(timeout)
    except BaseException:
        stop_group(proc, grace=5)
        raise


#: Below every system's range of ports handed out for port 0 and outgoing connections
#: (Linux 32768-60999 by default, macOS and Windows 49152-65535).
FIXED_PORTS = range(20000, 32768)


def fixed_port() -> int:
    """A port for a command that must be told its port before it binds it: a documented
    command line (the README's `--http 8000`), mrtr's `--redirect-port`, a server started
    again on the port it had. Free now, and outside the range the system hands out for
    port 0 and for outgoing connections, so no test server (they all bind port 0) and no
    connection takes it meanwhile; random, so two test runs seldom pick the same one. One
    that is taken all the same fails loudly where it is bound ("address in use"), never a
    test talking to another process."""
    low = FIXED_PORTS.stop
    with contextlib.suppress(OSError, ValueError):  # Linux: the range actually set
        low = min(low, int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0]))
    low = max(low, FIXED_PORTS.start + 1000)
    for _ in range(1000):
        port = random.randrange(FIXED_PORTS.start, low)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {FIXED_PORTS.start}-{low - 1} after 1000 tries")


@contextlib.contextmanager
def closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 where a connection is refused for as long as the `with` lasts: a
    socket bound there and not listening holds it, so no other process can take it and
    answer (a port picked and let go could be)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]
