"""One call with a valid stored OAuth token beside the same call to an open server, and one
with a stored DPoP-bound token beside the bearer-token call.

Usage: python benchmarks/auth_call.py [--runs N]

The minimal server (benchmarks/min_server.py --protected) serves the same tools at `/mcp`
(open) and at `/guarded/mcp` (a bearer token required, RFC 9728 metadata, its own token
endpoint). `mrtr auth login --client-credentials` signs in once; then `mrtr call echo` is
timed against both paths, interleaved: wall time, and the CPU time (user + system) of the
`mrtr` process, which a busy machine disturbs far less than wall time. Target: the signed-in
call costs at most 10 ms more (reading the stored token; nothing of `mrtr_cli.auth` is
imported while the token is valid). The same server's `/bound/mcp` wants a DPoP-bound token
(RFC 9449): signed in there with `--dpop`, each request carries a new proof; target: at
most 10 ms more than the bearer-token call (loading `cryptography`, one ES256 signature
per request).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from common import ENV, MRTR, Row, http_server, print_rows, warm_bytecode

TARGET_MS = 10.0


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system) of one run of `argv`, which must exit 0."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv} exited with {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def row(name: str, value: float, base: float, baseline: str = "the same call to an open server") -> Row:
    extra_ms = (value - base) * 1000
    return Row(name, value, baseline, base,
               target=f"<= +{TARGET_MS:.0f} ms (+{extra_ms:.1f} ms)", met=extra_ms <= TARGET_MS)


def measure(runs: int) -> list[Row]:
    with tempfile.TemporaryDirectory() as home, http_server("--protected") as url:
        guarded = url.replace("/mcp", "/guarded/mcp")
        bound = url.replace("/mcp", "/bound/mcp")
        env = {**ENV, "XDG_STATE_HOME": os.path.join(home, "state"), "BENCH_SECRET": "bench-secret"}
        for target, dpop in ((guarded, "--no-dpop"), (bound, "--dpop")):
            login = subprocess.run([*MRTR, "--url", target, "auth", "login", "--client-credentials", "--client-id",
                                    "bench", "--client-secret-env", "BENCH_SECRET", dpop], env=env,
                                   capture_output=True, text=True, stdin=subprocess.DEVNULL)
            if login.returncode != 0:
                raise RuntimeError(f"auth login failed ({login.returncode}): {login.stderr.strip()}")
        commands = {
            "open": [*MRTR, "--url", url, "call", "echo", "text=hi"],
            "token": [*MRTR, "--url", guarded, "--no-input", "call", "echo", "text=hi"],
            "dpop": [*MRTR, "--url", bound, "--no-input", "call", "echo", "text=hi"],
        }
        for argv in commands.values():  # warm-up
            timed(argv, env)
        runs_of: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(runs):
            for name, argv in commands.items():
                runs_of[name].append(timed(argv, env))
    wall = {name: statistics.median(w for w, _ in r) for name, r in runs_of.items()}
    cpu = {name: statistics.median(c for _, c in r) for name, r in runs_of.items()}
    return [row("mrtr call echo, valid stored token (wall)", wall["token"], wall["open"]),
            row("mrtr call echo, valid stored token (CPU)", cpu["token"], cpu["open"]),
            row("mrtr call echo, stored DPoP-bound token (wall)", wall["dpop"], wall["token"], "the bearer-token call"),
            row("mrtr call echo, stored DPoP-bound token (CPU)", cpu["dpop"], cpu["token"], "the bearer-token call")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    warm_bytecode()
    print_rows(f"one call with a stored token (median of {args.runs} runs)", measure(args.runs))


if __name__ == "__main__":
    sys.exit(main())
