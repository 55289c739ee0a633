"""A line server that reads its stdin slowly but steadily, for the stdio transport's
back-pressure (transport/stdio/transport.py): it never stops reading, yet a burst of large
requests waits on mrtr's side.

Usage: python slow_reader_server.py [BLOCK [PAUSE]]

Reads at most BLOCK bytes (default 16384) at a time, pausing PAUSE seconds (default 0.002)
after each read, and answers each JSON-RPC request line with an empty result, until its
stdin ends.
"""

from __future__ import annotations

import json
import os
import sys
import time


def main() -> None:
    block = int(sys.argv[1]) if len(sys.argv) > 1 else 16384
    pause = float(sys.argv[2]) if len(sys.argv) > 2 else 0.002
    buf = b""
    while True:
        data = os.read(0, block)
        if not data:
            return
        buf += data
        *lines, buf = buf.split(b"\n")
        for line in lines:
            if line.strip():
                msg = json.loads(line)
                if "id" in msg and "method" in msg:
                    os.write(1, json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {}}).encode() + b"\n")
        time.sleep(pause)


if __name__ == "__main__":
    main()
