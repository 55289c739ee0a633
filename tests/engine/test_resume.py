"""Pending documents and `mrtr resume` (docs/design.md, "Pending documents" and "Resuming"):
templates that mark every field, resuming without redoing earlier rounds with the exact
requestState, URL mode with nobody at a terminal, and a server that refuses a resumed
requestState."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_SERVER, PY, ROOT, SERVERS, Target, clean_env, read_records, stdio_cmd
from tests.servers.forms_server import round_one_state, round_two_state
from tests.support import SAFETY


def calls(target: Target) -> list[dict]:
    return [m["params"] for m in target.requests() if m["method"] == "tools/call"]


def pend(mrtr, target: Target, tmp_path: Path, *args: str) -> tuple[dict, Path]:
    r = mrtr(*target.args, "call", *args, "--no-input")
    assert r.code == 5, r.stderr
    path = tmp_path / "pending.json"
    path.write_text(r.stdout)
    return r.json(), path


def test_stopped_at_round_one_is_resumed_with_the_exact_state(mrtr, forms: Target, tmp_path):
    forms.reset()
    doc, path = pend(mrtr, forms, tmp_path, "two_rounds")
    assert doc["requestState"] == round_one_state()
    assert doc["missing"] == ["first"]
    answers = tmp_path / "answers.json"
    # One file answers both rounds: "second" is not asked in the first round (unknown keys are fine).
    answers.write_text(json.dumps({"inputResponses": {
        "first": {"action": "accept", "content": {"city": "Kraków"}},
        "second": {"action": "accept", "content": {"nights": 2}}}}))
    forms.reset()
    r = mrtr("resume", path, "--answers", answers)
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "Kraków for 2 nights"
    resumed, second = calls(forms)
    # No round was redone: the first request of the resume is the retry of round 1.
    assert resumed["requestState"] == round_one_state()
    assert resumed["inputResponses"] == {"first": {"action": "accept", "content": {"city": "Kraków"}}}
    assert resumed["arguments"] == {} and resumed["name"] == "two_rounds"
    assert second["requestState"] == round_two_state(json.dumps("Kraków"))


def test_stopped_after_round_one_is_resumed_byte_for_byte(mrtr, forms: Target, tmp_path):
    forms.reset()
    doc, path = pend(mrtr, forms, tmp_path, "two_rounds", "-a", "city=Zürich \"Z\"")
    round_two = round_two_state(json.dumps('Zürich "Z"'))
    assert doc["requestState"] == round_two
    assert doc["missing"] == ["second"]
    # The server gets back exactly the state it sent (as decoded from the recorded wire message).
    forms.reset()
    r = mrtr("resume", path, "-a", "nights=4", *forms.args)
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == 'Zürich "Z" for 4 nights'
    (retry,) = calls(forms)
    assert retry["requestState"] == round_two
    assert retry["inputResponses"] == {"second": {"action": "accept", "content": {"nights": 4}}}


def test_template_marks_type_required_and_allowed_values(mrtr, forms: Target, tmp_path):
    doc, _ = pend(mrtr, forms, tmp_path, "every_kind")
    template = doc["answersTemplate"]
    assert "_help" in template
    assert template["inputResponses"]["kinds"]["content"] == {
        "name": None, "email": None, "homepage": None, "birthday": None, "meeting": None, "age": None,
        "score": None, "subscribe": True, "color": "green", "size": None, "legacy": None, "toppings": None,
        "days": ["mon"]}
    help_ = template["_fields"]["kinds"]
    assert help_["age"] == {"type": "integer", "required": True, "title": "Age", "minimum": 18, "maximum": 130}
    assert help_["size"]["enum"] == ["S", "M", "L"] and help_["size"]["titles"]["M"] == "Medium"
    assert help_["legacy"]["titles"] == {"a": "Alpha", "b": "Beta"}
    assert help_["toppings"] == {"type": "array", "required": True, "enum": ["cheese", "ham", "olives"],
                                 "title": "Toppings", "minItems": 1, "maxItems": 2}
    assert help_["meeting"]["format"] == "date-time" and help_["email"]["required"] is True
    assert help_["subscribe"] == {"type": "boolean", "required": False, "title": "Subscribe", "default": True}


def test_a_filled_template_resumes(mrtr, forms: Target, tmp_path):
    doc, path = pend(mrtr, forms, tmp_path, "every_kind")
    filled = doc["answersTemplate"]
    filled["inputResponses"]["kinds"]["content"].update(
        name="Grace", email="grace@example.com", age=85, size="L", toppings=["olives"])
    answers = tmp_path / "filled.json"
    answers.write_text(json.dumps(filled))
    r = mrtr("resume", path, "--answers", answers)
    assert r.code == 0, r.stderr
    # Nulls left in the template are left out; defaults stay.
    assert json.loads(r.stdout) == {"name": "Grace", "email": "grace@example.com", "age": 85, "size": "L",
                                    "toppings": ["olives"], "subscribe": True, "color": "green", "days": ["mon"]}


def test_a_template_with_a_wrong_answer_exits_2_on_resume(mrtr, forms: Target, tmp_path):
    doc, path = pend(mrtr, forms, tmp_path, "every_kind")
    filled = doc["answersTemplate"]
    filled["inputResponses"]["kinds"]["content"].update(name="Grace", email="grace@example.com", age="old",
                                                        size="L", toppings=["olives"])
    answers = tmp_path / "filled.json"
    answers.write_text(json.dumps(filled))
    forms.reset()
    r = mrtr("resume", path, "--answers", answers)
    assert r.code == 2
    assert f"{answers}, inputResponses.kinds, field \"age\"" in r.stderr
    assert calls(forms) == []


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed")
def test_the_jq_recipe_from_the_docs(forms: Target, tmp_path):
    """docs/answers.md: fill a template with jq in a shell script, then resume."""
    script = f"""
    set -e
    mrtr {' '.join(shlex.quote(a) for a in forms.args)} call two_rounds --no-input > pending.json || [ $? -eq 5 ]
    jq '.answersTemplate | .inputResponses.first.content.city = "Lyon"' pending.json > answers.json
    mrtr resume pending.json --answers answers.json --no-input > round2.json || [ $? -eq 5 ]
    jq '.answersTemplate | .inputResponses.second.content.nights = 5' round2.json > answers2.json
    mrtr resume round2.json --answers answers2.json
    """
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mrtr").write_text(f"#!/bin/sh\nexec {shlex.quote(PY)} -m mrtr_cli \"$@\"\n")
    (bin_dir / "mrtr").chmod(0o755)
    env = clean_env(tmp_path, {"PATH": f"{bin_dir}:{os.environ.get('PATH', '')}", "PYTHONPATH": str(ROOT)})
    proc = subprocess.run(["sh", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=SAFETY)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Lyon for 5 nights"


def test_url_mode_without_a_terminal_opens_nothing_and_pends(mrtr, forms: Target, tmp_path):
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f"#!/bin/sh\necho \"$1\" >> {opened}\n")
    browser.chmod(0o755)
    forms.reset()
    r = mrtr(*forms.args, "call", "url_login", "--open-urls", env={"BROWSER": str(browser)})
    assert r.code == 5  # no terminal (stdin is not a tty): --open-urls cannot be acted on by anyone
    doc = r.json()
    assert doc["inputRequests"]["login"]["params"]["url"] == "https://auth.example.com/connect?flow=42"
    assert doc["answersTemplate"]["inputResponses"]["login"] == {"action": "accept"}
    assert doc["answersTemplate"]["_fields"]["login"]["url"] == "https://auth.example.com/connect?flow=42"
    assert "https://auth.example.com/connect?flow=42" in r.stderr
    assert not opened.exists()
    path = tmp_path / "pending.json"
    path.write_text(r.stdout)
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(doc["answersTemplate"]))
    forms.reset()
    r = mrtr("resume", path, "--answers", answers, env={"BROWSER": str(browser)})
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "connected"
    (retry,) = calls(forms)
    assert retry["inputResponses"] == {"login": {"action": "accept"}}
    assert retry["requestState"] == "url-state ☃"
    assert not opened.exists()


def test_example_server_resumes_in_a_new_process(mrtr, tmp_path):
    """The example server seals requestState with a fixed key: a new process accepts it."""
    target = Target("stdio", ["--stdio", stdio_cmd(EXAMPLE_SERVER)], None)
    doc, path = pend(mrtr, target, tmp_path, "update_work_item", "workItemId=4522", "state=Resolved",
                     "-a", "resolution=Duplicate")
    assert doc["missing"] == ["duplicateOfId"]
    r = mrtr("resume", path, "-a", "duplicateOfId=4301")
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines()[0] == "Work item 4522 resolved as a duplicate of 4301."


def test_refused_request_state_says_the_call_must_start_again(mrtr, tmp_path):
    """The SDK's default (per-process key) refuses state from another process: -32602."""
    target = Target("stdio", ["--stdio", stdio_cmd(SERVERS / "sealed_server.py")], None)
    _, path = pend(mrtr, target, tmp_path, "confirm_once")
    r = mrtr("resume", path, "-a", "go=true", "-q")
    assert r.code == 4
    lines = r.stderr.splitlines()
    assert lines[0] == "mrtr: error: server error -32602: Invalid or expired requestState"  # the server's words
    assert "refused this pending call's requestState" in lines[1] and "must be started again" in lines[1]
    assert f"start it again: mrtr --stdio {shlex.quote(stdio_cmd(SERVERS / 'sealed_server.py'))} call confirm_once" \
        in r.stderr
    r = mrtr("resume", path, "-a", "go=true", "-q", "--json")
    assert r.code == 4
    err = json.loads(r.stderr.strip().splitlines()[-1])["error"]
    assert err["code"] == -32602 and err["data"] == {"reason": "invalid_request_state"}
    assert err["message"] == "Invalid or expired requestState"


