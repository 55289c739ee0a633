"""Listing and describing what a server offers: every page of tools, prompts,
resources and templates (one cursor is the empty string), lossless JSON, readable text,
one tool in detail, server/discover."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CATALOG_SERVER, PY, ROOT, Target, clean_env, stdio_cmd
from tests.support import SAFETY
from tests.terminals import spawn_pty

TOOL_NAMES = ["echo_args", "region_query", "bad_header", "whoami", "proc_info", "t01", "t02", "t03", "t04"]
MEMBER = {"tools": "tools", "prompts": "prompts", "resources": "resources", "templates": "resourceTemplates"}
METHOD = {"tools": "tools/list", "prompts": "prompts/list", "resources": "resources/list",
          "templates": "resources/templates/list"}


def pages_from_trace(trace: Path, method: str) -> list[dict]:
    """The results of every `method` request, in order, as they crossed the wire."""
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    ids = {r["message"]["id"] for r in records if r["dir"] == "send" and r["message"].get("method") == method}
    return [r["message"]["result"] for r in records if r["dir"] == "recv" and r["message"].get("id") in ids]


@pytest.mark.parametrize("kind", ["tools", "prompts", "resources", "templates"])
def test_every_page_is_listed_and_json_is_the_concatenated_pages(mrtr, catalog: Target, kind, tmp_path):
    catalog.reset()
    trace = tmp_path / "t.jsonl"
    r = mrtr(*catalog.args, kind, "--json", "--trace", trace)
    assert r.code == 0, r.stderr
    pages = pages_from_trace(trace, METHOD[kind])
    assert len(pages) == (5 if kind == "tools" else 3)
    cursors = [m["params"].get("cursor") for m in catalog.requests() if m["method"] == METHOD[kind]]
    assert cursors[:3] == [None, "", "p2"]  # the empty string is a cursor, not the end
    assert "nextCursor" not in pages[-1]
    concatenated = [item for page in pages for item in page[MEMBER[kind]]]
    if kind == "tools" and catalog.kind == "http":
        # Over HTTP a tool with an invalid x-mcp-header annotation is left out.
        concatenated = [t for t in concatenated if t["name"] != "bad_header"]
    assert r.json() == concatenated
    if kind == "tools":
        expected = TOOL_NAMES if catalog.kind == "stdio" else [n for n in TOOL_NAMES if n != "bad_header"]
        assert [t["name"] for t in r.json()] == expected
    else:
        assert len(r.json()) == 5


def test_text_listing_has_one_line_per_item(mrtr, catalog: Target):
    r = mrtr(*catalog.args, "tools")
    assert r.code == 0, r.stderr
    lines = r.stdout.splitlines()
    names = [line.split()[0] for line in lines]
    assert names[:2] == ["echo_args", "region_query"] and "t04" in names
    echo = lines[0]
    assert "zip*" in echo and "count" in echo and "Returns its arguments as JSON." in echo
    assert "Second line" not in r.stdout  # descriptions are cut to their first line
    r = mrtr(*catalog.args, "prompts")
    assert r.stdout.splitlines()[1].split() == ["prompt_2", "topic*", "Prompt", "number", "2"]
    r = mrtr(*catalog.args, "templates")
    assert r.stdout.splitlines()[0].split() == ["mem://tpl1/{id}", "tpl1"]


def test_invalid_x_mcp_header_tool_is_left_out_over_http_only(mrtr, catalog: Target):
    r = mrtr(*catalog.args, "tools")
    assert r.code == 0
    if catalog.kind == "http":
        assert "bad_header" not in r.stdout
        assert 'leaving out tool "bad_header"' in r.stderr and "number" in r.stderr
        r = mrtr(*catalog.args, "call", "bad_header", "weight:=1.5")
        assert r.code == 2
        assert "invalid x-mcp-header" in r.stderr
    else:
        assert "bad_header" in r.stdout and "leaving out" not in r.stderr


def test_describe_one_tool(mrtr, catalog: Target):
    r = mrtr(*catalog.args, "tools", "echo_args")
    assert r.code == 0, r.stderr
    out = r.stdout
    assert out.startswith("echo_args — Echo arguments\n")
    assert "  Returns its arguments as JSON.\n  Second line." in out
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ") and len(line.split()) > 2}
    assert rows["zip"].split()[1:3] == ["string", "required"] and "leading zeros" in rows["zip"]
    assert "default 0.5" in rows["ratio"]
    assert 'one of "red", "green", "blue"' in rows["color"]
    assert "array of integer" in rows["ids"]
    assert "required in address" in rows["address.city"]
    assert ">= 0" in rows["count"]
    example = out.strip().splitlines()[-1].strip()
    assert example.startswith("mrtr ") and " call echo_args 'zip=<string>'" in example
    r = mrtr(*catalog.args, "tools", "region_query")
    assert "header Mcp-Param-Region" in r.stdout
    assert "call region_query 'region=<string>' 'query=<string>'" in r.stdout
    r = mrtr(*catalog.args, "tools", "echo_args", "--json")
    assert r.json()["inputSchema"]["required"] == ["zip"]
    assert r.json()["title"] == "Echo arguments"


def test_unknown_tool_says_did_you_mean(mrtr, catalog: Target):
    r = mrtr(*catalog.args, "tools", "echo_arg")
    assert r.code == 2
    assert "unknown tool 'echo_arg'" in r.stderr and "did you mean: echo_args?" in r.stderr
    catalog.reset()
    r = mrtr(*catalog.args, "call", "whoamii")
    assert r.code == 2 and "did you mean: whoami?" in r.stderr
    assert not catalog.calls()
    # a name like none of the tools gets no list of every tool (as git does).
    r = mrtr(*catalog.args, "call", "zzqqxx")
    assert r.code == 2 and "did you mean" not in r.stderr and "whoami" not in r.stderr, r.stderr
    assert "no tool has a name like it; the tools command lists the server's" in r.stderr


def test_discover_text_and_json(mrtr, catalog: Target):
    r = mrtr(*catalog.args, "discover")
    assert r.code == 0, r.stderr
    assert "Server:        Catalog Test Server (catalog-test) 2.0" in r.stdout
    assert "Versions:      2026-07-28 (speaking 2026-07-28)" in r.stdout
    assert "  tools" in r.stdout and "  prompts" in r.stdout
    assert "Instructions:\n  Lists in pages.\n  Try tools." in r.stdout
    r = mrtr(*catalog.args, "discover", "--json")
    doc = r.json()
    assert doc["supportedVersions"] == ["2026-07-28"]
    assert doc["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "catalog-test"
    assert set(doc["capabilities"]) == {"tools", "prompts", "resources"}


def test_empty_list_says_so_on_stderr(mrtr, tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"tools": []}))
    r = mrtr("--stdio", stdio_cmd(ROOT / "tests" / "servers" / "raw_server.py", str(script)), "tools")
    assert r.code == 0 and r.stdout == ""
    assert "lists no tools" in r.stderr
    r = mrtr("--stdio", stdio_cmd(ROOT / "tests" / "servers" / "raw_server.py", str(script)), "tools", "--json")
    assert r.json() == []


def test_server_text_is_sanitised_in_tables(mrtr, tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"tools": [{"name": "evil\x1b[2J", "description": "x\x1b]0;t\x07[bold]y",
                                              "inputSchema": {"type": "object"}}]}))
    r = mrtr("--stdio", stdio_cmd(ROOT / "tests" / "servers" / "raw_server.py", str(script)), "tools")
    assert "\x1b" not in r.stdout and "\\x1b[2J" in r.stdout and "[bold]y" in r.stdout


def test_a_servers_huge_numbers_in_one_tools_view_are_shortened_and_json_keeps_them(mrtr, tmp_path):
    """docs/limits.md: a server's integer in text output is its first digits and its length."""
    huge = int("9" * 4000)
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": huge, "default": huge,
                                                     "enum": [huge, 1]}}}
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"tools": [{"name": "t", "inputSchema": schema}]}))
    target = ("--stdio", stdio_cmd(ROOT / "tests" / "servers" / "raw_server.py", str(script)))
    r = mrtr(*target, "tools", "t")
    assert r.code == 0, r.stderr
    assert len(r.stdout) < 2000, r.stdout[:300]
    assert r.stdout.count("999999…(4000 digits)") == 3, r.stdout
    r = mrtr(*target, "tools", "t", "--json")
    assert r.json()["inputSchema"]["properties"]["n"]["minimum"] == huge


@pytest.mark.pty
def test_table_on_a_terminal(tmp_path):
    import io

    pexpect = pytest.importorskip("pexpect")
    child = spawn_pty(PY, ["-m", "mrtr_cli", "--stdio", stdio_cmd(CATALOG_SERVER), "tools"], cwd=str(ROOT),
                      env=clean_env(tmp_path), encoding="utf-8", timeout=SAFETY, dimensions=(40, 100))
    seen = io.StringIO()
    child.logfile_read = seen
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    import re

    text = re.sub("\x1b\\[[0-9;]*m", "", seen.getvalue())  # the header is bold
    lines = text.replace("\r\n", "\n").splitlines()
    assert lines[0].split() == ["NAME", "PARAMETERS", "DESCRIPTION"]
    assert lines[1].startswith("echo_args ")
    assert "t04" in text
    assert all(len(line) <= 100 for line in lines if not line.startswith("mrtr: note:"))  # wrapped to the width
    assert any(line.startswith(" ") and "payload" in line for line in lines)  # a long cell wraps
