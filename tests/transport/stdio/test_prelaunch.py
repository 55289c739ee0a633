"""Launching a stdio server from the command line's words before the CLI loads
(transport/stdio/early.py, docs/performance.md): which command lines do it, and that a server
the run does not adopt is stopped. In-process, with a real server process."""

from __future__ import annotations

import shlex
import sys

import pytest

from mrtr_cli.transport.stdio import early

SLEEPER = [sys.executable, "-c", "import sys; sys.stdin.read()"]  # a server that waits for stdin to close
CMD = shlex.join(SLEEPER)


@pytest.mark.parametrize("words", [
    ["--stdio", CMD, "call", "echo", "text=hi"],
    [f"--stdio={CMD}", "read", "res://x"],
    ["--stdio", CMD, "prompt", "p", "--json"],
    ["--stdio", CMD, "shell"],
])
def test_the_plain_shape_is_launched_at_once(words):
    assert early.prelaunch_command(words) == SLEEPER


@pytest.mark.parametrize("words", [
    ["--stdio", CMD, "call", "echo", "--help"],  # help: no server needed
    ["--stdio", CMD, "call", "-h"],
    ["--stdio", CMD, "shell", "--help"],
    ["--stdio", CMD, "--version"],
    ["--stdio", CMD, "tools"],  # not a call
    ["--stdio", CMD, "batch", "f.jsonl"],
    ["-q", "--stdio", CMD, "call", "echo"],  # another option first: left to the CLI
    ["--url", "http://127.0.0.1:1/mcp", "call", "echo"],
    ["--stdio", "python 'unbalanced", "call", "echo"],  # the CLI reports it
    ["--stdio", "", "call", "echo"],
    ["--stdio", CMD],
    [],
])
def test_other_command_lines_launch_nothing(words):
    assert early.prelaunch_command(words) is None


@pytest.fixture
def launched():
    early.prelaunch(["--stdio", CMD, "call", "echo"])
    assert early._prelaunched is not None
    argv, proc, mark = early._prelaunched
    assert argv == SLEEPER
    yield proc
    early.discard_prelaunched()
    proc.kill()
    proc.wait()


def test_a_server_the_run_does_not_adopt_is_stopped(launched):
    early.discard_prelaunched()
    assert launched.poll() is not None  # stopped, and waited for
    assert early._prelaunched is None


def test_another_target_does_not_adopt_it(launched):
    assert early.adopt_prelaunched([*SLEEPER, "--other"], {}, None) is None
    assert launched.poll() is not None
    assert early._prelaunched is None


@pytest.mark.parametrize("env, cwd", [({"TOKEN": "x"}, None), ({}, "/")])
def test_a_target_with_its_own_environment_or_directory_does_not_adopt_it(launched, env, cwd):
    assert early.adopt_prelaunched(SLEEPER, env, cwd) is None
    assert launched.poll() is not None


def test_the_same_command_adopts_it_running(launched):
    proc, mark = early.adopt_prelaunched(SLEEPER, {}, None)
    assert proc is launched and proc.poll() is None
    assert early._prelaunched is None


def test_a_command_that_cannot_start_is_left_to_the_run():
    early.prelaunch(["--stdio", "/nonexistent/server", "call", "echo"])
    assert early._prelaunched is None
