"""Every marked shell example of README.md and docs/*.md runs, as written.

Markers (an HTML comment on the line right before a ```sh block):

- `<!-- example -->`: run it. Optional attributes: `expect="TEXT"` (repeatable): TEXT must
  appear in the block's stdout or stderr; `script`: run it as a script (plain `bash`, its
  own exit code checks) instead of under `bash -e -o pipefail`.
- `<!-- example: interactive -->`: needs a person at a terminal; not run.
- `<!-- example: setup -->`: installs something, changes your shell setup, or runs the
  test suite or benchmarks; not run.

Every ```sh block carries one of these markers (checked), so a new example is either run
or says why not. The marked blocks of each page run in order, one test per page (README.md, then
docs/*.md by name), each in a new `bash` in the page's scratch directory holding a copy of
the repository's `examples/`, `tests/servers/` and the stand-in browser
`tests/oauth_browser.py` (so the files blocks write never land
in the checkout), with a fresh state directory (`XDG_STATE_HOME`) and `TMPDIR`, and `mrtr`
and `python` on PATH meaning this checkout's `mrtr` and this interpreter. Each block must
exit 0. The fixed example ports (8000, 8001, ...) are replaced by free ones, so a run never
meets another server; background servers a block left running are stopped at the end.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.conftest import PY, ROOT, clean_env
from tests.listening import fixed_port
from tests.support import SAFETY

BLOCK = re.compile(r"^<!-- example(?::\s*(?P<kind>[a-z]+))?(?P<attrs>(?:\s+[a-z]+(?:=\"[^\"]*\")?)*)\s*-->\n"
                   r"```sh\n(?P<body>.*?)^```", re.S | re.M)
ATTR = re.compile(r"([a-z]+)(?:=\"([^\"]*)\")?")
PORT = re.compile(r"\b(800[0-9])\b")


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(path: Path) -> list[dict]:
    """The marked ```sh blocks of `path`, in order: {kind, expect, script, body, line}."""
    text = path.read_text(encoding="utf-8")
    found = []
    for match in BLOCK.finditer(text):
        attrs = ATTR.findall(match.group("attrs") or "")
        found.append({
            "kind": match.group("kind") or "run",
            "expect": [value for name, value in attrs if name == "expect"],
            "script": any(name == "script" for name, _ in attrs),
            "body": match.group("body"),
            "line": text.count("\n", 0, match.start()) + 2,
        })
    return found


def scratch(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The directory blocks run in, and their environment."""
    work = tmp_path / "clone"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "examples", work / "examples", ignore=ignore)
    shutil.copytree(ROOT / "tests" / "servers", work / "tests" / "servers", ignore=ignore)
    shutil.copy2(ROOT / "tests" / "oauth_browser.py", work / "tests" / "oauth_browser.py")  # keeps its mode (+x)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mrtr").write_text(f'#!/bin/sh\nexec "{PY}" -m mrtr_cli "$@"\n')
    (bin_dir / "mrtr").chmod(0o755)
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{PY}" "$@"\n')  # a wrapper keeps PY's virtualenv
    (bin_dir / "python").chmod(0o755)
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = clean_env(tmp_path, {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
                               "PYTHONPATH": str(ROOT), "TMPDIR": str(temp), "HOME": str(tmp_path / "home"),
                               "MRTR_AUTH_WAIT": "60"})  # a sign-in that never comes back fails in a minute
    env.pop("NO_COLOR", None)
    env.pop("FORCE_COLOR", None)
    return work, env


def stop_background_servers(temp: Path) -> None:
    for pid_file in temp.glob("*.pid"):
        with contextlib.suppress(ValueError, ProcessLookupError):
            os.kill(int(pid_file.read_text().strip()), signal.SIGTERM)


def _documents_with_runs() -> list[Path]:
    return [path for path in documents() if any(block["kind"] == "run" for block in blocks(path))]


def test_enough_examples_are_run():
    kinds = [block["kind"] for path in documents() for block in blocks(path)]
    for kind in kinds:
        assert kind in ("run", "interactive", "setup"), kind
    assert kinds.count("run") >= 8


@pytest.mark.parametrize("path", _documents_with_runs(), ids=lambda path: path.name)
def test_every_marked_example_runs(tmp_path, path):
    """One page's run blocks, in order, in one scratch directory (a page's blocks may use what
    its earlier blocks started or wrote; pages do not share anything)."""
    work, env = scratch(tmp_path)
    ports: dict[str, str] = {}
    try:
        for block in blocks(path):
            if block["kind"] != "run":
                continue

            def port(match: re.Match[str]) -> str:
                return ports.setdefault(match.group(1), str(fixed_port()))

            body = PORT.sub(port, block["body"])
            shell = ["bash", "-c", body] if block["script"] else ["bash", "-e", "-o", "pipefail", "-c", body]
            run = subprocess.run(shell, cwd=work, env=env, capture_output=True, text=True, timeout=300,
                                 stdin=subprocess.DEVNULL)
            where = f"{path.relative_to(ROOT)} line {block['line']}:\n{block['body']}"
            output = run.stdout + run.stderr
            assert run.returncode == 0, f"{where}\nexit {run.returncode}\n{output}"
            for text in block["expect"]:
                text = PORT.sub(port, text)
                assert text in output, f"{where}\nexpected {text!r} in:\n{output}"
    finally:
        stop_background_servers(tmp_path / "tmp")


def test_every_shell_block_is_marked():
    for path in documents():
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            if line.strip() == "```sh":
                assert number and lines[number - 1].startswith("<!-- example"), \
                    f"{path.relative_to(ROOT)} line {number + 1}: a ```sh block without an <!-- example --> marker"


