"""What one line of a scripted `mrtr shell` costs, as a count (docs/performance.md, "mrtr
shell"): the Python function calls `cProfile` counts on the main thread for a `call` line,
the difference between a script of many lines and one of few, divided by the lines between.
A count, not a time: it does not depend on the machine's speed or load.

And the command group's shortcut (cli/commands/shell.py `LineGroup.parse_args`) leaves the
context click's own parse leaves.
"""

from __future__ import annotations

import json
import subprocess

import click
import pytest

from mrtr_cli.cli.commands.shell import LINE_GROUP
from tests.conftest import PY, ROOT, SAFETY, SERVERS, clean_env, stdio_cmd

#: Runs `python -m mrtr_cli ARGS...` under cProfile (main thread) and writes the count of
#: calls to the file named by argv[1].
WRAPPER = r"""
import atexit, cProfile, json, pstats, runpy, sys
out, sys.argv = sys.argv[1], ["mrtr", *sys.argv[2:]]
profile = cProfile.Profile()
def done():
    profile.disable()
    with open(out, "w") as fh:
        json.dump(pstats.Stats(profile).total_calls, fh)
atexit.register(done)
profile.enable()
runpy.run_module("mrtr_cli", run_name="__main__", alter_sys=True)
"""

#: Python calls per `call echo text=...` line at most: about 815 against this server (1,213
#: against the minimal benchmark server before the work per line was cut, 905 after;
#: docs/performance.md has the parts); about 933 since a line also reads the tool's secret
#: places through its schema (kept per schema: credentials.Place.of), adds its files to the
#: run's registry and declares its own capabilities (a line's --sampling-command, --root).
#: Without that keeping, the secret places alone took it to about 1,400.
MOST_CALLS_PER_LINE = 960


def _calls(tmp_path, lines: int) -> int:
    out = tmp_path / f"calls-{lines}.json"
    script = "".join(f"call echo text=line{i}\n" for i in range(lines))
    proc = subprocess.run([PY, "-c", WRAPPER, str(out), "--stdio", stdio_cmd(SERVERS / "shell_server.py"), "shell"],
                          capture_output=True, text=True, cwd=ROOT, env=clean_env(tmp_path), input=script,
                          timeout=SAFETY)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count("line") == lines
    return int(json.loads(out.read_text()))


def test_a_call_line_costs_few_python_calls(tmp_path):
    few, many = _calls(tmp_path, 5), _calls(tmp_path, 25)
    per_line = (many - few) / 20
    assert 0 < per_line <= MOST_CALLS_PER_LINE, per_line


@pytest.mark.parametrize("words", [["call", "echo", "text=hi"], ["tools"], ["call"], ["-"], ["nosuch", "--x", "y"],
                                   ["call", "--", "echo"], ["task", "list", "--json"]])
def test_the_groups_shortcut_leaves_what_clicks_parse_leaves(words):
    shortcut = click.Context(LINE_GROUP, info_name="mrtr")
    rest = LINE_GROUP.parse_args(shortcut, list(words))
    parsed = click.Context(LINE_GROUP, info_name="mrtr")
    click_rest = click.Group.parse_args(LINE_GROUP, parsed, list(words))
    assert rest == click_rest
    assert (shortcut._protected_args, shortcut.args, shortcut.params) == (parsed._protected_args, parsed.args,
                                                                           parsed.params)
    assert shortcut._opt_prefixes == parsed._opt_prefixes
