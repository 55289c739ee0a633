"""Test fixtures: run `mrtr` as a real process against real servers started here.

Servers are the official SDK's (examples/ and tests/servers/) or hand-written raw
JSON-RPC processes, over stdio or Streamable HTTP on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mrtr_cli.platform import shellwords
from tests.bounds import SAFETY
from tests.listening import closed_port, start_listening
from tests.prefork import launch_argv, stop_group
from tests.probe_bound import check_probe_bound, served

# A test run started in the background of a script (`pytest &`) inherits SIGINT ignored,
# and so would every mrtr it starts (Python keeps an ignored SIGINT ignored, as a shell's
# background job should): the tests that press Ctrl-C, or send SIGINT, found mrtr deaf to
# it. They stand for a person at a terminal, where Ctrl-C is never ignored.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Hypothesis's own time checks measure the machine, not the code: on two shared cores at a
# load of 40 a strategy's draw can take over a second (the `too_slow` health check) and an
# example longer than 200 ms (`deadline`). Every test keeps its pytest-timeout bound.
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

hypothesis_settings.register_profile("shared-cores", deadline=None, suppress_health_check=[HealthCheck.too_slow])
hypothesis_settings.load_profile("shared-cores")

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
SERVERS = TESTS / "servers"
EXAMPLE_SERVER = ROOT / "examples" / "servers" / "work_items.py"
ANSWERS = ROOT / "examples" / "answers"
PY = sys.executable


#: Test files whose tests wait on real time (tasks that run for seconds, timeouts, signals,
#: fuzzing, the README's examples), as paths under tests/: marked `slow`, with every `pty`
#: and `integration` test, so that `pytest -m "not slow"` is the quick loop.
SLOW_FILES = {
    "batch/test_robustness.py",
    "test_hostile_input_fuzz.py",
    "test_readme_examples.py",
    "tasks/test_tasks.py",
    "tasks/test_commands.py",
    "tasks/test_legacy.py",
    "auth/test_dpop_binding.py",
    "auth/test_scopes_secrets.py",
    "auth/test_signin.py",
    "hostile/test_fuzz_reader.py",
    "hostile/test_limits_options.py",
    "protocol/features/test_listen.py",
    "protocol/test_progress_cancel.py",
    "protocol/test_timeouts_silent_server.py",
    # the case matrices: every hostile server case, every scenario in every era
    "hostile/test_hostile.py",
    "protocol/era/test_scenarios.py",
}


def _under_tests(item: pytest.Item) -> str:
    """`item`'s file as a path under tests/ with forward slashes ("auth/test_signin.py")."""
    return item.path.relative_to(TESTS).as_posix()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: half as many workers again as this process may use cores (3 on 2 cores).
    Many tests spend their time waiting on a process (a pseudo-terminal prompt, a task's
    poll, a timeout that is the behaviour), so one worker per core left the cores idle a
    third of the time; measured on two cores, 3 workers took the suite from 11 to 8 minutes."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(2, cores + cores // 2)


def needs_posix(behaviour: str) -> pytest.MarkDecorator:
    """Skip a test on Windows, saying which POSIX behaviour it needs ("pseudo-terminals",
    "process groups and signals", "FIFOs", "network namespaces (unshare)"): docs/platforms.md."""
    return pytest.mark.skipif(sys.platform == "win32", reason=f"needs POSIX: {behaviour}")


#: On Windows, a test whose own code uses one of these is skipped with `needs_posix`, naming
#: the behaviour (every `pty` test is too: `pytest_collection_modifyitems`).
POSIX_ONLY = (("pexpect", "pseudo-terminals (pexpect)"), ("mkfifo", "FIFOs"), ("/proc/", "/proc"),
              ("/dev/", "device files"), ("/bin/sh", "a POSIX shell"), ("unshare", "network namespaces (unshare)"),
              ("killpg", "process groups"), ("SIGKILL", "POSIX signals"), ("SIGTERM", "POSIX signals"),
              ("SIGINT", "POSIX signals"), ("SIGSTOP", "POSIX signals"), ("fcntl", "fcntl"))


def _posix_behaviour(item: pytest.Item) -> str | None:
    """The POSIX behaviour `item`'s own code uses (`POSIX_ONLY`), or None."""
    import inspect

    try:
        source = inspect.getsource(item.function)  # type: ignore[attr-defined]
    except (AttributeError, OSError, TypeError):
        return None
    return next((behaviour for word, behaviour in POSIX_ONLY if word in source), None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark `slow` what the quick loop (`-m "not slow"`) leaves out (see SLOW_FILES); a
    `pty` test needs POSIX's pseudo-terminals (`needs_posix`)."""
    for item in items:
        if _under_tests(item) in SLOW_FILES or item.get_closest_marker("pty") or item.get_closest_marker("integration"):
            item.add_marker(pytest.mark.slow)
        if sys.platform == "win32":
            behaviour = "pseudo-terminals (pexpect)" if item.get_closest_marker("pty") else _posix_behaviour(item)
            if behaviour:
                item.add_marker(needs_posix(behaviour))
    # Files with slow tests first: pytest-xdist hands out whole files (--dist loadfile) in
    # this order, so the long ones start early and the short ones fill the end of the run,
    # instead of one worker finishing a long file alone.
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)


