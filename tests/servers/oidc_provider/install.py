#!/usr/bin/env python3
"""Install `oidc-provider` (npm, pinned) for the third-party sign-in tests, once per machine.

`ensure_installed()` returns `(node, modules)`: a Node.js program new enough for it and the
`node_modules` folder holding it, under `.cache/oidc-provider/` of the checkout (ignored by
git). It installs with `npm install --prefix` when that folder lacks the pinned version,
under a file lock (parallel test workers install once). The machine's `node` is used when it
is Node.js 22 or newer (what oidc-provider 9 supports); otherwise Node.js 22 is installed from npm beside it (as
scripts/conformance does). Raises `Unavailable` (its message says why) when npm is missing
or the install fails; the tests skip with that reason.

Run as a script (`.ci/run` does, before the tests) it installs and prints the two paths.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE = "oidc-provider@9.13.3"
NODE_PACKAGE = "node@22"
MIN_NODE = 22  # oidc-provider 9 warns "Unsupported runtime" on Node.js 20
ROOT = Path(__file__).resolve().parents[3]
CACHE = Path(os.environ.get("MRTR_OIDC_PROVIDER_CACHE") or ROOT / ".cache" / "oidc-provider")
INSTALL_TIMEOUT = 600


class Unavailable(Exception):
    """oidc-provider cannot be run on this machine (the message says why)."""


def node_major(node: str) -> int:
    """The major version of the Node.js program `node` (0 when it does not run)."""
    try:
        out = subprocess.run([node, "-p", "process.versions.node"], capture_output=True, text=True, timeout=60)
        return int(out.stdout.strip().split(".")[0])
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return 0


def ensure_installed() -> tuple[str, Path]:
    """`(node, node_modules)` with oidc-provider installed (see the module docstring).

    Raises:
        Unavailable: no npm, or `npm install` failed.
    """
    system_node = shutil.which("node")
    packages = [PACKAGE]
    if not system_node or node_major(system_node) < MIN_NODE:
        packages.append(NODE_PACKAGE)
    stamp = " ".join(packages)
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE.parent / (CACHE.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        installed = CACHE / ".installed"
        if not installed.exists() or installed.read_text().strip() != stamp:
            npm = shutil.which("npm")
            if not npm:
                raise Unavailable(f"npm is needed to install {stamp} (and node >= {MIN_NODE} to run it)")
            (CACHE / "package.json").write_text('{"private": true}\n')
            try:
                done = subprocess.run([npm, "install", "--prefix", str(CACHE), "--no-audit", "--no-fund",
                                       "--loglevel=error", *packages], capture_output=True, text=True,
                                      timeout=INSTALL_TIMEOUT)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise Unavailable(f"npm install {stamp} failed: {exc}") from None
            if done.returncode != 0:
                raise Unavailable(f"npm install {stamp} failed: {done.stderr.strip()[-500:]}")
            installed.write_text(stamp + "\n")
    node = str(CACHE / "node_modules" / ".bin" / "node") if NODE_PACKAGE in packages else system_node
    if node_major(node) < MIN_NODE:
        raise Unavailable(f"{node} does not run Node.js {MIN_NODE} or newer")
    return node, CACHE / "node_modules"


if __name__ == "__main__":
    try:
        print(*ensure_installed())
    except Unavailable as exc:
        print(f"oidc-provider: {exc}", file=sys.stderr)
        sys.exit(1)
