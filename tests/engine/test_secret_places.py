"""A secret is known by its place, not its text (mrtr_cli/credentials.py `SecretPlaces`; docs/design.md,
"Secrets"): the value of a secret form field or tool argument is `***` in every message mrtr
writes (`--trace`, `-v`), whatever its type and length.

The test server's `vault` (tests/servers/forms_server.py) takes `cvv`, a `writeOnly`
integer argument, and asks "unlock": `pin`, a `writeOnly` integer, and `words`, a
`writeOnly` multi-select.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Target

PIN, CVV = 246813, 123
OK = "cvv ok, pin ok"


def _sent(trace: Path) -> list[dict]:
    """The messages the trace shows sent."""
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    return [r["message"] for r in records if r.get("dir") == "send"]


def test_secret_numbers_and_arrays_are_marked_in_the_trace_and_at_v(mrtr, forms: Target, tmp_path):
    trace = tmp_path / "trace.jsonl"
    r = mrtr(*forms.args, "--trace", trace, "-v", "call", "vault", "card=visa", f"cvv={CVV}",
             "-a", f"pin={PIN}", "-a", "words=alpha,bravo", "--no-input")
    assert (r.code, r.stdout.strip()) == (0, OK), r.stderr
    calls = [m["params"] for m in _sent(trace) if m.get("method") == "tools/call"]
    assert calls and all(p["arguments"] == {"card": "visa", "cvv": "***"} for p in calls), calls
    retry = calls[-1]["inputResponses"]["unlock"]
    assert retry == {"action": "accept", "content": {"pin": "***", "words": "***"}}, retry
    sent = json.dumps(_sent(trace))
    assert str(PIN) not in sent and "bravo" not in sent, sent
    shown = [line for line in r.stderr.splitlines() if line.startswith("->")]
    assert any('"cvv": "***"' in line and '"pin": "***"' in line and '"words": "***"' in line for line in shown), shown
    assert not any(str(PIN) in line or "bravo" in line for line in shown), shown


def test_a_short_secret_string_is_marked_too(mrtr, forms: Target, tmp_path):
    """A secret of fewer than four characters (never redacted as text) is marked by its place."""
    trace = tmp_path / "trace.jsonl"
    r = mrtr(*forms.args, "--trace", trace, "call", "sign_in", "-a", "user=ada", "-a", "pin=97",
             "-a", "agree=y", "-a", "code=5x", "--no-input")
    assert r.code == 0, r.stderr
    responses = [m["params"]["inputResponses"] for m in _sent(trace) if "inputResponses" in m.get("params", {})]
    assert responses[0]["login"]["content"]["pin"] == "***", responses
    assert responses[-1]["otp"]["content"]["code"] == "***", responses


def test_a_secret_arguments_value_is_a_secret_of_the_run(mrtr, tmp_path):
    """A secret tool argument's value (by its name here: the picky server's `echo` has an
    open schema) is `***` wherever a diagnostic shows it, also in the server's reply that
    quotes it (`<-` at -v); stdout, the server's result, stays as sent."""
    from tests.conftest import SERVERS, stdio_cmd

    r = mrtr("--stdio", stdio_cmd(SERVERS / "picky_server.py"), "-v", "call", "echo", "password=SEKRETPW1",
             'api_key:=["LISTSEKRET", 20261203]', "note=plain words")
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout) == {"password": "SEKRETPW1", "api_key": ["LISTSEKRET", 20261203], "note": "plain words"}
    replies = [line for line in r.stderr.splitlines() if line.startswith("<-") and '"id": 3' in line]
    assert replies and "plain words" in replies[0], r.stderr
    for secret in ("SEKRETPW1", "LISTSEKRET", "20261203"):
        assert secret not in r.stderr, (secret, r.stderr)


def test_a_secret_arguments_value_is_not_quoted_when_it_cannot_be_typed(mrtr, forms: Target):
    """`cvv` is a writeOnly integer: a value that is no integer, or no JSON after `:=`, is
    refused without being quoted."""
    for item in ("cvv=SEKRETCVV", "cvv:=SEKNOTJSON"):
        r = mrtr(*forms.args, "call", "vault", "card=visa", item, "--no-input")
        assert r.code == 2, r.stderr
        assert "SEKRETCVV" not in r.stderr and "SEKNOTJSON" not in r.stderr, r.stderr
        assert "cvv" in r.stderr, r.stderr


def test_the_answered_from_note_never_shows_a_secret_fields_value(mrtr, forms: Target):
    """-v says where each answer came from: a flag for a secret field is named without its
    value, however short (a short value is no secret of the run)."""
    r = mrtr(*forms.args, "-v", "call", "vault", "card=visa", "cvv:=123", "-a", "unlock.pin=135", "--no-input")
    assert r.code == 0, r.stderr
    notes = [line for line in r.stderr.splitlines() if "answered from" in line]
    assert notes == ['mrtr: input "unlock" answered from -a unlock.pin=...'], r.stderr
