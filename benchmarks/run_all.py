"""Run every benchmark and print the results as Markdown (or write them into docs/performance.md).

Usage:
    python benchmarks/run_all.py [--runs N] [--inspector PATH] [--write docs/performance.md]

Plain Python, no special tools: the Python that runs `mrtr` (its own `httpx2` serves the
plain HTTP baselines). `fastmcp call` is included when `fastmcp` is installed next to
this Python (`pip install fastmcp`), the MCP Inspector CLI when --inspector names its
launcher (`npm install --prefix /tmp/inspector @modelcontextprotocol/inspector`, then
`--inspector /tmp/inspector/node_modules/.bin/inspector`). With --write, the block
between the `<!-- results -->` markers of that file is replaced.
"""

from __future__ import annotations

import argparse
import datetime
import sys

import auth_call
import http_call
import memory
import shell
import startup
import throughput
from common import Row, machine, warm_bytecode

START, END = "<!-- results:start -->", "<!-- results:end -->"


def table(rows: list[Row]) -> list[str]:
    out = ["| figure | median | baseline (same run) | baseline median | ratio | target |",
           "|---|---:|---|---:|---:|---|"]
    for row in rows:
        ratio = f"{row.ratio:.2f}x" if row.ratio is not None else ""
        base = row.shown(row.base_value) if row.base_value is not None else ""
        target = f"{row.target}: {'met' if row.met else '**not met**'}" if row.target else ""
        out.append(f"| {row.name} | {row.shown()} | {row.baseline} | {base} | {ratio} | {target} |")
    return out


def report(runs: int, inspector: str | None) -> str:
    warm_bytecode()
    sections = [
        (f"Startup and one stdio call (median of {runs} runs)", startup.measure(runs)),
        (f"One call over Streamable HTTP (median of {runs} runs)", http_call.measure(runs, inspector)),
        (f"One call with a valid stored OAuth token (median of {runs} runs)", auth_call.measure(runs)),
        ("Batch throughput over Streamable HTTP (median of 9 runs)", throughput.measure(1000, 16, 9)),
        ("mrtr shell from a script, 300 calls over stdio (median of 3 runs)", shell.measure(300, 3)),
        ("Peak memory reading a 50 MB resource over Streamable HTTP", memory.measure()),
    ]
    lines = [f"Measured {datetime.date.today().isoformat()} on {machine()}.", ""]
    for title, rows in sections:
        lines += [f"**{title}**", "", *table(rows), ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--inspector", metavar="PATH", help="the MCP Inspector launcher (node_modules/.bin/inspector)")
    parser.add_argument("--write", metavar="FILE", help="replace the results block of FILE (docs/performance.md)")
    args = parser.parse_args()
    text = report(args.runs, args.inspector)
    print(text)
    if args.write:
        with open(args.write, encoding="utf-8") as fh:
            doc = fh.read()
        if START not in doc or END not in doc:
            sys.exit(f"{args.write}: no {START} ... {END} block to replace")
        head, rest = doc.split(START, 1)
        _, tail = rest.split(END, 1)
        with open(args.write, "w", encoding="utf-8") as fh:
            fh.write(f"{head}{START}\n{text}\n{END}{tail}")


if __name__ == "__main__":
    main()
