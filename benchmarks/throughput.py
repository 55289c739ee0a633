"""Batch throughput over Streamable HTTP, beside a plain httpx2 loop from the same run.

Usage: python benchmarks/throughput.py [--calls N] [--jobs J] [--runs R]

`mrtr batch` of N `tools/call echo` lines with `-j J` (one HTTP connection pool)
against the minimal server, records to /dev/null, beside a plain Python script doing
the same N POSTs from J threads sharing one `httpx2.Client`. Both are timed as whole
processes (start-up included), and reported as calls per second. Target: mrtr at
least as fast as the plain loop (1.0x). The same again against a server this benchmark
did not write: the bundled example server on the official SDK (examples/servers/
work_items.py over Streamable HTTP, tool `list_work_items`), when the SDK is installed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import tempfile
import time

from common import ENV, MRTR, PY, ROOT, Row, http_server, print_rows, run_quiet, script, warm_bytecode

EXAMPLE_SERVER = os.path.join(ROOT, "examples", "servers", "work_items.py")

PLAIN_HTTPX_LOOP = r"""
import json, sys
from concurrent.futures import ThreadPoolExecutor
import httpx2
url, calls, jobs, tool, args = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], json.loads(sys.argv[5])
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "plain", "version": "0"}}
headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
           "Mcp-Method": "tools/call", "Mcp-Name": tool}
limits = httpx2.Limits(max_connections=64, max_keepalive_connections=32)
with httpx2.Client(headers=headers, limits=limits) as client:
    def one(i):
        msg = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
               "params": {"name": tool, "arguments": {k: v.format(i=i) for k, v in args.items()}, "_meta": meta}}
        return client.post(url, json=msg).json()["result"]
    with ThreadPoolExecutor(jobs) as pool:
        for result in pool.map(one, range(calls)):
            sys.stdout.write(json.dumps(result) + "\n")
"""


def measure(calls: int = 1000, jobs: int = 16, runs: int = 5) -> list[Row]:
    rows = [_measure("minimal server", MIN_SERVER_ARGS, "echo", {"text": "call {i}"}, calls, jobs, runs)]
    if importlib.util.find_spec("mcp") is not None:
        rows.append(_measure("the SDK example server", {"server": EXAMPLE_SERVER}, "list_work_items", {},
                             calls, jobs, runs))
    return rows


MIN_SERVER_ARGS: dict[str, str] = {}


def _measure(label: str, server: dict[str, str], tool: str, arguments: dict[str, str], calls: int, jobs: int,
             runs: int) -> Row:
    lines = "".join(json.dumps({"id": i, "call": tool, "arguments": {k: v.format(i=i) for k, v in arguments.items()}})
                    + "\n" for i in range(calls))
    with tempfile.TemporaryDirectory() as home, script(PLAIN_HTTPX_LOOP) as plain, \
            script(lines, ".jsonl") as batch, http_server(**server) as url:
        env = {**ENV, "XDG_STATE_HOME": os.path.join(home, "state")}
        commands = {
            "plain": [PY, plain, url, str(calls), str(jobs), tool, json.dumps(arguments)],
            "mrtr": [*MRTR, "--url", url, "batch", batch, "-j", str(jobs)],
        }
        for argv in commands.values():
            run_quiet(argv, env=env)  # warm-up
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(runs):
            for name, argv in commands.items():
                start = time.perf_counter()
                run_quiet(argv, env=env)
                times[name].append(time.perf_counter() - start)
    rate = {name: calls / statistics.median(t) for name, t in times.items()}
    return Row(f"mrtr batch, {calls} calls, -j {jobs} ({label})", rate["mrtr"], f"plain httpx2 loop, {jobs} threads",
               rate["plain"], unit="calls/s", target=">= 1.0x", met=rate["mrtr"] >= rate["plain"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=16)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    warm_bytecode()
    print_rows(f"batch throughput (median of {args.runs} runs)", measure(args.calls, args.jobs, args.runs))


if __name__ == "__main__":
    main()
