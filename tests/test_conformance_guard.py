"""scripts/conformance's guard against scenarios that test nothing: a scenario the suite
reports PASSED with no check evaluated, or with no checks at all, fails the run, as a
skipped check does. The guard (`judge_checks` in scripts/conformance_run.py, which judges
each scenario's own results folder) runs here, in this process, on folders shaped like the
suite's."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from tests.conftest import ROOT


def guard(folder: Path) -> list[str]:
    spec = importlib.util.spec_from_file_location("conformance_run", ROOT / "scripts" / "conformance_run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["conformance_run"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    problems, _ = module.judge_checks(str(folder))
    return problems


def scenario(results: Path, name: str, checks: list[dict] | None) -> Path:
    """A run's folder (`-o`) as the suite fills it: NAME-<timestamp>/checks.json, a name
    with a slash (auth/...) one folder deeper."""
    folder = results / name.replace("/", "_")
    inner = folder / f"{name}-2026-12-01T06-53-24-818Z"
    inner.mkdir(parents=True)
    if checks is not None:
        (inner / "checks.json").write_text(json.dumps(checks))
    return folder


def test_real_checks_pass(tmp_path):
    assert guard(scenario(tmp_path, "tools_call", [{"name": "ToolAddNumbers", "status": "SUCCESS"}])) == []
    assert guard(scenario(tmp_path, "auth/metadata-default",
                          [{"name": "AuthorizationServerMetadata", "status": "SUCCESS"}])) == []


def test_a_skipped_check_with_none_evaluated_fails_twice(tmp_path):
    folder = scenario(tmp_path, "sep-2640-client-no-prefetch",
                      [{"name": "SkillsClientNoPrefetch", "status": "SKIPPED", "errorMessage": "never listed"}])
    assert guard(folder) == ["check skipped: SkillsClientNoPrefetch: never listed",
                             "reported PASSED with no check evaluated"]


def test_only_informational_checks_fail(tmp_path):
    folder = scenario(tmp_path, "sep-2640-client-verify-size", [{"name": "incoming", "status": "INFO"}])
    assert guard(folder) == ["reported PASSED with no check evaluated"]


def test_no_checks_file_fails(tmp_path):
    assert guard(scenario(tmp_path, "sep-2640-client-verify-digest", None)) == [
        "no checks.json (the suite skipped the scenario)"]


def test_auth_scenarios_are_guarded_too(tmp_path):
    folder = scenario(tmp_path, "auth/scope-step-up",
                      [{"name": "ScopeStepUp", "status": "SKIPPED", "errorMessage": "no retry"}])
    assert guard(folder) == ["check skipped: ScopeStepUp: no retry", "reported PASSED with no check evaluated"]


def test_allowed_skips_beside_an_evaluated_check_pass(tmp_path):
    folder = scenario(tmp_path, "http-standard-headers",
                      [{"name": "ClientMcpMethodHeader_initialize", "status": "SKIPPED"},
                       {"name": "ClientMcpMethodHeader_tools_list", "status": "SUCCESS"}])
    assert guard(folder) == []
