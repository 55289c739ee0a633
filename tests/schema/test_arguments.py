"""Tool arguments typed by the tool's inputSchema and checked locally before sending:
key=value coercion, key:=json, key=@file, stdin, heredocs, arrays, nested
objects, and schema violations that never reach tools/call.

Also the argument typing functions themselves, and usage errors found by the parser
(one JSON line with --json)."""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest

from mrtr_cli.errors import UsageError
from mrtr_cli.schema.arguments import build_arguments, parse_item, validate_arguments
from tests.conftest import PY, ROOT, Target, clean_env
from tests.support import SAFETY


def sent(r) -> dict:
    """The arguments as the server received them (echo_args returns them as structuredContent)."""
    assert r.code == 0, r.stderr
    return r.json()["structuredContent"]


def test_scalars_are_typed_by_the_schema(mrtr, catalog: Target):
    big = "123456789012345678901234567890"
    r = mrtr(*catalog.args, "call", "echo_args", "zip=02134", "count=7", f"big={big}", "ratio=2.5",
             "flag=false", "color=red", "note=null", "--json")
    assert sent(r) == {"zip": "02134", "count": 7, "big": int(big), "ratio": 2.5, "flag": False,
                       "color": "red", "note": "null"}
    assert big in r.stdout and big + ".0" not in r.stdout  # exact, never a float
    r = mrtr(*catalog.args, "call", "echo_args", "zip=00000", "ratio=3", "flag=TRUE", "note:=null", "--json")
    assert sent(r) == {"zip": "00000", "ratio": 3, "flag": True, "note": None}
    r = mrtr(*catalog.args, "call", "echo_args", "zip=1", "ratio=-1.5e3", "--json")
    assert sent(r) == {"zip": "1", "ratio": -1500.0}


def test_arrays_nested_objects_and_literal_json(mrtr, catalog: Target):
    r = mrtr(*catalog.args, "call", "echo_args", "zip=1", "tags=a", "tags=b c", "ids=1", "ids=22",
             "address.city=Paris", "address.zip=01000", "address.floor=3", 'payload:={"k": [1, 2.5, null]}',
             "--json")
    assert sent(r) == {"zip": "1", "tags": ["a", "b c"], "ids": [1, 22],
                       "address": {"city": "Paris", "zip": "01000", "floor": 3}, "payload": {"k": [1, 2.5, None]}}
    r = mrtr(*catalog.args, "call", "echo_args", "zip=1", "tags=solo", "ids:=[3,4]", "--json")
    assert sent(r) == {"zip": "1", "tags": ["solo"], "ids": [3, 4]}


def test_file_stdin_and_args_sources(mrtr, catalog: Target, tmp_path):
    note = tmp_path / "note.txt"
    note.write_text("line one\nline two\n")
    r = mrtr(*catalog.args, "call", "echo_args", "zip=1", f"text=@{note}", "--json")
    assert sent(r) == {"zip": "1", "text": "line one\nline two\n"}
    r = mrtr(*catalog.args, "call", "echo_args", "zip=1", "text=@-", "--json", input="from stdin")
    assert sent(r) == {"zip": "1", "text": "from stdin"}
    args = tmp_path / "args.json"
    args.write_text(json.dumps({"zip": "09999", "ids": [1]}))
    r = mrtr(*catalog.args, "call", "echo_args", "--args", f"@{args}", "count=2", "--json")
    assert sent(r) == {"zip": "09999", "ids": [1], "count": 2}
    r = mrtr(*catalog.args, "call", "echo_args", "--args", "-", "--json", input='{"zip": "x", "flag": true}')
    assert sent(r) == {"zip": "x", "flag": True}


@pytest.mark.parametrize("redirect", ["heredoc", "file"])
def test_args_from_a_heredoc_or_a_redirected_file(catalog: Target, tmp_path, redirect):
    base = " ".join(shlex.quote(a) for a in [PY, "-m", "mrtr_cli", *catalog.args, "call", "echo_args", "--args", "-",
                                             "--json"])
    if redirect == "heredoc":
        script = base + " <<'EOF'\n{\"zip\": \"02134\",\n \"address\": {\"city\": \"Oslo\"}}\nEOF\n"
    else:
        (tmp_path / "a.json").write_text('{"zip": "02134", "address": {"city": "Oslo"}}')
        script = base + f" < {shlex.quote(str(tmp_path / 'a.json'))}"
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=ROOT,
                          env=clean_env(tmp_path), timeout=SAFETY)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["structuredContent"] == {"zip": "02134", "address": {"city": "Oslo"}}


