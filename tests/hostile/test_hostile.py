"""Run the hostile corpus (cases.py): every case, over every transport and era it
names, ends with its documented exit code, without a traceback, within a generous
safety bound, and leaves no process of its server behind."""

from __future__ import annotations

import os
import shlex
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PY, ROOT, Run, clean_env
from tests.hostile.cases import CASES, TABLE, Case

SAFETY = 180  # seconds: only against a hang, never a measure of speed


def runs() -> Iterator[tuple[str, str, str]]:
    for case in TABLE:
        for transport in case.transports:
            for era in case.eras:
                yield case.name, transport, era




def target(case: Case, transport: str, era: str, http_base: str | None) -> list[str]:
    if transport == "http":
        assert http_base is not None
        return ["--url", f"{http_base}/{case.name}/{era}/{uuid.uuid4().hex}/mcp"]
    server = shlex.join([PY, "-m", "tests.hostile.server", case.name, era])
    if case.wrap:
        server = shlex.join(["bash", "-c", server + "; true"])
    return ["--stdio", server]


def protocol(case: Case, transport: str, era: str) -> list[str]:
    """`--protocol`: the case's, else pinned to the era. A case of `--protocol auto` over HTTP
    (what the probe's answer does) gives the probe a bound of `SAFETY`: its default 2 s,
    counted from the send, a loaded machine outlasts, and mrtr then speaks 2025-11-25 without
    having read the answer the case is about (tests/README.md: the probe's bound is not under
    test). Over stdio the probe waits for a starting server, which the slow_* cases are about."""
    if case.protocol == "auto" and transport == "http":
        return ["--protocol", "auto", "--probe-timeout", f"{SAFETY:g}"]
    if case.protocol is not None:
        return ["--protocol", case.protocol]
    return ["--protocol", "2026-07-28" if era == "modern" else "2025-11-25"]


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


class HostileRun(Run):
    pid: int = 0


def mrtr(args: list[str], env: dict[str, str]) -> HostileRun:
    proc = subprocess.Popen([PY, "-m", "mrtr_cli", *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=ROOT, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=SAFETY)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        pytest.fail(f"mrtr did not end within {SAFETY}s (a hang): {err.decode(errors='replace')[-2000:]}")
    run = HostileRun(proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))
    run.pid = proc.pid
    return run


@pytest.mark.parametrize("name,transport,era", list(runs()))
def test_hostile_server(name: str, transport: str, era: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    case = CASES[name]
    base = request.getfixturevalue("http_base") if transport == "http" else None
    pids = tmp_path / "pids"
    trace = tmp_path / "trace.jsonl"
    env = clean_env(tmp_path, {"HOSTILE_PIDS": str(pids)})
    where = target(case, transport, era, base)
    if case.prime is not None:
        first = mrtr([*where, *protocol(case, transport, era), *case.prime], env)
        assert first.code == 0, first.stderr[-3000:]
    run = mrtr([*where, *protocol(case, transport, era), "--trace", str(trace), *case.args], env)
    detail = f"exit {run.code}\nstdout: {run.stdout[-1500:]}\nstderr: {run.stderr[-3000:]}"
    assert run.code == case.code, detail
    assert "Traceback" not in run.stderr, detail
    assert case.says in run.stderr, detail
    said = [line for line in run.stderr.splitlines() if line.startswith("mrtr:")]
    assert all(len(line) <= 1000 for line in said), detail  # server text in mrtr's lines is cut short
    assert case.out in run.stdout, detail
    if case.check is not None:
        case.check(run, trace)
    left = [int(p) for p in pids.read_text().split()] if pids.exists() else []
    assert not [pid for pid in left if alive(pid)], f"processes left running: {left}"
    if transport == "stdio":
        assert left, "the stdio server recorded no pid"  # the check above checked something
    assert not group_alive(run.pid), "a process of mrtr's own group is left running"
