"""Every `MRTR_*` environment variable is read in one module, `mrtr_cli/settings.py`
(docs/configuration.md "Environment variables"): an AST scan of every other module of
`mrtr_cli` finds no read of one, however it is written (`os.environ.get("MRTR_X")`,
`environ["MRTR_X"]`, `"MRTR_X" in environ`, `os.getenv(NAME)` with `NAME = "MRTR_X"`, a
helper named `*setting*` given the name). A message may still name a variable.

The second test shows the scan can fail: each way of reading one is found in a snippet.
"""

from __future__ import annotations

import ast
import re

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "mrtr_cli"
#: The one module that reads them.
SETTINGS = PACKAGE / "settings.py"
_NAME = re.compile(r"^MRTR_[A-Z0-9_]+$")
#: Method and function names that read a mapping or the environment by key.
_READERS = {"get", "getenv", "pop", "setdefault"}


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level `NAME = "MRTR_X"` assignments: name -> variable."""
    found: dict[str, str] = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str) and _NAME.match(node.value.value)):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value.value
    return found


def _variable(node: ast.AST, constants: dict[str, str]) -> str | None:
    """The `MRTR_*` name `node` stands for (a literal or a module constant), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and _NAME.match(node.value):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def _callee(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def reads(source: str) -> list[tuple[int, str]]:
    """(line, variable) for each read of an `MRTR_*` variable in `source`."""
    tree = ast.parse(source)
    constants = _constants(tree)
    found = []
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Call) and node.args:
            callee = _callee(node.func)
            if callee in _READERS or "setting" in callee:
                name = _variable(node.args[0], constants)
        elif isinstance(node, ast.Subscript):
            name = _variable(node.slice, constants)
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            name = _variable(node.left, constants)
        if name:
            found.append((node.lineno, name))
    return found


def test_only_the_settings_module_reads_mrtr_variables():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == SETTINGS:
            continue
        for line, name in reads(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert offenders == [], "read these through mrtr_cli/settings.py (Settings):\n" + "\n".join(offenders)
    assert reads(SETTINGS.read_text(encoding="utf-8")), "the settings module reads them (the scan sees it)"


@pytest.mark.parametrize("snippet", [
    'import os\nx = os.environ.get("MRTR_DEBUG", "")',
    'import os\nx = os.environ["MRTR_URL"]',
    'import os\nx = "MRTR_NO_CACHE" in os.environ',
    'import os\nx = os.getenv("MRTR_PAGER")',
    'import os\nVAR = "MRTR_MAX_MESSAGE_SIZE"\ndef f():\n    return os.environ.get(VAR)',
    'def f(environ):\n    return environ.get("MRTR_STATE_DIR")',
    'x = seconds_setting("MRTR_AUTH_WAIT", 300.0)',
])
def test_the_scan_finds_each_way_of_reading_one(snippet):
    assert reads(snippet), snippet


def test_a_message_naming_a_variable_is_no_read():
    assert reads('raise UsageError("MRTR_REDIRECT_PORT: expected a port number")') == []
    assert reads('read_secret_file(path, "MRTR_CLIENT_SECRET_FILE")') == []


@pytest.mark.parametrize(("value", "shown"), [("x\x01y", "'x\\\\x01y'"), ("ab\udcffc", "'ab\\\\udcffc'"),
                                              ("\x1b[31m5", "'\\\\x1b[31m5'"), ("\u202e9", "'\\\\u202e9'")])
def test_a_bad_value_is_shown_with_its_controls_made_visible(value: str, shown: str) -> None:
    from mrtr_cli.errors import UsageError
    from mrtr_cli.settings import Settings

    with pytest.raises(UsageError) as caught:
        Settings({"MRTR_AUTH_WAIT": value}).auth_wait()
    assert caught.value.message.startswith(f"MRTR_AUTH_WAIT={shown}:"), caught.value.message


def test_the_oauth_variables_naming_a_file_are_those_of_its_file_fields():
    from mrtr_cli.oauth_variables import OAUTH_NAMES
    from mrtr_cli.settings import OAUTH_FILE_VARIABLES

    assert set(OAUTH_FILE_VARIABLES) == {name for field, name in OAUTH_NAMES.items() if field.endswith("_file")}