def test_pending_document_errors_are_usage_errors(mrtr, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "pending"}')
    r = mrtr("resume", bad)
    assert r.code == 2 and "not an mrtr pending document" in r.stderr
    r = mrtr("resume", tmp_path / "missing.json")
    assert r.code == 2 and "cannot read pending document" in r.stderr


def test_a_document_saved_after_ctrl_c_is_removed_once_its_call_finishes(mrtr, tmp_path):
    from tests.conftest import EXAMPLE_SERVER, stdio_cmd

    first = mrtr("--stdio", stdio_cmd(EXAMPLE_SERVER), "--no-input",
                 "call", "update_work_item", "workItemId=4522", "state=Resolved")
    assert first.code == 5
    saved = tmp_path / "state" / "mrtr" / "pending" / "20261130T000000-1.json"  # where Ctrl-C saves it
    saved.parent.mkdir(parents=True)
    saved.write_text(first.stdout)
    mine = tmp_path / "mine.json"
    mine.write_text(first.stdout)
    assert mrtr("resume", mine, "-a", "resolution=Fixed").code == 0
    assert mine.exists()  # the user's own file is left alone
    assert mrtr("resume", saved, "-a", "resolution=Fixed").code == 0
    assert not saved.exists()


def test_resume_save_answers_replays_the_whole_call(mrtr, tmp_path):
    forms = stdio_cmd(SERVERS / "forms_server.py")
    first = mrtr("--stdio", forms, "call", "two_rounds", "-a", "city=Paris", "--no-input")
    assert first.code == 5, first.stderr
    doc = first.json()
    assert doc["sentResponses"] == {"first": {"action": "accept", "content": {"city": "Paris"}}}
    pending = tmp_path / "p.json"
    pending.write_text(first.stdout)
    saved = tmp_path / "full.json"
    done = mrtr("resume", pending, "-a", "nights=2", "--save-answers", saved)
    assert done.code == 0, done.stderr
    assert set(json.loads(saved.read_text())["inputResponses"]) == {"first", "second"}
    replay = mrtr("--stdio", forms, "call", "two_rounds", "--answers", saved, "--no-input")
    assert replay.code == 0 and replay.stdout.strip() == done.stdout.strip() == "Paris for 2 nights"


