"""A server's regular expressions are matched with a bound on the work (mrtr_cli/schema/patterns.py):
the keyword checks in process, then mrtr against a real server (tests/servers/patterns_server.py)
whose form, `inputSchema` and `outputSchema` carry patterns a backtracking engine takes hours
to match. Each run is bounded by `RUN_BOUND`: a hang fails the test instead of holding it."""

from __future__ import annotations

import contextvars
import json
import threading
import warnings

import pytest
from jsonschema import Draft202012Validator

from mrtr_cli.app import bounding_patterns
from mrtr_cli.errors import ProtocolError, TimeoutExpired, UsageError
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.schema.arguments import validate_arguments
from mrtr_cli.schema.elicit import form_fields, validate_content
from mrtr_cli.schema.patterns import (
    PatternError,
    SlowPattern,
    _too_large,
    bound_by,
    bounded_validator,
    compiled,
    search,
)
from tests.conftest import SERVERS, stdio_cmd

#: Exponential for every backtracking engine (`regex` too) on `CATASTROPHIC`.
SLOW = "^(a|a)*$"
#: Exponential for `re` on `CATASTROPHIC`; `regex` sees through it (no match, at once).
NESTED = "(a+)+$"
#: 2**60 steps of backtracking: hours, unbounded.
CATASTROPHIC = "a" * 60 + "!"
#: Seconds a whole mrtr run may take here (a bounded match is a fraction of a second of CPU).
RUN_BOUND = 120
SERVER = stdio_cmd(SERVERS / "patterns_server.py")


@pytest.mark.parametrize("pattern", ["(", "[a-", "a{2,1}", "*"])
def test_a_pattern_that_is_no_regular_expression(pattern):
    with pytest.raises(PatternError):
        compiled(pattern)


def test_compiling_warns_of_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled("[[a]")


def test_a_match_that_takes_too_long_is_the_servers_fault():
    with pytest.raises(SlowPattern) as caught:
        search(SLOW, CATASTROPHIC)
    assert caught.value.exit_status == 4
    assert '"^(a|a)*$" took too long to match' in caught.value.message


class _Bound:
    """A run's `--timeout` with `left` seconds left."""

    def __init__(self, left: float):
        self.left = left

    def remaining(self) -> float:
        return self.left

    def describe(self) -> str:
        return " after 2s"


def test_the_runs_timeout_bounds_every_match():
    """With the run's `--timeout` spent, no match starts; with less left than a match may
    take, a slow match ends when the run's time does (exit 7, not the pattern's exit 4)."""
    contextvars.copy_context().run(_bounded_matches)  # the bound set here ends with the test


def _bounded_matches() -> None:
    bound_by(_Bound(0.0))
    with pytest.raises(TimeoutExpired, match='^timed out after 2s matching the server\'s pattern "a"'):
        search("a", "a")
    bound_by(_Bound(0.05))
    assert search("a", "a")
    with pytest.raises(TimeoutExpired) as caught:
        search(SLOW, CATASTROPHIC)
    assert caught.value.exit_status == 7


def test_a_line_without_timeout_lifts_an_earlier_lines_bound():
    """A shell or batch line's unbounded deadline replaces the spent bound of a line before
    it (which had --timeout): its matches are not cut short by another line's time."""
    contextvars.copy_context().run(_later_line_unbounded)


def _later_line_unbounded() -> None:
    bounding_patterns(Deadline(0.001))
    with pytest.raises(TimeoutExpired):
        while True:  # until the first line's bound is spent
            search("a", "a")
    bounding_patterns(Deadline(None))
    assert search("a", "a")


def test_each_thread_has_its_own_bound():
    """A batch worker's bound is its own line's: one thread's spent bound does not end
    another thread's matches."""
    def spent() -> None:
        bound_by(_Bound(0.0))

    contextvars.copy_context().run(spent)
    worker = threading.Thread(target=spent)
    worker.start()
    worker.join(timeout=60)
    assert search("a", "a")


