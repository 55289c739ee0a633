"""The result-shape interpreter (protocol/checks/validate.py) follows a `$ref` to a
definition that is a boolean schema: `true` allows anything, `false` nothing (JSON Schema
2020-12, section 4.3.2), never a crash."""

from __future__ import annotations

from mrtr_cli.protocol.checks.validate import _problem


def test_a_ref_to_a_false_definition_allows_nothing():
    assert _problem({"No": False}, {"$ref": "#/$defs/No"}, 1, "result") == ("result", "not allowed here")


def test_a_ref_to_a_true_definition_allows_anything():
    assert _problem({"Yes": True}, {"$ref": "#/$defs/Yes"}, {"a": 1}, "result") is None


def test_a_ref_chain_ending_false_allows_nothing():
    defs = {"A": {"$ref": "#/$defs/B"}, "B": False}
    assert _problem(defs, {"$ref": "#/$defs/A"}, "x", "result.a") == ("result.a", "not allowed here")
