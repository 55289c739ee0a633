"""Peak memory reading one large resource, beside a plain httpx2 script from the same run.

Usage: python benchmarks/memory.py [--size BYTES]

`mrtr read big://N` against the minimal server over Streamable HTTP (a JSON response,
then an SSE response), stdout to /dev/null, as text and with `--json`; the baseline is a
plain script doing the same POST with httpx2 and `response.json()` and writing the text
out. Figures are peak resident set size (the server is a separate process, not counted).
Target: under 3x the resource size.
"""

from __future__ import annotations

import argparse

from common import MRTR, PY, Row, http_server, peak_rss, print_rows, script, warm_bytecode

PLAIN_HTTPX_READ = r"""
import sys, httpx2
msg = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": sys.argv[2]}}
r = httpx2.post(sys.argv[1], json=msg, headers={"Accept": "application/json, text/event-stream"}, timeout=None)
sys.stdout.write(r.json()["result"]["contents"][0]["text"])
"""

SIZE = 50_000_000


def measure(size: int = SIZE) -> list[Row]:
    uri = f"big://{size}"
    rows = []
    target = f"< 3x ({3 * size / 1e6:.0f} MB)"
    with script(PLAIN_HTTPX_READ) as plain, http_server() as url:
        base = peak_rss([PY, plain, url, uri])
        for name, extra in (("mrtr read (text)", []), ("mrtr read --json", ["--json"])):
            value = peak_rss([*MRTR, "--url", url, "read", uri, *extra])
            rows.append(Row(f"{name}, JSON response", value, "plain httpx2 script", base, unit="MB",
                            target=target, met=value < 3 * size))
    with http_server("--sse") as url:
        value = peak_rss([*MRTR, "--url", url, "read", uri])
        rows.append(Row("mrtr read (text), SSE response", value, unit="MB", target=target, met=value < 3 * size))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=SIZE, help="resource size in bytes (default 50 MB)")
    args = parser.parse_args()
    warm_bytecode()
    print_rows(f"peak memory reading a {args.size / 1e6:.0f} MB resource", measure(args.size))


if __name__ == "__main__":
    main()