@pytest.mark.parametrize(("change", "message"), [
    ({"method": "notifications/cancelled"}, "method must be one of"),
    ({"inputRequests": {}}, "asks nothing"),
    ({"params": {"name": "update_work_item", "arguments": {"workItemId": "not-an-int", "state": "Resolved"}}},
     "argument workItemId"),
    ({"params": {"name": "no_such_tool", "arguments": {}}}, "unknown tool"),
    ({"method": "prompts/get", "params": {"name": "triage", "arguments": {"workItemId": [1]}}},
     "prompt arguments are strings"),
    ({"method": "resources/read", "params": {"uri": 5}}, "uri as text"),
])
def test_resume_sends_nothing_a_call_would_refuse(mrtr, tmp_path, change, message):
    first = mrtr("--stdio", stdio_cmd(EXAMPLE_SERVER), "--no-input",
                 "call", "update_work_item", "workItemId=4522", "state=Resolved")
    doc = {**first.json(), **change}
    pending = tmp_path / "p.json"
    pending.write_text(json.dumps(doc))
    r = mrtr("resume", pending, "-a", "resolution=Fixed")
    assert r.code == 2 and message in r.stderr, r.stderr


def test_exit_5_over_stdio_prints_what_works_once_the_server_has_ended(mrtr, tmp_path):
    """The stdio server ends with the run: the notes lead with starting the call again with the
    answers (which works with any server), and say when a resume can work."""
    server = stdio_cmd(SERVERS / "sealed_server.py")  # per-process key: a resume is refused
    r = mrtr("--stdio", server, "call", "confirm_once", "--no-input", "-v")  # -v: the steps, not one line
    assert r.code == 5, r.stderr
    notes = r.stderr.splitlines()
    at = notes.index("  the stdio server ended with this run: fill in the answersTemplate, then start the call "
                     "again with it (add the answers given before):")
    again = shlex.split(notes[at + 1])
    assert again[:3] == ["mrtr", "--stdio", server] and again[-2:] == ["--answers", "ANSWERS.json"]
    assert notes[at + 2].startswith("  or: mrtr resume PENDING.json --answers ANSWERS.json")
    assert "exit 4" in notes[at + 2]
    answers = tmp_path / "answers.json"
    template = r.json()["answersTemplate"]
    template["inputResponses"]["go"]["content"]["go"] = True
    answers.write_text(json.dumps(template))
    done = mrtr(*again[1:-1], str(answers))  # the printed command works as printed
    assert done.code == 0, done.stderr
    pending = tmp_path / "pending.json"
    pending.write_text(r.stdout)
    assert mrtr("resume", str(pending), "--answers", str(answers)).code == 4  # as the note says


