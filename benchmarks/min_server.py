"""A minimal raw-JSON stdio MCP server (no framework) for benchmarks: `tools/call echo`."""

import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg.get("method") == "tools/call":
        text = (msg["params"].get("arguments") or {}).get("text", "")
        result = {"resultType": "complete", "content": [{"type": "text", "text": text}]}
        reply = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
    elif msg.get("method") == "server/discover":  # the era probe of `--protocol auto`
        reply = {"jsonrpc": "2.0", "id": msg["id"], "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
            "ttlMs": 0, "cacheScope": "public"}}
    elif msg.get("method") == "tools/list":
        reply = {"jsonrpc": "2.0", "id": msg["id"], "result": {"resultType": "complete", "tools": [
            {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}],
            "ttlMs": 0, "cacheScope": "public"}}
    else:
        reply = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
