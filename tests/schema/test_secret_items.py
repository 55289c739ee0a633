"""No message about a tool argument item quotes the value of a secret argument (by the
tool's `inputSchema`: `writeOnly`, `format: password`; or by a credential's name: `pin`,
`password`), the dotted parts below one and the JSON of `KEY:=JSON` that holds one
included: the item is quoted as `'KEY=...'` (mrtr_cli/schema/arguments.py `_masked`).
Before the tool's schema is known (`parse_item`) no item's value is quoted. And end to
end, with `--json` too, against the SDK test server (`login`'s `code_word` is `writeOnly`).
"""

from __future__ import annotations

import json

import pytest

from mrtr_cli.errors import UsageError
from mrtr_cli.schema.arguments import build_arguments, parse_item
from tests.conftest import SERVERS, stdio_cmd

SCHEMA = {"type": "object", "properties": {
    "pin": {"type": "string"},
    "x": {"type": "string", "writeOnly": True},
    "pw": {"type": "string", "format": "password"},
    "n": {"type": "integer", "writeOnly": True},
    "opts": {"type": "object", "properties": {"sig": {"type": "string", "writeOnly": True},
                                             "lvl": {"type": "integer"}}},
    "plain": {"type": "string"},
}}

CASES = [
    (["pin=abcd1234", "pin.y=secretzzz"], "argument 'pin.y=...': 'pin' is already a value (from 'pin=...')"),
    (["password=abcd1234", "password.y=secretzzz"],
     "argument 'password.y=...': 'password' is already a value (from 'password=...')"),
    (["x=abcdefgh", "x.y=secretzzz"], "argument 'x.y=...': 'x' is already a value (from 'x=...')"),
    (["pw=abcdefgh", "pw.y=secretzzz"], "argument 'pw.y=...': 'pw' is already a value (from 'pw=...')"),
    (['x:={"b":"secretzzz"}', "x.c=2"], "argument 'x.c=...': 'x' is already a value (from 'x:=...')"),
    (["x.c=2", 'x:={"b":"secretzzz"}'], "argument 'x:=...': 'x' is already an object (from 'x.c=...')"),
    (["x.c=secretzzz", "x=abcdefgh"], "argument 'x=...': 'x' is already an object (from 'x.c=...')"),
    (['opts:={"sig":"secretzzz"}', "opts.lvl=2"],
     "argument 'opts.lvl=2': 'opts' is already a value (from 'opts:=...')"),
    (["n=secretzzz"], "argument n=...: the value (not shown: a secret) is not an integer"),
    (["x.y.z=secretzzz", "x.y=abcdefgh"], "argument 'x.y=...': 'x.y' is already an object (from 'x.y.z=...')"),
    (["plain=seen1", "plain.y=seen2"], "argument 'plain.y=seen2': 'plain' is already a value (from 'plain=seen1')"),
]


@pytest.mark.parametrize(("texts", "message"), CASES)
def test_an_item_message_quotes_no_secret(texts, message):
    items = [parse_item(t, lambda path: "") for t in texts]
    with pytest.raises(UsageError) as caught:
        build_arguments(items, None, SCHEMA)
    assert caught.value.message == message
    assert "secretzzz" not in caught.value.message and "abcd" not in caught.value.message


def test_an_item_on_an_args_value_quotes_no_secret():
    items = [parse_item("x.y=secretzzz", lambda path: "")]
    with pytest.raises(UsageError) as caught:
        build_arguments(items, {"x": "abcdefgh"}, SCHEMA)
    assert caught.value.message == "argument 'x.y=...': 'x' is already a value, not an object"


@pytest.mark.parametrize(("text", "message"), [
    (".x=secretzzz", "argument '.x=...': the key is empty"),
    ("a..b=secretzzz", "argument 'a..b=...': the key is empty"),
    ("a.:=secretzzz", "argument 'a.:=...': the value after := is not valid JSON (Expecting value)"),
    ("." * 40 + "a=secretzzz", "argument '" + "." * 40 + "a=...': the key is empty"),
])
def test_an_item_before_its_schema_is_known_quotes_no_value(text, message):
    with pytest.raises(UsageError) as caught:
        parse_item(text, lambda path: "")
    assert caught.value.message == message


def test_a_call_says_no_secret_value(mrtr):
    target = ["--stdio", stdio_cmd(SERVERS / "shell_server.py")]
    run = mrtr(*target, "call", "login", "user=ada", "code_word=wordword1", "code_word.y=deepdeep2")
    assert run.code == 2, run.stderr
    assert "argument 'code_word.y=...': 'code_word' is already a value (from 'code_word=...')" in run.stderr
    run = mrtr(*target, "--json", "call", "login", "user=ada", "code_word.y=deepdeep2", "code_word=wordword1")
    error = json.loads(run.stderr.strip().splitlines()[-1])["error"]
    assert error["message"] == "argument 'code_word=...': 'code_word' is already an object (from 'code_word.y=...')"
    assert "wordword1" not in run.stderr and "deepdeep2" not in run.stderr


def test_a_rule_of_the_schemas_root_quotes_no_arguments_holding_a_secret():
    """A rule on the whole arguments (`maxProperties`, `oneOf` at the root) says which rule
    failed, not the arguments, when they hold a secret; without one they are quoted as before."""
    from mrtr_cli.schema.arguments import validate_arguments

    schema = {"type": "object", "properties": {"pin": {"type": "string"}, "a": {"type": "integer"}},
              "oneOf": [{"required": ["a"]}, {"required": ["b"]}], "maxProperties": 1}
    with pytest.raises(UsageError) as caught:
        validate_arguments({"pin": "secretzzz", "a": 1, "b": 2}, schema, "t")
    assert caught.value.message == ("t: argument (all): object fails the schema's 'maxProperties' rule "
                                    "(the value (not shown: a secret))")
    assert "secretzzz" not in caught.value.message + str(caught.value.hint)
    with pytest.raises(UsageError) as caught:
        validate_arguments({"a": 1, "b": 2}, schema, "t")
    assert caught.value.message == 't: argument (all): {"a": 1, "b": 2} has too many properties'
