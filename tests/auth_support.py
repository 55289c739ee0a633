"""Fixtures for the sign-in tests (issue 13): a real protected MCP server with its OAuth
authorization server (tests/servers/oauth_server.py) and a stand-in browser
(tests/oauth_browser.py) to set as `BROWSER`.

`oauth_server(*options)` starts a server (options as in oauth_server.py's docstring) and returns
an `OAuthServer`; every server started is ended (its whole process group) at teardown.
`browser` gives the environment that makes `webbrowser` run the stand-in browser and reads what
it visited.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
OAUTH_SERVER = ROOT / "tests" / "servers" / "oauth_server.py"
OAUTH_BROWSER = ROOT / "tests" / "oauth_browser.py"
PY = sys.executable
READY_TIMEOUT = 60.0


def poll(check: Callable[[], Any], timeout: float, what: str, interval: float = 0.05) -> Any:
    """Call `check` until it returns something truthy (returned) or `timeout` seconds pass
    (RuntimeError naming `what`). A safety net, not a timing assumption."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(interval)


@dataclass
class OAuthServer:
    """One running oauth_server.py: `mcp_url` (the protected MCP endpoint), `issuer` (the
    authorization server, on another origin), `record` (every HTTP request both received)."""

    mcp_url: str
    issuer: str
    proc: subprocess.Popen[bytes]
    record: Path
    stderr: Path

    def stats(self) -> dict[str, Any]:
        """The server's /_test/stats: token request counts and log, tokens issued, revocations..."""
        import httpx

        return httpx.get(self.issuer + "/_test/stats", timeout=30).json()

    def expire_tokens(self) -> None:
        """From now on the server refuses every access token issued so far."""
        import httpx

        httpx.post(self.issuer + "/_test/expire", timeout=30).raise_for_status()

    def secrets(self) -> list[str]:
        """Every access token, refresh token and client secret the server issued or holds."""
        s = self.stats()
        return s["access_tokens"] + s["refresh_tokens"] + s["client_secrets"]

    def requests(self) -> list[dict[str, Any]]:
        """The HTTP requests received (both origins): method, path, headers, body."""
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text(encoding="utf-8").splitlines() if line]


class OAuthServers:
    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.servers: list[OAuthServer] = []

    def start(self, *options: str) -> OAuthServer:
        n = len(self.servers)
        ready = self.tmp / f"oauth-ready-{n}.json"
        record = self.tmp / f"oauth-record-{n}.jsonl"
        stderr = self.tmp / f"oauth-stderr-{n}.txt"
        with open(stderr, "wb") as err:
            proc = subprocess.Popen([PY, str(OAUTH_SERVER), "--ready-file", str(ready), "--record", str(record),
                                     *options], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                    start_new_session=True)

        def is_ready() -> dict[str, Any] | None:
            if proc.poll() is not None:
                raise RuntimeError(f"oauth_server.py exited with {proc.returncode}: {stderr.read_text()[-2000:]}")
            return json.loads(ready.read_text()) if ready.exists() else None

        info = poll(is_ready, READY_TIMEOUT, "oauth_server.py to listen")
        server = OAuthServer(info["mcp"], info["issuer"], proc, record, stderr)
        self.servers.append(server)
        return server

    def stop(self) -> None:
        for server in self.servers:
            stop_group(server.proc)


def stop_group(proc: subprocess.Popen[bytes]) -> None:
    """End `proc`'s process group (it was started in a session of its own)."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        pass


@pytest.fixture
def oauth_server(tmp_path: Path) -> Iterator[Callable[..., OAuthServer]]:
    """A factory: `oauth_server("--token-lifetime", "5", ...)` starts a protected MCP server and
    its authorization server and returns an `OAuthServer`."""
    servers = OAuthServers(tmp_path)
    yield servers.start
    servers.stop()


@dataclass
class Browser:
    """The stand-in browser: `env` makes `webbrowser` (through `BROWSER`) run it; `events()` is
    what it did (see tests/oauth_browser.py)."""

    command: Path
    log: Path
    env: dict[str, str] = field(default_factory=dict)

    def events(self) -> list[dict[str, Any]]:
        sys.path.insert(0, str(OAUTH_BROWSER.parent))
        from oauth_browser import read_log

        return read_log(self.log)

    def opened(self) -> list[str]:
        """The URLs the browser was asked to open."""
        return [e["url"] for e in self.events() if e["event"] == "open"]

    def visited(self) -> list[str]:
        return [e["url"] for e in self.events() if e["event"] == "visit"]

    def wait_finished(self, timeout: float = 60) -> dict[str, Any]:
        """The browser's last event once it is done, stopped or failed."""
        return poll(lambda: next((e for e in reversed(self.events()) if e["event"] in ("done", "stopped", "error")),
                                 None), timeout, "the browser to finish")

    def kill_children(self) -> None:
        for e in self.events():
            if e["event"] == "child":
                try:
                    os.kill(e["pid"], signal.SIGTERM)
                except (ProcessLookupError, PermissionError):
                    pass


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    """The stand-in browser, with its log in tmp_path."""
    command = tmp_path / "test-browser"
    command.write_text(f"#!/bin/sh\nexec {shlex.quote(PY)} {shlex.quote(str(OAUTH_BROWSER))} \"$@\"\n")
    command.chmod(0o755)
    log = tmp_path / "browser-log.jsonl"
    b = Browser(command, log, {"BROWSER": str(command), "OAUTH_BROWSER_LOG": str(log)})
    yield b
    b.kill_children()
