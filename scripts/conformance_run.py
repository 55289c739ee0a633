"""The runs of scripts/conformance: every client scenario of the pinned suite, each as its
own `conformance client --scenario` run, a bounded number at a time, judged one by one.

What runs (each scenario once per protocol version it is run at):
  - every dated `--spec-version` the suite knows (`conformance list --client
    --spec-version V`), each scenario at V; `draft` is the suite's name for its newest
    revision: when it lists the same scenarios as that revision it is judged by that run;
  - every requirement set (`--requirements R`): the client scenarios it runs, scored or
    not, at R's wire (`--spec-version R --force`, as the set runs them);
  - every scenario at the version the suite picks when none is given (what `--suite NAME`
    without `--spec-version` runs, for every suite: `all` holds the others), which is how
    the extension scenarios run.
A (scenario, version) pair is run once, whichever of these asks for it.

Each run gets the baseline (tests/conformance/expected-failures.yml): the suite's exit
code is then 0 for a pass, or for a listed scenario that fails; 1 for an unlisted failure
or a listed scenario that passes. A run also fails when an `mrtr` step ended with another
exit code than the client expects (the client's MRTR_CONFORMANCE_FAILURES file), when the
suite skipped a check (outside ALLOWED_SKIPS) or evaluated none (PASSED having tested
nothing), or when it has no checks.json at all.

Usage (from scripts/conformance): python scripts/conformance_run.py --client CMD --results DIR
    --baseline FILE [--jobs N] [--verbose]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

#: Checks the suite may skip: a 2026-07-28 client sends no initialize (nor its notification).
ALLOWED_SKIPS = {"ClientMcpMethodHeader_initialize", "ClientMcpMethodHeader_notifications_initialized"}
#: Milliseconds the suite gives one scenario (its --timeout; its default is 30 s). A safety
#: net only: the client bounds each mrtr step by its CPU time and a load-scaled wall limit
#: (tests/conformance/client), which end a stuck step long before this.
SCENARIO_TIMEOUT_MS = 1_800_000
NEWEST = "newest"  # the suite's default version when none is given (see default_version)


@dataclass
class Job:
    scenario: str
    version: str  # the version it runs at ("" when the suite picks)
    flags: list[str]
    asked_by: list[str] = field(default_factory=list)  # which runs ask for this pair
    code: int | None = None
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    expected_failure: bool = False
    checks: str = ""

    @property
    def slug(self) -> str:
        return f"{self.version or 'default'}/{self.scenario.replace('/', '_')}"


def conformance(*args: str) -> str:
    """The output (stdout and stderr) of `conformance ARGS` (a listing: it exits quickly)."""
    proc = subprocess.run(["conformance", *args], capture_output=True, text=True, timeout=300, check=False)
    return proc.stdout + proc.stderr


def client_scenarios() -> dict[str, list[str]]:
    """Every client scenario and the versions (or "extension") it is tagged with."""
    out = conformance("list", "--client")
    found: dict[str, list[str]] = {}
    for name, tags in re.findall(r"^  - (\S+) \[([^\]]*)\]$", out.split("Client scenarios", 1)[-1].split("\n\n")[0],
                                 re.M):
        found[name] = [t.strip() for t in tags.split(",")]
    if not found:
        raise SystemExit("conformance: `conformance list --client` listed no scenarios:\n" + out)
    return found


def listed(*args: str) -> list[str]:
    """The client scenario names `conformance list --client ARGS` prints."""
    out = conformance("list", "--client", *args)
    return re.findall(r"^  - (\S+)(?: \[[^\]]*\])?$", out, re.M)


def spec_versions() -> tuple[list[str], dict[str, str]]:
    """The dated versions `--spec-version` accepts, and its aliases (`{"draft":
    "2026-07-28"}`), from the suite's own message."""
    match = re.search(r"Valid versions: (.*)", conformance("list", "--client", "--spec-version", "?"))
    if not match:
        raise SystemExit("conformance: cannot tell which --spec-version values the suite has")
    dated = re.findall(r"\d{4}-\d{2}-\d{2}", re.sub(r"\(.*?\)", "", match.group(1)))
    aliases = dict(re.findall(r"'(\w+)' as an alias for (\d{4}-\d{2}-\d{2})", match.group(1)))
    return dated, aliases


