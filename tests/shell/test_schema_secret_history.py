"""The shell's history file (and the line a second shell recalls) keeps no value of a tool
argument whose secret mark the tool's `inputSchema` gives through `$ref`, `anyOf`,
`allOf`, `patternProperties` or `additionalProperties` (mrtr_cli/credentials.py (`Place`)), at a real
pseudo-terminal, against the SDK test server tests/servers/secret_schema_server.py."""

from __future__ import annotations

import pytest

from tests.conftest import SERVERS, stdio_cmd
from tests.shell.test_pty import CTRL_C, UP, Shell

pytest.importorskip("pexpect")
pytest.importorskip("pyte")

pytestmark = pytest.mark.pty

SERVER = SERVERS / "secret_schema_server.py"
PROMPT = "secret-schema-test"
LINE = "call hidden n=1 k=short-KK1 o=zOO-secret2 k2=K2-secret3 s_a=SA-secret4 other=OT-secret5"
KEPT = "call hidden n=1 'k=***' 'o=***' 'k2=***' 's_a=***' 'other=***'"


def test_the_history_keeps_no_secret_reached_through_the_schema(tmp_path):
    args = ["--stdio", stdio_cmd(SERVER)]
    s = Shell(tmp_path, *args)
    s.prompt(PROMPT)
    s.run(LINE, PROMPT)  # k is too short: refused before anything is sent
    assert s.finish() == 0
    data = (tmp_path / "state" / "mrtr" / "shell-history").read_text()
    for value in ("short-KK1", "zOO-secret2", "K2-secret3", "SA-secret4", "OT-secret5"):
        assert value not in data, data
        assert value not in s.screen.split(LINE, 1)[-1]
    assert KEPT in data, data
    second = Shell(tmp_path, *args, name="second.txt")
    second.prompt(PROMPT)
    second.type(UP)
    second.expect_line(f"{PROMPT}> {KEPT}")
    second.type(CTRL_C)
    second.prompt(PROMPT)
    assert second.finish() == 0
