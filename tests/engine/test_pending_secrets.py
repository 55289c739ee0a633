"""A secret form field (`credentials.is_secret_field`: `writeOnly`, `format: password`, or a name
that says secret) never reaches a file mrtr writes by itself or for the user: not a pending
document (`answered`, `sentResponses`, the `answersTemplate`), not `--save-answers`, not
`--trace`, not an error message (docs/answers.md, "Secrets"). The field is written as `null`,
stderr says which one, and `resume` takes it again from `-a`, `--answers` or the terminal.

The test server's `sign_in` (tests/servers/forms_server.py): round 1 asks "login" (`user`,
`pin`: writeOnly, `remember`) and "terms" (`agree`); round 2 asks "otp" (`code`: writeOnly).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import Target
from tests.engine.test_resume import calls

PIN, CODE = "2468", "777111"
WELCOME = "welcome ada: pin ok, code ok"


def holds_secret(text: str) -> bool:
    """`PIN` or `CODE` in `text` as a value, not as a run of digits inside a longer number: a
    trace's timestamp (`1796342851.2524686`) or a request id may hold those digits by chance."""
    return re.search(rf"(?<![0-9])(?:{PIN}|{CODE})(?![0-9])", text) is not None


def _note(field: str) -> str:
    return f"{field} is a secret: not written to the pending document; give it again on resume"


def _pending(mrtr, forms: Target, tmp_path: Path, *args: str) -> tuple[dict, str, Path]:
    """`call sign_in ARGS --no-input`, which stops for input (exit 5): the pending document,
    stderr, and the file the document was saved to."""
    r = mrtr(*forms.args, "call", "sign_in", *args, "--no-input")
    assert r.code == 5, r.stderr
    assert not holds_secret(r.stdout), r.stdout
    path = tmp_path / "pending.json"
    path.write_text(r.stdout)
    return r.json(), r.stderr, path


def test_a_secret_answered_with_a_flag_is_left_out_and_given_again_on_resume(mrtr, forms: Target, tmp_path):
    """Round 1's "login" is answered by flags, "terms" is not: `answered` keeps the user, the
    pin is `null`; resume sends the pin given again with `-a`, and the call completes."""
    doc, stderr, path = _pending(mrtr, forms, tmp_path, "-a", "user=ada", "-a", f"pin={PIN}")
    assert doc["answered"] == {"login": {"action": "accept", "content": {"user": "ada", "pin": None,
                                                                          "remember": False}}}
    assert _note("login.pin") in stderr, stderr
    forms.reset()
    r = mrtr("resume", path, "-a", "agree=yes", "-a", f"login.pin={PIN}", "-a", f"code={CODE}", "--no-input")
    assert (r.code, r.stdout.strip()) == (0, WELCOME), r.stderr
    assert calls(forms)[0]["inputResponses"]["login"]["content"] == {"user": "ada", "pin": PIN, "remember": False}


def test_a_resume_without_the_secret_asks_for_that_form_again(mrtr, forms: Target, tmp_path):
    """Without the pin, the answered "login" is asked again (nobody to ask: exit 5, its
    template pre-filled with the user, the pin `null`); an answer file then completes it."""
    _, _, path = _pending(mrtr, forms, tmp_path, "-a", "user=ada", "-a", f"pin={PIN}")
    r = mrtr("resume", path, "-a", "agree=yes", "--no-input")
    assert r.code == 5, r.stderr
    again = r.json()
    assert again["missing"] == ["login"], again
    assert again["answersTemplate"]["inputResponses"]["login"]["content"] == {
        "user": "ada", "pin": None, "remember": False}
    assert again["answered"] == {"terms": {"action": "accept", "content": {"agree": True}}}
    answers = tmp_path / "answers.json"
    template = again["answersTemplate"]
    template["inputResponses"]["login"]["content"]["pin"] = PIN
    answers.write_text(json.dumps(template))
    second = tmp_path / "second.json"
    second.write_text(r.stdout)
    r = mrtr("resume", second, "--answers", answers, "-a", f"code={CODE}", "--no-input")
    assert (r.code, r.stdout.strip()) == (0, WELCOME), r.stderr