@pytest.mark.parametrize(("schema", "instance"), [
    ({"patternProperties": {"^x": {"type": "integer"}}}, {"xa": "s", "y": "t"}),
    ({"patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": False}, {"xa": 1, "y": 2, "z": 3}),
    ({"patternProperties": {"^x": True}, "additionalProperties": {"type": "string"}}, {"xa": 1, "y": 2}),
    ({"properties": {"a": True}, "additionalProperties": False}, {"a": 1, "b": 2}),
    ({"properties": {"w": {"pattern": "^[0-9]+$"}}}, {"w": "12a"}),
    ({"propertyNames": {"pattern": "^[a-z]+$"}}, {"ab": 1, "A1": 2}),
])
def test_errors_as_jsonschema_finds_them(schema, instance):
    def found(validator):
        return sorted((list(e.absolute_path), e.validator, e.message) for e in validator.iter_errors(instance))

    assert found(bounded_validator(Draft202012Validator, schema)) == found(Draft202012Validator(schema))


@pytest.mark.parametrize("schema", [
    {"properties": {"w": {"pattern": SLOW}}},
    {"patternProperties": {SLOW: {"type": "string"}}},
    {"patternProperties": {"^b": True}, "additionalProperties": {"pattern": SLOW}},
    {"patternProperties": {SLOW: True}, "additionalProperties": False},
    {"propertyNames": {"pattern": SLOW}},
])
def test_every_pattern_keyword_is_bounded(schema):
    with pytest.raises(SlowPattern):
        list(bounded_validator(Draft202012Validator, schema).iter_errors({"w": CATASTROPHIC, CATASTROPHIC: "x"}))


def test_unevaluated_properties_beside_pattern_properties_is_left_to_the_server():
    """jsonschema matches `patternProperties` itself for `unevaluatedProperties` (with `re`,
    unbounded): that keyword is not checked in a schema that has one."""
    with_patterns = {"allOf": [{"patternProperties": {NESTED: True}}], "unevaluatedProperties": False}
    assert list(bounded_validator(Draft202012Validator, with_patterns).iter_errors({CATASTROPHIC: 1})) == []
    without = {"properties": {"a": True}, "unevaluatedProperties": False}
    assert [e.validator for e in bounded_validator(Draft202012Validator, without).iter_errors({"b": 1})] == \
        ["unevaluatedProperties"]


def test_a_form_field_and_tool_arguments_in_process():
    form = {"type": "object", "properties": {"w": {"type": "string", "pattern": SLOW}}}
    with pytest.raises(SlowPattern, match='^field "w": the server\'s pattern'):
        validate_content(form, {"w": CATASTROPHIC})
    with pytest.raises(SlowPattern, match=r"^t \(inputSchema\): the server's pattern"):
        validate_arguments({"w": CATASTROPHIC}, form, "t")
    nested = {"type": "object", "properties": {"w": {"type": "string", "pattern": NESTED}}}
    assert [p.field for p in validate_content(nested, {"w": CATASTROPHIC})] == ["w"]
    assert form_fields({"type": "object", "properties": {"w": {"type": "string", "pattern": r"\p{L}+"}}})


#: Short, but `regex` expands counted repeats when compiling: gigabytes and minutes unbounded.
BOMB = "(((a{1000}){1000}){1000})"
#: The same behind ECMA-262's empty and any-character classes, which Python's reading of a
#: class (a `]` first in it is a member) took to run to the pattern's end: 2.2 GB, exit 70.
CLASS_BOMBS = ["[^]((?:a{1000}){1000}){10}", "[]((?:a{1000}){1000}){10}", "[^](?:a{1000}){1000}",
               "[]|((a{1000}){1000})", r"[\]]((a{1000}){1000})"]


@pytest.mark.parametrize("pattern", [*CLASS_BOMBS, BOMB, r"\u{41}((a{1000}){1000})", r"(?<a\u0041>((a{1000}){1000}))"])
def test_the_size_bound_reads_the_pattern_as_ecma_262(pattern):
    """The size count reads the pattern by ECMA-262's grammar (the syntax check's reading),
    so no class, escape or group name hides a counted repeat from it (no compiling here)."""
    assert _too_large(pattern) is not None, pattern