@dataclass
class Run:
    """A finished `mrtr` process."""

    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


#: Variables a test's `mrtr` never inherits. COLUMNS and LINES: the pytest-xdist workers carry
#: COLUMNS=80 LINES=24 (the workers load readline, which can export them), and rich takes
#: COLUMNS over the terminal's real size, so in a 140-column pseudo-terminal the live status
#: line was cut to 80 columns with an ellipsis (the "Ctrl-C ..." hint and the elapsed clock
#: gone): the pty tests failed under `-n`, whatever the machine's speed.
#: What the machine's environment must not lend a test's `mrtr`: the terminal size
#: overrides, and where the user's config files are (mrtr's own and every MCP host's: a
#: developer's own ~/.claude.json or servers.json must not change what `-s NAME` finds).
NOT_INHERITED = ("COLUMNS", "LINES", "XDG_CONFIG_HOME", "APPDATA", "CLAUDE_CONFIG_DIR", "CODEX_HOME",
                 "GEMINI_CLI_HOME", "OPENCODE_CONFIG", "FLATPAK_XDG_CONFIG_HOME", "BROWSER")


def clean_env(tmp_path: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a test's `mrtr`: this one without MRTR_* settings and what
    `NOT_INHERITED` names, with its own state directory and home folder under `tmp_path`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MRTR_") and k not in NOT_INHERITED}
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env["HOME"] = env["USERPROFILE"] = str(home)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A fake home folder (with .config/) in the test's temp dir (config file tests)."""
    path = tmp_path / "home"
    (path / ".config").mkdir(parents=True)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A fake project folder in the test's temp dir (config file tests)."""
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def started() -> Iterator[Callable[..., Any]]:
    """`started(Kind, *args, **options)` makes `Kind(*args, **options)` (a server with a
    `stop()`), and stops it at teardown."""
    made: list[Any] = []

    def start(kind: Callable[..., Any], *args: Any, **options: Any) -> Any:
        made.append(kind(*args, **options))
        return made[-1]

    yield start
    for server in made:
        server.stop()


@pytest.fixture
def mrtr(tmp_path: Path) -> Callable[..., Run]:
    """Run `python -m mrtr_cli ARGS...` and return its exit code and output."""

    def run(*args: str, input: str | None = None, env: dict[str, str] | None = None, timeout: float = SAFETY,
            cwd: Path | None = None) -> Run:
        check_probe_bound(args, env)
        proc = subprocess.run(
            [PY, "-m", "mrtr_cli", *map(str, args)],
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            env=clean_env(tmp_path, env),
            cwd=cwd or ROOT,
            timeout=timeout,
        )
        return Run(proc.returncode, proc.stdout, proc.stderr)

    return run


@pytest.fixture
def mrtr_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Run]:
    """Run mrtr in this process (`cli.main.run`), as `mrtr` runs it in a process: the same
    arguments, exit code, stdout and stderr, the environment of `clean_env`, the checkout as
    the working directory. For what needs no server and no terminal (help pages, usage
    errors, parsing): it saves an interpreter start and the imports per run."""
    import contextlib
    import io

    from mrtr_cli.cli.main import run as run_cli
    from mrtr_cli.env import Environment

    def run(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Run:
        for name in list(os.environ):
            if name.startswith("MRTR_") or name in NOT_INHERITED:
                monkeypatch.delenv(name)
        for name, value in {"XDG_STATE_HOME": str(tmp_path / "state"), **(env or {})}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.chdir(ROOT)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = run_cli([str(a) for a in args],
                           Environment(stdout=out, stderr=err, stdin=io.StringIO(input or "")))
        return Run(code, out.getvalue(), err.getvalue())

    return run


def stdio_cmd(script: Path | str, *extra: str, direct: bool = False) -> str:
    """A `--stdio` command line running `script` with this interpreter: as a fork of the test
    worker's pre-imported zygote (tests/prefork.py: the same process behaviour, without
    0.6 s of imports per server), or, with `direct`, as `python SCRIPT` itself (for a test
    about the server's process: its pid, its children, its process group)."""
    if direct:
        return shellwords.join([PY, str(script), *extra])
    return shellwords.join(launch_argv(script, *extra))


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A port on 127.0.0.1 where connections are refused for the whole test: held bound and
    not listening (tests/listening.py `closed_port`), so no other process can take it and
    answer, as one picked free and let go could be."""
    with closed_port() as port:
        yield port


class HttpServers:
    """Starts HTTP test servers and stops them at teardown: each in a process group of its
    own (its launcher's), ended as a group; and ended with this process if it dies before
    its teardown (`launch_argv(..., owned=True)`)."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, script: Path | str, *extra: str, env: dict[str, str] | None = None) -> str:
        """Start `script --http 0 EXTRA...` (`env` added to this environment) and return its
        URL, `http://127.0.0.1:PORT/mcp`, with the port the server bound and reported
        (tests/listening.py)."""
        proc, port = start_listening(launch_argv(script, "--http", "0", *extra, owned=True),
                                     env={**os.environ, **(env or {})})
        self.procs.append(proc)
        return served(f"http://127.0.0.1:{port}/mcp")

    def stop(self) -> None:
        for proc in self.procs:
            stop_group(proc, grace=5)


@pytest.fixture(scope="module")
def http_servers() -> Iterator[HttpServers]:
    servers = HttpServers()
    yield servers
    servers.stop()


def url_args(url: str) -> list[str]:
    """The arguments that reach the HTTP test server at `url` (a `Target`'s): `--url URL` and
    a `--probe-timeout` of `SAFETY`. With `--protocol auto` the era probe waits 2 s by default
    for the `server/discover` answer, counted from the send, and a loaded machine can take
    longer: mrtr then speaks 2025-11-25 (a guess said on stderr), and whatever the test
    expects of 2026-07-28 (headers, input_required rounds, tasks, extensions) is missing.
    The probe still runs; only its bound, which these tests are not about, is generous."""
    return ["--url", url, "--probe-timeout", f"{SAFETY:g}"]


def read_records(path: Path, *, probe: bool = False) -> list[dict[str, Any]]:
    """The JSON-RPC messages a test server recorded (stdio lines or HTTP bodies), with HTTP headers
    under `_http` when present. The era probe (`server/discover`, which `--protocol auto`
    sends first) is left out unless `probe` is true."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if "raw" in rec:
            out.append(json.loads(rec["raw"]))
        elif rec.get("body"):
            msg = json.loads(rec["body"])
            msg["_http"] = {"method": rec["method"], "headers": rec["headers"]}
            out.append(msg)
    return out if probe else [m for m in out if m.get("method") != "server/discover"]


class Target:
    """One server reachable over stdio or HTTP, with a record of what it received."""

    def __init__(self, kind: str, args: list[str], record: Path | None):
        self.kind = kind
        self.args = args
        self.record = record

    def reset(self) -> None:
        if self.record is not None and self.record.exists():
            self.record.write_text("")

    def requests(self) -> list[dict[str, Any]]:
        """The requests the server received (without the era probe: see `read_records`)."""
        return [m for m in read_records(self.record) if "id" in m] if self.record else []

    def calls(self) -> list[dict[str, Any]]:
        """The `tools/call` requests only (a call also reads `tools/list` to type its arguments)."""
        return [m for m in self.requests() if m.get("method") == "tools/call"]


def recording_target(kind: str, script: Path, http_servers: HttpServers,
                     tmp_path_factory: pytest.TempPathFactory) -> Target:
    """A test server `script` (taking `--record FILE`) over `kind` ("stdio" or "http")."""
    record = tmp_path_factory.mktemp(script.stem) / "record.jsonl"
    if kind == "stdio":
        return Target("stdio", ["--stdio", stdio_cmd(script, "--record", str(record))], record)
    return Target("http", url_args(http_servers.start(script, "--record", str(record))), record)


@pytest.fixture(scope="module", params=["stdio", "http"])
def core(request: pytest.FixtureRequest, http_servers: HttpServers, tmp_path_factory: pytest.TempPathFactory) -> Target:
    """The lowlevel SDK test server (tests/servers/core_server.py), recording requests."""
    return recording_target(request.param, SERVERS / "core_server.py", http_servers, tmp_path_factory)


@pytest.fixture(scope="module", params=["stdio", "http"])
def example(request: pytest.FixtureRequest, http_servers: HttpServers) -> Target:
    """The bundled example server (examples/servers/work_items.py)."""
    if request.param == "stdio":
        return Target("stdio", ["--stdio", stdio_cmd(EXAMPLE_SERVER)], None)
    return Target("http", url_args(http_servers.start(EXAMPLE_SERVER)), None)


CATALOG_SERVER = SERVERS / "catalog_server.py"


@pytest.fixture(scope="module", params=["stdio", "http"])
def catalog(request: pytest.FixtureRequest, http_servers: HttpServers,
            tmp_path_factory: pytest.TempPathFactory) -> Target:
    """The paginated catalog server (tests/servers/catalog_server.py), recording requests."""
    return recording_target(request.param, CATALOG_SERVER, http_servers, tmp_path_factory)


# ---------------------------------------------------------------------- elicitation
@pytest.fixture(scope="module", params=["stdio", "http"])
def forms(request: pytest.FixtureRequest, http_servers: HttpServers,
          tmp_path_factory: pytest.TempPathFactory) -> Target:
    """The elicitation test server (tests/servers/forms_server.py), recording requests."""
    return recording_target(request.param, SERVERS / "forms_server.py", http_servers, tmp_path_factory)


# ---------------------------------------------------------------------- OAuth sign-in
from tests.auth_support import browser, https_documents, oauth_server, scripted  # noqa: E402,F401  (fixtures)
from tests.terminals import end_pty_children  # noqa: E402,F401  (an autouse fixture)
