"""A command that prints without end and never exits, for the bounds on what mrtr reads
from a command (`--assertion-command`, `--id-token-command`, `--sampling-command`).

Usage: python flood_command.py PIDS STREAM BYTES [THEN]

First starts a child that sleeps for ever (in the command's process group, as a helper's
own helper would be) and writes "PID CHILD_PID" to the file PIDS: the event a test waits
on, and what it checks is gone afterwards. Then writes BYTES bytes of `FLOOD` to STREAM
(`stdout`, `stderr`, or `none`), without reading its stdin. Then, with THEN a JSON
text, prints it on stdout and exits 0; without, sleeps for ever.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

#: What is printed (as if a JWT: a text no output of mrtr may show, when a credential
#: command prints it).
FLOOD = b"FLOOD-b1f0c7e2 " * 64


def main() -> None:
    pids, stream, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    then = sys.argv[4] if len(sys.argv) > 4 else None
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(pids, "w", encoding="ascii") as fh:
        fh.write(f"{os.getpid()} {child.pid}\n")
    out = {"stdout": sys.stdout.buffer, "stderr": sys.stderr.buffer}.get(stream)
    if out is not None:
        written = 0
        while written < size:
            block = FLOOD[:size - written]
            out.write(block)
            written += len(block)
        out.flush()
    if then is not None:
        sys.stdout.write(then + "\n")
        sys.stdout.flush()
        return
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
