"""One call with a valid stored OAuth token beside the same call to an open server (issue 13).

Usage: python benchmarks/auth_call.py [--runs N]

The minimal server (benchmarks/min_server.py --protected) serves the same tools at `/mcp`
(open) and at `/guarded/mcp` (a bearer token required, RFC 9728 metadata, its own token
endpoint). `mrtr auth login --client-credentials` signs in once; then `mrtr call echo` is
timed against both paths, interleaved. Target: the signed-in call costs at most 10 ms more
(reading the stored token; nothing of `mrtr_cli.auth` is needed while the token is valid).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

from common import ENV, MRTR, Row, http_server, interleaved, print_rows, warm_bytecode

TARGET_MS = 10.0


def measure(runs: int) -> list[Row]:
    with tempfile.TemporaryDirectory() as home, http_server("--protected") as url:
        guarded = url.replace("/mcp", "/guarded/mcp")
        env = {**ENV, "XDG_STATE_HOME": os.path.join(home, "state"), "BENCH_SECRET": "bench-secret"}
        login = subprocess.run([*MRTR, "--url", guarded, "auth", "login", "--client-credentials", "--client-id",
                                "bench", "--client-secret-env", "BENCH_SECRET"], env=env, capture_output=True,
                               text=True, stdin=subprocess.DEVNULL)
        if login.returncode != 0:
            raise RuntimeError(f"auth login failed ({login.returncode}): {login.stderr.strip()}")
        t = interleaved({
            "open": [*MRTR, "--url", url, "call", "echo", "text=hi"],
            "token": [*MRTR, "--url", guarded, "--no-input", "call", "echo", "text=hi"],
        }, runs, env=env)
    extra_ms = (t["token"] - t["open"]) * 1000
    return [Row("mrtr call echo, valid stored token", t["token"], "the same call to an open server", t["open"],
                target=f"<= +{TARGET_MS:.0f} ms (+{extra_ms:.1f} ms)", met=extra_ms <= TARGET_MS)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    warm_bytecode()
    print_rows(f"one call with a stored token (median of {args.runs} runs)", measure(args.runs))


if __name__ == "__main__":
    sys.exit(main())
