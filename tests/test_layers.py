"""The layering of `mrtr_cli` is a checked contract (docs/architecture.md "Layers"):
`lint-imports` (import-linter) runs the contracts of pyproject.toml `[tool.importlinter]`:

- `layers`: a module imports only from its own layer and the layers below it (every
  import counts: module-level, inside a function, under `if TYPE_CHECKING:`);
- `acyclic`: no import cycle between the modules or subpackages of one package (the
  layers contract says nothing about imports inside one layer);
- `click`, `rich`, `prompts`, `shell-questionary`: which code may import the command-line
  parser, the styled-output library and the prompt libraries (the shell's line editor,
  shell/terminal.py, prompt_toolkit but not questionary);
- `transport-neutral`: the protocol layer imports no module of the HTTP or stdio transport
  (it knows the `Transport` interface, its faces and the error kinds of transport/errors.py).

A broken contract fails the test, named with the imports that break it. The second test
shows the check can fail: a copy of the package with the upward imports this layering
removed put back (as the function-level imports they were), a cycle inside one package and
the third-party imports in the wrong place, checked with the same configuration.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support import SAFETY

CONFIG = ROOT / "pyproject.toml"


def lint_imports(config: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports --no-cache CONFIG` run in `cwd` (whose `mrtr_cli` it reads)."""
    command = Path(sys.executable).with_name("lint-imports")
    exe = str(command) if command.exists() else shutil.which("lint-imports")
    assert exe, "lint-imports is not installed (the `test` extra of pyproject.toml has import-linter)"
    return subprocess.run([exe, "--no-cache", "--no-logo", str(config)], capture_output=True, text=True,
                          cwd=cwd, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(cwd), "COLUMNS": "400"},
                          timeout=SAFETY,
                          stdin=subprocess.DEVNULL)


def broken_contracts(output: str) -> list[str]:
    """The names of the contracts `lint-imports` reports BROKEN."""
    return re.findall(r"^(\S.*?) BROKEN$", output, re.M)


