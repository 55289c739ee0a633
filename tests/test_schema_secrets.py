"""A tool argument (or form field) is a secret when ANY subschema that could apply to its
value marks it (`writeOnly: true`, `format: "password"`), not only `properties.X` itself:
through a local `$ref` (pointer, anchor, `$id`), `allOf` / `anyOf` / `oneOf`,
`if` / `then` / `else`, `dependentSchemas`, `patternProperties`, `additionalProperties`,
nested members and array items (mrtr_cli/credentials.py (`Place`); docs/answers.md, "Secrets"). A
`$ref` cycle ends; a `$ref` that cannot be resolved and a chain too deep count as secret.

End to end against the SDK test server tests/servers/secret_schema_server.py (tool
`hidden`, every argument but `n` a secret by such a route): no value reaches an argument
error, `-v`, `--trace`, the pending document (the arguments go to `withheld`) or the
shell's first-failing-line summary.
"""

from __future__ import annotations

import json
import shlex

import pytest

from mrtr_cli.credentials import MAX_DEPTH, Place, secret_members, secret_properties
from mrtr_cli.schema.elicit import form_fields
from mrtr_cli.schema.secrecy import name_matches, place_at, secret_arguments
from tests.conftest import SERVERS, stdio_cmd

SERVER = SERVERS / "secret_schema_server.py"
SECRET = {"type": "string", "writeOnly": True}
PASSWORD = {"type": "string", "format": "password"}
PLAIN = {"type": "string"}


def obj(**props: object) -> dict:
    return {"type": "object", "properties": props}


@pytest.mark.parametrize(("schema", "path"), [
    ({**obj(k={"$ref": "#/$defs/s"}), "$defs": {"s": SECRET}}, ["k"]),
    ({**obj(k={"$ref": "#/definitions/a~1b"}), "definitions": {"a/b": PASSWORD}}, ["k"]),
    ({**obj(k={"$ref": "#/$defs/r"}), "$defs": {"r": {"$ref": "#/$defs/s"}, "s": SECRET}}, ["k"]),
    ({**obj(k={"$ref": "#sec"}), "$defs": {"s": {**SECRET, "$anchor": "sec"}}}, ["k"]),
    ({**obj(k={"$ref": "item.json"}), "$defs": {"s": {**SECRET, "$id": "item.json"}}}, ["k"]),
    (obj(k={"anyOf": [SECRET, {"type": "integer"}]}), ["k"]),
    (obj(k={"oneOf": [{"type": "integer"}, PASSWORD]}), ["k"]),
    (obj(k={"allOf": [PLAIN, {"writeOnly": True}]}), ["k"]),
    (obj(k={"if": PLAIN, "then": {"writeOnly": True}}), ["k"]),
    (obj(k={"if": PLAIN, "else": {"format": "password"}}), ["k"]),
    ({"type": "object", "allOf": [obj(k=SECRET)]}, ["k"]),
    ({"type": "object", "anyOf": [obj(k=PLAIN), obj(k=SECRET)]}, ["k"]),
    ({"type": "object", "if": obj(a=PLAIN), "then": obj(k=SECRET)}, ["k"]),
    ({"type": "object", "dependentSchemas": {"a": obj(k=SECRET)}}, ["k"]),
    ({"type": "object", "patternProperties": {"^s_": SECRET}}, ["s_a"]),
    ({"type": "object", "additionalProperties": PASSWORD, "properties": {"n": PLAIN}}, ["other"]),
    ({"type": "object", "unevaluatedProperties": SECRET}, ["other"]),
    (obj(o=obj(inner={"$ref": "#/$defs/s"})) | {"$defs": {"s": SECRET}}, ["o", "inner"]),
    (obj(o={"$ref": "#/$defs/w"}) | {"$defs": {"w": obj(inner=SECRET)}}, ["o", "inner"]),
    (obj(a={"type": "array", "items": obj(x=SECRET)}), ["a", "x"]),
    (obj(a={"type": "array", "prefixItems": [PLAIN, SECRET]}), ["a", "1"]),
    (obj(a={"type": "array", "contains": SECRET}), ["a", "0"]),
    ({**obj(k={"$ref": "https://example.com/remote.json"})}, ["k"]),  # not resolvable here
    ({**obj(k={"$ref": "#/$defs/missing"})}, ["k"]),
])
def test_a_mark_reached_any_way_makes_a_secret(schema, path):
    assert place_at(schema, path).secret()
    assert secret_members(_value_at(path, "v"), schema, name_matches) == [path[0]]


def _value_at(path: list[str], leaf: object) -> dict:
    value = leaf
    for part in reversed(path[1:]):
        value = [value, value] if part.isdigit() else {part: value}
    return {path[0]: value}


@pytest.mark.parametrize(("schema", "path"), [
    ({"type": "object", "patternProperties": {"^s_": SECRET}}, ["n"]),  # the pattern does not match
    ({"type": "object", "additionalProperties": SECRET, "properties": {"n": PLAIN}}, ["n"]),  # n is named
    ({**obj(k={"$ref": "#/$defs/s"}), "$defs": {"s": PLAIN, "t": SECRET}}, ["k"]),
    (obj(k={"not": SECRET}), ["k"]),  # a schema the value must not match says nothing of it
    (obj(a={"type": "array", "prefixItems": [PLAIN, SECRET]}), ["a", "0"]),
    ({**obj(k={"$ref": "#"}), "$id": "x"}, ["k"]),  # a cycle to the root adds nothing
    ({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, **obj(k={"$ref": "#/$defs/a"})}, ["k"]),
])
def test_a_schema_without_a_mark_for_the_value_makes_none(schema, path):
    assert not place_at(schema, path).secret()


