"""Shell completions: `mrtr completion SHELL` prints the checked-in scripts, and
the bash script completes commands, options, server names from config files and tool
names from the cached tool list, without contacting the server."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CATALOG_SERVER, PY, ROOT, SERVERS, clean_env, read_records, stdio_cmd
from tests.support import SAFETY


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_checked_in_scripts_match_the_generated_ones(mrtr_here, shell):
    r = mrtr_here("completion", shell)
    assert r.code == 0, r.stderr
    assert r.stdout == (ROOT / "completions" / f"mrtr.{shell}").read_text(), \
        f"regenerate: mrtr completion {shell} > completions/mrtr.{shell}"


def test_unknown_shell_is_a_usage_error(mrtr_here):
    r = mrtr_here("completion", "tcsh")
    assert r.code == 2 and "tcsh" in r.stderr


@pytest.fixture
def complete(tmp_path: Path):
    """Complete a command line with the real bash script; returns COMPREPLY."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "mrtr"
    shim.write_text(f"#!/bin/sh\nexec {shlex.quote(PY)} -m mrtr_cli \"$@\"\n")
    shim.chmod(0o755)
    env = clean_env(tmp_path, {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": str(ROOT)})

    def run(words: list[str], cwd: Path = ROOT) -> list[str]:
        # Bash keeps each word as typed, quotes included: `--stdio 'python x.py'`.
        typed = [shlex.quote(w) if w else "" for w in words]
        script = (f"source {shlex.quote(str(ROOT / 'completions' / 'mrtr.bash'))}\n"
                  f"COMP_WORDS=({' '.join(shlex.quote(w) for w in typed)})\n"
                  f"COMP_CWORD={len(words) - 1}\n"
                  "_mrtr_completion mrtr\n"
                  "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
        proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, cwd=cwd, timeout=SAFETY)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        return [line for line in proc.stdout.splitlines() if line]

    return run


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completes_commands_and_options(complete):
    assert complete(["mrtr", "ca"]) == ["call"]
    assert set(complete(["mrtr", "t"])) == {"task", "tools", "templates"}
    assert complete(["mrtr", "call", "x", "--save"]) == ["--save-answers"]
    assert complete(["mrtr", "completion", "z"]) == ["zsh"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_tool_names_complete_from_the_cache_without_the_server(mrtr, complete, tmp_path):
    record = tmp_path / "rec.jsonl"
    cmd = stdio_cmd(CATALOG_SERVER, "--record", str(record))
    assert complete(["mrtr", "--stdio", cmd, "call", "e"]) == []  # nothing cached yet, nothing fetched
    assert read_records(record) == []
    r = mrtr("--stdio", cmd, "tools")
    assert r.code == 0, r.stderr
    before = len(read_records(record))
    assert complete(["mrtr", "--stdio", cmd, "call", "e"]) == ["echo_args"]
    assert complete(["mrtr", "--stdio", cmd, "tools", "t0"]) == ["t01", "t02", "t03", "t04"]
    assert complete(["mrtr", "call", "--stdio", cmd, "w"]) == ["whoami"]  # options after the command count too
    assert len(read_records(record)) == before  # completion never contacts the server
    assert mrtr("--stdio", cmd, "prompts").code == 0
    assert complete(["mrtr", "--stdio", cmd, "prompt", "prompt_"]) == [f"prompt_{i}" for i in range(1, 6)]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_server_names_complete_from_config_files(complete, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / ".mcp.json").write_text('{"mcpServers": {"alpha": {"command": "x"}, "beta": {"url": "http://h/mcp"}}}')
    assert complete(["mrtr", "-s", ""], cwd=project) == ["alpha", "beta"]
    assert complete(["mrtr", "--server", "b"], cwd=project) == ["beta"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_names_complete_whatever_the_listing_declared(mrtr, complete, tmp_path):
    # Listed while declaring sampling (as a run at a terminal, or with --sampling-command,
    # does): the completion, which declares what a plain run declares, still finds them.
    cmd = stdio_cmd(SERVERS / "gated_server.py")
    sampler = f"{PY} {ROOT / 'tests' / 'servers' / 'fake_llm.py'} echo"
    r = mrtr("--stdio", cmd, "tools", "--sampling-command", sampler)
    assert r.code == 0 and "summarize" in r.stdout, r.stderr
    assert complete(["mrtr", "--stdio", cmd, "call", "su"]) == ["summarize"]
    assert complete(["mrtr", "--stdio", cmd, "call", ""]) == ["echo", "summarize"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_help_completes_topics_commands_and_subcommands(complete):
    assert complete(["mrtr", "help", "ex"]) == ["exit-codes"]
    assert set(complete(["mrtr", "help", "a"])) == {"arguments", "answers", "auth"}
    assert complete(["mrtr", "help", "task", "w"]) == ["wait"]
    assert complete(["mrtr", "help", "call", ""]) == []


SHELL_SERVER = SERVERS / "shell_server.py"


def _click_complete(tmp_path: Path, shell: str, words: list[str], incomplete: str) -> list[str]:
    """What `mrtr` answers a zsh or fish completion script (the protocol those scripts speak:
    `_MRTR_COMPLETE=zsh_complete|fish_complete`), as the values offered."""
    if shell == "zsh":
        env = {"COMP_WORDS": " ".join(shlex.quote(w) for w in [*words, incomplete]), "COMP_CWORD": str(len(words))}
    else:  # fish: the words before the cursor, and the token being typed
        env = {"COMP_WORDS": " ".join(shlex.quote(w) for w in [*words, incomplete]), "COMP_CWORD": incomplete}
    proc = subprocess.run([PY, "-m", "mrtr_cli"], capture_output=True, text=True, cwd=ROOT, timeout=SAFETY,
                          env=clean_env(tmp_path, {**env, "_MRTR_COMPLETE": f"{shell}_complete"}))
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    lines = proc.stdout.splitlines()
    if shell == "zsh":  # type, value, help: three lines each
        return [lines[i + 1] for i in range(0, len(lines), 3)]
    return [line.split(",", 1)[1].split("\t")[0] for line in lines]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_tool_argument_names_and_enum_values_complete_from_the_cached_schema(mrtr, complete, tmp_path):
    record = tmp_path / "rec.jsonl"
    cmd = stdio_cmd(SHELL_SERVER, "--record", str(record))
    base = ["mrtr", "--stdio", cmd, "call", "set_state"]
    assert complete([*base, "st"]) == []  # nothing cached: nothing offered, nothing fetched
    assert mrtr("--stdio", cmd, "tools").code == 0
    before = len(read_records(record))
    assert complete([*base, "st"]) == ["state="]
    assert complete([*base, ""]) == ["item=", "state="]
    assert complete([*base, "item=3", ""]) == ["state="]  # a name already given is not offered again
    assert complete([*base, "state", "=", "R"]) == ["Resolved"]  # bash splits the word at '='
    assert complete([*base, "state", "=", ""]) == ["New", "Active", "Resolved", "Closed"]
    for shell in ("zsh", "fish"):
        words = ["mrtr", "--stdio", cmd, "call", "set_state"]
        assert _click_complete(tmp_path, shell, words, "st") == ["state="], shell
        assert _click_complete(tmp_path, shell, words, "state=Re") == ["state=Resolved"], shell
    assert len(read_records(record)) == before  # completion never contacts the server


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_only_names_and_values_an_item_gives_as_typed_complete(mrtr, complete):
    """tests/servers/odd_names_server.py: no `k=v=`, `x.y=`, `-dash=`, `a:=` (an item would
    name another property, or an option); no enum value `@file` (read as a file) nor `1` of
    an integer-or-string property (sent as the string "1")."""
    cmd = stdio_cmd(SERVERS / "odd_names_server.py")
    assert mrtr("--stdio", cmd, "tools").code == 0
    base = ["mrtr", "--stdio", cmd, "call", "odd"]
    offered = complete([*base, ""])
    assert sorted(offered) == sorted(["plain=", "@at=", "col:on=", "nested=", "mode=", "level=",
                                      "'it'\"'\"'s='", "'#hash='"])  # no back\\slash=: bash's `read` drops `\\`
    assert [shlex.split(word + "v") for word in offered if word.startswith("'")] == [["it's=v"], ["#hash=v"]]
    assert complete(["mrtr", "--stdio", cmd, "call", ""]) == ["odd", "pid"]  # no `-x`, `--json`: options
    assert complete([*base, "mode", "=", ""]) == ["fast", "'In Progress'", "a=b"]
    assert complete([*base, "level", "=", ""]) == ["2"]