@pytest.mark.parametrize(("field", "message"), [
    ({"type": "weird"}, ".properties.word.type: expected one of"),
    ({"type": "string", "minLength": "2"}, ".properties.word.minLength: expected an integer"),
    ({"$ref": "#/definitions/x"}, ".properties.word.type: missing"),
    ({"type": "string", "pattern": "("}, 'field "word": its pattern is no regular expression'),
], ids=["unknown-type", "string-minLength", "ref", "bad-pattern"])
def test_a_pending_document_whose_form_breaks_the_schema_is_refused_before_anything_is_sent(
        mrtr, tmp_path, field, message):
    forms = stdio_cmd(SERVERS / "forms_server.py")
    first = mrtr("--stdio", forms, "call", "three_forms", "--no-input")
    assert first.code == 5, first.stderr
    doc = first.json()
    doc["inputRequests"]["a"]["params"]["requestedSchema"]["properties"]["word"] = field
    pending = tmp_path / "p.json"
    pending.write_text(json.dumps(doc))
    r = mrtr("resume", pending, "-a", "word=hi", "-a", "sure=yes", "-a", "pick=x", "--no-input")
    assert r.code == 2, r.stderr
    assert "Traceback" not in r.stderr and message in r.stderr and r.stderr.startswith(f"mrtr: error: {pending}:")


def _recording(tmp_path: Path, script: str) -> tuple[str, Path]:
    """A --stdio command for a test server recording what it receives, and its record."""
    record = tmp_path / f"{script}.jsonl"
    return stdio_cmd(SERVERS / f"{script}.py", "--record", str(record)), record


def _retries(record: Path) -> list[dict]:
    """The tools/call requests that carried answers, as the server received them."""
    return [m["params"] for m in read_records(record)
            if m.get("method") == "tools/call" and "inputResponses" in m["params"]]


def _edited(doc: dict, answered: dict, missing: list[str] | None = None) -> dict:
    """`doc` with `answered` entries edited in (`missing`: the keys left to answer)."""
    return {**doc, "answered": {**doc.get("answered", {}), **answered},
            **({"missing": missing} if missing is not None else {})}


