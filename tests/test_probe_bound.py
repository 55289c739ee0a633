"""The check that no test leaves the era probe's bound at its default against an HTTP test
server it started (tests/probe_bound.py), in process: what fails, and what it lets through."""

from __future__ import annotations

import pytest

from tests.conftest import url_args
from tests.probe_bound import check_probe_bound, check_process, served

URL = served("http://127.0.0.1:1/mcp")  # a port no test server has: only its being noted counts


@pytest.mark.parametrize(("args", "env"), [
    (["--url", URL, "call", "echo", "text=x"], None),
    (["--url=" + URL, "tools"], None),
    (["-v", "--url", "http://127.0.0.1:1/other?k=v", "shell"], None),  # another path on the same server
    (["call", "echo"], {"MRTR_URL": URL}),
], ids=["--url", "--url=", "same-origin", "MRTR_URL"])
def test_a_run_at_a_test_server_with_the_default_probe_bound_fails_the_test(args, env):
    with pytest.raises(AssertionError, match="era probe's default 2 s bound.*conftest.url_args"):
        check_probe_bound(args, env)


@pytest.mark.parametrize("args", [
    [*url_args(URL), "call", "echo"],
    ["--url", URL, "--protocol", "2026-07-28", "call", "echo"],
    ["--url", URL, "--protocol=2025-11-25", "tools"],
    ["--url", URL, "--probe-timeout=60", "tools"],
    ["--url", URL, "auth", "login"],  # opens no MCP session: no era probe
    ["resume", "p.json", "--url", URL],  # the document's version is spoken
    ["--url", "http://[::1", "tools"],  # a malformed URL (a usage error)
    ["--url", "http://127.0.0.1:2/mcp", "call", "echo"],  # no test server noted there
    ["--stdio", "server", "call", "echo"],
], ids=["url_args", "--protocol", "--protocol=", "--probe-timeout=", "auth", "resume", "malformed", "not-served",
        "stdio"])
def test_a_run_with_a_bound_or_without_a_test_server_passes(args):
    check_probe_bound(args)


@pytest.mark.parametrize(("command", "args", "env"), [
    ("/bin/sh", ["-c", f"exec python -m mrtr_cli --url {URL} call echo > /tmp/out"], None),
    ("python", ["-m", "mrtr_cli", "--url", URL, "tools"], None),
    ("/bin/sh", ["-c", "exec python -m mrtr_cli shell"], {"MRTR_URL": URL}),
], ids=["sh-c-line", "argv", "MRTR_URL"])
def test_a_pseudo_terminal_mrtr_at_a_test_server_without_a_bound_fails_the_test(command, args, env):
    with pytest.raises(AssertionError, match="era probe's default 2 s bound"):
        check_process(command, args, env)


@pytest.mark.parametrize(("command", "args"), [
    ("/bin/sh", ["-c", f"exec python -m mrtr_cli --url {URL} --probe-timeout 300 call echo > /tmp/out"]),
    ("/bin/sh", ["-c", f"curl {URL}"]),  # not mrtr
    ("/bin/sh", ["-c", "echo 'unbalanced"]),  # not a line shlex reads
    ("bash", ["--norc"]),
], ids=["bounded", "not-mrtr", "unreadable", "no-line"])
def test_other_pseudo_terminal_processes_pass(command, args):
    check_process(command, args)
