"""Answer files and `-a` flags, in process (mrtr_cli/responders/answers.py): the document
shapes, the flag syntax, and how a store hands out answers round by round. These are the
fast tests mutation testing runs (tests/README.md)."""

from __future__ import annotations

import io

import pytest

from mrtr_cli.env import Environment
from mrtr_cli.errors import UsageError
from mrtr_cli.responders.answers import (
    KNOWN_MEMBERS,
    AnswerFile,
    AnswerStore,
    FlagAnswer,
    load_answer_file,
    parse_answer_document,
    parse_flag,
)
from mrtr_cli.responders.chain import ResponderChain
from mrtr_cli.responders.shapes import looks_like_roots_result, looks_like_sampling_result

SAMPLED = {"role": "assistant", "model": "m", "content": {"type": "text", "text": "hi"}}
ROOTS = {"roots": [{"uri": "file:///w", "name": "w"}]}


# ---------------------------------------------------------------- documents
def test_a_full_document_is_read_member_by_member():
    doc = {"inputResponses": {"k": {"action": "accept"}}, "inOrder": [1, 2], "fields": {"f": "v"},
           "roots": [{"uri": "file:///r"}], "_help": "ignored"}
    answers = parse_answer_document(doc, "a.json")
    assert (answers.path, answers.input_responses, answers.in_order, answers.fields, answers.roots) == (
        "a.json", {"k": {"action": "accept"}}, [1, 2], {"f": "v"}, [{"uri": "file:///r"}])


def test_the_members_are_copies():
    doc = {"inputResponses": {"k": 1}, "inOrder": [1], "fields": {"f": 1}}
    answers = parse_answer_document(doc, "a.json")
    doc["inputResponses"]["k2"] = 2
    doc["inOrder"].append(2)
    doc["fields"]["g"] = 2
    assert (answers.input_responses, answers.in_order, answers.fields) == ({"k": 1}, [1], {"f": 1})


@pytest.mark.parametrize("member", KNOWN_MEMBERS)
def test_any_known_member_makes_a_structured_document(member):
    value = {"inputResponses": {}, "inOrder": [], "fields": {}, "roots": []}[member]
    answers = parse_answer_document({member: value, "other": {"action": "accept"}}, "a.json")
    assert answers.input_responses == {}


def test_a_document_without_known_members_is_a_bare_input_responses_object():
    answers = parse_answer_document({"k": {"action": "decline"}, "_note": 1, "$schema": "x", "a_b": 2}, "a.json")
    assert answers.input_responses == {"k": {"action": "decline"}, "a_b": 2}
    assert (answers.in_order, answers.fields, answers.roots) == ([], {}, None)


def test_an_empty_document_answers_nothing():
    answers = parse_answer_document({}, "a.json")
    assert (answers.input_responses, answers.in_order, answers.fields, answers.roots) == ({}, [], {}, None)
    assert AnswerFile("p").roots is None


@pytest.mark.parametrize("doc, message", [
    ([1], "a.json: an answer file must be a JSON object, not an array"),
    ("x", "a.json: an answer file must be a JSON object, not a string"),
    ({"inputResponses": []}, "a.json: inputResponses must be an object keyed by input request key"),
    ({"inOrder": {}}, "a.json: inOrder must be a list of input responses, in the order asked"),
    ({"fields": []}, "a.json: fields must be an object of property name -> value"),
    ({"roots": {}}, "a.json: roots must be a list of {uri, name} objects"),
])
def test_a_member_of_the_wrong_type_is_a_usage_error_naming_the_file(doc, message):
    with pytest.raises(UsageError) as caught:
        parse_answer_document(doc, "a.json")
    assert caught.value.message == message


def test_an_answer_file_is_loaded_from_disk_or_stdin(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"fields": {"f": 1}}')
    assert load_answer_file(str(path)).fields == {"f": 1}
    assert load_answer_file(str(path)).path == str(path)
    assert load_answer_file("-", stdin_text='{"k": 2}').input_responses == {"k": 2}
    with pytest.raises(UsageError):
        load_answer_file("-", stdin_text="[1]")
    with pytest.raises(UsageError) as caught:
        load_answer_file(str(tmp_path / "none.json"))
    assert caught.value.message == f"cannot read answer file {tmp_path / 'none.json'}: no such file"


# ---------------------------------------------------------------- -a flags
@pytest.mark.parametrize("text, name, raw, is_json", [
    ("name=Ada", "name", "Ada", False),
    ("k.name=Ada=Lovelace", "k.name", "Ada=Lovelace", False),
    ("n=", "n", "", False),
    ("n:=5", "n", 5, True),
    ("n:=[1, 2]", "n", [1, 2], True),
    ("a=b:=c", "a", "b:=c", False),
    ("a:=\"x=y\"", "a", "x=y", True),
    ("a:=\"x:=y\"", "a", "x:=y", True),
])
def test_a_flag_is_field_equals_value_or_field_colon_equals_json(text, name, raw, is_json):
    flag = parse_flag(text)
    assert (flag.name, flag.raw, flag.is_json, flag.text) == (name, raw, is_json, text)