@pytest.mark.parametrize("pattern", [r"\u{100000}\u{100000}", r"^\u{20000}" * 6, r"\p{L}{3}", r"[{]{5}x{2}",
                                     r"(?<n>a){3}\k<n>{2}"])
def test_escapes_with_braces_are_no_counted_repeats(pattern):
    """`\\u{100000}` is one code point and `\\p{L}` one class: never a count of 100,000."""
    assert _too_large(pattern) is None
    assert compiled(pattern) is not None


def test_running_out_of_memory_compiling_is_too_large_not_a_bug(monkeypatch):
    """Whatever the count misses, a compile that runs out of memory is the documented
    "too large to compile" (exit 4), never exit 70."""
    import regex

    def out_of_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(regex, "compile", out_of_memory)
    with pytest.raises(SlowPattern, match="is too large to compile") as caught:
        compiled("^never-compiled-before-[a-z]+$")
    assert caught.value.exit_status == 4


@pytest.mark.parametrize("pattern", [BOMB, "(a{3000}){3000}", "x{0,200000}", "a{1000}b{1000}" * 60, "a" * 20_000,
                                     r"\s" * 2_000])
def test_a_pattern_too_large_to_compile_is_refused_before_compiling(pattern):
    with pytest.raises(SlowPattern, match="is too large to compile") as caught:
        search(pattern, "a")
    assert caught.value.exit_status == 4
    form = {"type": "object", "properties": {"w": {"type": "string", "pattern": pattern}}}
    with pytest.raises(SlowPattern, match='^field "w": the server\'s pattern .* is too large to compile'):
        form_fields(form)
    with pytest.raises(SlowPattern, match=r"^t \(inputSchema\): the server's pattern .* is too large"):
        validate_arguments({"w": "a"}, form, "t")


@pytest.mark.parametrize("pattern", [r"^[a-z]{2,64}$", r"^\d{3}-\d{4}$", r"[{]{5}", r"\{1000000\}",
                                     r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==)?$", "a{99999}"])
def test_usual_counted_patterns_are_compiled(pattern):
    assert compiled(pattern) is not None


def test_a_schema_whose_ref_refers_to_itself_is_left_unchecked():
    """A `$ref` to itself recurses without end in jsonschema: the schema cannot be used, so
    the arguments go unchecked (as for other schemas that cannot be used), no exit 70."""
    schema = {"type": "object", "properties": {"w": {"$ref": "#/properties/w"}, "n": {"type": "integer"}}}
    validate_arguments({"w": "x", "n": 1}, schema, "t")


def test_a_nested_set_in_a_schema_pattern_warns_of_nothing():
    """`re` warns of `[[` ("possible nested set") when jsonschema checks the schema: no
    Python warning reaches stderr; the arguments are still checked."""
    schema = {"type": "object", "propertyNames": {"pattern": "[[a]"}, "properties": {"n": {"type": "integer"}}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UsageError, match="does not match"):
            validate_arguments({"n": "x"}, schema, "t")


@pytest.mark.parametrize("bomb", [BOMB, CLASS_BOMBS[0]])
def test_a_form_whose_pattern_is_too_large_ends_with_exit_4(mrtr, bomb):
    r = mrtr("--stdio", SERVER, "call", "ask_word", f"pattern={bomb}", "-a", "word=a", "--no-input", timeout=RUN_BOUND)
    assert r.code == 4, (r.code, r.stderr)
    assert "is too large to compile" in r.stderr and "Traceback" not in r.stderr, r.stderr


# ------------------------------------------------------------------ mrtr against the server


@pytest.mark.parametrize("how", ["flag", "file"])
def test_a_form_answer_that_backtracks_ends_with_exit_4(mrtr, tmp_path, how):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"fields": {"word": CATASTROPHIC}}))
    given = ["-a", f"word={CATASTROPHIC}"] if how == "flag" else ["--answers", str(answers)]
    r = mrtr("--stdio", SERVER, "call", "ask_word", f"pattern={SLOW}", *given, "--no-input", timeout=RUN_BOUND)
    assert r.code == 4, (r.code, r.stderr)
    assert 'field "word": the server\'s pattern "^(a|a)*$" took too long to match' in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_a_nested_quantifier_is_matched_at_once(mrtr):
    """The breaker's `(a+)+$`: `regex` finds no match at once, so the answer is refused (exit 2)."""
    r = mrtr("--stdio", SERVER, "call", "ask_word", f"pattern={NESTED}", "-a", f"word={CATASTROPHIC}", "--no-input",
             timeout=RUN_BOUND)
    assert r.code == 2, (r.code, r.stderr)
    assert "does not match '(a+)+$'" in r.stderr, r.stderr
    ok = mrtr("--stdio", SERVER, "call", "ask_word", f"pattern={NESTED}", "-a", "word=aaa", "--no-input",
              timeout=RUN_BOUND)
    assert (ok.code, ok.stdout.strip()) == (0, "got aaa"), ok.stderr


