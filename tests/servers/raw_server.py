"""A hand-written stdio JSON-RPC server driven by a script, for wire cases an SDK will not produce.

Usage: python raw_server.py SCRIPT.json [--record FILE]

The script is a JSON object:
- "calls": {"TOOL": [response, ...]}: the n-th `tools/call` of TOOL gets the n-th entry
  (the last one repeats). An entry is {"result": {...}} or {"error": {...}} and is sent
  as-is, so a result may lack `resultType` or carry an unknown one. An entry's "before":
  [{"message": {...}, "times": N}, ...] is written first, each message N times (a flood of
  notifications, or of responses to no request, inside the call).
- "rejectVersions": [versions]: answer -32022 (with "supported") to requests in these versions.
- "supported": the versions listed in -32022 errors.
- "discover": the server/discover result (a default is used when absent).
- "discoverError": answer server/discover with this error object instead (a modern server
  that does not implement it).
- "startDelay": seconds to sleep before reading anything (a slow-starting server).
- "tools": the tools/list tools (default: each tool named in "calls", taking any arguments).
- "initialize": answer `initialize` with this result (a server that still accepts the handshake).
- "requireModern": answer a `tools/call` without the modern `_meta` protocol version with
  this error object (a server upgraded to 2026-07-28 that accepts `initialize` but no
  handshake-era calls).
- "methods": {"METHOD": [response, ...]}: like "calls", for any method (checked first), so
  a list, discover or completion answer can be anything, page by page.
Anything else gets -32601.
"""

from __future__ import annotations

import json
import sys
import time

META = "io.modelcontextprotocol/"


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as fh:
        script = json.load(fh)
    record = sys.argv[sys.argv.index("--record") + 1] if "--record" in sys.argv else None
    counts: dict[str, int] = {}
    time.sleep(script.get("startDelay", 0))
    for line in sys.stdin:
        if record:
            with open(record, "a", encoding="utf-8") as log:
                log.write(json.dumps({"raw": line.rstrip("\n")}) + "\n")
        msg = json.loads(line)
        if "id" not in msg:
            continue
        rid = msg["id"]
        params = msg.get("params") or {}
        version = (params.get("_meta") or {}).get(META + "protocolVersion")
        method = msg.get("method")
        if method in script.get("methods", {}):
            entries = script["methods"][method]
            n = counts.get(" " + method, 0)
            counts[" " + method] = n + 1
            reply = entries[min(n, len(entries) - 1)]
        elif version in script.get("rejectVersions", []):
            reply = {"error": {"code": -32022, "message": "Unsupported protocol version",
                               "data": {"supported": script.get("supported", ["2026-07-28"]), "requested": version}}}
        elif method == "initialize" and "initialize" in script:
            reply = {"result": script["initialize"]}
        elif method == "tools/call" and version is None and "requireModern" in script:
            reply = {"error": script["requireModern"]}
        elif method == "server/discover" and "discoverError" in script:
            reply = {"error": script["discoverError"]}
        elif method == "server/discover":
            reply = {"result": script.get("discover", {
                "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                "ttlMs": 0, "cacheScope": "public"})}
        elif method == "tools/list":
            reply = {"result": {"resultType": "complete", "tools": script.get("tools", [
                {"name": name, "inputSchema": {"type": "object"}} for name in script.get("calls", {})]), "ttlMs": 0,
                                "cacheScope": "public"}}
        elif method == "tools/call" and params.get("name") in script.get("calls", {}):
            entries = script["calls"][params["name"]]
            n = counts.get(params["name"], 0)
            counts[params["name"]] = n + 1
            reply = entries[min(n, len(entries) - 1)]
        else:
            reply = {"error": {"code": -32601, "message": f"Method not found: {method}"}}
        for flood in reply.get("before", []):
            sys.stdout.write((json.dumps(flood["message"]) + "\n") * flood.get("times", 1))
        reply = {k: v for k, v in reply.items() if k != "before"}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, **reply}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
