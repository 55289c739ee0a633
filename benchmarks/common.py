"""Shared helpers for the benchmarks: timing, peak memory, the minimal server, the machine.

Everything here is the standard library; the benchmarks need only the Python that
runs `mrtr` (with `httpx2`, a dependency of `mrtr`, for the plain HTTP baselines).
Every Python command runs with bytecode caching allowed and after a warm-up run, as
an installed package would (an environment with PYTHONDONTWRITEBYTECODE=1 would
otherwise recompile every module on every run and measure the compiler).
"""

from __future__ import annotations

import compileall
import contextlib
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass

PY = sys.executable
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MIN_SERVER = os.path.join(HERE, "min_server.py")
MRTR = [PY, "-m", "mrtr_cli"]

# Bytecode cached, no user state or config from this machine leaking into the figures.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("MRTR_")}


@dataclass
class Row:
    """One figure beside its baseline from the same run.

    Attributes:
        name: what was measured.
        value: the median (seconds, calls per second or bytes, see `unit`).
        baseline: the baseline's name, or "" when there is none.
        base_value: the baseline's median.
        unit: "s", "calls/s" or "MB".
        target: the target as text (e.g. "<= 2x"), or "".
        met: whether the target is met (None when there is no target).
    """

    name: str
    value: float
    baseline: str = ""
    base_value: float | None = None
    unit: str = "s"
    target: str = ""
    met: bool | None = None

    @property
    def ratio(self) -> float | None:
        return None if not self.base_value else self.value / self.base_value

    def shown(self, value: float | None = None) -> str:
        value = self.value if value is None else value
        if self.unit == "s":
            return f"{value * 1000:.0f} ms"
        if self.unit == "MB":
            return f"{value / 1e6:.0f} MB"
        return f"{value:.0f} {self.unit}"


def warm_bytecode() -> None:
    """Compile mrtr and what it imports once, as `pip install` would."""
    subprocess.run([*MRTR, "--help"], env=ENV, stdout=subprocess.DEVNULL, check=True)
    compileall.compile_dir(os.path.join(ROOT, "mrtr_cli"), quiet=1)


def run_quiet(argv: list[str], **kw: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=kw.pop("env", ENV),
                          check=True, **kw)  # type: ignore[arg-type]


def median_time(argv: list[str], runs: int, *, env: dict[str, str] | None = None, cwd: str | None = None) -> float:
    """Median wall time of `argv` (seconds) over `runs` runs, after one warm-up run."""
    run_quiet(argv, env=env or ENV, cwd=cwd)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run_quiet(argv, env=env or ENV, cwd=cwd)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved(commands: dict[str, list[str]], runs: int, *, env: dict[str, str] | None = None) -> dict[str, float]:
    """Median wall times of several commands, run in turn (A B C A B C ...), so a busy
    moment on the machine affects all of them alike."""
    for argv in commands.values():
        run_quiet(argv, env=env or ENV)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            start = time.perf_counter()
            run_quiet(argv, env=env or ENV)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def peak_rss(argv: list[str], *, env: dict[str, str] | None = None) -> int:
    """Peak resident set size (bytes) of the process `argv` (and any children it waited for)."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env or ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv} exited with {proc.returncode}")
    return usage.ru_maxrss * 1024  # kilobytes on Linux


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def http_server(*options: str, server: str = MIN_SERVER) -> Iterator[str]:
    """The minimal server over Streamable HTTP (`--sse`: responses as SSE events), or another
    `server` script that takes `--http PORT` and serves /mcp; yields its URL."""
    port = free_port()
    proc = subprocess.Popen([PY, server, "--http", str(port), *options], env=ENV, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("the benchmark server did not start") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait()


@contextlib.contextmanager
def script(text: str, suffix: str = ".py") -> Iterator[str]:
    """A temporary file holding `text` (a baseline script, an answer file, a batch)."""
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False) as fh:
        fh.write(text)
    try:
        yield fh.name
    finally:
        os.unlink(fh.name)


def machine() -> str:
    """One line describing the machine and software."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as fh:
        names = [line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")]
        if names:
            cpu = f"{names[0]} ({len(names)} cores)"
    mem = ""
    with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/meminfo", encoding="utf-8") as fh:
        mem = f", {int(fh.readline().split()[1]) / 1024 / 1024:.0f} GB RAM"
    node = ""
    if shutil.which("node"):
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            node = ", Node " + subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    return (f"{cpu}{mem}; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}{node}")


def print_rows(title: str, rows: list[Row]) -> None:
    """A plain-text table of `rows` on stdout."""
    print(title)
    for row in rows:
        line = f"  {row.name:44s} {row.shown():>14s}"
        if row.baseline:
            line += f"   {row.baseline}: {row.shown(row.base_value)} ({row.ratio:.2f}x)"
        if row.target:
            line += f"   target {row.target}: {'met' if row.met else 'NOT met'}"
        print(line)