def test_a_secret_typed_into_an_unfinished_form_is_not_in_the_template(mrtr, forms: Target, tmp_path):
    """A form left unanswered (its user missing) keeps the fields found for it in the
    template, but not the pin."""
    doc, stderr, path = _pending(mrtr, forms, tmp_path, "-a", f"pin={PIN}", "-a", "agree=yes")
    assert doc["missing"] == ["login"]
    assert doc["answersTemplate"]["inputResponses"]["login"]["content"]["pin"] is None
    assert _note("login.pin") in stderr, stderr
    r = mrtr("resume", path, "-a", "user=ada", "-a", f"pin={PIN}", "-a", f"code={CODE}", "--no-input")
    assert (r.code, r.stdout.strip()) == (0, WELCOME), r.stderr


def test_secrets_sent_in_earlier_rounds_are_left_out_of_sent_responses_and_save_answers(
        mrtr, forms: Target, tmp_path):
    """Round 1 sent the pin; the document stopping at round 2 carries round 1 on without it,
    and so does the `--save-answers` file of its resume (with the same note)."""
    doc, stderr, path = _pending(mrtr, forms, tmp_path, "-a", "user=ada", "-a", f"pin={PIN}", "-a", "agree=y")
    assert doc["sentResponses"]["login"]["content"] == {"user": "ada", "pin": None, "remember": False}
    assert _note("login.pin") in stderr, stderr
    saved = tmp_path / "saved.json"
    r = mrtr("resume", path, "-a", f"code={CODE}", "--save-answers", saved, "--no-input")
    assert (r.code, r.stdout.strip()) == (0, WELCOME), r.stderr
    text = saved.read_text()
    assert not holds_secret(text), text
    kept = json.loads(text)["inputResponses"]
    assert kept["login"]["content"]["pin"] is None and kept["otp"]["content"] == {"code": None}, kept
    assert f"otp.code is a secret: not written to --save-answers {saved}" in r.stderr, r.stderr
    # The saved file replays the call with the secrets given again.
    r = mrtr(*forms.args, "call", "sign_in", "--answers", saved, "-a", f"pin={PIN}", "-a", f"code={CODE}",
             "--no-input")
    assert (r.code, r.stdout.strip()) == (0, WELCOME), r.stderr


def test_a_secret_never_reaches_the_trace_or_an_error_message(mrtr, forms: Target, tmp_path):
    trace = tmp_path / "trace.jsonl"
    r = mrtr(*forms.args, "--trace", trace, "-v", "call", "sign_in", "-a", "user=ada", "-a", f"pin={PIN}",
             "-a", "agree=y", "-a", f"code={CODE}", "--no-input")
    assert (r.code, r.stdout.strip()) == (0, WELCOME), r.stderr
    assert not holds_secret(trace.read_text())
    assert not holds_secret(r.stderr), r.stderr
    r = mrtr(*forms.args, "call", "sign_in", "-a", "user=ada", "-a", "pin=8642x", "--no-input")
    assert r.code == 2 and "field \"pin\"" in r.stderr, r.stderr
    assert "8642x" not in r.stderr, r.stderr


def test_resume_save_answers_names_every_secret_it_leaves_out(mrtr, forms: Target, tmp_path):
    """The pin the pending document already left out (`null` in `sentResponses`) is `null` in
    the `--save-answers` file of the resume too, and stderr names it there as `mrtr call
    --save-answers` does."""
    _, _, path = _pending(mrtr, forms, tmp_path, "-a", "user=ada", "-a", f"pin={PIN}", "-a", "agree=y")
    saved = tmp_path / "saved.json"
    r = mrtr("resume", path, "-a", f"code={CODE}", "--save-answers", saved, "--no-input")
    assert (r.code, r.stdout.strip()) == (0, WELCOME), r.stderr
    assert json.loads(saved.read_text())["inputResponses"]["login"]["content"]["pin"] is None
    for field in ("login.pin", "otp.code"):
        assert f"{field} is a secret: not written to --save-answers {saved}" in r.stderr, r.stderr
