"""A hand-written stdio server that lists one tool but never answers `tools/call`, ignores SIGTERM and keeps
running after its stdin closes: only SIGKILL stops it. For the "second Ctrl-C exits at
once" test.

Usage: python stubborn_server.py [--record FILE] [--pidfile FILE] [--signals FILE]

`--signals FILE`: a line "EOF" is appended when stdin closes, "SIGTERM" for each SIGTERM
(ignored all the same), so a test can tell which stage of a graceful close was reached.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time


def main() -> None:
    signals = sys.argv[sys.argv.index("--signals") + 1] if "--signals" in sys.argv else None

    def note(what: str) -> None:
        if signals:
            with open(signals, "a", encoding="utf-8") as fh:
                fh.write(what + "\n")

    signal.signal(signal.SIGTERM, lambda *_: note("SIGTERM"))  # noted, and ignored
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    record = sys.argv[sys.argv.index("--record") + 1] if "--record" in sys.argv else None
    if "--pidfile" in sys.argv:
        with open(sys.argv[sys.argv.index("--pidfile") + 1], "w", encoding="utf-8") as fh:
            fh.write(str(os.getpid()))
    for line in sys.stdin:
        if record:
            with open(record, "a", encoding="utf-8") as log:
                log.write(json.dumps({"raw": line.rstrip("\n")}) + "\n")
        msg = json.loads(line)
        if msg.get("method") == "server/discover":  # a 2026-07-28 server: the era probe is answered
            result = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                      "ttlMs": 0, "cacheScope": "public"}
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
            sys.stdout.flush()
        if msg.get("method") == "tools/list":
            result = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public",
                      "tools": [{"name": "never", "inputSchema": {"type": "object"}}]}
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
            sys.stdout.flush()
    note("EOF")
    while True:  # stdin closed: carry on regardless
        time.sleep(1)


if __name__ == "__main__":
    main()
