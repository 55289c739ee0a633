"""A third-party server nobody here wrote: kubectl-mcp-server 2.0.0 (PyPI) with
`--confirm-destructive` asks for a boolean confirmation on `exec_in_pod` (MRTR on
2026-07-28) before touching any cluster. Skipped cleanly when the package is missing."""

from __future__ import annotations

import json
import shlex

import pytest

from tests.conftest import PY, ROOT, clean_env
from tests.listening import start_listening
from tests.prefork import stop_group
from tests.support import SAFETY
from tests.terminals import spawn_pty

pytest.importorskip("kubectl_mcp_tool", reason="kubectl-mcp-server is not installed")

pytestmark = pytest.mark.integration

SERVER = [PY, "-m", "kubectl_mcp_tool.mcp_server", "--confirm-destructive"]
CALL = ["call", "exec_in_pod", "pod_name=web-0", "command=ls", "namespace=default"]
# Point kubectl at nothing so "accept" never reaches a real cluster.
KUBE_ENV = {"KUBECONFIG": "/nonexistent/kubeconfig"}


@pytest.fixture(scope="module", params=["stdio", "http"])
def kube(request, tmp_path_factory):
    if request.param == "stdio":
        yield ["-q", "--stdio", shlex.join([*SERVER, "--transport", "stdio"])]
        return
    # Port 0: the server binds a free port and names it in uvicorn's "Uvicorn running on" line.
    env = clean_env(tmp_path_factory.mktemp("kube"), KUBE_ENV)
    proc, port = start_listening([*SERVER, "--transport", "http", "--port", "0"], env=env)
    try:
        yield ["--url", f"http://127.0.0.1:{port}/mcp"]
    finally:
        stop_group(proc)


def answers(tmp_path, response):
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({"confirm": response}))
    return path


def test_confirmation_is_asked_before_anything_runs(mrtr, kube):
    r = mrtr(*kube, *CALL, "--no-input", env=KUBE_ENV, timeout=SAFETY)
    assert r.code == 5, r.stderr
    doc = r.json()
    assert doc["missing"] == ["confirm"]
    request = doc["inputRequests"]["confirm"]
    assert request["method"] == "elicitation/create"
    assert "Exec in pod 'web-0'" in request["params"]["message"]
    assert request["params"]["requestedSchema"]["properties"]["confirm"]["type"] == "boolean"


def test_decline_from_a_file(mrtr, kube, tmp_path):
    r = mrtr(*kube, *CALL, "--answers", answers(tmp_path, {"action": "decline"}), "--json", env=KUBE_ENV,
             timeout=SAFETY)
    assert r.code == 6, r.stderr
    assert "Operation cancelled by user" in r.stdout


def test_accept_from_a_file_gets_past_the_confirmation(mrtr, kube, tmp_path):
    path = answers(tmp_path, {"action": "accept", "content": {"confirm": True}})
    r = mrtr(*kube, *CALL, "--answers", path, "--json", env=KUBE_ENV, timeout=SAFETY)
    # The server ran kubectl and returns its dict as a plain result (never isError), so exit 0;
    # with no cluster (KUBECONFIG points at nothing, or kubectl is missing) it says success false.
    assert r.code == 0, r.stderr
    text = r.stdout
    assert "Operation cancelled by user" not in text and "Blocked" not in text
    doc = json.loads(text)
    assert doc["isError"] is False and doc["structuredContent"]["success"] is False, doc


def test_confirmation_from_the_terminal(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    out = tmp_path / "out.json"
    args = [PY, "-m", "mrtr_cli", "-q", "--stdio", shlex.join([*SERVER, "--transport", "stdio"]), *CALL, "--json"]
    child = spawn_pty("/bin/sh", ["-c", shlex.join(args) + f" > {shlex.quote(str(out))}"], cwd=str(ROOT),
                      env=clean_env(tmp_path, KUBE_ENV), encoding="utf-8", timeout=SAFETY)
    child.expect("Exec in pod 'web-0'")
    child.expect("Confirm")
    child.send("n")
    child.expect("Send these answers\\?")
    child.send("\r")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Operation cancelled by user" in out.read_text()
