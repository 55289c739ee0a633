"""Server completions (2026-07-28 server/utilities/completion): `mrtr complete`,
the bash completion of prompt argument and resource template variable values asked of
the server (in a real pseudo-terminal running bash with the completion script), its
bound and cache, `read TEMPLATE NAME=VALUE`, and prompt arguments checked against
`prompts/list` before `prompts/get` is sent."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pexpect
import pytest

from tests.conftest import PY, ROOT, SERVERS, HttpServers, Target, clean_env, read_records, recording_target
from tests.support import SAFETY
from tests.terminals import spawn_pty

GATED = SERVERS / "gated_server.py"
TEMPLATE = "repo://{owner}/{name}"


@pytest.fixture(scope="module", params=["stdio", "http"])
def gated(request: pytest.FixtureRequest, http_servers: HttpServers,
          tmp_path_factory: pytest.TempPathFactory) -> Target:
    return recording_target(request.param, GATED, http_servers, tmp_path_factory)


def methods(target: Target) -> list[str]:
    return [m["method"] for m in target.requests()]


# ---------------------------------------------------------------------- mrtr complete
def test_complete_prints_the_servers_values(mrtr, gated):
    r = mrtr(*gated.args, "complete", "prompt", "review", "language=py")
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines() == ["python", "pytorch", "pyside"]
    gated.reset()
    r = mrtr(*gated.args, "complete", "prompt", "review", "framework=", "language=rust", "--json")
    assert r.code == 0, r.stderr
    assert r.json()["completion"] == {"values": ["actix", "axum"], "total": 2, "hasMore": False}
    sent = [m for m in gated.requests() if m["method"] == "completion/complete"][0]["params"]
    assert sent["ref"] == {"type": "ref/prompt", "name": "review"}
    assert sent["argument"] == {"name": "framework", "value": ""}
    assert sent["context"] == {"arguments": {"language": "rust"}}
    assert "io.modelcontextprotocol/clientCapabilities" in sent["_meta"]


def test_complete_a_template_variable(mrtr, gated):
    r = mrtr(*gated.args, "complete", "resource", TEMPLATE, "name=", "owner=alice")
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines() == ["wonderland", "looking-glass"]


def test_complete_refuses_bad_names_before_asking(mrtr, gated):
    gated.reset()
    r = mrtr(*gated.args, "complete", "resource", TEMPLATE, "nme=x")
    assert r.code == 2 and "has no variable nme" in r.stderr and "did you mean name?" in r.stderr
    r = mrtr(*gated.args, "complete", "prompt", "review", "langage=p")
    assert r.code == 2 and "did you mean language?" in r.stderr
    r = mrtr(*gated.args, "complete", "prompt", "review", "language")
    assert r.code == 2 and "NAME=VALUE" in r.stderr
    r = mrtr(*gated.args, "complete", "resource", "repo://plain", "x=")
    assert r.code == 2 and "not a URI template" in r.stderr
    assert "completion/complete" not in methods(gated)


def test_complete_on_a_server_without_completions(mrtr, tmp_path):
    r = mrtr("--stdio", shlex.join([PY, str(GATED), "--no-complete"]), "complete", "prompt", "review", "language=p")
    assert r.code == 4
    assert "does not offer completions" in r.stderr


# ---------------------------------------------------------------------- prompt arguments
def test_prompt_arguments_are_checked_against_prompts_list(mrtr, gated):
    gated.reset()
    r = mrtr(*gated.args, "prompt", "review")
    assert r.code == 2 and "needs the argument language" in r.stderr
    r = mrtr(*gated.args, "prompt", "review", "langage=py")
    assert r.code == 2 and "has no argument langage" in r.stderr and "did you mean language?" in r.stderr
    r = mrtr(*gated.args, "prompt", "review", "language=py", "zzzzzz=1")
    assert r.code == 2 and "did you mean" not in r.stderr  # only close matches are suggested
    assert "its arguments: language, framework" in r.stderr
    r = mrtr(*gated.args, "prompt", "reviwe", "language=py")
    assert r.code == 2 and "unknown prompt 'reviwe'" in r.stderr and "did you mean: review?" in r.stderr
    assert "prompts/get" not in methods(gated)
    r = mrtr(*gated.args, "prompt", "review", "language=py", "framework=flask")
    assert r.code == 0, r.stderr
    assert "review: framework=flask, language=py" in r.stdout
    r = mrtr(*gated.args, "prompt", "review", "--no-validate")
    assert r.code == 0, r.stderr  # sent regardless: the server's own checks are tested


def test_read_fills_a_template(mrtr, gated):
    gated.reset()
    r = mrtr(*gated.args, "read", TEMPLATE, "owner=al ice", "name=x/y")
    assert r.code == 4  # the server has no resources to read; what matters is what was asked
    sent = [m for m in gated.requests() if m["method"] == "resources/read"]
    assert sent[0]["params"]["uri"] == "repo://al%20ice/x%2Fy"
    r = mrtr(*gated.args, "read", TEMPLATE, "ownr=alice")
    assert r.code == 2 and "did you mean owner?" in r.stderr
    r = mrtr(*gated.args, "read", "repo://plain", "owner=alice")
    assert r.code == 2 and "not a URI template" in r.stderr


# ---------------------------------------------------------------------- the completion protocol
def shell_complete(tmp_path: Path, shell: str, words: list[str]) -> list[str]:
    """What `mrtr` answers the completion script of `shell` for `words` (the last one is
    being typed): the values only."""
    env = clean_env(tmp_path, {"COMP_WORDS": " ".join(shlex.quote(w) for w in words),
                               "COMP_CWORD": str(len(words) - 1), "_MRTR_COMPLETE": f"{shell}_complete",
                               "MRTR_COMPLETE_TIMEOUT": "60"})
    proc = subprocess.run([PY, "-m", "mrtr_cli"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=SAFETY)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    lines = proc.stdout.splitlines()
    if shell == "bash":
        return [line.split(",", 1)[1] for line in lines if line]  # nothing to offer: one empty line
    return lines[1::3]  # zsh: type, value, help


def test_completion_ends_the_server_at_once_without_grace(tmp_path):
    # A server that outlives its stdin and ignores SIGTERM: the shutdown's grace periods
    # would hold the shell for seconds; completion kills its group at once instead.
    note = tmp_path / "note"
    server = shlex.join([PY, str(GATED), "--linger", str(note)])
    assert shell_complete(tmp_path, "bash", ["mrtr", "--stdio", server, "prompt", "review", "language=pyto"]) == [
        "language=pytorch"]
    assert not note.exists(), note.read_text()  # killed at once: never asked politely, nor told stdin ended


def test_zsh_keeps_the_whole_word(tmp_path):
    server = shlex.join([PY, str(GATED)])
    assert shell_complete(tmp_path, "zsh", ["mrtr", "--stdio", server, "prompt", "review", "language=pyto"]) == [
        "language=pytorch"]
    assert shell_complete(tmp_path, "zsh", ["mrtr", "--stdio", server, "read", TEMPLATE, "owner=alice",
                                            "name=w"]) == ["name=wonderland"]


def test_a_server_without_completions_is_not_asked(tmp_path):
    record = tmp_path / "rec.jsonl"
    server = shlex.join([PY, str(GATED), "--no-complete", "--record", str(record)])
    assert shell_complete(tmp_path, "bash", ["mrtr", "--stdio", server, "prompt", "review", "language", "=", "p"]) == []
    # only the era probe, which declares no completions
    assert [m["method"] for m in read_records(record) if "id" in m] == []
    assert shell_complete(tmp_path, "bash", ["mrtr", "--stdio", server, "read", "repo://plain", "x=1"]) == []


# ---------------------------------------------------------------------- bash, in a terminal
@pytest.fixture
def bash(tmp_path: Path):
    """Start bash in a pseudo-terminal with the completion script loaded, `mrtr` on PATH and
    `gated` (the gated server over stdio, recording to tmp_path/rec.jsonl)."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "mrtr").write_text(f"#!/bin/sh\nexec {shlex.quote(PY)} -m mrtr_cli \"$@\"\n")
    record = tmp_path / "rec.jsonl"

    def start(*server_args: str, env: dict[str, str] | None = None) -> pexpect.spawn:
        (bindir / "gated").write_text(f"#!/bin/sh\nexec {shlex.quote(PY)} {shlex.quote(str(GATED))} "
                                      f"--record {shlex.quote(str(record))} {' '.join(server_args)}\n")
        for script in bindir.iterdir():
            script.chmod(0o755)
        child = spawn_pty("bash", ["--norc", "--noprofile"], cwd=str(ROOT), encoding="utf-8", timeout=SAFETY,
                          env=clean_env(tmp_path, {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": str(ROOT),
                                                       "PS1": "READY$ ", **(env or {})}), dimensions=(40, 200))
        child.expect_exact("READY$ ")
        child.sendline(f"source {shlex.quote(str(ROOT / 'completions' / 'mrtr.bash'))}; "
                       "bind 'set enable-bracketed-paste off'")
        child.expect_exact("READY$ ")
        return child

    start.record = record  # type: ignore[attr-defined]
    return start


