"""Unit tests of the elicitation helpers (issue 3): typing and checking answers, URL warnings and
display pieces, pending-document helpers."""

from __future__ import annotations

import pytest

from mrtr_cli.engine.pending import answers_template, is_rejected_state, pending_notes, start_again_command
from mrtr_cli.errors import JsonRpcError
from mrtr_cli.responders.answers import parse_answer_document
from mrtr_cli.responders.urls import openable, split_for_display, url_warnings
from mrtr_cli.schema.elicit import check_format, explain, form_fields


def field(schema: dict, required: bool = False):
    (f,) = form_fields({"type": "object", "properties": {"x": schema}, "required": ["x"] if required else []})
    return f


@pytest.mark.parametrize(("schema", "text", "value"), [
    ({"type": "integer"}, " 42 ", 42),
    ({"type": "integer"}, "-7", -7),
    ({"type": "number"}, "3", 3),
    ({"type": "number"}, "-.5", -0.5),
    ({"type": "number"}, "1e3", 1000.0),
    ({"type": "boolean"}, "Yes", True),
    ({"type": "boolean"}, "off", False),
    ({"type": "string"}, " kept as typed ", " kept as typed "),
    ({"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]}, "alpha", "a"),
    ({"type": "string", "oneOf": [{"const": "#f00", "title": "Red"}]}, "RED", "#f00"),
    ({"type": "array", "items": {"anyOf": [{"const": "a, b", "title": "Both"}, {"const": "c", "title": "C"}]}},
     "a, b", ["a, b"]),
    ({"type": "array", "items": {"enum": ["x", "y"]}}, "x, y", ["x", "y"]),
])
def test_coerce(schema, text, value):
    result = field(schema).coerce(text)
    assert result == value and type(result) is type(value)


@pytest.mark.parametrize(("schema", "text", "reason"), [
    ({"type": "integer"}, "1_000", "expected an integer"),
    ({"type": "integer"}, "١٢", "expected an integer"),  # Arabic-Indic digits
    ({"type": "integer"}, "3.0", "expected an integer"),
    ({"type": "number"}, "nan", "expected a number"),
    ({"type": "number"}, "1e999", "finite"),
    ({"type": "boolean"}, "maybe", "expected a boolean"),
    ({"type": "string", "enum": ["a"]}, "b", "'b' is not one of: a"),
])
def test_coerce_refuses(schema, text, reason):
    with pytest.raises(ValueError, match=reason):
        field(schema).coerce(text)


@pytest.mark.parametrize(("fmt", "value", "ok"), [
    ("email", "a@b.co", True), ("email", "a@b.co\n", False), ("email", "a b@c.d", False),
    ("uri", "https://x.y/z", True), ("uri", "urn:isbn:123", True), ("uri", "x.y", False),
    ("date", "2024-02-29", True), ("date", "2023-02-29", False), ("date", "2024-2-1", False),
    ("date-time", "2026-07-28T09:30:00Z", True), ("date-time", "2026-07-28T09:30:00.123+02:00", True),
    ("date-time", "2026-07-28 09:30:00Z", False), ("date-time", "2026-07-28T25:00:00Z", False),
])
def test_formats(fmt, value, ok):
    assert (check_format(fmt, value) is None) is ok


def test_hints_expectations_and_display():
    f = field({"type": "array", "minItems": 1, "maxItems": 2,
               "items": {"anyOf": [{"const": "m", "title": "Monday"}, {"const": "t", "title": "Tuesday"}]}})
    assert f.hint() == "choose 1 to 2"
    assert f.expected() == "a list of: m (Monday), t (Tuesday) (at least 1, at most 2)"
    assert f.display(["t", "m"]) == "Tuesday, Monday"
    assert f.check(["m", "m"]) == "lists a value more than once"
    assert f.check([]) == "choose at least 1"
    n = field({"type": "number", "minimum": 0.5})
    assert n.hint() == "number >= 0.5" and n.expected() == "a number >= 0.5"
    assert field({"type": "integer"}).normalize(3.0) == 3 and type(field({"type": "integer"}).normalize(3.0)) is int
    assert field({"type": "number"}).normalize(3.0) == 3.0
    assert field({"type": "string", "format": "date", "maxLength": 10}).hint() == "YYYY-MM-DD, at most 10 characters"
    assert field({"type": "boolean"}).display(False) == "no"
    titled = field({"type": "string", "oneOf": [{"const": "M", "title": "Medium"}]})
    assert titled.check("Medium") == "'Medium' is a title: send its value 'M' (one of: M (Medium))"


def test_explain():
    assert explain("expected an integer, got string \"x\"", "an integer >= 1") == \
        "got string \"x\", expected an integer >= 1"
    assert explain("must be >= 1", "an integer >= 1") == "must be >= 1 (expected an integer >= 1)"
    assert explain("'q' is not one of: a, b", "one of: a, b") == "'q' is not one of: a, b"


@pytest.mark.parametrize(("url", "expected"), [
    ("https://auth.example.com/x", []),
    ("http://example.com", ["not https"]),
    ("https://10.0.0.1/", ["IP address"]),
    ("https://[::1]:8443/", ["IP address"]),
    ("https://xn--80ak6aa92e.com/", ["punycode", "'аррӏе.com'"]),
    ("https://аррӏе.com/", ["non-ASCII"]),
    ("https://good.example@evil.example/", ["user name or password"]),
    ("javascript:alert(1)", ["not a web address", "will not open"]),
    ("https://x.example/a b", ["spaces or control characters"]),
    ("https://x.example/\x1b[31m", ["control characters"]),
])
def test_url_warnings(url, expected):
    warnings = " | ".join(url_warnings(url))
    if not expected:
        assert warnings == ""
    for word in expected:
        assert word in warnings


def test_url_display_pieces_and_openable():
    parts = split_for_display("https://Auth.Example.com:8443/p?q=1#f")
    assert parts is not None
    assert (parts.before_host, parts.userinfo, parts.host, parts.after_host) == (
        "https://", "", "Auth.Example.com", ":8443/p?q=1#f")
    assert split_for_display("https://user:pw@auth.example.com/") is None  # never opened: shown whole
    assert split_for_display("https://evil.example\\@good.com/") is None
    assert split_for_display("https://[::1]:80/x").host == "[::1]"
    assert split_for_display("mailto:a@b.c") is None
    assert openable("https://a.example/") and openable("http://a.example")
    assert not openable("file:///etc/passwd") and not openable("javascript:x") and not openable("https:///nohost")


def test_template_round_trips_as_an_answer_file():
    requests = {
        "f": {"method": "elicitation/create", "params": {"message": "m", "requestedSchema": {
            "type": "object", "properties": {"n": {"type": "integer"}, "c": {"type": "string", "default": "x"}},
            "required": ["n"]}}},
        "u": {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://a.example"}},
    }
    template = answers_template(requests, ["f", "u"], {"f": {"n": 4}})
    assert template["inputResponses"] == {"f": {"action": "accept", "content": {"n": 4, "c": "x"}},
                                          "u": {"action": "accept"}}
    assert template["_fields"]["u"]["url"] == "https://a.example"
    back = parse_answer_document(template, "t.json")
    assert back.input_responses == template["inputResponses"] and back.fields == {}
    notes = pending_notes({"inputRequests": requests, "missing": ["u"]})
    assert "https://a.example" in notes[0]


def test_rejected_state_detection_and_start_again():
    assert is_rejected_state(JsonRpcError(-32602, "Invalid or expired requestState",
                                          {"reason": "invalid_request_state"}))
    assert not is_rejected_state(JsonRpcError(-32602, "Invalid params: workItemId"))
    assert not is_rejected_state(JsonRpcError(-32603, "requestState broke"))
    doc = {"target": {"stdio": "python s.py --x"}, "method": "tools/call",
           "params": {"name": "t", "arguments": {"a": "it's"}}}
    assert start_again_command(doc) == "mrtr --stdio 'python s.py --x' call t --args '{\"a\":\"it'\"'\"'s\"}'"
    doc = {"target": {"url": "http://h/mcp"}, "method": "resources/read", "params": {"uri": "x://1"}}
    assert start_again_command(doc) == "mrtr --url http://h/mcp read x://1"


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_refusal_carries_no_content(action):
    from mrtr_cli.responders.shapes import elicit_result_problems

    schema = {"requestedSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}
    assert elicit_result_problems({"action": action, "content": {"city": "x"}}, schema) == [
        f'a {action} answer has no content: use {{"action": "{action}"}}']
    assert elicit_result_problems({"action": action}, schema) == []
    assert elicit_result_problems({"action": action}, {"mode": "url", "url": "https://x"}) == []
