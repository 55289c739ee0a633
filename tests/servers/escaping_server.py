"""A stdio server that leaves a process behind outside its own process group.

Usage: python escaping_server.py PIDFILE [legacy_server.py options]

Before serving, it double-forks: the grandchild calls `setsid` (a session and process
group of its own), writes its pid to PIDFILE and sleeps for ten minutes; its parent exits
at once, so the grandchild is an orphan. Once PIDFILE is written this process becomes
tests/servers/legacy_server.py (exec), a 2025-06-18 stdio server.
"""

from __future__ import annotations

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def escape(pidfile: str) -> None:
    if os.fork() == 0:  # the child: a new session, then the grandchild, then exit
        os.setsid()
        if os.fork() == 0:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            with open(pidfile + ".tmp", "w") as f:
                f.write(str(os.getpid()))
            os.replace(pidfile + ".tmp", pidfile)
            time.sleep(600)
        os._exit(0)


if __name__ == "__main__":
    escape(sys.argv[1])
    os.wait()  # the child, which exits at once
    while not os.path.exists(sys.argv[1]):  # the grandchild has written its pid: then serve
        time.sleep(0.01)
    os.execv(sys.executable, [sys.executable, os.path.join(HERE, "legacy_server.py"), *sys.argv[2:]])