FORM_ANSWERED = {  # three_forms stopped with "a" and "b" answered, "c" (pick x|y) missing
    "boolean-as-string": ({"b": {"action": "accept", "content": {"sure": "yes"}}}, 'answered.b, field "sure"'),
    "missing-required": ({"a": {"action": "accept", "content": {}}}, 'answered.a, field "word": is required'),
    "unknown-field": ({"a": {"action": "accept", "content": {"word": "hi", "extra": 1}}}, "answered.a"),
    "bad-action": ({"a": {"action": "maybe"}}, "answered.a, action must be one of"),
    "decline-with-content": ({"a": {"action": "decline", "content": {"word": "hi"}}},
                             "answered.a, a decline answer has no content"),
    "not-an-object": ({"b": True}, "answered.b, expected an ElicitResult"),
    "no-such-request": ({"zz": {"action": "accept", "content": {}}}, "answered.zz: "),
    "required-null": ({"a": {"action": "accept", "content": {"word": None}}},
                      'answered.a, field "word": is required'),
    "lone-surrogate": ({"a": {"action": "accept", "content": {"word": "a\ud800b"}}},
                       "answered.a, not sent: the text holds a lone surrogate (\\ud800)"),
}


@pytest.mark.parametrize("case", list(FORM_ANSWERED))
def test_resume_checks_the_documents_form_answers_before_sending_them(mrtr, tmp_path, case):
    """docs/design.md, "Answer files": every answer, from any source (here the pending document's
    `answered`), is checked against its request before anything is sent; a wrong one is exit 2."""
    server, record = _recording(tmp_path, "forms_server")
    first = mrtr("--stdio", server, "call", "three_forms", "-a", "word=hi", "-a", "sure=yes", "--no-input")
    assert first.code == 5 and set(first.json()["answered"]) == {"a", "b"}, first.stderr
    answered, message = FORM_ANSWERED[case]
    pending = tmp_path / "p.json"
    pending.write_text(json.dumps(_edited(first.json(), answered)))
    r = mrtr("resume", pending, "-a", "pick=x", "--no-input")
    assert r.code == 2, r.stderr
    assert r.stderr.startswith(f"mrtr: error: {pending}, ") and message in r.stderr, r.stderr
    assert _retries(record) == []


@pytest.mark.parametrize(("member", "value", "message"), [
    ("answered", None, "answered must be an object"),
    ("answered", [1, 2], "answered must be an object"),
    ("sentResponses", "x", "sentResponses must be an object"),
    ("taskId", 5, "taskId must be a string"),
    ("taskId", None, "taskId must be a string"),
])
def test_a_document_member_of_the_wrong_type_is_refused_not_read_as_absent(mrtr, tmp_path, member, value, message):
    # Read as absent, a bad taskId started the call again (a tool run twice), and a bad
    # `answered` dropped the answers it held.
    server, record = _recording(tmp_path, "forms_server")
    first = mrtr("--stdio", server, "call", "three_forms", "-a", "word=hi", "-a", "sure=yes", "--no-input")
    assert first.code == 5, first.stderr
    pending = tmp_path / "p.json"
    pending.write_text(json.dumps({**first.json(), member: value}))
    r = mrtr("resume", pending, "-a", "pick=x", "--no-input")
    assert r.code == 2 and f"{pending}: {message}" in r.stderr, r.stderr
    assert _retries(record) == [] and len([m for m in read_records(record) if m.get("method") == "tools/call"]) == 1


@pytest.mark.parametrize(("members", "message"), [
    ({"era": "legacy", "resumable": False},
     'the pending document is inconsistent: "era": "legacy" (a server that asks during the call) but '
     '"protocolVersion": "2026-07-28" (a server that returns its questions in its result)'),
    ({"resumable": False},
     'the pending document is inconsistent: "resumable": false (a server that asks during the call) but '
     '"protocolVersion": "2026-07-28"'),
    ({"era": "legacy", "resumable": True},
     'the pending document is inconsistent: "era": "legacy" (a server that asks during the call) but '
     '"resumable": true'),
    ({"era": "modern"}, '"era": "modern" is no era a pending document names (only "legacy")'),
    ({"resumable": "no"}, '"resumable": "no" must be true or false'),
], ids=["era-legacy", "resumable-false", "era-and-resumable", "era-unknown", "resumable-not-boolean"])
def test_a_document_whose_members_disagree_is_refused_as_inconsistent(mrtr, tmp_path, members, message):
    # A 2026-07-28 document edited to say it came from an older server: it was told that the
    # 2026-07-28 server asks during the call, and given --protocol 2026-07-28 to start again.
    server, record = _recording(tmp_path, "forms_server")
    first = mrtr("--stdio", server, "call", "three_forms", "-a", "word=hi", "-a", "sure=yes", "--no-input")
    assert first.code == 5 and first.json()["protocolVersion"] == "2026-07-28", first.stderr
    pending = tmp_path / "p.json"
    pending.write_text(json.dumps({**first.json(), **members}))
    r = mrtr("resume", pending, "-a", "pick=x", "--no-input")
    assert r.code == 2 and f"mrtr: error: {pending}: {message}" in r.stderr, r.stderr
    assert "asks its questions during the call" not in r.stderr and "--protocol" not in r.stderr
    assert _retries(record) == []


