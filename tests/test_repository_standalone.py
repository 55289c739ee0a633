"""The repository stands on its own: no file of it points at a document a clone does not
have, or at a tracker entry by number. A rule is stated where it applies, or cited from a
page of `docs/` by section name (docs/design.md is the product contract).

Checked over every tracked file (`git ls-files`; without git, every file outside the
virtual environments, caches and build output). The patterns are built from pieces so
that this file does not match them itself.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support import SAFETY

#: A design file outside the repository (the repository's own is docs/design.md, lower case).
OUTSIDE_DESIGN = re.compile(re.escape("DESIGN" + ".md"))
#: A folder beside the checkout, by a relative or an absolute path.
OUTSIDE_FOLDER = re.compile(re.escape(".." + "/shared") + "|" + re.escape("/work" + "/shared"))
#: A tracker entry by number, in each form `test_each_form_is_caught` lists: the word with a
#: number after it (spaced, hyphenated, joined, with "#"), and a bare "#" number in brackets.
TRACKER_NUMBER = re.compile(r"\b" + "iss" + r"ues?[\s_-]*#?\d+|\(#\d+\)", re.IGNORECASE)

RULES = {
    "names a design file outside the repository": OUTSIDE_DESIGN,
    "names a folder outside the repository": OUTSIDE_FOLDER,
    "cites an issue number": TRACKER_NUMBER,
}

#: Not part of the repository's own text, when the tree is walked without git.
SKIPPED_DIRS = {".git", ".cache", ".venv", ".venv-ci", "build", "dist", "__pycache__", ".pytest_cache",
                ".hypothesis", "mutants", "node_modules"}


def repository_files(root: Path) -> list[Path]:
    """The files of the repository at `root`: the tracked ones, or (no git) every file
    outside virtual environments, caches and build output."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True, timeout=SAFETY)
    except (OSError, subprocess.CalledProcessError):
        found = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info")]
            found += [Path(folder) / name for name in files]
        return found
    return [root / name for name in listed.stdout.decode("utf-8").split("\0") if name]


def mentions(root: Path) -> list[str]:
    """Every line of the repository at `root` that breaks one of `RULES`, as
    `path:line: what: the match`."""
    found = []
    for path in repository_files(root):
        if not path.is_file():  # a tracked file deleted in the work tree
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for what, pattern in RULES.items():
                for match in pattern.finditer(line):
                    found.append(f"{path.relative_to(root)}:{number}: {what}: {match.group(0)!r}")
    return found


def test_no_file_points_outside_the_repository_or_at_an_issue_number():
    found = mentions(ROOT)
    assert not found, "state the rule in place, or cite a docs/ page by section name:\n" + "\n".join(found)


@pytest.mark.parametrize("line", [
    "Data flows one way (" + "DESIGN" + ".md section 6)",
    "see .." + "/shared/spec for the pages",
    "read /work" + "/shared/spec/PROTOCOL-DIGEST.md",
    "# ---- " + "iss" + "ue 13: OAuth sign-in",
    "stdout holds only the result (" + "iss" + "ue 2).",
    "Iss" + "ues 3 and 4 asked for it",
    "Iss" + "ue-13, " + "iss" + "ue13",
    "fixed in (" + "#12)",
])
def test_each_form_is_caught(tmp_path, line):
    (tmp_path / "notes.md").write_text(f"first line\n{line}\n", encoding="utf-8")
    found = mentions(tmp_path)
    assert found and all(hit.startswith("notes.md:2: ") for hit in found), found


@pytest.mark.parametrize("line", [
    "the product contract: docs/design.md, \"Exit codes\"",
    "the skills extension (SEP-2640)",
    "what a token endpoint issues is checked; the issuer must match",
    "a colour such as #123 or #ffcc00",
    "RFC 8414 section 3.3",
])
def test_what_is_not_caught(tmp_path, line):
    (tmp_path / "notes.md").write_text(line + "\n", encoding="utf-8")
    assert mentions(tmp_path) == []
