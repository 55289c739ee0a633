"""`mrtr tools NAME`'s example call is a command that works as printed (schema/example.py).

In process, through mrtr's real parsers: the printed line is split as the
user's shell splits it, parsed by the `mrtr` click group down to `call`, its items by
`schema.arguments.parse_item` and its `--args` by `load_args_option`, and combined by
`build_arguments`: for any property names (a `-` first, `=`, `:=`, a dot, `@`, spaces,
an empty name) and any tool name, the arguments hold exactly the required keys and the
tool is the one named. And end to end: the tester's tool, shown by a stdio server, then
run as printed.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtr_cli.cli.main import cli
from mrtr_cli.platform import shellwords
from mrtr_cli.render.listing import describe_tool
from mrtr_cli.schema.arguments import build_arguments, load_args_option, parse_item
from mrtr_cli.schema.example import example_call
from tests.conftest import SERVERS, read_records, stdio_cmd

#: Names from the characters that make items hard: option dashes, `=`, `:`, `.`, `@`, quotes, spaces,
#: letters, and (not in a tool's name) controls a terminal would show escaped.
_TOOL_NAMES = st.text(alphabet=st.sampled_from("-=:.@ 'a\"xé"), min_size=1, max_size=5)
_NAMES = st.text(alphabet=st.sampled_from("-=:.@ 'a\"xé\n\x1b\x9b"), max_size=5)
_LEAF = st.one_of(
    st.sampled_from([{"type": "string"}, {"type": "integer"}, {"type": "boolean"}, {"type": "object"},
                     {"type": "array"}, {"type": "array", "items": {"type": "string"}}, {}]),
    st.builds(lambda values: {"enum": values}, st.lists(_NAMES, min_size=1, max_size=2)),
    st.builds(lambda value: {"type": "string", "default": value}, _NAMES),
)


def _object(props: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(_NAMES, props, max_size=5).flatmap(
        lambda properties: st.builds(lambda required: {"type": "object", "properties": properties,
                                                       "required": required},
                                     st.lists(st.sampled_from(sorted(properties)), unique=True)
                                     if properties else st.just([])))


_SCHEMAS = _object(st.one_of(_LEAF, _object(_LEAF)))


def _parsed(line: str) -> tuple[str, dict[str, Any]]:
    """The tool and arguments `mrtr` makes of `line`, parsed as `call` parses it (no `--no-validate` needed)."""
    ctx = cli.make_context("mrtr", shellwords.split(line)[1:])
    while isinstance(ctx.command, click.Group):
        name, command, rest = ctx.command.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
        assert name == "call", line
        ctx = command.make_context(name, rest, parent=ctx)

    def no_file(path: str) -> str:
        raise AssertionError(f"{line}: reads a file {path!r}")

    items = [parse_item(text, no_file) for text in ctx.params["items"]]
    base = load_args_option(ctx.params["args_json"], no_file) if ctx.params["args_json"] else None
    return ctx.params["tool"], build_arguments(items, base, None)


def _required(schema: dict[str, Any]) -> dict[str, Any]:
    """The required keys of `schema` as a tree (None for a leaf; an object with properties
    and nothing required under it is a leaf too: the example gives it as `{}`)."""
    out: dict[str, Any] = {}
    for name in schema.get("required", []):
        prop = schema["properties"][name]
        out[name] = (_required(prop) if isinstance(prop.get("properties"), dict) else None) or None
    return out


def _keys(arguments: dict[str, Any]) -> dict[str, Any]:
    return {k: (_keys(v) or None) if isinstance(v, dict) else None for k, v in arguments.items()}


@settings(max_examples=300, deadline=None)
@given(schema=_SCHEMAS, name=_TOOL_NAMES)
def test_the_example_parses_back_into_exactly_the_required_keys(schema, name):
    line = example_call({"name": name, "inputSchema": schema}, ["--stdio", "python server.py"])
    tool, arguments = _parsed(line)
    assert tool == name, line
    assert _keys(arguments) == _required(schema), line


def test_the_example_of_the_testers_tool():
    schema = {"type": "object", "required": ["-v", "a b", "k=v", "x.y", "n", "@f", "e"],
              "properties": {"-v": {"type": "string"}, "a b": {"type": "string"}, "k=v": {"type": "string"},
                             "x.y": {"type": "integer"}, "n": {"type": "string", "pattern": "^[0-9]{3}$"},
                             "@f": {"type": "string"}, "e": {"enum": ["-x", "y z"]}}}
    line = example_call({"name": "t1", "inputSchema": schema}, [])
    assert line == ("mrtr call --args '{\"k=v\": \"<string>\", \"x.y\": \"<integer>\"}' -- t1 '-v=<string>' "
                    "'a b=<string>' 'n=<string>' '@f=<string>' e=-x")
    assert example_call({"name": "-dash", "inputSchema": {}}, []) == "mrtr call -- -dash"


def test_control_characters_and_empty_objects():
    schema = {"type": "object", "required": ["a\x1bb", "o", "v"],
              "properties": {"a\x1bb": {"type": "string"}, "o": {"type": "object", "properties": {"p": {}}},
                             "v": {"enum": ["@x"]}}}
    line = example_call({"name": "t", "inputSchema": schema}, [])
    assert line == "mrtr call --args '{\"a\\u001bb\": \"<string>\"}' t 'o:={}' 'v:=\"@x\"'", line


def test_a_name_holding_a_dot_is_required_in_no_parent():
    schema = {"type": "object", "required": ["x.y", "o"],
              "properties": {"x.y": {"type": "integer"},
                             "o": {"type": "object", "required": ["p"], "properties": {"p": {"type": "string"}}}}}
    text = describe_tool({"name": "t", "inputSchema": schema}, "")
    rows = {line.split()[0]: line for line in text.splitlines() if line.startswith("  ") and "required" in line}
    assert "required in" not in rows["x.y"], text
    assert "required in o" in rows["o.p"], text


TESTERS_TOOLS = [{"name": "t1", "inputSchema": {
    "type": "object", "required": ["-v", "a b", "k=v", "x.y", "n", "d", "@f", "e"],
    "properties": {"-v": {"type": "string"}, "a b": {"type": "string"}, "k=v": {"type": "string"},
                   "x.y": {"type": "integer"}, "n": {"type": "string", "pattern": "^[0-9]{3}$"},
                   "d": {"type": "string", "format": "date"}, "@f": {"type": "string"},
                   "e": {"enum": ["-x", "y z"]}}}},
    {"name": "-dash", "inputSchema": {"type": "object", "properties": {}}}]


@pytest.mark.parametrize("tool", ["t1", "-dash"])
def test_the_printed_example_runs_against_a_server(mrtr, tmp_path, tool):
    """`tools NAME` against a stdio server, then its example line as printed (placeholders
    left in: `--no-validate`): the server gets exactly the required arguments."""
    script, rec = tmp_path / "script.json", tmp_path / "record.jsonl"
    ok = {"result": {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}}
    script.write_text(json.dumps({"tools": TESTERS_TOOLS, "calls": {"t1": [ok], "-dash": [ok]}}))
    target = ["--stdio", stdio_cmd(SERVERS / "raw_server.py", str(script), "--record", str(rec))]
    shown = mrtr(*target, "tools", "--", tool)
    assert shown.code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    example = shlex.split(lines[lines.index("Example:") + 1])
    assert example[0] == "mrtr", example
    run = mrtr("--no-validate", *example[1:])
    assert run.code == 0, run.stderr
    calls = [m["params"] for m in read_records(rec) if m.get("method") == "tools/call"]
    schema = next(t for t in TESTERS_TOOLS if t["name"] == tool)["inputSchema"]
    assert [c["name"] for c in calls] == [tool]
    assert sorted(calls[0].get("arguments") or {}) == sorted(schema.get("required", [])), calls