#: What each page's run blocks must show (the reference examples live in the docs/ pages,
#: not the README; each block runs in its page).
PROMISED = {
    "README.md": ('--stdio "python examples/servers/work_items.py"', "examples/servers/work_items.py --http",
                  "--background", "mrtr resume pending.json", "prompt triage", "read workitems://"),
    "docs/commands.md": ("--config examples/mcp.json -s work tools", "ping", "complete prompt"),
    "docs/tasks.md": ("examples/servers/builds.py --http", "--background", "--detach", "task wait", "task cancel"),
    "docs/batch.md": ("batch examples/batch/work.jsonl", "--resume"),
    "docs/shell.md": ("shell <<'EOF'", "shell > items.txt"),
    # Signing in: against the example protected server, every auth command
    "docs/oauth.md": ("examples/servers/protected.py --http", "auth login", "auth status", "auth token",
                      "auth logout", "--expire-tokens", "MRTR_OAUTH_GRANT=client_credentials", "BROWSER="),
    "docs/answers.md": ("--sampling-command", "mrtr resume"),
    "docs/strict.md": ("--strict",),
    "docs/skills.md": ("skill pdf-processing --files",),
}


def test_the_readme_marks_the_examples_it_promises():
    readme = blocks(ROOT / "README.md")
    kinds = [b["kind"] for b in readme]
    assert kinds.count("run") >= 4 and "interactive" in kinds and "setup" in kinds


@pytest.mark.parametrize("page", sorted(PROMISED))
def test_every_page_runs_the_examples_it_promises(page):
    found = blocks(ROOT / page)
    bodies = "\n".join(b["body"] for b in found if b["kind"] == "run")
    for needed in PROMISED[page]:
        assert needed in bodies, f"{page}: {needed}"
    assert not re.search(r" &\s*$", bodies, re.M)  # no server left writing into the terminal


def test_a_page_stops_the_servers_it_starts():
    """Each page's blocks must run from a fresh shell: a server a page starts in the
    background is stopped in that page (so pages do not depend on each other)."""
    for path in documents():
        bodies = "\n".join(b["body"] for b in blocks(path) if b["kind"] == "run")
        for started in re.findall(r"(\w+)\.py --http (\d+)", bodies):
            name, port = started
            assert f"{name}-{port}.pid" in bodies, f"{path.relative_to(ROOT)}: {name} on {port} is not stopped"


def test_the_batch_page_lines_are_the_shipped_batch_file():
    page = (ROOT / "docs" / "batch.md").read_text(encoding="utf-8")
    shown = page.split("<!-- the content of examples/batch/work.jsonl", 1)[1].split("```json\n", 1)[1]
    shown = shown.split("```", 1)[0]
    assert shown == (ROOT / "examples" / "batch" / "work.jsonl").read_text(encoding="utf-8")


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown file."""
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def test_every_relative_link_in_the_docs_leads_somewhere():
    for path in documents():
        text = path.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            linked = (path.parent / file).resolve() if file else path
            assert linked.exists(), f"{path.relative_to(ROOT)}: {target}"
            if anchor and linked.suffix == ".md":
                assert anchor in _anchors(linked), f"{path.relative_to(ROOT)}: {target} (no such heading)"


def test_every_docs_page_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"](docs/{page.name}" in readme, page.name


@pytest.mark.parametrize("name", ["mcp.json"])
def test_the_example_config_needs_no_environment(mrtr, name):
    r = mrtr("--config", f"examples/{name}", "servers")
    assert r.code == 0 and "work" in r.stdout and "builds" in r.stdout, r.stderr
    assert "left as written" not in r.stderr


def test_the_example_extra_has_what_the_example_servers_import():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    extra = re.search(r"^examples = \[(.*)\]$", pyproject, re.M).group(1)
    for package in ("mcp==", "fastmcp==", "fastmcp-tasks=="):
        assert f'"{package}' in extra, package


def test_background_refuses_a_port_another_process_holds(tmp_path):
    # Else "serving ... pid N" would greet whatever listens there while the started server
    # died on "address in use", and the pid file would name a process that serves nothing.
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**clean_env(tmp_path), "TMPDIR": str(tmp_path)}
        r = subprocess.run([PY, "examples/servers/work_items.py", "--http", str(port), "--background"], cwd=ROOT,
                           env=env, capture_output=True, text=True, timeout=SAFETY)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"port {port} is already in use" in r.stderr and "serving" not in r.stdout
    assert not (tmp_path / f"work_items-{port}.pid").exists()