@pytest.mark.parametrize(("items", "expected"), [
    (["zip=1", "count=-1"], "argument count: -1 is less than the minimum of 0"),
    (["zip=1", "color=purple"], 'argument color: \'purple\' is not one of ["red", "green", "blue"]'),
    (["zip=1", 'address:={"zip": "1"}'], "missing required argument address.city"),
    (["count=1"], "missing required argument zip"),
    (["zip=1", "surprise=1"], "unexpected argument surprise (the schema allows no other properties)"),
    (["zip=1", "colour=red"], "unexpected argument colour (did you mean color?)"),
    (["zip:=2134"], "argument zip: expected string, got integer 2134"),
    (["zip=1", "ids=1", "ids:=true"], "argument ids[1]: expected integer, got boolean true"),
])
def test_schema_violation_exits_2_with_the_path_and_sends_nothing(mrtr, catalog: Target, items, expected):
    catalog.reset()
    r = mrtr(*catalog.args, "call", "echo_args", *items)
    assert r.code == 2, r.stderr
    assert f"mrtr: error: echo_args: {expected}" in r.stderr
    assert r.stderr.count(expected) == 1  # not said again in the hint
    # the command that shows the parameters, with this run's target
    assert f"see the parameters: {shlex.join(['mrtr', *catalog.args[:2], 'tools', 'echo_args'])}\n" in r.stderr
    assert r.stdout == ""
    assert not catalog.calls()  # validated before tools/call


def test_uncoercible_values_exit_2(mrtr, catalog: Target):
    catalog.reset()
    r = mrtr(*catalog.args, "call", "echo_args", "zip=1", "count=seven")
    assert r.code == 2 and "'seven' is not an integer" in r.stderr and "count:=" in r.stderr
    r = mrtr(*catalog.args, "call", "echo_args", "zip=1", "ratio=1e400")
    assert r.code == 2 and "is not a number" in r.stderr
    r = mrtr(*catalog.args, "call", "echo_args", "zip=1", "--json", "flag=maybe")
    assert r.code == 2
    assert json.loads(r.stderr.strip().splitlines()[-1])["error"]["exitCode"] == 2
    assert not catalog.calls()


# ---------------------------------------------------------------------- unit level
def _read(path: str) -> str:
    raise AssertionError("no files here")


def test_validation_never_fetches_remote_refs_and_skips_broken_schemas():
    schema = {"type": "object", "properties": {"a": {"$ref": "https://example.invalid/schema.json"}}}
    validate_arguments({"a": 1}, schema, "t")  # unresolvable: not checked locally, no network
    validate_arguments({"a": 1}, {"type": "object", "properties": {"a": {"type": 5}}}, "t")  # invalid schema
    local = {"type": "object", "$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}}
    with pytest.raises(UsageError, match="argument a: expected integer"):
        validate_arguments({"a": "x"}, local, "t")


def test_older_dialect_is_honoured():
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "properties": {"n": {"type": "integer", "exclusiveMinimum": 5}}}
    validate_arguments({"n": 6}, schema, "t")
    with pytest.raises(UsageError, match="less than or equal to the minimum of 5"):
        validate_arguments({"n": 5}, schema, "t")


def test_union_types_coerce_in_order():
    schema = {"type": "object", "properties": {"v": {"type": ["integer", "boolean", "null"]},
                                               "w": {"anyOf": [{"type": "number"}, {"type": "string"}]}}}
    items = [parse_item(t, _read) for t in ("v=12", "w=3.5")]
    assert build_arguments(items, None, schema) == {"v": 12, "w": "3.5"}  # a string branch keeps the text
    assert build_arguments([parse_item("v=true", _read)], None, schema) == {"v": True}
    assert build_arguments([parse_item("v=null", _read)], None, schema) == {"v": None}


