"""Test servers started from a pre-imported parent (a "zygote"), to save their imports.

A test server built on the official SDK spends about 0.6 s of CPU importing `mcp`,
pydantic, anyio and starlette before it reads a byte, and the suite starts such a server
for every stdio call it makes: on two shared cores that was most of the suite's time.
Here one process per test worker (`Zygote`) imports those modules once; each server is
then a fork of it, running its script as `python SCRIPT ARGS...` would (`__main__`,
`sys.argv`, `sys.path[0]`, the environment and working directory of the launch).

What `mrtr` starts is still one real process per server: `tests/prefork_launch.py`
(`python -I -S`, no imports beyond the standard library's core) connects to the zygote,
hands it its stdin, stdout and stderr (SCM_RIGHTS) and waits. The zygote forks a *keeper*
for it, which forks the server (in a session of its own, as mrtr starts servers) on those
very pipes, so the bytes mrtr reads and writes go to and from the server with no copy in
between. The launcher forwards the signals it gets to the server's process group and exits
as the server did (its code, or the same signal); if the launcher is killed (SIGKILL to its
process group, which is how mrtr ends a server that does not stop), the keeper sees the
connection close and kills the server's group. So a test observes what it would with
`python SCRIPT`: the pipes, EOF, exit codes, signals, the group ending.

Used by `tests.conftest.stdio_cmd` and `HttpServers.start` (`launch_argv`). A test that is
about the process itself (its pid, its children, its process group as mrtr sees it) starts
the script directly instead (`stdio_cmd(..., direct=True)`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
LAUNCH = HERE / "prefork_launch.py"

#: What the servers import; each missing one is skipped (a server then imports it itself).
PRELOAD = (
    "mcp", "mcp.server.lowlevel", "mcp.server.mcpserver", "mcp.server.stdio", "mcp.shared.exceptions",
    "mcp.server.streamable_http_manager", "mcp.server.request_state", "mcp_types", "anyio", "uvicorn",
    "starlette.applications", "starlette.routing", "starlette.requests", "starlette.responses",
    "argparse", "asyncio", "http.server",
)


def _recv_exact(conn: socket.socket, n: int, first: bytes = b"") -> bytes:
    data = first
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise EOFError("launcher went away")
        data += chunk
    return data


def _run_server(request: dict, fds: list[int], conn: socket.socket) -> None:
    """In the forked server process: take the launcher's stdio and run the script as __main__."""
    os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    conn.close()
    for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    script = os.path.abspath(request["argv"][0])
    sys.argv = list(request["argv"])
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = [os.path.dirname(script), *extra, *BASE_PATH]
    _fresh_stdio(bool(os.environ.get("PYTHONUNBUFFERED")))
    code: int = 0
    try:
        import runpy

        runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        if stop.code is None:
            code = 0
        elif isinstance(stop.code, int):
            code = stop.code
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        code = 128 + signal.SIGINT
    except BaseException:  # noqa: BLE001 - as the interpreter would: a traceback and exit 1
        traceback.print_exc()
        code = 1
    try:
        import threading

        threading._shutdown()  # type: ignore[attr-defined]  # non-daemon threads, as at exit
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code & 0xFF)


def _fresh_stdio(unbuffered: bool) -> None:
    """New sys.stdin/stdout/stderr on fds 0-2, buffered as a fresh interpreter's would be
    (PYTHONUNBUFFERED taken from the launch's environment, not the zygote's)."""
    import io

    encoding = sys.stdout.encoding
    # The new standard streams live as long as the process: no `with`.
    stdin = io.TextIOWrapper(open(0, "rb", closefd=False), encoding=encoding)  # noqa: SIM115 - sys.stdin
    stdout = io.TextIOWrapper(open(1, "wb", buffering=0 if unbuffered else -1, closefd=False),  # noqa: SIM115 - as above
                              encoding=encoding, write_through=unbuffered)
    stderr = io.TextIOWrapper(open(2, "wb", buffering=0 if unbuffered else -1, closefd=False),  # noqa: SIM115 - as above
                              encoding=encoding, errors="backslashreplace", line_buffering=True,
                              write_through=unbuffered)
    sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = stdin, stdout, stderr