def contracts() -> list[dict]:
    """The contracts of pyproject.toml `[tool.importlinter]` (tomllib: Python 3.11 and later)."""
    tomllib = pytest.importorskip("tomllib")
    return tomllib.loads(CONFIG.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def test_the_layering_contracts_hold():
    proc = lint_imports(CONFIG, ROOT)
    assert proc.returncode == 0, (f"broken import contracts: {broken_contracts(proc.stdout)}\n"
                                  f"{proc.stdout[-6000:]}{proc.stderr[-2000:]}")
    assert "Contracts: 7 kept, 0 broken." in proc.stdout


def test_no_contract_ignores_an_import():
    assert [c["id"] for c in contracts()] == ["layers", "acyclic", "click", "rich", "prompts", "transport-neutral",
                                              "shell-questionary"]
    assert [c["id"] for c in contracts() if c.get("ignore_imports")] == []


#: (file under mrtr_cli/, the import put back, what lint-imports must say about it)
PUT_BACK = [
    ("protocol/legacy.py", "from mrtr_cli.engine.pending import build_pending",
     "mrtr_cli.protocol.legacy -> mrtr_cli.engine.pending (l."),
    ("protocol/legacy.py", "from mrtr_cli.engine.mrtr import MrtrEngine",
     "mrtr_cli.protocol.legacy -> mrtr_cli.engine.mrtr (l."),
    ("protocol/opening.py", "from mrtr_cli.responders.server_requests import ServerRequestResponder",
     "mrtr_cli.protocol.opening -> mrtr_cli.responders.server_requests (l."),
    ("protocol/requests.py", "from mrtr_cli.tasks.field import task_field",
     "mrtr_cli.protocol.requests -> mrtr_cli.tasks.field (l."),
    ("engine/mrtr.py", "from mrtr_cli.tasks.legacy import task_augmentation",
     "mrtr_cli.engine.mrtr -> mrtr_cli.tasks.legacy (l."),
    ("engine/run.py", "from mrtr_cli.tasks.runner import TaskRunner",
     "mrtr_cli.engine.run -> mrtr_cli.tasks.runner (l."),
    ("render/listing.py", "from mrtr_cli.protocol.features.listen import listenable",
     "mrtr_cli.render.listing -> mrtr_cli.protocol.features.listen (l."),
    ("config/oauth_target.py", "from mrtr_cli.auth.client import OAuthClient",
     "mrtr_cli.config.oauth_target -> mrtr_cli.auth.client (l."),
    ("config/trust.py", "from mrtr_cli.responders.terminal import TerminalResponder",
     "mrtr_cli.config.trust -> mrtr_cli.responders.terminal (l."),
    ("env.py", "from mrtr_cli.render.sanitize import sanitize", "mrtr_cli.env -> mrtr_cli.render.sanitize (l."),
    ("jsonfile.py", "from mrtr_cli.userfiles import read_user_text", "mrtr_cli.jsonfile -> mrtr_cli.userfiles (l."),
    ("runcontext.py", "import mrtr_cli.engine", "mrtr_cli.runcontext -> mrtr_cli.engine (l."),
    ("transport/http/authhook.py", "from mrtr_cli.auth.dpop import ProofKey",
     "mrtr_cli.transport.http.authhook -> mrtr_cli.auth.dpop (l."),
    # A cycle inside one layer: protocol/session.py imports protocol/deadline.py.
    ("protocol/deadline.py", "from mrtr_cli.protocol.session import Session",
     "No cycles are allowed in mrtr_cli.protocol."),
    ("engine/mrtr.py", "import click", "mrtr_cli.engine.mrtr -> click (l."),
    ("protocol/lists/catalog.py", "from rich.text import Text", "mrtr_cli.protocol.lists.catalog -> rich (l."),
    ("responders/chain.py", "import questionary", "mrtr_cli.responders.chain -> questionary (l."),
    # The shell: below the command line, above batch; only its line editor knows prompt_toolkit.
    ("batch/runner.py", "from mrtr_cli.shell.host import ShellHost",
     "mrtr_cli.batch.runner -> mrtr_cli.shell.host (l."),
    ("shell/words.py", "from mrtr_cli.shell.loop import ShellLoop", "No cycles are allowed in mrtr_cli.shell."),
    ("shell/loop.py", "import click", "mrtr_cli.shell.loop -> click (l."),
    ("shell/completion.py", "from prompt_toolkit.completion import Completion",
     "mrtr_cli.shell.completion -> prompt_toolkit (l."),
    ("shell/terminal.py", "import questionary", "mrtr_cli.shell.terminal -> questionary (l."),
    # The protocol layer knows no transport's own modules.
    ("protocol/legacy.py", "from mrtr_cli.transport.http.echoed import unsendable",
     "mrtr_cli.protocol.legacy -> mrtr_cli.transport.http.echoed (l."),
]


def test_the_contracts_fail_when_an_upward_import_is_put_back(tmp_path):
    copy = tmp_path / "mrtr_cli"
    shutil.copytree(ROOT / "mrtr_cli", copy, ignore=shutil.ignore_patterns("__pycache__", "*.json", "*.md"))
    for n, (path, statement, _) in enumerate(PUT_BACK):
        with open(copy / path, "a", encoding="utf-8") as fh:
            fh.write(f"\n\ndef _put_back_{n}():\n    {statement}  # noqa: PLC0415\n")
    shutil.copy(CONFIG, tmp_path / "pyproject.toml")
    proc = lint_imports(tmp_path / "pyproject.toml", tmp_path)
    assert proc.returncode == 1, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "Contracts: 0 kept, 7 broken." in proc.stdout, proc.stdout[-4000:]
    assert broken_contracts(proc.stdout) == [c["name"] for c in contracts()]
    missing = [said for _, _, said in PUT_BACK if said not in proc.stdout]
    assert missing == [], proc.stdout[-8000:]


#: The most modules side by side in one package (docs/architecture.md, "Package tree"):
#: past it, a package's parts belong in sub-packages of their own.
MAX_MODULES_PER_PACKAGE = 15


def test_no_package_holds_more_than_fifteen_modules_side_by_side():
    crowded = {}
    for init in (ROOT / "mrtr_cli").rglob("__init__.py"):
        modules = [p for p in init.parent.glob("*.py") if p.name != "__init__.py"]
        if len(modules) > MAX_MODULES_PER_PACKAGE:
            crowded[str(init.parent.relative_to(ROOT))] = len(modules)
    assert crowded == {}


def test_no_module_repeats_its_packages_name():
    # era/probe.py, not era/eraprobe.py: the folder carries the name
    repeated = [str(p.relative_to(ROOT)) for p in (ROOT / "mrtr_cli").rglob("*.py")
                if p.parent.name.strip("_") not in ("", "mrtr_cli") and p.stem != p.parent.name
                and p.stem.startswith(p.parent.name.strip("_"))]
    assert repeated == []
