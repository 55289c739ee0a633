"""No message about a secret's value quotes it (docs/design.md, "Secrets"): an answer of
the wrong type or shape for a secret form field (`credentials.is_secret_field`) or tool
argument says what was wrong with it, not what it was; and a message about an `-a` flag
that fits no field names the flag, never its value (it may be a secret under a mistyped name).

The test server's `vault` (tests/servers/forms_server.py) takes `cvv`, a `writeOnly`
integer argument, and asks "unlock": `pin`, a `writeOnly` integer, and `words`, a
`writeOnly` multi-select; `sign_in` asks "login" (`user`, `pin`: writeOnly).
"""

from __future__ import annotations

import json

from tests.conftest import Target

PIN, CVV = 246813, 123


def test_a_wrong_typed_secret_is_never_quoted(mrtr, forms: Target, tmp_path):
    """An answer of the wrong type or shape for a secret field is refused (exit 2) with
    what was wrong with it, never the value: typed with `-a`, or given in an answer file."""
    r = mrtr(*forms.args, "call", "vault", f"cvv={CVV}", "-a", "pin=x7q", "--no-input")
    assert r.code == 2 and 'field "pin"' in r.stderr and "x7q" not in r.stderr, r.stderr
    r = mrtr(*forms.args, "call", "vault", f"cvv={CVV}", "-a", f"pin={PIN}", "-a", "words=zq9", "--no-input")
    assert r.code == 2 and 'field "words"' in r.stderr and "zq9" not in r.stderr, r.stderr
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"inputResponses": {"unlock": {"action": "accept",
                                                                 "content": {"pin": [9, 7, 3]}}}}))
    r = mrtr(*forms.args, "call", "vault", f"cvv={CVV}", "--answers", answers, "--no-input")
    assert r.code == 2 and 'field "pin"' in r.stderr and "array" in r.stderr, r.stderr
    assert "9, 7, 3" not in r.stderr and "[9" not in r.stderr, r.stderr


def test_a_wrong_typed_secret_argument_is_never_quoted(mrtr, forms: Target):
    r = mrtr(*forms.args, "call", "vault", '--args={"cvv": "z9q"}', "--no-input")
    assert r.code == 2 and "cvv" in r.stderr and "z9q" not in r.stderr, r.stderr


def test_a_mistyped_secret_field_name_does_not_echo_the_value(mrtr, forms: Target):
    """`-a login.pni=...` names no field of the form: the exit-2 message names the flag, never its value."""
    r = mrtr(*forms.args, "call", "sign_in", "-a", "user=ada", "-a", "login.pni=8642", "-a", "pin=2468",
             "-a", "agree=y", "-a", "code=777111", "--no-input")
    assert "pni" in r.stderr and "8642" not in r.stderr, r.stderr
    r = mrtr(*forms.args, "call", "sign_in", "-a", "login.pni=86", "--no-input")
    assert "pni" in r.stderr and "=86" not in r.stderr, r.stderr