def test_resuming_a_form_whose_pattern_backtracks_ends_with_exit_4(mrtr, tmp_path):
    stopped = mrtr("--stdio", SERVER, "call", "ask_word", f"pattern={SLOW}", "--no-input", timeout=RUN_BOUND)
    assert stopped.code == 5, stopped.stderr
    (tmp_path / "pending.json").write_text(stopped.stdout)
    (tmp_path / "answers.json").write_text(json.dumps({"fields": {"word": CATASTROPHIC}}))
    r = mrtr("resume", str(tmp_path / "pending.json"), "--answers", str(tmp_path / "answers.json"),
             "--no-input", timeout=RUN_BOUND)
    assert r.code == 4, (r.code, r.stderr)
    assert "took too long to match" in r.stderr, r.stderr


def test_tool_arguments_that_backtrack_end_with_exit_4(mrtr):
    r = mrtr("--stdio", SERVER, "call", "checked", f"word={CATASTROPHIC}", timeout=RUN_BOUND)
    assert r.code == 4, (r.code, r.stderr)
    assert 'checked (inputSchema): the server\'s pattern "^(a|a)*$" took too long to match' in r.stderr, r.stderr
    assert "--no-validate" in r.stderr


def test_structured_content_is_not_matched_against_the_output_schema(mrtr):
    """mrtr prints `structuredContent` as sent; the `outputSchema`'s patterns are never matched."""
    r = mrtr("--stdio", SERVER, "call", "checked", f"word={CATASTROPHIC}", "--no-validate", "--json",
             timeout=RUN_BOUND)
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout)["structuredContent"] == {"word": CATASTROPHIC}


# ------------------------------------------ one rule for a pattern that is no regular expression


@pytest.mark.parametrize("pattern", ["(", "[a-", "a{2,1}", "*", r"(?<n>a)\k<m>", "(?i)^a$", r"\Aa\Z", "a*+"])
def test_a_pattern_that_is_no_regular_expression_is_exit_4_in_a_form_and_in_an_input_schema(pattern):
    """The server's schema cannot be used either way (docs/design.md, "Patterns from a
    server"): a form's ends the run, an `inputSchema`'s too, with `call --no-validate` to
    send the arguments unchecked; neither leaves the schema silently unchecked."""
    schema = {"type": "object", "properties": {"w": {"type": "string", "pattern": pattern}}}
    with pytest.raises(ValueError, match="^field \"w\": its pattern is no regular expression"):
        validate_content(schema, {"w": "a"})
    with pytest.raises(ProtocolError) as caught:
        validate_arguments({"w": "a"}, schema, "t")
    assert caught.value.exit_status == 4
    assert caught.value.message.startswith("t (inputSchema): the server's pattern ")
    assert "is no regular expression" in caught.value.message and "--no-validate" in (caught.value.hint or "")
    keyed = {"type": "object", "patternProperties": {pattern: {"type": "integer"}}}
    with pytest.raises(ProtocolError, match="is no regular expression"):
        validate_arguments({"w": "a"}, keyed, "t")


