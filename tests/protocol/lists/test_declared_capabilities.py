"""Listing that sees what a call sees: `server/discover`, the era probe and the
list requests declare the client capabilities the run would declare on a call, the
listing commands take the declaring options, the list cache never serves a list made
under another declaration, and an input request for an undeclared capability names
the option that declares it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import PY, SERVERS, HttpServers, Target, read_records, recording_target, stdio_cmd

GATED = SERVERS / "gated_server.py"
CAPS = "io.modelcontextprotocol/clientCapabilities"
TASKS = "io.modelcontextprotocol/tasks"


@pytest.fixture(scope="module", params=["stdio", "http"])
def gated(request: pytest.FixtureRequest, http_servers: HttpServers,
          tmp_path_factory: pytest.TempPathFactory) -> Target:
    return recording_target(request.param, GATED, http_servers, tmp_path_factory)


@pytest.fixture
def sampler(tmp_path: Path) -> str:
    """A --sampling-command that answers every sampling request with the same text."""
    script = tmp_path / "sampler.py"
    script.write_text("import json, sys\nsys.stdin.read()\nprint(json.dumps({'role': 'assistant', 'model': 'm', "
                      "'content': {'type': 'text', 'text': 'sampled'}}))\n")
    return f"{PY} {script}"


def names(run) -> list[str]:
    assert run.code == 0, run.stderr
    return [t["name"] for t in run.json()]


def test_a_gated_tool_is_listed_when_the_run_declares_its_capability(mrtr, gated, sampler, tmp_path):
    assert names(mrtr(*gated.args, "tools", "--json")) == ["echo"]
    assert names(mrtr(*gated.args, "tools", "--json", "--sampling-command", sampler)) == ["echo", "summarize"]
    assert names(mrtr(*gated.args, "tools", "--json", "--root", str(tmp_path))) == ["echo", "scan_roots"]
    text = mrtr(*gated.args, "tools", "--sampling-command", sampler)
    assert text.code == 0 and "summarize" in text.stdout


def test_list_and_discover_requests_carry_the_call_declaration(mrtr, gated, sampler, tmp_path):
    gated.reset()
    r = mrtr(*gated.args, "discover", "--json", "--root", str(tmp_path), "--sampling-command", sampler)
    assert r.code == 0, r.stderr
    sent = [m for m in read_records(gated.record, probe=True) if "id" in m]
    discover = [m for m in sent if m["method"] == "server/discover"]
    assert discover, sent
    for m in discover:  # the era probe (and discover itself when the probe did not answer)
        caps = m["params"]["_meta"][CAPS]
        assert "sampling" in caps and "roots" in caps and TASKS in caps["extensions"]
    gated.reset()
    r = mrtr(*gated.args, "prompts", "--json", "--root", str(tmp_path))
    assert r.code == 0, r.stderr
    sent = [m for m in read_records(gated.record) if "id" in m]
    prompts = [m for m in sent if m["method"] == "prompts/list"]
    assert prompts and all("roots" in m["params"]["_meta"][CAPS] for m in prompts)
    assert all("extensions" not in m["params"]["_meta"][CAPS] for m in prompts)  # prompts/get declares no tasks


def test_a_call_finds_the_gated_tool_it_declares_for(mrtr, gated, sampler):
    r = mrtr(*gated.args, "call", "summarize", "text=hi", "--sampling-command", sampler)
    assert r.code == 0, r.stderr
    assert "summarize: hi" in r.stdout


def test_the_list_cache_is_keyed_by_the_declared_capabilities(mrtr, tmp_path, sampler):
    record = tmp_path / "rec.jsonl"
    server = ["--stdio", stdio_cmd(GATED, "--record", str(record), "--ttl", "600000", "--scope", "public")]
    with_sampling = ["--sampling-command", sampler]
    assert names(mrtr(*server, "tools", "--json", *with_sampling)) == ["echo", "summarize"]
    record.write_text("")
    # A fresh public list made while declaring sampling is not this run's list.
    r = mrtr(*server, "call", "summarize", "text=x")
    assert r.code == 2 and "unknown tool 'summarize'" in r.stderr, r.stderr
    assert [m["method"] for m in read_records(record) if "id" in m] == ["tools/list"]
    record.write_text("")
    # ...but the same declaration reuses it: no tools/list at all.
    r = mrtr(*server, "call", "summarize", "text=x", *with_sampling)
    assert r.code == 0, r.stderr
    assert [m["method"] for m in read_records(record) if "id" in m] == ["tools/call"]


def test_an_input_request_for_an_undeclared_capability_names_the_option(mrtr, tmp_path):
    script = tmp_path / "script.json"
    sampling = {"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}}
    roots = {"method": "roots/list", "params": {}}
    script.write_text(json.dumps({"calls": {
        "wants_sampling": [{"result": {"resultType": "input_required", "inputRequests": {"s": sampling}}}],
        "wants_roots": [{"result": {"resultType": "input_required", "inputRequests": {"r": roots}}}],
    }}))
    server = ["--stdio", stdio_cmd(SERVERS / "raw_server.py", str(script))]
    r = mrtr(*server, "call", "wants_sampling", "--no-input")
    assert r.code == 4, r.stderr
    assert "did not declare" in r.stderr and "--sampling-command" in r.stderr
    r = mrtr(*server, "call", "wants_roots", "--no-input")
    assert r.code == 4, r.stderr
    assert "did not declare" in r.stderr and "--root" in r.stderr


def test_a_bad_declaring_option_on_a_listing_is_a_usage_error(mrtr, gated, tmp_path):
    r = mrtr(*gated.args, "tools", "--root", str(tmp_path / "missing"))
    assert r.code == 2 and "missing" in r.stderr and "Traceback" not in r.stderr


def test_a_missing_capability_error_keeps_the_server_message(mrtr, gated):
    # The gated server answers -32021 "summarize needs sampling" to a call that does not declare it.
    r = mrtr(*gated.args, "call", "summarize", "text=x", "--no-validate", "--json")
    assert r.code == 4, r.stderr
    err = json.loads(r.stderr.strip().splitlines()[-1])["error"]
    assert err["code"] == -32021 and err["message"] == "summarize needs sampling"  # as sent
    assert err["data"] == {"requiredCapabilities": {"sampling": {}}}
    assert "--sampling-command" in err["hint"]
    r = mrtr(*gated.args, "call", "summarize", "text=x", "--no-validate")
    assert r.code == 4, r.stderr
    lines = r.stderr.splitlines()
    assert lines[0] == "mrtr: error: server error -32021: summarize needs sampling"
    assert "which this run does not declare" in lines[1] and "--sampling-command" in r.stderr


def test_a_listing_notes_hidden_tools_only_where_the_server_hid_some(mrtr, gated, sampler, tmp_path):
    """The note is printed only where it can apply: never on a first listing (nothing says the
    server hides anything), and after a run that declared roots saw more, naming what it saw."""
    def notes(r) -> list[str]:
        assert r.code == 0, r.stderr
        return [line for line in r.stderr.splitlines() if line.startswith("mrtr: note:")]

    assert notes(mrtr(*gated.args, "tools")) == []  # nothing known: no claim
    assert notes(mrtr(*gated.args, "tools", "--root", str(tmp_path), "--sampling-command", sampler)) == []
    (note,) = notes(mrtr(*gated.args, "tools"))
    assert "listed summarize, scan_roots to an earlier run that declared sampling and roots" in note, note
    assert "may list some tools only to clients that do: add --sampling-command CMD and --root PATH" in note
    (note,) = notes(mrtr(*gated.args, "tools", "--sampling-command", sampler))
    assert "listed scan_roots to an earlier run that declared roots;" in note and "add --root PATH to see" in note
    assert notes(mrtr(*gated.args, "tools", "--sampling-command", sampler, "--root", str(tmp_path))) == []
    assert notes(mrtr(*gated.args, "tools", "-q")) == []
    assert notes(mrtr(*gated.args, "prompts")) == []  # the prompts are the same whatever is declared


def test_a_server_that_hides_nothing_gets_no_note(mrtr, tmp_path):
    work = ["--stdio", stdio_cmd(SERVERS.parent.parent / "examples" / "servers" / "work_items.py")]
    for extra in ([], ["--root", str(tmp_path)], []):
        r = mrtr(*work, "tools", *extra)
        assert r.code == 0 and "note:" not in r.stderr, r.stderr


def test_an_unknown_tool_that_may_be_hidden_names_the_declaring_option(mrtr, gated):
    # `summarize` is offered only to a run declaring sampling: the error says so, whatever it suggests.
    for name in ("summarize", "scan_roots"):
        r = mrtr(*gated.args, "call", name, "text=x")
        assert r.code == 2, r.stderr
        assert f"unknown tool '{name}'" in r.stderr
        assert "a server may list some tools only to clients that declare sampling (--sampling-command CMD) " \
            "or roots (--root PATH); this run declares neither" in r.stderr


def test_a_shell_lines_own_declaring_options_go_with_its_list_requests(mrtr, gated, sampler, tmp_path):
    """Inside `mrtr shell` over a 2026-07-28 server, a line's `--sampling-command` or `--root`
    goes with each of its requests, its tools/list too (docs/shell.md): the line finds the
    tool the server lists only to a client that declares it, and the shell's listing is
    kept apart for each declaration (the next line without it does not see it)."""
    gated.reset()
    lines = (f"call summarize text=hi --sampling-command {json.dumps(sampler)}\n"
             f"tools --sampling-command {json.dumps(sampler)}\n"
             f"tools --root {json.dumps(str(tmp_path))}\n"
             "tools\n"
             "call summarize text=hi\n"
             f"discover --json --sampling-command {json.dumps(sampler)}\n")
    r = mrtr(*gated.args, "shell", input=lines)
    assert r.code == 2, r.stderr  # the last call: not listed to a line that declares no sampling
    assert "summarize: hi" in r.stdout
    assert "declares neither" not in r.stderr.split("unknown tool")[0], r.stderr
    assert r.stderr.count("unknown tool 'summarize'") == 1, r.stderr
    assert "first failing line is line 5" in r.stderr, r.stderr
    rows = [line.split()[0] for line in r.stdout.split("summarize: hi", 1)[1].splitlines()
            if line and not line.startswith("{")]
    tables: list[list[str]] = []
    for row in rows:  # each listing starts with echo
        tables += [[row]] if row == "echo" else []
        tables[-1] += [row] if row != "echo" else []
    assert tables == [["echo", "summarize"], ["echo", "scan_roots"], ["echo"]], r.stdout  # sampling; roots; neither
    sent = [m for m in read_records(gated.record, probe=True) if "id" in m]
    lists = [m for m in sent if m["method"] in ("tools/list", "server/discover")]
    assert any("sampling" in m["params"]["_meta"][CAPS] for m in lists if m["method"] == "tools/list"), lists
    assert any("roots" in m["params"]["_meta"][CAPS] for m in lists if m["method"] == "tools/list"), lists
    assert any("sampling" in m["params"]["_meta"][CAPS] for m in lists if m["method"] == "server/discover"), lists
    assert any(not {"sampling", "roots"} & set(m["params"]["_meta"][CAPS])
               for m in lists if m["method"] == "tools/list"), lists
