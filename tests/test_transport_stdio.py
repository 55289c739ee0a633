"""The stdio transport (2026-07-28 `basic/transports/stdio`): a server that dies mid-call, its
stderr passed through or hidden, a command that does not exist (issue 2)."""

from __future__ import annotations

from tests.conftest import SERVERS, stdio_cmd


def test_server_dying_mid_call_exits_3_with_its_stderr(mrtr):
    r = mrtr("-q", "--stdio", stdio_cmd(SERVERS / "core_server.py"), "call", "crash")
    assert r.code == 3
    assert "exited with code 3" in r.stderr
    assert "simulated crash" in r.stderr


def test_server_stderr_is_passed_through_or_hidden(mrtr):
    r = mrtr("--stdio", stdio_cmd(SERVERS / "core_server.py"), "call", "crash")
    assert r.stderr.count("simulated crash") == 1
    r = mrtr("-q", "--stdio", stdio_cmd(SERVERS / "core_server.py"), "call", "crash")
    assert r.stderr.count("simulated crash") == 1  # only in the failure report


def test_command_not_found_exits_3(mrtr):
    r = mrtr("--stdio", "definitely-not-a-command-xyz", "call", "t")
    assert r.code == 3
    assert "command not found: definitely-not-a-command-xyz" in r.stderr
