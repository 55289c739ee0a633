"""A hand-written stdio server that asks mrtr things while no request of mrtr's is in flight.

Usage: python idle_asker_server.py RECORD [--era legacy|modern] [--count N] [--changes N]
                                    [--ask-in-list] [--roots]

As soon as the session is open (legacy: `notifications/initialized` received; modern: the
first `server/discover` answered) it sends N `elicitation/create` requests (`--count`, ids
"e1"..., default 1) and one `ping` (id "p1"), each outside any request of mrtr's. Every
response mrtr sends to them is appended to RECORD, one JSON object a line, so a test can
wait for them. The one tool `x` answers "x result"; `tools/list` lists it. After its first
answer to `tools/list` it sends N `notifications/tools/list_changed` (`--changes`, default
0; the tools capability then declares `listChanged`). With `--ask-in-list` (and
`--count 0`), the server asks a form (id "l1") while answering `tools/list`, just before
its result, as a 2025-11-25 server may. With `--roots` (legacy), it sends `roots/list` (id
"r1") right after `notifications/initialized`, as servers that work in the client's roots do.
"""

from __future__ import annotations

import json
import sys

FORM = {"message": "who?", "requestedSchema": {"type": "object", "properties": {"who": {"type": "string"}}}}


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def ask(count: int) -> None:
    if "--roots" in sys.argv:
        send({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"})
    for n in range(1, count + 1):
        send({"jsonrpc": "2.0", "id": f"e{n}", "method": "elicitation/create", "params": FORM})
    send({"jsonrpc": "2.0", "id": "p1", "method": "ping"})


def main() -> None:
    record = sys.argv[1]
    era = sys.argv[sys.argv.index("--era") + 1] if "--era" in sys.argv else "legacy"
    count = int(sys.argv[sys.argv.index("--count") + 1]) if "--count" in sys.argv else 1
    changes = int(sys.argv[sys.argv.index("--changes") + 1]) if "--changes" in sys.argv else 0
    tools_caps = {"listChanged": True} if changes else {}
    asked = False
    listed = False
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid = msg.get("method"), msg.get("id")
        if method is None:  # a response to one of ours
            with open(record, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(msg) + "\n")
            continue
        if method == "notifications/initialized" and not asked:
            asked = True
            ask(count)
        if rid is None:
            continue
        if method == "initialize":
            result: dict = {"protocolVersion": "2025-11-25", "capabilities": {"tools": tools_caps},
                            "serverInfo": {"name": "idle-asker", "version": "1"}}
        elif method == "server/discover" and era == "modern":
            result = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": tools_caps}}
        elif method == "tools/list":
            if "--ask-in-list" in sys.argv:
                send({"jsonrpc": "2.0", "id": "l1", "method": "elicitation/create", "params": FORM})
            result = {"tools": [{"name": "x", "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": "x result"}]}
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "not found"}})
            continue
        if era == "modern":
            result.update({"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
                          if method != "tools/call" else {"resultType": "complete"})
        send({"jsonrpc": "2.0", "id": rid, "result": result})
        if method == "tools/list" and not listed:
            listed = True
            for _ in range(changes):
                send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        if method == "server/discover" and not asked:
            asked = True
            ask(count)


if __name__ == "__main__":
    main()