def test_prompt_arguments_must_be_strings(mrtr, tmp_path):
    from tests.conftest import EXAMPLE_SERVER, stdio_cmd

    r = mrtr("--stdio", stdio_cmd(EXAMPLE_SERVER), "prompt", "triage", "workItemId:=4522")
    assert r.code == 2 and "prompt arguments are strings, not integer" in r.stderr
    assert "workItemId=4522" in r.stderr  # how to give it
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps({"id": "p", "prompt": "triage", "arguments": {"workItemId": 4522}}) + "\n")
    b = mrtr("--stdio", stdio_cmd(EXAMPLE_SERVER), "batch", batch)
    record = json.loads(b.stdout)
    assert record["exitCode"] == 2 and "prompt arguments are strings" in record["error"]["message"]


def test_no_validate_sends_what_the_schema_would_refuse(mrtr, catalog: Target):
    catalog.reset()
    r = mrtr(*catalog.args, "call", "echo_args", "count=seven", "zip=1", "--no-validate")
    assert catalog.calls() and catalog.calls()[-1]["params"]["arguments"] == {"count": "seven", "zip": "1"}
    assert "Traceback" not in r.stderr
    catalog.reset()
    mrtr(*catalog.args, "call", "not_listed", "--no-validate")
    assert catalog.calls()[-1]["params"]["name"] == "not_listed"


def test_arguments_typed_by_schema():
    schema = {"type": "object", "properties": {
        "zip": {"type": "string"}, "n": {"type": "integer"}, "big": {"type": "integer"},
        "x": {"type": "number"}, "ok": {"type": "boolean"}, "tags": {"type": "array", "items": {"type": "string"}},
        "opt": {"type": ["integer", "null"]},
        "address": {"type": "object", "properties": {"city": {"type": "string"}, "floor": {"type": "integer"}}},
    }}
    items = [parse_item(t, lambda p: "") for t in [
        "zip=02134", "n=7", "big=123456789012345678901234567890", "x=1.5", "ok=true", "tags=a", "tags=b",
        "opt=null", "address.city=Paris", "address.floor=3", "raw:=[1,2]", "free=text"]]
    args = build_arguments(items, None, schema)
    assert args == {"zip": "02134", "n": 7, "big": 123456789012345678901234567890, "x": 1.5, "ok": True,
                    "tags": ["a", "b"], "opt": None, "address": {"city": "Paris", "floor": 3}, "raw": [1, 2],
                    "free": "text"}


def test_single_item_array_and_errors():
    schema = {"type": "object", "properties": {"tags": {"type": "array"}, "n": {"type": "integer"}}}
    assert build_arguments([parse_item("tags=solo", str)], None, schema) == {"tags": ["solo"]}
    with pytest.raises(UsageError, match="not an integer"):
        build_arguments([parse_item("n=seven", str)], None, schema)
    with pytest.raises(UsageError):
        parse_item("novalue", str)
    with pytest.raises(UsageError, match="not valid JSON"):
        parse_item("a:={", str)


@pytest.mark.parametrize("argv", [["--json", "--bogus"], ["--json", "call"], ["call", "--json"]])
def test_usage_errors_found_by_the_parser_are_one_json_line_with_json(argv):
    import io

    from mrtr_cli.cli.main import run
    from mrtr_cli.env import Environment

    env = Environment(stdout=io.StringIO(), stderr=io.StringIO(), stdin=io.StringIO())
    assert run(argv, env) == 2
    lines = env.stderr.getvalue().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["error"]["exitCode"] == 2
    assert env.stdout.getvalue() == ""


def test_the_see_the_parameters_command_never_prints_a_urls_credentials(mrtr, catalog: Target):
    """A URL holding a credential (`?api_key=`) is never printed: the hint's command names no
    target and says the same one is needed (render/invocation.py `set_run_target`)."""
    if catalog.kind != "http":
        pytest.skip("a URL's credentials")
    url = catalog.args[1] + "?api_key=SEKRIT-VALUE"
    r = mrtr("--url", url, *catalog.args[2:], "call", "echo_args", "count:=-1")
    assert r.code == 2, r.stderr
    assert "SEKRIT-VALUE" not in r.stderr, r.stderr
    assert "see the parameters: mrtr tools echo_args (with the same --url, --stdio or -s)\n" in r.stderr, r.stderr
