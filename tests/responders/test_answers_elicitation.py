"""Answering every elicitation property kind from answer files and `-a` flags, against a real
SDK server over stdio and HTTP; wrong answers stop before anything is sent.

Also the pure helpers: typing and checking typed answers, formats, URL warnings and display
pieces, pending-document helpers, form fields, answer documents and `-a` flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mrtr_cli.engine.pending import answers_template, pending_notes, start_again_command
from mrtr_cli.engine.resume import is_rejected_state
from mrtr_cli.errors import JsonRpcError, UsageError
from mrtr_cli.responders.answers import parse_answer_document, parse_flag
from mrtr_cli.responders.urls import openable, split_for_display, url_warnings
from mrtr_cli.schema.elicit import check_format, explain, form_fields, validate_content
from tests.conftest import SERVERS, Target, stdio_cmd, url_args

# The content a correct client sends for the every_kind form (types, consts, arrays).
EXPECTED = {
    "name": "Ada Lovelace", "email": "ada@example.com", "homepage": "https://ada.dev", "birthday": "1815-12-10",
    "meeting": "2026-07-28T09:30:00Z", "age": 36, "score": 0.5, "subscribe": False, "color": "blue",
    "size": "M", "legacy": "b", "toppings": ["cheese", "ham"], "days": ["tue", "wed"],
}

FLAGS = [
    "name=Ada Lovelace", "email=ada@example.com", "homepage=https://ada.dev", "birthday=1815-12-10",
    "meeting=2026-07-28T09:30:00Z", "age=36", "score=.5", "subscribe=no", "color=blue",
    "size=Medium",  # a title: the const "M" is sent
    "legacy=Beta",  # a legacy enumNames title: "b" is sent
    "toppings=cheese,ham",  # comma-separated
    "days=Tuesday", "days=wed",  # repeated flags build the array; titles or consts
]


def write(tmp_path: Path, name: str, doc: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def sent(target: Target) -> list[dict]:
    """The inputResponses of every tools/call retry the server received."""
    return [m["params"]["inputResponses"] for m in target.requests()
            if m["method"] == "tools/call" and "inputResponses" in m["params"]]


def flags(*items: str) -> list[str]:
    return [arg for item in items for arg in ("-a", item)]


def test_every_kind_from_an_inputresponses_file(mrtr, forms: Target, tmp_path):
    forms.reset()
    answers = write(tmp_path, "a.json", {"inputResponses": {"kinds": {"action": "accept", "content": EXPECTED}}})
    r = mrtr(*forms.args, "call", "every_kind", "--answers", answers, "--no-input")
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout) == EXPECTED
    assert sent(forms) == [{"kinds": {"action": "accept", "content": EXPECTED}}]


def test_every_kind_from_fields_with_defaults_filled_in(mrtr, forms: Target, tmp_path):
    forms.reset()
    given = {k: v for k, v in EXPECTED.items() if k not in ("subscribe", "color", "days")}
    answers = write(tmp_path, "f.json", {"fields": given})
    r = mrtr(*forms.args, "call", "every_kind", "--answers", answers, "--no-input")
    assert r.code == 0, r.stderr
    # Fields not given take the schema's default, as a pre-filled form would send them.
    expected = {**given, "subscribe": True, "color": "green", "days": ["mon"]}
    assert sent(forms) == [{"kinds": {"action": "accept", "content": expected}}]


def test_every_kind_from_typed_flags(mrtr, forms: Target):
    forms.reset()
    r = mrtr(*forms.args, "call", "every_kind", *flags(*FLAGS), "--no-input")
    assert r.code == 0, r.stderr
    content = sent(forms)[0]["kinds"]["content"]
    assert content == EXPECTED
    assert isinstance(content["age"], int) and isinstance(content["score"], float)
    assert content["subscribe"] is False


def test_key_dot_field_flags_and_json_flags(mrtr, forms: Target):
    r = mrtr(*forms.args, "call", "three_forms", *flags("a.word=hello", "b.sure=yes", "c.pick=y", "word=ignored"))
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout) == {"a": '{"word": "hello"}', "b": '{"sure": true}', "c": '{"pick": "y"}'}
    r = mrtr(*forms.args, "call", "every_kind", *flags(*FLAGS[:-2]), "-a", 'days:=["mon","wed"]', "--no-input")
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout)["days"] == ["mon", "wed"]


def test_flags_come_before_files(mrtr, forms: Target, tmp_path):
    forms.reset()
    answers = write(tmp_path, "a.json", {"kinds": {"action": "accept", "content": EXPECTED},
                                         "a": {"action": "decline"}})
    r = mrtr(*forms.args, "call", "every_kind", "--answers", answers, "-a", "kinds.age=40", "-v")
    assert r.code == 0, r.stderr
    assert sent(forms)[-1] == {"kinds": {"action": "accept", "content": {**EXPECTED, "age": 40}}}
    assert f'input "kinds" answered from {answers}, inputResponses.kinds, -a kinds.age=40' in r.stderr
    # A flag turns a file's decline into an answer; the others still come from the file.
    r = mrtr(*forms.args, "call", "three_forms", "--answers", answers, "-a", "word=flagged", "-a", "sure=y",
             "-a", "pick=x")
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout)["a"] == '{"word": "flagged"}'


def test_bare_file_several_files_and_unknown_keys(mrtr, forms: Target, tmp_path):
    forms.reset()
    first = write(tmp_path, "1.json", {"fields": {"word": "first", "sure": True}, "otherTool": {"x": 1}})
    # A bare inputResponses object (no known top-level member); it also holds keys for other tools.
    second = write(tmp_path, "2.json", {"c": {"action": "accept", "content": {"pick": "x"}},
                                        "unrelated_key": {"action": "decline"}})
    third = write(tmp_path, "3.json", {"fields": {"word": "later wins"}})
    r = mrtr(*forms.args, "call", "three_forms", "--answers", first, "--answers", second, "--answers", third,
             "--no-input", "-v")
    assert r.code == 0, r.stderr
    assert sent(forms) == [{"a": {"action": "accept", "content": {"word": "later wins"}},
                            "b": {"action": "accept", "content": {"sure": True}},
                            "c": {"action": "accept", "content": {"pick": "x"}}}]
    # -v says where each answer came from.
    assert f'input "a" answered from {third}, fields.word' in r.stderr
    assert f'input "c" answered from {second}, inputResponses.c' in r.stderr


def test_a_list_is_consumed_one_entry_per_round(mrtr, core: Target, tmp_path):
    core.reset()
    answers = write(tmp_path, "l.json", {"inputResponses": {"again": [
        {"action": "accept", "content": {"go": True}}, {"action": "accept", "content": {"go": False}}]}})
    r = mrtr(*core.args, "call", "loop", "--answers", answers, "--no-input")
    assert r.code == 5  # round 3: the list is used up and nobody can answer
    rounds = [m["params"].get("inputResponses") for m in core.requests() if m["method"] == "tools/call"]
    assert rounds == [None, {"again": {"action": "accept", "content": {"go": True}}},
                      {"again": {"action": "accept", "content": {"go": False}}}]


def test_integral_float_is_sent_as_integer(mrtr, forms: Target, tmp_path):
    forms.reset()
    answers = write(tmp_path, "n.json", {"kinds": {"action": "accept", "content": {**EXPECTED, "age": 36.0}}})
    r = mrtr(*forms.args, "call", "every_kind", "--answers", answers)
    assert r.code == 0, r.stderr
    age = forms.requests()[-1]["params"]["inputResponses"]["kinds"]["content"]["age"]
    assert age == 36 and type(age) is int


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_decline_and_cancel_from_a_file(mrtr, forms: Target, tmp_path, action):
    forms.reset()
    answers = write(tmp_path, "d.json", {"kinds": {"action": action}})
    r = mrtr(*forms.args, "call", "every_kind", "--answers", answers)
    assert r.code == 6
    assert r.stdout.strip() == f"action: {action}"
    assert sent(forms) == [{"kinds": {"action": action}}]


BAD_CONTENT = [
    ("wrong type", {"age": "36"}, "age", ["got string \"36\"", "an integer >= 18 and <= 130"]),
    ("out of range", {"age": 12}, "age", ["must be >= 18"]),
    ("not in enum", {"size": "XL"}, "size", ["'XL' is not one of: S (Small), M (Medium), L (Large)"]),
    ("title for const", {"size": "Medium"}, "size", ["is a title: send its value 'M'"]),
    ("missing required", {"email": None}, "email", ["is required but missing", "email format"]),
    ("bad format", {"birthday": "10/12/1815"}, "birthday", ["is not a date (YYYY-MM-DD)"]),
    ("too many items", {"toppings": ["cheese", "ham", "olives"]}, "toppings", ["choose at most 2"]),
    ("multi not in enum", {"days": ["fri"]}, "days", ["'fri' is not one of: mon (Monday)"]),
    ("too short", {"name": "A"}, "name", ["must be at least 2 characters"]),
    ("boolean as string", {"subscribe": "yes"}, "subscribe", ["got string \"yes\"", "boolean"]),
    ("unknown field", {"nickname": "Ada"}, "nickname", ["is not a field of this form"]),
]


@pytest.mark.parametrize(("case", "change", "field", "words"), BAD_CONTENT, ids=[c[0] for c in BAD_CONTENT])
def test_wrong_answer_in_a_file_exits_2_and_sends_nothing(mrtr, forms: Target, tmp_path, case, change, field, words):
    forms.reset()
    content = {**EXPECTED, **change}
    if None in change.values():
        content = {k: v for k, v in content.items() if v is not None}
    answers = write(tmp_path, "bad.json", {"inputResponses": {"kinds": {"action": "accept", "content": content}}})
    r = mrtr(*forms.args, "call", "every_kind", "--answers", answers)
    assert r.code == 2, r.stderr
    first_line = r.stderr.splitlines()[0]
    assert f'{answers}, inputResponses.kinds, field "{field}"' in first_line
    for word in words:
        assert word in first_line
    assert r.stdout == ""
    assert sent(forms) == []  # the server saw only the first call


def test_wrong_fields_and_flags_name_their_source(mrtr, forms: Target, tmp_path):
    forms.reset()
    answers = write(tmp_path, "f.json", {"fields": {**EXPECTED, "score": 2}})
    r = mrtr(*forms.args, "call", "every_kind", "--answers", answers)
    assert r.code == 2
    assert (f'{answers}, fields.score (input request "kinds"): must be <= 1 (expected a number >= 0 and <= 1)'
            in r.stderr)
    r = mrtr(*forms.args, "call", "every_kind", *flags(*FLAGS[:-2], "days=friday"))
    assert r.code == 2
    assert ('-a days=friday (input request "kinds", field "days"): \'friday\' is not one of: '
            "mon (Monday), tue (Tuesday), wed (Wednesday)") in r.stderr
    r = mrtr(*forms.args, "call", "every_kind", *flags(*FLAGS[1:], "name=A"))
    assert r.code == 2 and 'field "name"' in r.stderr and "at least 2 characters" in r.stderr
    assert sent(forms) == []


def test_every_problem_is_listed(mrtr, forms: Target, tmp_path):
    answers = write(tmp_path, "bad.json", {"kinds": {"action": "accept", "content": {"age": 1, "size": "Q"}}})
    r = mrtr(*forms.args, "call", "every_kind", "--answers", answers)
    assert r.code == 2
    assert 'field "name": is required but missing' in r.stderr
    assert "also:" in r.stderr and 'field "size"' in r.stderr and 'field "age"' in r.stderr


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_a_key_field_flag_whose_key_names_no_question_yet_pends_with_a_note(mrtr, era, tmp_path):
    """`-a KEY.FIELD=VALUE` with a KEY no question asked before the run stopped for input: a
    later round might ask it, so the run pends as it would without the flag (exit 5, the pending
    document on stdout) and one note says the flag was not used (yet), in both eras."""
    target = ["--stdio", stdio_cmd(SERVERS / "dual_server.py"), "--protocol", era]
    r = mrtr(*target, "call", "book_table", "date=mon", "-a", "login.x=1", "-a", "partySize=2", "--no-input")
    key = "__main__:ask_booking" if era == "2026-07-28" else "elicitation-1"
    assert r.code == 5, r.stderr
    assert r.json()["missing"] == [key]
    notes = [line for line in r.stderr.splitlines() if "login" in line]
    assert notes == ["mrtr: note: -a login.x=... was not used (yet): the run stopped for input "
                     "before any question 'login' came"], r.stderr
    assert "no question has the key" not in r.stderr
    # A KEY.FIELD for a question asked later, or a field whose name has a dot, is no such flag.
    ok = mrtr(*target, "call", "book_table", "date=mon", "-a", f"{key}.partySize=2", "-a", "seating=indoor")
    assert ok.code == 0, ok.stderr


def test_a_key_field_flag_for_a_later_round_pends_as_an_answer_file_does(mrtr, forms: Target, tmp_path):
    """Round 1 of two_rounds asks "first", round 2 "second": `-a second.nights=3` with nobody to
    answer round 1 stops there (exit 5, the pending document), as an answer file for "second"
    does; the flag is noted as not used (yet), never refused as a key no question has."""
    answers = write(tmp_path, "later.json", {"inputResponses": {"second": {"action": "accept",
                                                                           "content": {"nights": 3}}}})
    by_file = mrtr(*forms.args, "call", "two_rounds", "--answers", answers, "--no-input")
    assert by_file.code == 5, by_file.stderr
    r = mrtr(*forms.args, "call", "two_rounds", "-a", "second.nights=3", "--no-input")
    assert r.code == 5, r.stderr
    assert r.json()["missing"] == by_file.json()["missing"] == ["first"]
    assert [line for line in r.stderr.splitlines() if "-a " in line] == [
        "mrtr: note: -a second.nights=... was not used (yet): the run stopped for input before any "
        "question 'second' came"], r.stderr
    # The pending document, resumed with the round-1 answer and the same flag, finishes the call.
    pending = write(tmp_path, "pending.json", r.json())
    done = mrtr("resume", pending, "-a", "city=Oslo", "-a", "second.nights=3", "--no-input")
    assert done.code == 0, done.stderr
    assert "Oslo" in done.stdout and "3 nights" in done.stdout and "was not used" not in done.stderr


def test_a_key_field_flag_whose_field_the_asked_form_lacks_stops_before_sending(mrtr, forms: Target):
    # The question "kinds" is asked and its form has no field "nmae": exit 2 before anything is
    # sent, naming the key, the field and the fields the form has (the run would succeed).
    forms.reset()
    r = mrtr(*forms.args, "call", "every_kind", *flags(*FLAGS, "kinds.nmae=Ada"))
    assert r.code == 2, r.stderr
    assert r.stdout == "" and sent(forms) == []
    (line,) = r.stderr.splitlines()
    assert line.startswith('mrtr: error: -a kinds.nmae=...: question "kinds" has no field "nmae" '
                           '(its fields: "age", "birthday", '), line
    # A URL-mode question has no fields at all.
    r = mrtr(*forms.args, "call", "url_login", "-a", "login.token=t", "--no-input")
    assert r.code == 2, r.stderr
    assert 'question "login" has no field "token" (it has no fields)' in r.stderr
    assert sent(forms) == []
    # A KEY.FIELD for a key a later round asks is not refused in the round before it (round 2
    # asks "second"): it answers there, and a flag for a key never asked stays a note.
    forms.reset()
    r = mrtr(*forms.args, "call", "two_rounds", *flags("city=Zürich", "second.nights=3", "third.x=1"))
    assert r.code == 0, r.stderr
    assert "-a third.x=... was not used" in r.stderr


def test_a_bare_flag_whose_field_a_key_field_flag_answered_is_noted_with_that_reason(mrtr, forms: Target):
    # "kinds" has a field "name": -a kinds.name wins over -a name, and the note says so
    # (it said no form had a field 'name').
    r = mrtr(*forms.args, "call", "every_kind", *flags(*FLAGS[1:], "kinds.name=Ada", "name=Bob"))
    assert r.code == 0, r.stderr
    notes = [line for line in r.stderr.splitlines() if "was not used" in line]
    assert notes == ["mrtr: note: -a name=... was not used: the field 'name' of question 'kinds' was answered "
                     "by -a kinds.name=... (KEY.FIELD wins over FIELD)"], r.stderr


def test_unused_flag_is_noted_and_partial_answers_pend(mrtr, forms: Target):
    r = mrtr(*forms.args, "call", "every_kind", *flags("name=Ada", "nmae=typo"), "--no-input")
    assert r.code == 5
    assert "-a nmae=... was not used" in r.stderr
    doc = r.json()
    # What was found is kept in the template; defaults are there too.
    content = doc["answersTemplate"]["inputResponses"]["kinds"]["content"]
    assert content["name"] == "Ada" and content["color"] == "green" and content["email"] is None


def test_url_elicitation_from_a_file_sends_bare_accept(mrtr, forms: Target, tmp_path):
    forms.reset()
    answers = write(tmp_path, "u.json", {"login": {"action": "accept"}})
    r = mrtr(*forms.args, "call", "url_login", "--answers", answers)
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "connected"
    retry = forms.requests()[-1]["params"]
    assert retry["inputResponses"] == {"login": {"action": "accept"}}
    assert retry["requestState"] == "url-state ☃"
    bad = write(tmp_path, "ub.json", {"login": {"action": "accept", "content": {"x": 1}}})
    r = mrtr(*forms.args, "call", "url_login", "--answers", bad)
    assert r.code == 2 and "URL-mode answer has no content" in r.stderr


def test_url_elicitation_answer_with_empty_content_is_sent_without_it(mrtr, forms: Target, tmp_path):
    # A URL-mode ElicitResult carries no content: an empty one (or one of nulls, as a template
    # may leave it) is left out; one with a field is refused before anything is sent, naming it.
    for content in ({}, {"x": None}):
        forms.reset()
        answers = write(tmp_path, "u.json", {"login": {"action": "accept", "content": content}})
        r = mrtr(*forms.args, "call", "url_login", "--answers", answers)
        assert r.code == 0, r.stderr
        assert forms.requests()[-1]["params"]["inputResponses"] == {"login": {"action": "accept"}}
    forms.reset()
    bad = write(tmp_path, "ub.json", {"login": {"action": "accept", "content": {"token": "t"}}})
    r = mrtr(*forms.args, "call", "url_login", "--answers", bad)
    assert r.code == 2, r.stderr
    assert "inputResponses.login, a URL-mode answer has no content (content.token given)" in r.stderr, r.stderr
    assert len(sent(forms)) == 0


def test_both_elicitation_modes_are_declared(mrtr, forms: Target):
    forms.reset()
    r = mrtr(*forms.args, "call", "url_login", "--no-input")
    assert r.code == 5
    caps = forms.calls()[0]["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert caps["elicitation"] == {"form": {}, "url": {}}


def test_save_answers_replays_the_same_run(mrtr, forms: Target, tmp_path):
    saved = tmp_path / "saved.json"
    first = mrtr(*forms.args, "call", "two_rounds", *flags("city=Zürich", "nights=3"), "--save-answers", saved)
    assert first.code == 0, first.stderr
    assert first.stdout.strip() == "Zürich for 3 nights"
    doc = json.loads(saved.read_text())
    assert doc == {"inputResponses": {"first": {"action": "accept", "content": {"city": "Zürich"}},
                                      "second": {"action": "accept", "content": {"nights": 3}}}}
    replay = mrtr(*forms.args, "call", "two_rounds", "--no-input", "--answers", saved)
    assert replay.code == 0, replay.stderr
    assert replay.stdout == first.stdout


def test_no_secret_in_pending_documents_or_saved_answers(mrtr, http_servers, tmp_path):
    record = tmp_path / "rec.jsonl"
    url = http_servers.start(SERVERS / "forms_server.py", "--record", str(record))
    saved = tmp_path / "saved.json"
    secret, token = "header-secret-4242", "token-secret-9797"
    r = mrtr(*url_args(url), "-H", f"X-Api-Key: {secret}", "--bearer-token-env", "MY_TOKEN", "call", "two_rounds",
             "-a", "city=Oslo", "--no-input", "--save-answers", saved, env={"MY_TOKEN": token})
    assert r.code == 5
    assert r.json()["target"] == {"url": url}
    assert json.loads(saved.read_text())["inputResponses"]["first"]["content"] == {"city": "Oslo"}
    for text in (r.stdout, r.stderr, saved.read_text()):
        assert secret not in text and token not in text
    # ...yet the server did get them.
    assert any(secret in line for line in record.read_text().splitlines())


def test_stdio_target_in_pending_document_has_no_environment(mrtr, tmp_path):
    r = mrtr("--stdio", stdio_cmd(SERVERS / "forms_server.py"), "call", "every_kind", "--no-input")
    assert r.code == 5
    assert set(r.json()["target"]) == {"stdio"}


@pytest.mark.parametrize("where", ["missing-folder", "directory"])
def test_save_answers_to_a_place_that_cannot_be_written_fails_before_anything_runs(mrtr, tmp_path, where):
    from tests.conftest import EXAMPLE_SERVER, stdio_cmd

    path = tmp_path / "no" / "x.json" if where == "missing-folder" else tmp_path
    r = mrtr("--stdio", stdio_cmd(EXAMPLE_SERVER), "call", "update_work_item", "workItemId=4522",
             "state=Resolved", "--save-answers", path)
    assert r.code == 2 and "--save-answers" in r.stderr and r.stdout == ""


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
def test_typed_text_becomes_the_value_the_field_schema_asks_for(schema, text, value):
    result = field(schema).coerce(text)
    assert result == value and type(result) is type(value)


@pytest.mark.parametrize(("schema", "text", "reason"), [
    ({"type": "integer"}, "1_000", "expected an integer"),
    ({"type": "integer"}, "١٢", "expected an integer"),  # Arabic-Indic digits
    ({"type": "integer"}, "3.0", "expected an integer"),
    ({"type": "number"}, "nan", "expected a number"),
    ({"type": "number"}, "1e999", "out of range"),
    ({"type": "boolean"}, "maybe", "expected a boolean"),
    ({"type": "string", "enum": ["a"]}, "b", "'b' is not one of: a"),
])
def test_typed_text_the_field_schema_refuses_names_why(schema, text, reason):
    with pytest.raises(ValueError, match=reason):
        field(schema).coerce(text)


@pytest.mark.parametrize(("fmt", "value", "ok"), [
    ("email", "a@b.co", True), ("email", "a@b.co\n", False), ("email", "a b@c.d", False),
    ("uri", "https://x.y/z", True), ("uri", "urn:isbn:123", True), ("uri", "x.y", False),
    ("date", "2024-02-29", True), ("date", "2023-02-29", False), ("date", "2024-2-1", False),
    ("date-time", "2026-07-28T09:30:00Z", True), ("date-time", "2026-07-28T09:30:00.123+02:00", True),
    ("date-time", "2026-07-28 09:30:00Z", False), ("date-time", "2026-07-28T25:00:00Z", False),
])
def test_string_formats_are_checked(fmt, value, ok):
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


def test_a_refused_answer_says_what_was_got_and_what_is_expected():
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
def test_a_url_to_open_is_warned_about_what_looks_wrong(url, expected):
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
    from mrtr_cli.responders.kinds import elicit_result_problems

    schema = {"requestedSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}
    assert elicit_result_problems({"action": action, "content": {"city": "x"}}, schema) == [
        f'a {action} answer has no content: use {{"action": "{action}"}}']
    assert elicit_result_problems({"action": action}, schema) == []
    assert elicit_result_problems({"action": action}, {"mode": "url", "url": "https://x"}) == []


def test_form_fields_and_validation():
    schema = {"type": "object", "required": ["name", "level"], "properties": {
        "name": {"type": "string", "minLength": 2},
        "email": {"type": "string", "format": "email"},
        "level": {"type": "string", "oneOf": [{"const": "lo", "title": "Low"}, {"const": "hi", "title": "High"}]},
        "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
        "pick": {"type": "array", "items": {"enum": ["x", "y", "z"]}, "minItems": 1, "maxItems": 2},
        "when": {"type": "string", "format": "date"},
    }}
    fields = {f.name: f for f in form_fields(schema)}
    assert fields["level"].coerce("High") == "hi"
    assert fields["legacy"].coerce("beta") == "b"
    assert fields["pick"].coerce("x,z") == ["x", "z"]
    assert validate_content(schema, {"name": "Al", "level": "lo"}) == []
    problems = {p.field: p.message for p in validate_content(schema, {
        "name": "A", "email": "nope", "level": "Low", "pick": ["x", "y", "z"], "when": "2026-13-01"})}
    assert set(problems) == {"name", "email", "level", "pick", "when"}
    assert "at least 2" in problems["name"]
    assert "at most 2" in problems["pick"]
    assert validate_content(schema, {"level": "lo"})[0].field == "name"


def test_answer_documents_and_flags():
    bare = parse_answer_document({"k": {"action": "decline"}, "_help": 1}, "f.json")
    assert bare.input_responses == {"k": {"action": "decline"}}
    full = parse_answer_document({"fields": {"a": 1}, "roots": [], "inputResponses": {}}, "g.json")
    assert full.fields == {"a": 1} and full.roots == []
    with pytest.raises(UsageError, match="JSON object"):
        parse_answer_document([], "h.json")
    assert parse_flag("k.f=1").name == "k.f"
    assert parse_flag("f:=[1]").raw == [1]