@pytest.mark.parametrize("text, message", [
    ("=value", "-a =...: missing the field name before = (expected -a FIELD=VALUE, with a space or nothing "
               "between -a and FIELD)"),
    ("=pin=2468", "-a =...: missing the field name before = (expected -a FIELD=VALUE, with a space or nothing "
                  "between -a and FIELD)"),
    ("novalue", "-a novalue: a flag without '=': expected FIELD=VALUE, INPUTKEY.FIELD=VALUE or FIELD:=JSON"),
    ("", "-a a word of 0 characters (not shown): a flag without '=': expected FIELD=VALUE, INPUTKEY.FIELD=VALUE "
         "or FIELD:=JSON"),
    ("apiToken:s3cr3t", "-a a word of 15 characters (not shown): a flag without '=': expected FIELD=VALUE, "
                        "INPUTKEY.FIELD=VALUE or FIELD:=JSON"),
    (":=5", "-a :=...: missing the field name before :="),
    ("n:=nope", "-a n:=...: the value after := is not valid JSON (Expecting value)"),
    ("n:=", "-a n:=...: the value after := is not valid JSON (Expecting value)"),
])
def test_a_flag_without_a_name_or_with_bad_json_is_a_usage_error(text, message):
    with pytest.raises(UsageError) as caught:
        parse_flag(text)
    assert caught.value.message == message
    assert caught.value.__cause__ is None
    if ":=" in text and text.index(":=") > 0:  # raised while handling the JSON error: not chained to it
        assert caught.value.__suppress_context__ is True


def test_a_flag_matches_its_field_or_its_input_key_and_field():
    assert parse_flag("f=1").matches("k", "f")
    assert parse_flag("k.f=1").matches("k", "f")
    assert not parse_flag("j.f=1").matches("k", "f")
    assert not parse_flag("g=1").matches("k", "f")


# ---------------------------------------------------------------- the store
def store(*files: AnswerFile, flags: tuple[str, ...] = ()) -> AnswerStore:
    return AnswerStore(list(files), [parse_flag(f) for f in flags])


def test_an_empty_store():
    assert AnswerStore().empty is True
    assert store(AnswerFile("a")).empty is False
    assert store(flags=("f=1",)).empty is False
    assert AnswerStore().exact("k") is None and AnswerStore().roots() is None


def test_exact_answers_come_from_the_last_file_that_has_the_key():
    first = AnswerFile("a.json", input_responses={"k": "from a", "j": "only a"})
    second = AnswerFile("b.json", input_responses={"k": "from b"})
    s = store(first, second)
    assert s.exact("k") == ("from b", "b.json, inputResponses.k")
    assert s.exact("k") == ("from b", "b.json, inputResponses.k")
    assert s.exact("j") == ("only a", "a.json, inputResponses.j")
    assert s.exact("x") is None


def test_a_list_answer_serves_one_entry_per_round_then_none():
    s = store(AnswerFile("a.json", input_responses={"k": ["r1", "r2"], "j": ["only"]}))
    assert s.exact("k") == ("r1", "a.json, inputResponses.k[0]")
    assert s.exact("j") == ("only", "a.json, inputResponses.j[0]")
    assert s.exact("k") == ("r2", "a.json, inputResponses.k[1]")
    assert s.exact("k") is None
    assert s.exact("k") is None
    assert s.exact("j") is None


def test_is_list_follows_the_file_exact_picks():
    s = store(AnswerFile("a", input_responses={"k": ["x"], "j": "y"}), AnswerFile("b", input_responses={"k": "z"}))
    assert s.is_list("k") is False
    assert s.is_list("j") is False
    assert s.is_list("none") is False
    assert store(AnswerFile("a", input_responses={"k": "z"}), AnswerFile("b", input_responses={"k": []})).is_list("k")


def test_in_order_answers_are_used_in_order_across_files():
    s = store(AnswerFile("a", in_order=["a0", "a1"]), AnswerFile("b", in_order=["b0"]))
    assert s.next_in_order("t:1") == ("a0", "a, inOrder[0] (for t:1)")
    assert s.next_in_order("t:2") == ("a1", "a, inOrder[1] (for t:2)")
    assert s.next_in_order("t:3") == ("b0", "b, inOrder[0] (for t:3)")
    assert s.next_in_order("t:4") is None
    assert s.next_in_order("t:5") is None