def test_an_answered_form_is_taken_as_an_answer_file_is(mrtr, tmp_path):
    # `null` fields are left out (as in a filled-in template) and a -a flag given on resume
    # is laid over the document's answer, field by field.
    server, record = _recording(tmp_path, "forms_server")
    first = mrtr("--stdio", server, "call", "three_forms", "-a", "word=hi", "-a", "sure=yes", "--no-input")
    assert first.code == 5, first.stderr
    doc = first.json()
    doc["answered"]["a"]["content"]["extra_optional"] = None
    pending = tmp_path / "p.json"
    pending.write_text(json.dumps(doc))
    r = mrtr("resume", pending, "-a", "pick=x", "-a", "word=bye", "--no-input")
    assert r.code == 0, r.stderr
    sent = _retries(record)[-1]["inputResponses"]
    assert sent["a"] == {"action": "accept", "content": {"word": "bye"}}, sent
    assert "was not used" not in r.stderr


@pytest.mark.parametrize(("answer", "message"), [
    ({"action": "accept", "content": {"name": "Ada", "email": "ada@example.com", "age": 5, "size": "M",
                                      "toppings": ["ham"]}}, 'answered.kinds, field "age": must be >= 18'),
    ({"action": "accept", "content": {"name": "Ada", "email": "ada@example.com", "age": 36, "size": "XL",
                                      "toppings": ["ham"]}}, 'answered.kinds, field "size"'),
], ids=["below-minimum", "outside-enum"])
def test_resume_checks_an_answer_for_every_key_of_the_round(mrtr, tmp_path, answer, message):
    server, record = _recording(tmp_path, "forms_server")
    first = mrtr("--stdio", server, "call", "every_kind", "--no-input")
    assert first.code == 5, first.stderr
    pending = tmp_path / "p.json"
    pending.write_text(json.dumps(_edited(first.json(), {"kinds": answer}, missing=[])))
    r = mrtr("resume", pending, "--no-input")
    assert r.code == 2 and message in r.stderr, r.stderr
    assert _retries(record) == []


def test_resume_checks_the_documents_url_consent(mrtr, tmp_path):
    server, record = _recording(tmp_path, "forms_server")
    first = mrtr("--stdio", server, "call", "url_login", "--no-input")
    assert first.code == 5, first.stderr
    pending = tmp_path / "p.json"
    pending.write_text(json.dumps(_edited(first.json(), {"login": {"action": "accept", "content": {"done": True}}},
                                          missing=[])))
    r = mrtr("resume", pending, "--no-input")
    assert r.code == 2 and "answered.login, a URL-mode answer has no content" in r.stderr, r.stderr
    assert _retries(record) == []


@pytest.mark.parametrize(("key", "change", "message"), [
    ("__main__:draft", {"role": "robot"}, "answered.__main__:draft, role must be"),
    ("__main__:draft", {"content": {"type": "text"}}, "answered.__main__:draft, content: a text block needs"),
    ("__main__:workspace", {"roots": [{"uri": "https://example.com/repo"}]}, "answered.__main__:workspace, roots[0]"),
], ids=["sampling-role", "sampling-content", "roots-uri"])
def test_resume_checks_the_documents_sampling_and_roots_answers(mrtr, tmp_path, key, change, message):
    server, record = _recording(tmp_path, "sampling_server")
    llm = stdio_cmd(SERVERS / "fake_llm.py", "echo")
    first = mrtr("--stdio", server, "call", "brief", "topic=MCP", "--root", tmp_path, "--sampling-command", llm,
                 "--no-input")
    assert first.code == 5 and set(first.json()["answered"]) == {"__main__:draft", "__main__:workspace"}, first.stderr
    doc = first.json()
    pending = tmp_path / "p.json"
    pending.write_text(json.dumps(doc))
    assert mrtr("resume", pending, "-a", "tone=dry", "--no-input").code == 0  # as written, it resumes
    pending.write_text(json.dumps(_edited(doc, {key: {**doc["answered"][key], **change}})))
    record.write_text("")
    r = mrtr("resume", pending, "-a", "tone=dry", "--no-input")
    assert r.code == 2 and message in r.stderr, r.stderr
    assert _retries(record) == []


