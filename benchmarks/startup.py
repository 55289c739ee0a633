"""Startup and one stdio call, each beside its baseline from the same run.

Usage: python benchmarks/startup.py [--runs N]

- `mrtr --help` and `mrtr --version` beside `python -c pass` (bare interpreter start);
  target: `mrtr --help` within 2.5x.
- one `mrtr call` over stdio against the minimal raw-JSON server (benchmarks/min_server.py)
  beside a plain Python script doing the same exchange with no framework (start the
  server, one `tools/call`, read the answer, stop the server); target: within 1.3x.
  `mrtr call` also reads `tools/list` first (to type and check the arguments; the server
  says `ttlMs: 0`, so nothing is cached) and imports `jsonschema`: that is in the figure.
"""

from __future__ import annotations

import argparse
import shlex

from common import MIN_SERVER, MRTR, PY, Row, interleaved, print_rows, script, warm_bytecode

PLAIN_STDIO_CLIENT = r"""
import json, subprocess, sys
p = subprocess.Popen([sys.executable, sys.argv[1]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "plain", "version": "0"}}
msg = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
       "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": meta}}
p.stdin.write((json.dumps(msg) + "\n").encode()); p.stdin.flush()
print(json.loads(p.stdout.readline())["result"]["content"][0]["text"])
p.stdin.close(); p.wait()
"""


def measure(runs: int) -> list[Row]:
    with script(PLAIN_STDIO_CLIENT) as plain:
        t = interleaved({
            "python": [PY, "-c", "pass"],
            "help": [*MRTR, "--help"],
            "version": [*MRTR, "--version"],
            "plain": [PY, plain, MIN_SERVER],
            "call": [*MRTR, "--stdio", shlex.join([PY, MIN_SERVER]), "call", "echo", "text=hi"],
        }, runs)
    return [
        Row("mrtr --help", t["help"], "python -c pass", t["python"], target="<= 2.5x",
            met=t["help"] <= 2.5 * t["python"]),
        Row("mrtr --version", t["version"], "python -c pass", t["python"]),
        Row("mrtr call echo over stdio", t["call"], "plain script, same exchange", t["plain"], target="<= 1.3x",
            met=t["call"] <= 1.3 * t["plain"]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    warm_bytecode()
    print_rows(f"startup and one stdio call (median of {args.runs} runs)", measure(args.runs))


if __name__ == "__main__":
    main()
