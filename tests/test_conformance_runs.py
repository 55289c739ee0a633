"""scripts/conformance's results folders: each run writes into a folder of its own under
the cache's runs/, so two runs from checkouts that share the cache (or one checkout) do
not clear each other's results, and only the newest runs are kept.

The script runs for real here, with a stand-in for the Node.js suite (a `conformance`
and a `node` in a cache folder of the test's, MRTR_CONFORMANCE_CACHE): one scenario whose
run writes its checks.json and, when asked, waits until the test lets it end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.bounds import SAFETY
from tests.conftest import ROOT

SUITE_STAMP = "node@22 @modelcontextprotocol/conformance@0.2.0-alpha.12"

FAKE_SUITE = '''#!{python}
"""A stand-in for the conformance suite: one client scenario, tools_call at 2025-11-25."""
import json, os, sys, time
args = sys.argv[1:]
if args[:1] == ["list"]:
    if args[1:] == ["--client", "--spec-version", "?"]:
        print("Valid versions: 2025-11-25")
    elif args[1:] == ["--client", "--spec-version", "2025-11-25"]:
        print("  - tools_call [2025-11-25]")
    elif args[1:] == ["--client"]:
        print("Client scenarios:\\n  - tools_call [2025-11-25]\\n")
    sys.exit(0)
folder = args[args.index("-o") + 1]
os.makedirs(os.path.join(folder, "tools_call-1"), exist_ok=True)
with open(os.path.join(folder, "tools_call-1", "checks.json"), "w") as fh:
    json.dump([{{"name": "ToolAddNumbers", "status": "SUCCESS", "run": os.environ.get("FAKE_SUITE_RUN")}}], fh)
hold = os.environ.get("FAKE_SUITE_HOLD")
if hold:
    open(os.path.join(hold, "started"), "w").close()
    deadline = time.monotonic() + {wait}
    while not os.path.exists(os.path.join(hold, "release")) and time.monotonic() < deadline:
        time.sleep(0.05)
'''


def fake_cache(tmp_path: Path) -> Path:
    """A cache folder whose node/ holds the stand-in suite and a `node` of version 22."""
    cache = tmp_path / "cache"
    bin_dir = cache / "node" / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    (cache / "node" / ".installed").write_text(SUITE_STAMP + "\n")
    suite = bin_dir / "conformance"
    suite.write_text(FAKE_SUITE.format(python=sys.executable, wait=SAFETY))
    node = bin_dir / "node"
    node.write_text('#!/bin/sh\nif [ "$1" = -p ]; then echo 22; else echo v22.0.0; fi\n')
    for tool in (suite, node):
        tool.chmod(0o755)
    return cache


def script(cache: Path, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["bash", str(ROOT / "scripts" / "conformance"), "-j", "1"],
        env=dict(os.environ, MRTR_CONFORMANCE_CACHE=str(cache), PYTHON=sys.executable, **env),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=SAFETY)
    return proc.returncode, out, err


def test_concurrent_runs_keep_their_own_results(tmp_path):
    cache = fake_cache(tmp_path)
    hold = tmp_path / "hold"
    hold.mkdir()
    first = script(cache, FAKE_SUITE_HOLD=str(hold), FAKE_SUITE_RUN="first")
    try:
        deadline = time.monotonic() + SAFETY
        while not (hold / "started").exists():
            assert first.poll() is None, finish(first)
            assert time.monotonic() < deadline, "the first run's scenario never started"
            time.sleep(0.05)
        # A second run starts and ends while the first one's scenario is still running.
        code, out, err = finish(script(cache, FAKE_SUITE_RUN="second"))
        assert code == 0, (out, err)
        assert "conformance: no regressions" in out
    finally:
        (hold / "release").touch()
    code, out, err = finish(first)
    assert code == 0, (out, err)
    assert "no checks.json" not in out + err
    assert "conformance: no regressions (logs: " in out
    # Each run's checks are still there, the first one's too.
    written = [json.loads(p.read_text())[0]["run"] for p in cache.glob("**/checks.json")]
    assert sorted(written) == ["first", "second"]
    assert len(list((cache / "runs").iterdir())) == 2


def test_only_the_newest_runs_stay(tmp_path):
    cache = fake_cache(tmp_path)
    runs = cache / "runs"
    for day in range(1, 16):
        (runs / f"202601{day:02d}T000000Z.old{day:03d}" / "default").mkdir(parents=True)
    code, out, err = finish(script(cache))
    assert code == 0, (out, err)
    kept = sorted(p.name for p in runs.iterdir())
    assert len(kept) == 10
    assert kept[:9] == [f"202601{day:02d}T000000Z.old{day:03d}" for day in range(7, 16)]
    logs = out.strip().rsplit("(logs: ", 1)[1].rstrip(")")
    assert Path(logs).parent == runs