def _keep(conn: socket.socket) -> None:
    """In the keeper (a fork of the zygote, one per launch): start the server, forward the
    launcher's signals to it, report how it ended, kill it if the launcher goes."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    head, fds, _flags, _addr = socket.recv_fds(conn, 65536, 3)
    if len(fds) != 3:
        os._exit(1)
    size = int.from_bytes(head[:8], "big")
    request = json.loads(_recv_exact(conn, size, head[8:]))
    pid = os.fork()
    if pid == 0:
        _run_server(request, fds, conn)
    for fd in fds:
        os.close(fd)
    conn.sendall(b"pid %d\n" % pid)
    pidfd = os.pidfd_open(pid)
    import selectors

    sel = selectors.DefaultSelector()
    sel.register(conn, selectors.EVENT_READ)
    sel.register(pidfd, selectors.EVENT_READ)
    buffered = b""
    while True:
        for key, _ in sel.select():
            if key.fileobj is conn:
                chunk = conn.recv(64)
                if not chunk:  # the launcher is gone: end the server's group, as a group kill would
                    _killpg(pid, signal.SIGKILL)
                    sel.unregister(conn)
                    continue
                buffered += chunk
                while b"\n" in buffered:
                    line, buffered = buffered.split(b"\n", 1)
                    _killpg(pid, int(line))
            else:
                _, status = os.waitpid(pid, 0)
                with contextlib.suppress(OSError):
                    conn.sendall(b"exit %d\n" % status)
                os._exit(0)


def _killpg(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)


def serve(path: str) -> None:
    """The zygote's main loop: import `PRELOAD`, say "ready", fork a keeper per connection.
    It ends with the test process that started it, even one that was killed (Linux's
    parent-death signal)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: the test process's exit handler still ends it
    if os.getppid() == 1:  # the parent was gone before the signal was asked for
        return
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            __import__(name)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # keepers are reaped by the kernel
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)  # the test worker reads no more than "ready"
    os.close(devnull)
    while True:
        conn, _ = listener.accept()
        if os.fork() == 0:
            listener.close()
            try:
                _keep(conn)
            finally:
                os._exit(1)
        conn.close()


class Zygote:
    """This test process's zygote: started on first use, ended (its process group) at exit."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.path = ""

    def socket_path(self) -> str:
        if self.proc is None or self.proc.poll() is not None:
            directory = tempfile.mkdtemp(prefix="mrtr-zygote-")
            self.path = os.path.join(directory, "z.sock")
            env = {k: v for k, v in os.environ.items() if not k.startswith("MRTR_")}
            self.proc = subprocess.Popen(
                [sys.executable, str(Path(__file__)), self.path], stdout=subprocess.PIPE, text=True,
                start_new_session=True, env=env, cwd=str(HERE.parent))
            assert self.proc.stdout is not None
            if self.proc.stdout.readline().strip() != "ready":
                raise RuntimeError("the test servers' zygote did not start")
            atexit.register(self.stop)
        return self.path

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


ZYGOTE = Zygote()


def launch_argv(script: Path | str, *extra: str, owned: bool = False) -> list[str]:
    """The argv that runs `python SCRIPT EXTRA...` as a fork of this process's zygote (where
    there is no fork, Windows: `python SCRIPT EXTRA...` itself). With `owned` (a server this
    test process starts and ends itself, not one `mrtr` starts), the server also ends when
    this process dies (prefork_launch.py `--die-with-parent`)."""
    if not hasattr(os, "fork"):
        return [sys.executable, str(script), *map(str, extra)]
    flag = ["--die-with-parent"] if owned else []
    return [sys.executable, "-I", "-S", str(LAUNCH), *flag, ZYGOTE.socket_path(), str(script), *map(str, extra)]


def stop_group(proc: subprocess.Popen[bytes], grace: float = 10.0) -> None:
    """End a server started in a session of its own (`start_new_session=True`): SIGTERM to
    its process group, SIGKILL to the group after `grace` seconds; waits for it. Without
    process groups (Windows) the process itself: terminate, then kill."""
    if proc.poll() is not None:
        return
    if not hasattr(os, "killpg"):
        proc.terminate()
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        proc.wait()


#: The zygote's module path without its own directory and PYTHONPATH (each fork puts its
#: script's directory and its launch's PYTHONPATH in front).
BASE_PATH: list[str] = []

if __name__ == "__main__":
    _inherited = {p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    BASE_PATH[:] = [p for p in sys.path[1:] if p not in _inherited]
    serve(sys.argv[1])
