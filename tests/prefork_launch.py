"""Run a test server as a fork of the test worker's zygote (see tests/prefork.py).

`python -I -S tests/prefork_launch.py [--die-with-parent] SOCKET SCRIPT ARGS...`: hands this
process's stdin, stdout and stderr, argv, working directory and environment to the zygote
at SOCKET, forwards the signals it receives to the server's process group, and exits as
the server did: with its exit code, or killed by the same signal.

`--die-with-parent` (a server the test process itself owns, not one mrtr starts): this
launcher is killed when the process that started it dies (Linux's parent-death signal),
and the zygote's keeper then kills the server's group: a test worker that is killed, or
interrupted before its tear-down, leaves no server behind.
"""

import json
import os
import signal
import socket
import sys


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--die-with-parent"]:
        args = args[1:]
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass  # not Linux: the test's tear-down still ends it
        if os.getppid() == 1:  # the parent was gone before the signal was asked for
            os._exit(1)
    path, *argv = args
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    body = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    head = len(body).to_bytes(8, "big") + body
    sent = socket.send_fds(conn, [head], [0, 1, 2])
    conn.sendall(head[sent:])
    # The server holds the pipes now: this process lets go of them, so that the server
    # closing its stdout is EOF for the reader, as it would be without a launcher.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    reader = conn.makefile("rb")
    reply = reader.readline().split()
    if len(reply) != 2 or reply[0] != b"pid":
        os._exit(1)

    def forward(signum: int, _frame: object) -> None:
        conn.sendall(b"%d\n" % signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1,
                   signal.SIGUSR2):
        signal.signal(signum, forward)
    line = reader.readline().split()
    if len(line) != 2 or line[0] != b"exit":
        os._exit(1)
    code = os.waitstatus_to_exitcode(int(line[1]))
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


main()
