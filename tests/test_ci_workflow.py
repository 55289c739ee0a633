"""The CI workflow (.github/workflows/tests.yml) is a valid GitHub Actions workflow that runs
the README's test command on Linux, macOS and Windows for every Python version pyproject.toml
names (docs/platforms.md)."""

from __future__ import annotations

import re
import sys
from typing import Any

import jsonschema
import pytest
import yaml

from tests.conftest import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "tests.yml"

#: The part of GitHub's workflow syntax this file uses, as a JSON Schema: a trigger, jobs
#: with a runner, a matrix strategy, and steps that each `run` a command or `uses` an
#: action (never both, never neither), with no key GitHub does not know.
STEP = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "id": {"type": "string"}, "if": {"type": "string"},
                   "run": {"type": "string", "minLength": 1}, "uses": {"type": "string",
                                                                       "pattern": r"^[\w.-]+/[\w.-]+@\S+$"},
                   "with": {"type": "object"}, "env": {"type": "object"}, "shell": {"type": "string"},
                   "working-directory": {"type": "string"}, "timeout-minutes": {"type": "number"},
                   "continue-on-error": {"type": "boolean"}},
    "additionalProperties": False,
    "oneOf": [{"required": ["run"], "not": {"required": ["uses"]}}, {"required": ["uses"],
                                                                     "not": {"required": ["run"]}}],
}
SCHEMA = {
    "type": "object",
    "required": ["on", "jobs"],
    "properties": {
        "name": {"type": "string"},
        "on": {"anyOf": [{"type": "string"}, {"type": "array"}, {"type": "object"}]},
        "permissions": {"anyOf": [{"type": "string"}, {"type": "object"}]},
        "jobs": {
            "type": "object", "minProperties": 1,
            "additionalProperties": {
                "type": "object",
                "required": ["runs-on", "steps"],
                "properties": {
                    "name": {"type": "string"}, "runs-on": {"type": "string"}, "timeout-minutes": {"type": "number"},
                    "defaults": {"type": "object"},
                    "strategy": {"type": "object", "required": ["matrix"],
                                 "properties": {"fail-fast": {"type": "boolean"},
                                                "matrix": {"type": "object", "minProperties": 1,
                                                           "additionalProperties": {"type": "array", "minItems": 1}}},
                                 "additionalProperties": False},
                    "steps": {"type": "array", "minItems": 1, "items": STEP},
                },
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}


def load() -> dict[str, Any]:
    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    if True in doc:  # YAML 1.1 (PyYAML) reads the key `on` as the boolean true; GitHub reads a string
        doc["on"] = doc.pop(True)
    return doc


def test_the_workflow_is_valid():
    jsonschema.validate(load(), SCHEMA)


@pytest.mark.parametrize("broken", [
    lambda d: d["jobs"]["test"]["steps"].append({"name": "neither"}),
    lambda d: d["jobs"]["test"]["steps"].append({"run": "x", "uses": "actions/checkout@v4"}),
    lambda d: d["jobs"]["test"]["steps"].append({"runs": "typo"}),
    lambda d: d["jobs"]["test"]["strategy"].pop("matrix"),
    lambda d: d.pop("jobs"),
])
def test_the_check_rejects_a_broken_workflow(broken):
    doc = load()
    broken(doc)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, SCHEMA)


def test_every_system_and_python_version_is_in_the_matrix():
    job = load()["jobs"]["test"]
    matrix = job["strategy"]["matrix"]
    assert matrix["os"] == ["ubuntu-latest", "macos-latest", "windows-latest"]
    assert job["runs-on"] == "${{ matrix.os }}"
    assert job["strategy"]["fail-fast"] is False  # one system's failure does not hide another's
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    classified = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', pyproject)
    assert matrix["python"] == classified == ["3.10", "3.11", "3.12", "3.13"]
    assert 'requires-python = ">=3.10"' in pyproject
    for system in ("Operating System :: POSIX :: Linux", "Operating System :: MacOS",
                   "Operating System :: Microsoft :: Windows"):
        assert f'"{system}"' in pyproject


def test_the_workflow_runs_the_readmes_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = re.search(r"Run the tests.*?```sh\n(.+?)\n```", readme, re.S).group(1)
    steps = load()["jobs"]["test"]["steps"]
    assert command in [step.get("run") for step in steps]
    assert load()["jobs"]["test"]["defaults"]["run"]["shell"] == "bash"  # as written, on Windows too
    uses = [step["uses"] for step in steps if "uses" in step]
    assert uses[0].startswith("actions/checkout@") and uses[1].startswith("actions/setup-python@")
    setup = next(step for step in steps if step.get("uses", "").startswith("actions/setup-python@"))
    assert setup["with"]["python-version"] == "${{ matrix.python }}"


def test_this_interpreter_is_one_the_workflow_covers():
    covered = load()["jobs"]["test"]["strategy"]["matrix"]["python"]
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in covered