def test_a_chain_deeper_than_the_bound_counts_as_secret():
    defs = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(MAX_DEPTH + 5)}
    defs[f"d{MAX_DEPTH + 5}"] = PLAIN
    schema = {**obj(k={"$ref": "#/$defs/d0"}), "$defs": defs}
    assert place_at(schema, ["k"]).secret()
    nested: dict = PLAIN
    for _ in range(MAX_DEPTH + 5):
        nested = obj(x=nested)
    assert Place.of(nested).holds_secret()  # too deep to prove no secret below
    assert not Place.of(obj(x=obj(y=PLAIN))).holds_secret()


def test_a_property_that_could_hold_a_secret_is_listed_and_noted():
    schema = {**obj(box={"$ref": "#/$defs/w"}, n={"type": "integer"}),
              "$defs": {"w": obj(inner={"anyOf": [SECRET]})},
              "patternProperties": {"^s_": SECRET}}
    assert secret_properties(schema, name_matches) == ["box"]
    assert secret_properties(schema) == ["box", "n"]  # with no pattern engine every pattern may match
    assert secret_arguments({"n": 1, "s_x": "v", "free": "w"}, schema) == ["s_x", "box"]


def test_a_form_field_uses_the_same_rule():
    form = {"type": "object", "$defs": {"s": SECRET},
            "properties": {"pin2": {"anyOf": [SECRET]}, "ref": {"$ref": "#/$defs/s"}, "city": PLAIN}}
    fields = {f.name: f for f in form_fields(form)}
    assert [name for name, f in fields.items() if f.masked] == ["pin2", "ref"]
    assert [name for name, f in fields.items() if f.secret] == ["pin2", "ref"]
    assert secret_properties(form) == ["pin2", "ref"]


SECRETS = {"k": "KK-secret-12345", "o": "zOO-secret", "k2": "K2-secret", "s_a": "SA-secret",
           "other": "OT-secret", "box.inner": "BX-secret-12345", "gate": "GT-secret"}


def _items(**override: str) -> list[str]:
    return ["n=1", *(f"{k}={v}" for k, v in {**SECRETS, **override}.items()),
            'keys:=["KY-secret-12345"]']


def _leaks(text: str) -> list[str]:
    return [v for v in [*SECRETS.values(), "KY-secret", "short-SEC", "much-too-long-for-s_"] if v in text]


def test_an_argument_error_quotes_no_secret_reached_through_the_schema(mrtr):
    target = ["--stdio", stdio_cmd(SERVER)]
    run = mrtr(*target, "call", "hidden", *_items(k="short-SEC"))
    assert run.code == 2, run.stderr
    assert "argument k: string fails the schema's 'minLength' rule (the value (not shown: a secret))" in run.stderr
    assert not _leaks(run.stderr), run.stderr
    run = mrtr(*target, "call", "hidden", *_items(o="short-SEC", s_a="much-too-long-for-s_a-SEC"))
    assert run.code == 2, run.stderr
    assert "argument o: " in run.stderr and "argument s_a: " in run.stderr, run.stderr
    assert not _leaks(run.stderr), run.stderr
    run = mrtr(*target, "--json", "call", "hidden", *_items(k="short-SEC"))
    assert run.code == 2 and not _leaks(run.stderr), run.stderr


def test_no_secret_reached_through_the_schema_in_v_trace_or_the_pending_document(mrtr, tmp_path):
    trace = tmp_path / "trace.jsonl"
    run = mrtr("--stdio", stdio_cmd(SERVER), "-v", "--trace", trace, "--no-input", "call", "hidden", *_items())
    assert run.code == 5, run.stderr
    doc = json.loads(run.stdout)
    assert doc["params"] == {"name": "hidden", "arguments": {"n": 1}}, doc
    assert sorted(doc["withheld"]["arguments"]) == sorted(["k", "o", "k2", "s_a", "other", "box", "keys", "gate"])
    assert not _leaks(run.stdout), run.stdout
    assert not _leaks(run.stderr), run.stderr
    sent = [json.loads(line) for line in trace.read_text().splitlines()]
    assert not _leaks(trace.read_text())
    calls = [m for m in sent if '"tools/call"' in json.dumps(m)]
    assert calls and '"n": 1' in json.dumps(calls[0]), calls


def test_the_shell_summary_shows_no_secret_reached_through_the_schema(mrtr):
    line = "call hidden " + shlex.join(_items(k="short-SEC"))
    run = mrtr("--stdio", stdio_cmd(SERVER), "shell", input=line + "\n")
    assert run.code == 2, run.stderr
    summary = run.stderr.strip().splitlines()[-1]
    assert "the first failing line is line 1 (" in summary and "n=1" in summary, run.stderr
    assert not _leaks(run.stderr), run.stderr
