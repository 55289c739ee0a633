"""Startup and per-call overhead of `mrtr`, each beside its baseline from the same run.

Usage: python benchmarks/startup.py [--runs N]

Prints median wall times for:
- `python -c pass` (bare interpreter start: the baseline),
- `mrtr --help` and `mrtr --version`,
- one `mrtr call` over stdio against a minimal raw-JSON stdio server, beside a plain
  Python script doing the same exchange with no framework.
Target: `mrtr --help` within 6x of bare interpreter start.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

PY = sys.executable
HERE = os.path.dirname(os.path.abspath(__file__))
MIN_SERVER = os.path.join(HERE, "min_server.py")

PLAIN_CLIENT = r"""
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


# Measure as installed: bytecode cached (an environment that forbids writing .pyc
# files would make every run recompile and measure the compiler instead).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def warm_bytecode() -> None:
    """Compile mrtr and its imports once, as `pip install` would."""
    subprocess.run([PY, "-m", "mrtr_cli", "--help"], env=ENV, stdout=subprocess.DEVNULL, check=True)
    import compileall

    import mrtr_cli

    compileall.compile_dir(os.path.dirname(mrtr_cli.__file__), quiet=1)


def median_time(argv: list[str], runs: int) -> float:
    times = []
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, check=True)  # warm-up
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    mrtr = [PY, "-m", "mrtr_cli"]
    warm_bytecode()
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(PLAIN_CLIENT)
        plain = fh.name
    try:
        figures = {
            "python -c pass": median_time([PY, "-c", "pass"], args.runs),
            "mrtr --help": median_time([*mrtr, "--help"], args.runs),
            "mrtr --version": median_time([*mrtr, "--version"], args.runs),
            "plain script, one stdio call": median_time([PY, plain, MIN_SERVER], args.runs),
            "mrtr call over stdio": median_time(
                [*mrtr, "--stdio", shlex.join([PY, MIN_SERVER]), "call", "echo", "text:=\"hi\""], args.runs),
        }
    finally:
        os.unlink(plain)
    base = figures["python -c pass"]
    if args.json:
        print(json.dumps({k: round(v * 1000, 1) for k, v in figures.items()}))
        return
    print(f"median of {args.runs} runs, {sys.version.split()[0]} on {sys.platform}")
    for name, seconds in figures.items():
        print(f"  {name:34s} {seconds * 1000:8.1f} ms  ({seconds / base:4.1f}x python -c pass)")
    ratio = figures["mrtr call over stdio"] / figures["plain script, one stdio call"]
    print(f"  mrtr call / plain script: {ratio:.2f}x")


if __name__ == "__main__":
    main()
