"""One call over Streamable HTTP against a running server, beside its baselines from the same run.

Usage: python benchmarks/http_call.py [--runs N] [--inspector PATH]

Against the minimal server (benchmarks/min_server.py --http), already running:
- one MRTR call of two rounds answered from an answer file (`mrtr call resolve
  workItemId=4522 --answers FILE`) beside a plain httpx2 script sending the same three
  POSTs (the call, then each retry with its answer and the exact requestState);
- one plain call (`echo`): `mrtr call`, beside the plain httpx2 script, and the same
  call with other command-line clients where installed: `fastmcp call` (PyPI
  `fastmcp`, found next to this Python) and the MCP Inspector CLI (npm
  `@modelcontextprotocol/inspector`, give its `inspector` launcher with --inspector;
  `node -e 0` is its interpreter baseline). Both speak the 2025-11-25 handshake
  (`initialize` first), which the minimal server also answers.
`mrtr` also sends its era probe (`server/discover`) and reads `tools/list` to type
and check the arguments; that is in its figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile

from common import ENV, MRTR, PY, Row, http_server, interleaved, print_rows, script, warm_bytecode

PLAIN_HTTPX_CALL = r"""
import sys, httpx2
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "plain", "version": "0"}}
headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28"}
with httpx2.Client(headers=headers) as client:
    def call(params, i):
        msg = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {**params, "_meta": meta}}
        return client.post(sys.argv[1], json=msg).json()["result"]
    if sys.argv[2] == "echo":
        print(call({"name": "echo", "arguments": {"text": "hi"}}, 1)["content"][0]["text"])
    else:
        params = {"name": "resolve", "arguments": {"workItemId": 4522}}
        answers = {"resolution": {"action": "accept", "content": {"resolution": "Duplicate"}},
                   "duplicateOfId": {"action": "accept", "content": {"duplicateOfId": 4301}}}
        result, i = call(params, 1), 1
        while result.get("resultType") == "input_required":
            i += 1
            asked = {k: answers[k] for k in result["inputRequests"]}
            result = call({**params, "inputResponses": asked, "requestState": result["requestState"]}, i)
        print(result["content"][0]["text"])
"""

ANSWERS = {"inputResponses": {
    "resolution": {"action": "accept", "content": {"resolution": "Duplicate"}},
    "duplicateOfId": {"action": "accept", "content": {"duplicateOfId": 4301}},
}}


def measure(runs: int, inspector: str | None = None) -> list[Row]:
    fastmcp = os.path.join(os.path.dirname(PY), "fastmcp")
    with tempfile.TemporaryDirectory() as home, script(PLAIN_HTTPX_CALL) as plain, \
            script(json.dumps(ANSWERS), ".json") as answers, http_server() as url:
        env = {**ENV, "XDG_STATE_HOME": os.path.join(home, "state")}
        commands = {
            "plain resolve": [PY, plain, url, "resolve"],
            "mrtr resolve": [*MRTR, "--url", url, "call", "resolve", "workItemId=4522", "--answers", answers],
            "plain echo": [PY, plain, url, "echo"],
            "mrtr echo": [*MRTR, "--url", url, "call", "echo", "text=hi"],
        }
        if os.path.exists(fastmcp):
            commands["fastmcp echo"] = [fastmcp, "call", url, "echo", "text=hi"]
        if inspector and shutil.which("node"):
            commands["node"] = ["node", "-e", "0"]
            commands["inspector echo"] = [inspector, "--cli", url, "--method", "tools/call", "--tool-name", "echo",
                                          "--tool-arg", "text=hi"]
        # The Inspector keeps a catalog in ~/.mcp-inspector: give it a throwaway home.
        t = interleaved(commands, runs, env={**env, "HOME": home})
    rows = [
        Row("mrtr call, 2 MRTR rounds, answer file", t["mrtr resolve"], "plain httpx2 script, same 3 POSTs",
            t["plain resolve"]),
        Row("mrtr call echo", t["mrtr echo"], "plain httpx2 script, 1 POST", t["plain echo"]),
    ]
    if "fastmcp echo" in t:
        rows.append(Row("fastmcp call echo (fastmcp 4.1.4)", t["fastmcp echo"], "plain httpx2 script, 1 POST",
                        t["plain echo"]))
    if "inspector echo" in t:
        rows.append(Row("MCP Inspector CLI tools/call echo", t["inspector echo"], "node -e 0", t["node"]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--inspector", metavar="PATH",
                        help="the MCP Inspector launcher, e.g. node_modules/.bin/inspector "
                             "(npm @modelcontextprotocol/inspector)")
    args = parser.parse_args()
    warm_bytecode()
    print_rows(f"one call over Streamable HTTP (median of {args.runs} runs)", measure(args.runs, args.inspector))


if __name__ == "__main__":
    sys.exit(main())