def test_field_values_come_from_the_last_file_that_has_them():
    s = store(AnswerFile("a", fields={"f": 1, "g": 2}), AnswerFile("b", fields={"f": 3}))
    assert s.field_value("f") == (3, "b, fields.f")
    assert s.field_value("g") == (2, "a, fields.g")
    assert s.field_value("h") is None


def test_a_key_field_flag_beats_a_field_flag():
    s = store(flags=("f=1", "k.f=2", "f=3", "k.f=4", "j.f=5"))
    assert [(i, f.raw) for i, f in s.flags_for("k", "f")] == [(1, "2"), (3, "4")]
    assert [(i, f.raw) for i, f in s.flags_for("x", "f")] == [(0, "1"), (2, "3")]
    assert s.flags_for("x", "g") == []
    assert isinstance(s.flags_for("k", "f")[0][1], FlagAnswer)


def test_roots_come_from_the_last_file_that_has_them():
    s = store(AnswerFile("a", roots=[1]), AnswerFile("b", roots=[2]), AnswerFile("c"))
    assert s.roots() == ([2], "b, roots")
    assert store(AnswerFile("a", roots=[])).roots() == ([], "a, roots")


def test_an_answer_of_a_shape_is_found_in_any_file_and_in_lists():
    plain = AnswerFile("a", input_responses={"k": {"action": "accept"}})
    assert not store(plain).has_exact_of_shape(looks_like_sampling_result)
    assert store(AnswerFile("b", input_responses={"s": SAMPLED}), plain).has_exact_of_shape(looks_like_sampling_result)
    assert store(plain, AnswerFile("b", input_responses={"s": [{"x": 1}, SAMPLED]})).has_exact_of_shape(
        looks_like_sampling_result)
    assert not store(AnswerFile("b", input_responses={"s": [[SAMPLED]]})).has_exact_of_shape(
        looks_like_sampling_result)


def chain(s: AnswerStore) -> ResponderChain:
    env = Environment(stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO(), no_input=True)
    return ResponderChain(env, s)


@pytest.mark.parametrize("answer, capability", [([SAMPLED, SAMPLED], "sampling"), ([ROOTS], "roots"),
                                                (SAMPLED, "sampling"), (ROOTS, "roots")])
def test_sampling_or_roots_answers_in_a_file_declare_the_capability_even_as_lists(answer, capability):
    """A file that answers sampling or roots requests (one answer or a list, one per round)
    but has no `roots` member: the run can answer them, so the capability is declared."""
    s = store(AnswerFile("a.json", input_responses={"k": answer}))
    assert capability in chain(s).capabilities()
    assert capability not in chain(store(AnswerFile("a.json", input_responses={"k": {"action": "accept"}}))
                                   ).capabilities()
    assert looks_like_roots_result(ROOTS) and looks_like_sampling_result(SAMPLED)


def test_unused_flags_are_noted_by_index():
    s = store(flags=("a=1", "b=\x1b[31m", "c=3"))
    s.used_flags = {0}
    assert s.unused_flag_notes() == [
        'mrtr: note: -a b=... was not used: no form on this run has a field \'b\'',
        'mrtr: note: -a c=... was not used: no form on this run has a field \'c\'']
    assert s.unused_flag_notes("in this batch", also_used={2}) == [
        'mrtr: note: -a b=... was not used: no form in this batch has a field \'b\'']
    assert store(flags=("a=1",)).unused_flag_notes(also_used=None) == [
        'mrtr: note: -a a=... was not used: no form on this run has a field \'a\'']


def test_an_unused_flag_is_noted_on_one_line():
    (note,) = store(flags=("f\ng=a\nb",)).unused_flag_notes()
    assert "\n" not in note
    assert note.startswith("mrtr: note: -a f\\ng=...")


def test_a_store_copies_its_lists():
    files, flags = [AnswerFile("a")], [parse_flag("f=1")]
    s = AnswerStore(files, flags)
    files.append(AnswerFile("b"))
    flags.clear()
    assert len(s.files) == 1 and len(s.flags) == 1 and s.used_flags == set()


@pytest.mark.parametrize("text", [".=x", ".x=1", "x.=1", "x..y=1", "..=1", ".:=1", "k..f:=[1]"])
def test_a_flag_whose_name_has_an_empty_part_is_refused(text):
    """`.=x` would answer a field '' of a question '': a name with an empty part before or
    after a dot is refused on one line (exit 2), naming the flag without its value."""
    with pytest.raises(UsageError) as caught:
        parse_flag(text)
    name, sep = (text.split(":=")[0], ":=") if ":=" in text else (text.split("=")[0], "=")
    assert caught.value.message == f"-a {name}{sep}...: a dot in the name has nothing before or after it " \
                                   "(expected FIELD or INPUTKEY.FIELD)"
    assert caught.value.exit_status == 2 and "\n" not in caught.value.message