def requirement_sets() -> list[str]:
    match = re.search(r"Requirement sets available: ([0-9, -]+)", conformance("list", "--help").replace("\n", " "))
    return [v.strip() for v in match.group(1).split(",") if v.strip()] if match else []


def requirement_scenarios(revision: str) -> list[str]:
    """The client scenarios `--requirements revision` runs: required and not scored."""
    out = conformance("list", "--client", "--requirements", revision)
    required = out.split("Client scenarios", 1)[-1].split("\n\n")[0]
    names = re.findall(r"^  - (\S+)$", required, re.M)
    names += re.findall(r"^    - (\S+) \[client\]$", out, re.M)
    return names


def default_version(tags: list[str]) -> str:
    """The version the suite speaks when given none: 2026-07-28 for a scenario introduced
    then, else 2025-11-25 (an extension's: unknown here, run as its own pair)."""
    if "extension" in tags:
        return ""
    return "2026-07-28" if tags == ["2026-07-28"] else "2025-11-25"


def plan() -> tuple[list[Job], list[str]]:
    """Every (scenario, version) pair to run, and notes on how the runs map onto them."""
    jobs: dict[tuple[str, str], Job] = {}
    notes: list[str] = []

    def add(scenario: str, version: str, flags: list[str], run: str) -> None:
        job = jobs.setdefault((scenario, version), Job(scenario, version, flags))
        job.asked_by.append(run)

    versions, aliases = spec_versions()
    for version in versions:
        for name in listed("--spec-version", version):
            add(name, version, ["--spec-version", version], f"--spec-version {version}")
    aliases.setdefault("draft", "")
    for alias, version in aliases.items():
        names = listed("--spec-version", alias)
        if version and sorted(names) == sorted(listed("--spec-version", version)):
            # The same scenarios at the same wire version: the runs above are this one's.
            for name in names:
                jobs[(name, version)].asked_by.append(f"--spec-version {alias} (= {version})")
            notes.append(f"--spec-version {alias}: the suite's alias for {version} (the same {len(names)} "
                         f"scenarios at the same version), judged by the {version} runs")
        else:
            for name in names:
                add(name, alias, ["--spec-version", alias], f"--spec-version {alias}")
    for revision in requirement_sets():
        for name in requirement_scenarios(revision):
            add(name, revision, ["--spec-version", revision, "--force"], f"--requirements {revision}")
    for name, tags in client_scenarios().items():
        add(name, default_version(tags), [], "--suite (no --spec-version)")
    # Longest first (sign-in scenarios run several mrtr commands), so the pool ends together.
    ordered = sorted(jobs.values(), key=lambda j: (not j.scenario.startswith("auth/"), j.version, j.scenario))
    return ordered, notes


def baseline_names(path: str) -> set[str]:
    with open(path, encoding="utf-8") as fh:
        return set(re.findall(r"^\s*-\s*([^\s#]+)", fh.read(), re.M))


def judge_checks(folder: str) -> tuple[list[str], str]:
    """Problems with a run's checks.json files (skipped or none evaluated), and a count."""
    paths = glob.glob(os.path.join(folder, "**", "checks.json"), recursive=True)
    if not paths:
        return ["no checks.json (the suite skipped the scenario)"], ""
    problems, counts = [], {"SUCCESS": 0, "FAILURE": 0, "WARNING": 0, "SKIPPED": 0, "INFO": 0}
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            checks = json.load(fh)
        for check in checks:
            status = check.get("status")
            counts[status] = counts.get(status, 0) + 1
            if status == "SKIPPED" and check.get("name") not in ALLOWED_SKIPS:
                problems.append(f"check skipped: {check.get('name')}: {check.get('errorMessage', '')}")
        if not any(c.get("status") in ("SUCCESS", "FAILURE", "WARNING") for c in checks):
            problems.append("reported PASSED with no check evaluated")
    summary = f"{counts['SUCCESS']} ok, {counts['FAILURE']} failed, {counts['WARNING']} warnings, " \
              f"{counts['SKIPPED']} skipped"
    return problems, summary


