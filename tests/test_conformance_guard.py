"""scripts/conformance's guard against scenarios that test nothing (issue 15): a scenario
the suite reports PASSED with no check evaluated, or with no checks at all, fails the run,
as a skipped check already did. The guard (`check_evaluated`) runs here on results folders
shaped like the suite's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def guard(results: Path) -> list[str]:
    script = (ROOT / "scripts" / "conformance").read_text()
    function = script[script.index("check_evaluated() {"):]
    function = function[:function.index("\n}\n") + 3]
    out = subprocess.run(["bash", "-c", function + 'check_evaluated "$1"', "guard", str(results)],
                         capture_output=True, text=True, env={"PY": sys.executable, "PATH": "/usr/bin:/bin"},
                         check=True)
    return out.stdout.splitlines()


def scenario(results: Path, name: str, checks: list[dict] | None) -> None:
    folder = results / f"{name}-2026-12-01T06-53-24-818Z"
    folder.mkdir(parents=True)
    if checks is not None:
        (folder / "checks.json").write_text(json.dumps(checks))


def test_nothing_evaluated_or_no_checks_fails_and_real_checks_pass(tmp_path):
    scenario(tmp_path, "tools_call", [{"name": "ToolAddNumbers", "status": "SUCCESS"}])
    scenario(tmp_path, "sep-2640-client-no-prefetch", [{"name": "SkillsClientNoPrefetch", "status": "SKIPPED",
                                                        "errorMessage": "never listed"}])
    scenario(tmp_path, "sep-2640-client-verify-size", [{"name": "incoming", "status": "INFO"}])
    scenario(tmp_path, "sep-2640-client-verify-digest", None)
    # auth/NAME scenarios sit in an auth/ folder; the guards apply to them too (issue 13).
    scenario(tmp_path, "auth/metadata-default", [{"name": "AuthorizationServerMetadata", "status": "SUCCESS"}])
    scenario(tmp_path, "auth/scope-step-up", [{"name": "ScopeStepUp", "status": "SKIPPED", "errorMessage": "no retry"}])
    lines = guard(tmp_path)
    assert "sep-2640-client-no-prefetch: reported PASSED with no check evaluated" in lines
    assert "sep-2640-client-no-prefetch: SkillsClientNoPrefetch: never listed" in lines
    assert "sep-2640-client-verify-size: reported PASSED with no check evaluated" in lines
    assert "sep-2640-client-verify-digest: no checks.json (the suite skipped the scenario)" in lines
    assert "auth/scope-step-up: reported PASSED with no check evaluated" in lines
    assert "auth/scope-step-up: ScopeStepUp: no retry" in lines
    assert not any(line.startswith(("tools_call", "auth/metadata-default")) for line in lines)
    assert len(lines) == 6


def test_allowed_skips_beside_an_evaluated_check_pass(tmp_path):
    scenario(tmp_path, "http-standard-headers", [{"name": "ClientMcpMethodHeader_initialize", "status": "SKIPPED"},
                                                 {"name": "ClientMcpMethodHeader_tools_list", "status": "SUCCESS"}])
    assert guard(tmp_path) == []
