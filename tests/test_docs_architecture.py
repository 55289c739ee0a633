"""docs/architecture.md names only what exists: every `mrtr_cli/...` path, every
backticked path of the repository (`cli/main.py`, `protocol/era/`, `tests/test_layers.py`;
a path without a folder of the repository is read under `mrtr_cli/`), and every name given
right after a module's path (`engine/run.py` `drive`, `app.py` `App.target`) is defined in
that module. Each step of "The walk-through" names an existing module, so a newcomer can
follow `mrtr call` in an editor. A module moved or renamed without its doc fails here,
naming the stale paths.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import ROOT

DOC = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "mrtr_cli"
#: The section that walks one `mrtr call` through the package, one numbered step a module.
WALK = "## The walk-through"
#: Fewer steps than this and the walk no longer goes from the command line to the exit code.
MIN_WALK_STEPS = 10

#: `mrtr_cli/...` anywhere in the page, code blocks included.
_PACKAGE_PATH = re.compile(r"(?<![\w/.])mrtr_cli/[\w./-]*")
#: An inline code span (fenced blocks are taken out first).
_SPAN = re.compile(r"`([^`\n]+)`")
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
#: What a file path ends with, when it names a file.
_FILE_ENDINGS = (".py", ".md", ".toml", ".json")
#: A module's path followed by the name of what it defines: `path.py` `Name` or `Name.attr`,
#: or `path.py` (`Name`, ...).
_PATH_THEN_NAME = re.compile(r"`([\w./-]+\.py)`\s+\(?`([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)`")


def _text() -> str:
    return DOC.read_text(encoding="utf-8")


def _resolve(path: str) -> Path | None:
    """The file or folder `path` names (from the repository root, else under `mrtr_cli/`), or None."""
    for base in (ROOT, PACKAGE):
        candidate = base / path.rstrip("/")
        if candidate.exists() and (not path.endswith("/") or candidate.is_dir()):
            return candidate
    return None


def _folder_of_repository(segment: str) -> bool:
    """True when `segment` names a folder at the root or at the top of `mrtr_cli/`."""
    return bool(segment) and any((base / segment).is_dir() for base in (ROOT, PACKAGE))


def _is_path(token: str) -> bool:
    """True when a word of a code span is a path of the repository to check: it has a
    folder in it and ends like a file or a folder, or starts with a folder of the repository
    (spec sections such as `basic/patterns/mrtr`, URLs and placeholders are not)."""
    if "/" not in token or token.startswith(("/", "~", "$", ".")) or any(c in token for c in "<>*{}:=@"):
        return False
    return token.endswith((*_FILE_ENDINGS, "/")) or _folder_of_repository(token.split("/", 1)[0])


def _span_paths(text: str) -> list[str]:
    """Every path in the page's inline code spans: the spans with a folder in them, and a
    span that is one bare `name.py` (a module at the top of `mrtr_cli/`)."""
    found: list[str] = []
    for span in _SPAN.findall(_FENCE.sub("", text)):
        if re.fullmatch(r"[\w-]+\.py", span):
            found.append(span)
            continue
        for word in span.split():
            word = word.strip("(),;'\"")
            if _is_path(word):
                found.append(word)
    return found


def _defined(module: Path, name: str) -> bool:
    """True when `module` defines `name` at its top level (a function, class, assignment or
    import), or, for `Class.attr`, when that class defines `attr` in its body."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    top, _, attr = name.partition(".")
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == top:
            return not attr or attr in _names(node.body)
        if not attr and top in _names([node]):
            return True
    return False


def _names(body: list[ast.stmt]) -> set[str]:
    """The names the statements of `body` bind: functions, classes, assignments, imports."""
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def _walk_steps(text: str) -> list[str]:
    """The numbered steps of the walk-through, each as one string."""
    assert WALK in text, f"docs/architecture.md has no section {WALK!r}"
    section = text.split(WALK, 1)[1].split("\n## ", 1)[0]
    steps: list[str] = []
    for line in section.splitlines():
        if re.match(r"\d+\. ", line):
            steps.append(line)
        elif steps and line.startswith(" ") and line.strip():
            steps[-1] += " " + line.strip()
    return steps


def test_every_package_path_in_the_architecture_page_exists() -> None:
    paths = {p.rstrip(".,;:)") for p in _PACKAGE_PATH.findall(_text())}
    missing = sorted(p for p in paths if _resolve(p) is None)
    assert missing == [], f"docs/architecture.md names paths that do not exist: {missing}"


def test_every_backticked_path_in_the_architecture_page_exists() -> None:
    missing = sorted({p for p in _span_paths(_text()) if _resolve(p) is None})
    assert missing == [], f"docs/architecture.md names paths that do not exist: {missing}"


def test_every_name_given_after_a_module_is_defined_there() -> None:
    stale = []
    for path, name in _PATH_THEN_NAME.findall(_text()):
        module = _resolve(path)
        if module is not None and not _defined(module, name):
            stale.append(f"{path} {name}")
    assert stale == [], f"docs/architecture.md names what these modules do not define: {sorted(set(stale))}"


def test_each_step_of_the_walk_names_a_module() -> None:
    steps = _walk_steps(_text())
    assert len(steps) >= MIN_WALK_STEPS, steps
    unnamed = [step[:80] for step in steps
               if not any(p.endswith(".py") and _resolve(p) is not None for p in _span_paths(step))]
    assert unnamed == [], f"walk-through steps that name no existing module: {unnamed}"


def test_the_checks_find_a_stale_path() -> None:
    """The checks can fail: a made-up module, folder and name are each found."""
    assert _resolve("engine/nowhere.py") is None and _resolve("cli/nowhere/") is None
    assert _span_paths("`engine/nowhere.py` and `basic/patterns/mrtr` and `http://x/y`") == ["engine/nowhere.py"]
    assert _resolve("engine/run.py") is not None and not _defined(PACKAGE / "engine" / "run.py", "nowhere")
    assert _defined(PACKAGE / "engine" / "run.py", "drive")
    assert _PATH_THEN_NAME.findall("`engine/run.py` `drive` and `app.py` (`App.target`, `x`)") == [
        ("engine/run.py", "drive"), ("app.py", "App.target")]
    assert _walk_steps(f"{WALK}\n\n1. **One.** no module\n   here.\n\n## Next\n") == ["1. **One.** no module here."]
