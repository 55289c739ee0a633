"""An HTTP server that takes connections and never answers some of them.

`--http PORT` listens on 127.0.0.1 (PORT 0: any free one; the first line on stdout,
`listening on http://127.0.0.1:PORT`, says which). `--hang all`: no POST is ever answered (the
connection stays open). `--hang notifications`: requests get a 2025-11-25 answer
(`initialize`, `ping`, `tools/list`), notifications are never acknowledged.
Each POST's method is printed on stdout (one line, flushed) as it arrives, so a test
can wait for a request to be in flight.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import announce, send_json

_forever = threading.Event()


class Handler(http.server.BaseHTTPRequestHandler):
    hang = "all"

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        method = body.get("method", "response")
        print(method, flush=True)
        if self.hang == "all" or "id" not in body:
            _forever.wait()  # never answers
            return
        result = {"tools": []} if method == "tools/list" else {}
        if method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "hang", "version": "1"}}
        send_json(self, 200, json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}).encode())

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, required=True)
    parser.add_argument("--hang", choices=["all", "notifications"], default="all")
    args = parser.parse_args()
    Handler.hang = args.hang
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.http), Handler)
    server.daemon_threads = True
    announce(server.server_address[1])
    server.serve_forever()


if __name__ == "__main__":
    main()