def test_a_tool_whose_pattern_is_no_regular_expression_ends_with_exit_4(mrtr):
    r = mrtr("--stdio", SERVER, "call", "broken", "word=x", timeout=RUN_BOUND)
    assert r.code == 4, (r.code, r.stderr)
    assert 'broken (inputSchema): the server\'s pattern "(unclosed" is no regular expression' in r.stderr, r.stderr
    assert "--no-validate" in r.stderr and "Traceback" not in r.stderr
    sent = mrtr("--stdio", SERVER, "call", "broken", "word=x", "--no-validate", timeout=RUN_BOUND)
    assert (sent.code, sent.stdout.strip()) == (0, '{"word": "x"}'), sent.stderr


def test_a_pattern_in_pythons_syntax_ends_with_exit_4_in_a_tool_and_in_a_form(mrtr):
    """`(?i)` is no ECMA-262 syntax: refused as a pattern that is no regular expression,
    one line naming the pattern (where `regex` read it as Python's case-insensitive flag)."""
    r = mrtr("--stdio", SERVER, "call", "pythonic", "word=ABC", timeout=RUN_BOUND)
    assert r.code == 4, (r.code, r.stderr)
    assert ('mrtr: error: pythonic (inputSchema): the server\'s pattern "(?i)^[a-z]+$" is no regular expression '
            "(an inline flag or Python group at 0: '(?i)^[…' is not ECMA-262)") in r.stderr, r.stderr
    form = mrtr("--stdio", SERVER, "call", "ask_word", r"pattern=\Aword\Z", "-a", "word=word", "--no-input",
                timeout=RUN_BOUND)
    assert form.code == 4, (form.code, form.stderr)
    assert 'field "word": its pattern is no regular expression' in form.stderr, form.stderr
    assert "Traceback" not in r.stderr + form.stderr


def test_a_tools_patterns_are_read_as_ecma_262(mrtr):
    """`^\\d+$` refuses an Arabic-Indic digit and a final newline; `\\k<c>` (which `re`
    refuses, leaving the schema unchecked) is a backreference."""
    for given in (["code=٣"], ["code=12\n"], ["pair=ab"]):
        r = mrtr("--stdio", SERVER, "call", "ecma", *given, timeout=RUN_BOUND)
        assert r.code == 2 and "does not match" in r.stderr, (given, r.code, r.stderr)
    ok = mrtr("--stdio", SERVER, "call", "ecma", "code=12", "pair=aa", timeout=RUN_BOUND)
    assert (ok.code, ok.stdout.strip()) == (0, '{"code": "12", "pair": "aa"}'), ok.stderr


def test_a_form_reads_its_pattern_as_ecma_262(mrtr):
    r = mrtr("--stdio", SERVER, "call", "ask_word", r"pattern=^\d+$", "-a", "word=٣", "--no-input", timeout=RUN_BOUND)
    assert r.code == 2 and "does not match" in r.stderr, (r.code, r.stderr)


def test_a_form_reads_property_names_and_classes_as_ecma_262(mrtr):
    """`\\p{Greek}` (a bare script: ECMA-262 wants `sc=Greek`) is no regular expression (exit 4),
    where `regex` read it loosely; `[^\\p{L}\\P{L}]` matches no character (`regex`: any)."""
    r = mrtr("--stdio", SERVER, "call", "ask_word", r"pattern=^\p{Greek}+$", "-a", "word=αβ", "--no-input",
             timeout=RUN_BOUND)
    assert r.code == 4, (r.code, r.stderr)
    assert "its pattern is no regular expression (a property ECMA-262 does not name at 1" in r.stderr, r.stderr
    none = mrtr("--stdio", SERVER, "call", "ask_word", r"pattern=^[^\p{L}\P{L}]$", "-a", "word=a", "--no-input",
                timeout=RUN_BOUND)
    assert none.code == 2 and "does not match" in none.stderr, (none.code, none.stderr)
    ok = mrtr("--stdio", SERVER, "call", "ask_word", r"pattern=^\p{sc=Greek}+$", "-a", "word=αβ", "--no-input",
              timeout=RUN_BOUND)
    assert (ok.code, ok.stdout.strip()) == (0, "got αβ"), ok.stderr
