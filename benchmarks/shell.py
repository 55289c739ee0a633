"""`mrtr shell` from a script: N `call` lines over one session, beside a plain Python script
doing the same N round trips over stdio to the same server, and beside N separate
`mrtr call` processes.

Usage: python benchmarks/shell.py [--calls N] [--runs R]

Two servers:
- the minimal raw-JSON server (benchmarks/min_server.py), which costs next to nothing per
  call, so the figure is mrtr's own work per line (and its start-up) against a bare loop.
  It is started with `--ttl-ms 60000`: its tool list stays valid for a minute, as a server
  with a fixed list would say. (With `ttlMs` 0 and no `listChanged`, the caching rules have
  the shell read `tools/list` again before each call: also measured, as its own row.)
- the bundled example server on the official SDK (examples/servers/work_items.py, tool
  `list_work_items`), when `mcp` is installed: a server doing real work per call, with
  `listChanged` (the shell keeps its tool list until the server says it changed).

Every figure is the whole process, start-up included (the server's too), timed in turns
(shell, plain, shell, plain ...) so a busy moment weighs on both; the N separate
`mrtr call` processes are run once per round. Targets: the shell within 1.5x of the plain
script, and at least 10x faster than the separate processes.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import statistics
import tempfile
import time

from common import ENV, MIN_SERVER, MRTR, PY, ROOT, Row, print_rows, run_quiet, script, warm_bytecode

EXAMPLE_SERVER = os.path.join(ROOT, "examples", "servers", "work_items.py")

PLAIN_STDIO_LOOP = r"""
import json, shlex, subprocess, sys
server, tool, calls = shlex.split(sys.argv[1]), sys.argv[2], int(sys.argv[3])
p = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "plain", "version": "0"}}
for i in range(calls):
    msg = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
           "params": {"name": tool, "arguments": {"text": f"call {i}"} if tool == "echo" else {}, "_meta": meta}}
    p.stdin.write((json.dumps(msg) + "\n").encode()); p.stdin.flush()
    while True:
        reply = json.loads(p.stdout.readline())
        if reply.get("id") == i:
            break
    for block in reply["result"]["content"]:
        print(block.get("text", ""))
p.stdin.close(); p.wait()
"""


def _timed(argv: list[str], env: dict[str, str], stdin: str | None = None) -> float:
    start = time.perf_counter()
    if stdin is None:
        run_quiet(argv, env=env)
    else:
        with open(stdin, "rb") as fh:
            run_quiet(argv, env=env, stdin=fh)
    return time.perf_counter() - start


def _rows(label: str, server: str, tool: str, calls: int, runs: int, env: dict[str, str], *,
          separate: bool) -> list[Row]:
    line = f"call {tool} text=hi\n" if tool == "echo" else f"call {tool}\n"
    with script(PLAIN_STDIO_LOOP) as plain, script(line * calls, ".txt") as lines:
        shell = [*MRTR, "--stdio", server, "shell"]
        plain_argv = [PY, plain, server, tool, str(calls)]
        one_call = [*MRTR, "--stdio", server, *line.split()]
        _timed(shell, env, lines)  # warm-up
        _timed(plain_argv, env)
        times: dict[str, list[float]] = {"shell": [], "plain": [], "separate": []}
        for _ in range(runs):
            times["shell"].append(_timed(shell, env, lines))
            times["plain"].append(_timed(plain_argv, env))
            if separate:
                start = time.perf_counter()
                for _ in range(calls):
                    run_quiet(one_call, env=env)
                times["separate"].append(time.perf_counter() - start)
    t = {name: statistics.median(v) for name, v in times.items() if v}
    rows = [Row(f"mrtr shell, {calls} calls ({label})", t["shell"], "plain script, same round trips", t["plain"],
                target="<= 1.5x", met=t["shell"] <= 1.5 * t["plain"])]
    if separate:
        rows.append(Row(f"mrtr shell, {calls} calls ({label})", t["shell"], f"{calls} mrtr call processes",
                        t["separate"], target="<= 0.1x", met=t["shell"] * 10 <= t["separate"]))
    return rows


def measure(calls: int = 300, runs: int = 5) -> list[Row]:
    with tempfile.TemporaryDirectory() as home:
        env = {**ENV, "XDG_STATE_HOME": os.path.join(home, "state")}
        rows = _rows("minimal server, list valid 60 s", shlex.join([PY, MIN_SERVER, "--ttl-ms", "60000"]), "echo",
                     calls, runs, env, separate=True)
        rows += _rows("minimal server, ttlMs 0", shlex.join([PY, MIN_SERVER]), "echo", calls, runs, env,
                      separate=False)
        if importlib.util.find_spec("mcp") is not None:
            rows += _rows("the SDK example server", shlex.join([PY, EXAMPLE_SERVER]), "list_work_items", calls,
                          runs, env, separate=False)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    warm_bytecode()
    print_rows(f"mrtr shell from a script (median of {args.runs} runs)", measure(args.calls, args.runs))


if __name__ == "__main__":
    main()