def line_after_tab(child: pexpect.spawn, typed: str, tabs: str = "\t") -> str:
    """Type `typed`, press Tab, then print the resulting line with `echo` (bash's own words)."""
    child.send(typed + tabs)
    child.send("\x01echo LINE: \r")  # Ctrl-A: to the start of the line; the line runs as echo's arguments
    child.expect(r"[\r\n]LINE: ([^\r\n]*)\r\n")
    line = child.match.group(1)
    child.expect_exact("READY$ ")
    return line


@pytest.mark.pty
def test_bash_completes_prompt_argument_values_from_the_server(bash):
    child = bash(env={"MRTR_COMPLETE_TIMEOUT": "60"})
    line = line_after_tab(child, "mrtr --stdio gated prompt review language=pyto")
    assert line.endswith("prompt review language=pytorch"), line
    line = line_after_tab(child, "mrtr --stdio gated prompt review language=python framework=fl")
    assert line.endswith("framework=flask"), line
    line = line_after_tab(child, "mrtr --stdio gated read 'repo://{owner}/{name}' owner=b")
    assert line.endswith("owner=bob"), line
    # Several values sharing no more than what is typed: the second Tab lists them.
    child.send("mrtr --stdio gated prompt review language=rust framework=a\t\t")
    child.expect(r"actix\s+axum")
    child.sendcontrol("c")
    child.expect_exact("READY$ ")
    asked = [m for m in read_records(bash.record) if m.get("method") == "completion/complete"]
    assert [m["params"]["argument"] for m in asked] == [
        {"name": "language", "value": "pyto"}, {"name": "framework", "value": "fl"},
        {"name": "owner", "value": "b"}, {"name": "framework", "value": "a"}]
    assert asked[1]["params"]["context"] == {"arguments": {"language": "python"}}
    assert asked[2]["params"]["ref"] == {"type": "ref/resource", "uri": "repo://{owner}/{name}"}
    # Asked again within a minute: the cached answer, the server is not started.
    before = len(read_records(bash.record, probe=True))
    line = line_after_tab(child, "mrtr --stdio gated prompt review language=pyto")
    assert line.endswith("language=pytorch"), line
    assert len(read_records(bash.record, probe=True)) == before
    child.sendline("exit")
    child.expect(pexpect.EOF)


@pytest.mark.pty
def test_names_listed_in_the_terminal_complete_from_the_cache(bash):
    """A listing run in the terminal declares what a person there can answer (sampling);
    completion, run by the same shell, reads the cache under the same declaration."""
    child = bash()
    child.sendline("mrtr --stdio gated prompts > /dev/null; echo LISTED $?")
    child.expect("LISTED 0")
    child.expect_exact("READY$ ")
    line = line_after_tab(child, "mrtr --stdio gated prompt rev")
    assert line.endswith("prompt review"), line
    child.sendline("exit")
    child.expect(pexpect.EOF)


@pytest.mark.pty
def test_a_server_that_does_not_answer_in_time_leaves_the_line_alone(bash):
    child = bash("--slow-complete", env={"MRTR_COMPLETE_TIMEOUT": "1"})
    line = line_after_tab(child, "mrtr --stdio gated prompt review language=pyto")
    assert line.endswith("language=pyto"), line  # nothing offered; the shell is back
    # (Whether the request reached the server within the second depends on the machine; that
    # the shell is back with the line as typed does not.)
    child.sendline("exit")
    child.expect(pexpect.EOF)
