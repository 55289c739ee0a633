"""Start an example server over Streamable HTTP in the background, for the README.

`python examples/servers/NAME.py --http PORT --background` runs this: the server is
started as its own process with its output going to a log file (so nothing it prints
mixes into your terminal), this waits until it accepts connections, then prints where
it serves, its pid and log, and how to stop it, and exits. The pid is also written to
`$TMPDIR/NAME-PORT.pid` (default TMPDIR: /tmp), so a script can stop it with:

    kill "$(cat "${TMPDIR:-/tmp}/NAME-PORT.pid")"
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time


def port_in_use(port: int) -> bool:
    """True when something already listens on 127.0.0.1:PORT (a bind fails)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is no obstacle
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def serve_in_background(script: str, port: int, wait_seconds: float = 60.0, extra_args: tuple[str, ...] = (),
                        notes: tuple[str, ...] = ()) -> None:
    """Start `script --http PORT EXTRA_ARGS...` detached, wait until 127.0.0.1:PORT accepts a
    connection, print how to reach it, each of `notes` (lines about the server), and how to stop
    it, and exit (1 if it did not come up)."""
    name = os.path.splitext(os.path.basename(script))[0]
    folder = tempfile.gettempdir()
    log_path = os.path.join(folder, f"{name}-{port}.log")
    pid_path = os.path.join(folder, f"{name}-{port}.pid")
    if not 0 < port < 65536:
        sys.exit(f"{name}: --http {port}: a port is a number from 1 to 65535")
    if port_in_use(port):  # else the check below would greet whatever already listens there
        sys.exit(f"{name}: port {port} is already in use by another process (a server from an earlier run? "
                 f"if so: kill \"$(cat {pid_path})\"); nothing was started")
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen([sys.executable, script, "--http", str(port), *extra_args], stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"{name}: the server exited with code {proc.returncode}; see {log_path}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            time.sleep(0.1)
    else:
        proc.kill()
        sys.exit(f"{name}: the server did not start listening on port {port}; see {log_path}")
    if proc.poll() is not None:  # something else took the port meanwhile
        sys.exit(f"{name}: the server exited with code {proc.returncode}; see {log_path}")
    with open(pid_path, "w", encoding="utf-8") as fh:  # only for a server that serves
        fh.write(f"{proc.pid}\n")
    print(f"{name}: serving http://127.0.0.1:{port}/mcp in the background (pid {proc.pid}, log {log_path})")
    for note in notes:
        print(f"{name}: {note}")
    print(f"{name}: stop it with: kill {proc.pid}    (the pid is also in {pid_path})")
