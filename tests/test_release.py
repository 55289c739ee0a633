"""The release's promises that need no build: `mrtr --version` is CHANGELOG.md's latest
released version, the changelog keeps the Keep a Changelog form, and every data file of
the package is one the wheel carries (pyproject.toml [tool.setuptools.package-data]).

The wheel itself is built, checked with twine and installed into a fresh virtual
environment by .ci/release-check (run by .ci/run): that takes a minute and the network
index, too much for the quick loop.
"""

from __future__ import annotations

import fnmatch
import re
import sys
from collections.abc import Callable
from datetime import date

import pytest

from tests.conftest import ROOT, Run

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser as a package (a dependency of mrtr there)
    import tomli as tomllib

CHANGELOG = ROOT / "CHANGELOG.md"
#: A version heading: `## [Unreleased]` or `## [1.2.3] - 2026-12-02`.
HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?$")
#: The kinds of change Keep a Changelog names, the only `###` headings under a version.
KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
#: Files in mrtr_cli/ that are not code and not shipped, each with why it need not be.
NOT_SHIPPED = {
    "schemas/README.md": "where the schemas come from: read in the repository, not by mrtr",
}


def versions() -> list[tuple[str, str | None]]:
    """CHANGELOG.md's version headings in order: (version, date or None)."""
    found = []
    for line in CHANGELOG.read_text(encoding="utf-8").splitlines():
        match = HEADING.match(line)
        if match:
            found.append((match["version"], match["date"]))
        elif line.startswith("## "):
            pytest.fail(f"CHANGELOG.md: a version heading is `## [VERSION] - YYYY-MM-DD`: {line!r}")
    return found


def latest_release() -> str:
    """The newest released version CHANGELOG.md names (the first after [Unreleased])."""
    released = [version for version, _ in versions() if version != "Unreleased"]
    assert released, "CHANGELOG.md names no released version"
    return released[0]


def test_version_is_the_changelogs_latest_release(mrtr: Callable[..., Run]) -> None:
    r = mrtr("--version")
    assert r.code == 0, r.stderr
    assert r.stdout == f"mrtr {latest_release()}\n"


def test_changelog_keeps_a_changelog_form() -> None:
    found = versions()
    assert found and found[0] == ("Unreleased", None), "the first version heading is ## [Unreleased]"
    released = found[1:]
    for version, day in released:
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{version}: not MAJOR.MINOR.PATCH"
        assert day is not None, f"{version}: no release date"
        date.fromisoformat(day)
    numbers = [tuple(int(part) for part in version.split(".")) for version, _ in released]
    assert numbers == sorted(numbers, reverse=True), "versions newest first"
    assert len(set(numbers)) == len(numbers), "a version named twice"
    days = [day for _, day in released]
    assert days == sorted(days, reverse=True), "dates newest first"
    for line in CHANGELOG.read_text(encoding="utf-8").splitlines():
        if line.startswith("### "):
            assert line[4:] in KINDS, f"{line!r}: a change is one of {sorted(KINDS)}"


def test_every_data_file_of_the_package_is_in_the_wheel() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_data: dict[str, list[str]] = config["tool"]["setuptools"]["package-data"]
    package = ROOT / "mrtr_cli"
    missing = []
    for path in sorted(package.rglob("*")):
        if not path.is_file() or path.suffix in {".py", ".pyc"} or "__pycache__" in path.parts:
            continue
        relative = path.relative_to(package).as_posix()
        if relative in NOT_SHIPPED:
            continue
        shipped = False
        for name, patterns in package_data.items():
            # A package's patterns are relative to its folder ("mrtr_cli.protocol": protocol/).
            prefix = "/".join(name.split(".")[1:])
            inside = relative[len(prefix) + 1:] if prefix and relative.startswith(prefix + "/") else None
            candidate = relative if not prefix else inside
            if candidate is not None and any(fnmatch.fnmatch(candidate, p) for p in patterns):
                shipped = True
        if not shipped:
            missing.append(relative)
    assert not missing, ("data files the wheel would leave out (add them to [tool.setuptools.package-data], "
                         f"or to NOT_SHIPPED with the reason): {missing}")