def test_a_documents_roots_request_with_no_roots_declared_names_the_document_and_how_to_give_roots(mrtr, tmp_path):
    # The round's roots request still to answer came from the document, not from this run's
    # server: exit 2 naming the document and --root, before anything is sent (it was exit 4,
    # "the server sent input request").
    server, record = _recording(tmp_path, "sampling_server")
    llm = stdio_cmd(SERVERS / "fake_llm.py", "echo")
    first = mrtr("--stdio", server, "call", "brief", "topic=MCP", "--root", tmp_path, "--sampling-command", llm,
                 "--no-input")
    assert first.code == 5 and "__main__:workspace" in first.json()["answered"], first.stderr
    doc = first.json()
    doc["answered"].pop("__main__:workspace")
    doc["missing"] = [*doc["missing"], "__main__:workspace"]
    pending = tmp_path / "p.json"
    pending.write_text(json.dumps(doc))
    record.write_text("")
    r = mrtr("resume", pending, "-a", "tone=dry", "--no-input")
    assert r.code == 2, r.stderr
    assert r.stderr.splitlines() == [
        f'mrtr: error: {pending}: the pending document\'s input request "__main__:workspace" (roots/list) needs the '
        "roots capability, which this run does not declare",
        "  give roots with --root PATH (repeatable), or a roots list in --answers"], r.stderr
    assert _retries(record) == []
    ok = mrtr("resume", pending, "-a", "tone=dry", "--root", tmp_path, "--no-input")
    assert ok.code == 0, ok.stderr


@pytest.mark.parametrize("flags", [["-a", "age=36"], []], ids=["with-a-flag", "without"])
def test_a_resume_that_stops_again_keeps_the_fields_typed_before(mrtr, tmp_path, flags):
    """A Ctrl-C document's typed fields (filled in its answersTemplate) stay in the template of the
    document a resume with --no-input stops with, beside what the flags gave."""
    first = mrtr("--stdio", stdio_cmd(SERVERS / "forms_server.py"), "call", "every_kind", "--no-input")
    assert first.code == 5, first.stderr
    doc = first.json()
    doc["answersTemplate"]["inputResponses"]["kinds"]["content"].update(name="Ada Lovelace", color="blue")
    pending = tmp_path / "p.json"
    pending.write_text(json.dumps(doc))
    r = mrtr("resume", pending, *flags, "--no-input")
    assert r.code == 5, r.stderr
    content = r.json()["answersTemplate"]["inputResponses"]["kinds"]["content"]
    assert content["name"] == "Ada Lovelace" and content["color"] == "blue"
    assert content["age"] == (36 if flags else None)
    again = tmp_path / "again.json"  # and the next resume finds them there
    again.write_text(r.stdout)
    r = mrtr("resume", again, "-a", "email=ada@example.com", "-a", "size=M", "-a", "toppings=ham", "-a", "age=40",
             "--no-input")
    assert r.code == 5, r.stderr
    content = r.json()["answersTemplate"]["inputResponses"]["kinds"]["content"]
    assert content["name"] == "Ada Lovelace" and content["age"] == 40


@pytest.mark.parametrize("source", ["flag", "file"])
def test_an_answer_with_a_lone_surrogate_is_never_sent(mrtr, tmp_path, source):
    # It has no UTF-8 form: a server cannot read the retry (the official SDK's never answered).
    server, record = _recording(tmp_path, "forms_server")
    answers = tmp_path / "a.json"
    answers.write_text('{"inputResponses": {"a": {"action": "accept", "content": {"word": "a\\ud800b"}}}}')
    given = ["-a", "word=a\udcffb"] if source == "flag" else ["--answers", str(answers)]
    r = mrtr("--stdio", server, "call", "three_forms", *given, "-a", "sure=yes", "-a", "pick=x", "--no-input")
    assert r.code == 2, r.stderr
    assert "not sent: the text holds a lone surrogate" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert _retries(record) == []
