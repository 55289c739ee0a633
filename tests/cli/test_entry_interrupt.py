"""Ctrl-C or SIGTERM while `mrtr` is still loading (before any command runs) ends the run
like a Ctrl-C later does: `mrtr: interrupted` on stderr, exit 130, no traceback, and a
server launched early for the command line stopped.

The interrupt is made deterministic: an audit hook raises `KeyboardInterrupt` (what the
signal handler raises) at the import of a chosen module of the start-up path.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import PY, SAFETY, SERVERS, clean_env, stdio_cmd

#: Runs the console script's `main` with argv[2:], raising KeyboardInterrupt when the module
#: named by argv[1] is imported.
WRAPPER = r"""
import sys
target, sys.argv = sys.argv[1], ["mrtr", *sys.argv[2:]]
def hook(event, args):
    if event == "import" and args[0] == target:
        raise KeyboardInterrupt
sys.addaudithook(hook)
from mrtr_cli.cli.entry import main
main()
"""


@pytest.mark.parametrize("module", ["mrtr_cli.transport.stdio.early", "mrtr_cli.cli.main", "click"])
def test_an_interrupt_while_mrtr_loads_is_exit_130_without_a_traceback(tmp_path, module):
    server = stdio_cmd(SERVERS / "core_server.py")
    r = subprocess.run([PY, "-c", WRAPPER, module, "--stdio", server, "tools"], capture_output=True, text=True,
                       env=clean_env(tmp_path), timeout=SAFETY)
    assert r.returncode == 130, r.stderr
    assert r.stderr == "mrtr: interrupted\n", r.stderr
    assert r.stdout == ""