def run_job(job: Job, args: argparse.Namespace, expected: set[str]) -> Job:
    folder = os.path.join(args.results, job.slug)
    os.makedirs(folder, exist_ok=True)
    steps = os.path.join(folder, "failed-steps")
    log = os.path.join(folder, "log.txt")
    start = time.monotonic()
    with open(log, "w", encoding="utf-8") as out:
        job.code = subprocess.run(
            ["conformance", "client", "--command", args.client, "--scenario", job.scenario, *job.flags,
             "--timeout", str(SCENARIO_TIMEOUT_MS), "--expected-failures", args.baseline, "-o", folder],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, check=False,
            env=dict(os.environ, MRTR_CONFORMANCE_FAILURES=steps)).returncode
    job.seconds = time.monotonic() - start
    job.expected_failure = job.scenario in expected
    if job.code != 0:
        job.problems.append(f"the suite exited {job.code}"
                            + (" (a listed expected failure now passes: remove it)" if job.expected_failure else ""))
    if os.path.exists(steps) and os.path.getsize(steps):
        with open(steps, encoding="utf-8") as fh:
            job.problems += [f"mrtr step: {line.strip()}" for line in fh if line.strip()]
    problems, job.checks = judge_checks(folder)
    job.problems += problems
    return job


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--client", required=True)
    parser.add_argument("--results", required=True)
    parser.add_argument("--baseline", required=True)
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    jobs_at_once = args.jobs or cores
    jobs, notes = plan()
    expected = baseline_names(args.baseline)
    print(f"conformance: {len(jobs)} scenario runs, {jobs_at_once} at a time", file=sys.stderr, flush=True)
    for note in notes:
        print(f"   {note}")
    lock = threading.Lock()
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs_at_once) as pool:
        for job in (f.result() for f in concurrent.futures.as_completed(
                [pool.submit(run_job, job, args, expected) for job in jobs])):
            with lock:
                verdict = "FAIL" if job.problems else ("xfail" if job.expected_failure else "pass")
                print(f"{verdict:5} {job.version or 'default':10} {job.scenario:45} {job.seconds:6.1f}s  {job.checks}",
                      flush=True)
                for problem in job.problems:
                    print(f"     {problem}")
                if job.problems or args.verbose:
                    if job.problems:
                        print(f"     log: {os.path.join(args.results, job.slug, 'log.txt')}")
                    if args.verbose:
                        with open(os.path.join(args.results, job.slug, "log.txt"), encoding="utf-8") as fh:
                            sys.stdout.write(fh.read())
    print("== summary per run")
    runs: dict[str, list[Job]] = {}
    for job in jobs:
        for run in job.asked_by:
            runs.setdefault(run, []).append(job)
    for run, members in runs.items():
        failed = [j for j in members if j.problems]
        listed_fail = [j for j in members if j.expected_failure and not j.problems]
        print(f"   {run}: {len(members)} scenarios, {len(members) - len(failed) - len(listed_fail)} pass, "
              f"{len(listed_fail)} expected failures, {len(failed)} FAILED"
              + (": " + " ".join(f"{j.scenario}@{j.version or 'default'}" for j in failed) if failed else ""))
    failed = [j for j in jobs if j.problems]
    print(f"conformance: {len(jobs) - len(failed)} of {len(jobs)} scenario runs as expected, {len(failed)} failed; "
          f"{time.monotonic() - started:.0f} s with {jobs_at_once} at a time")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
