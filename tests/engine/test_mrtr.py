"""The MRTR engine's loop, in process (mrtr_cli/engine/mrtr.py).

The server side is a scripted session: it returns the results a test lists, in order, and
records every request the engine sends (method, params, declared capabilities). Answers
come from the real responder chain and answer store (files and `-a` flags), as in a run
with `--no-input`. These are the fast tests mutation testing runs (tests/README.md).
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from mrtr_cli.engine import mrtr as engine_mod
from mrtr_cli.engine.mrtr import AnswerRecorder, EngineOutcome, MrtrEngine, rejected_explanation
from mrtr_cli.engine.resume import Seed
from mrtr_cli.env import Environment
from mrtr_cli.errors import (
    InputRequired,
    Interrupted,
    ProtocolError,
    TimeoutExpired,
    TransportError,
    UsageError,
)
from mrtr_cli.protocol.capabilities.declared import TASKS_EXTENSION
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.requests import origin_of
from mrtr_cli.responders.answers import AnswerFile, AnswerStore, parse_flag
from mrtr_cli.responders.chain import PromptInterrupted, ResponderChain

TARGET = {"transport": "stdio", "command": ["server"]}


def form(*names: str, required: bool = True) -> dict[str, Any]:
    """An elicitation/create form input request with string fields `names`."""
    return {"method": "elicitation/create", "params": {"mode": "form", "message": "m", "requestedSchema": {
        "type": "object", "properties": {n: {"type": "string"} for n in names},
        "required": list(names) if required else []}}}


def accept(**content: Any) -> dict[str, Any]:
    return {"action": "accept", "content": content}


def asking(state: str | None = None, **requests: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"resultType": "input_required"}
    if requests:
        result["inputRequests"] = requests
    if state is not None:
        result["requestState"] = state
    return result


DONE = {"content": [{"type": "text", "text": "done"}]}


class ScriptedSession:
    """Returns `results` in order; `requests` holds (method, params, capabilities) sent."""

    def __init__(self, *results: Any, era: str = "current"):
        self.results = list(results)
        self.requests: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
        self.era = era
        self.augments_tasks = era == "legacy"
        self.server_name = "srv"
        self.protocol_version = "2026-07-28"
        self.deadlines: list[Any] = []
        self.progress: list[Any] = []

    def request(self, method, params, *, capabilities, deadline, on_progress):
        self.requests.append((method, json.loads(json.dumps(params)), capabilities))
        self.deadlines.append(deadline)
        self.progress.append(on_progress)
        result = self.results.pop(0)
        if isinstance(result, BaseException):
            raise result
        return result

    @property
    def params(self) -> list[dict[str, Any]]:
        return [p for _m, p, _c in self.requests]


def chain_of(*, responses: dict[str, Any] | None = None, flags: tuple[str, ...] = (), **kw: Any) -> ResponderChain:
    env = Environment(stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO(), no_input=True)
    files = [AnswerFile("a.json", input_responses=dict(responses))] if responses is not None else []
    return ResponderChain(env, AnswerStore(files, [parse_flag(f) for f in flags]), **kw)


def engine(session: ScriptedSession, chain: ResponderChain | None = None, **kw: Any) -> MrtrEngine:
    return MrtrEngine(session, chain or chain_of(), target=TARGET, **kw)


PARAMS = {"name": "t", "arguments": {"x": 1}}


# ---------------------------------------------------------------- final results
def test_a_complete_result_ends_the_call_after_one_request():
    session = ScriptedSession({"resultType": "complete", "content": []})
    outcome = engine(session).run("tools/call", PARAMS)
    assert outcome.result == {"resultType": "complete", "content": []}
    assert outcome.rounds == 0 and outcome.declined is False and outcome.task is None
    assert session.params == [PARAMS]


def test_an_absent_result_type_is_complete():
    session = ScriptedSession(DONE)
    assert engine(session).run("prompts/get", {"name": "p"}).result is DONE


def test_an_unknown_result_type_is_a_protocol_error_naming_it():
    with pytest.raises(ProtocolError) as caught:
        engine(ScriptedSession({"resultType": "bogus"})).run("tools/call", PARAMS)
    assert caught.value.message == 'the server sent an unrecognised resultType "bogus" for tools/call'
    assert caught.value.data == {"resultType": "bogus"}


def test_the_deadline_and_progress_callback_go_with_every_request():
    deadline = Deadline(60)
    seen = []
    session = ScriptedSession(asking("s1"), DONE)
    engine(session, deadline=deadline, on_progress=seen.append).run("tools/call", PARAMS)
    assert session.deadlines == [deadline, deadline]
    assert session.progress == [seen.append, seen.append]


def test_without_a_deadline_the_requests_get_an_unbounded_one():
    session = ScriptedSession(DONE)
    engine(session).run("tools/call", PARAMS)
    assert session.deadlines[0] is not None
    assert session.deadlines[0].remaining() is None


def test_a_lone_surrogate_in_the_users_text_is_not_sent():
    session = ScriptedSession(DONE)
    with pytest.raises(UsageError) as caught:
        engine(session).run("tools/call", {"name": "t", "arguments": {"x": "a\ud800b"}})
    assert caught.value.message == ("not sent: the text holds a lone surrogate (\\ud800), which is not valid "
                                    "Unicode")
    assert session.requests == []


# ---------------------------------------------------------------- input_required rounds
def test_a_round_is_answered_and_retried_with_the_responses_and_the_exact_request_state():
    session = ScriptedSession(asking("opaque-1", q=form("name")), DONE)
    outcome = engine(session, chain_of(flags=("name=Ada",))).run("tools/call", PARAMS)
    assert outcome.rounds == 1 and outcome.result is DONE and outcome.declined is False
    first, retry = session.params
    assert first == PARAMS
    assert retry == {**PARAMS, "inputResponses": {"q": accept(name="Ada")}, "requestState": "opaque-1"}
    assert [m for m, _p, _c in session.requests] == ["tools/call", "tools/call"]


def test_a_round_without_request_state_sends_none():
    session = ScriptedSession(asking(q=form("name")), DONE)
    engine(session, chain_of(flags=("name=Ada",))).run("prompts/get", {"name": "p"})
    assert session.params[1] == {"name": "p", "inputResponses": {"q": accept(name="Ada")}}


def test_the_callers_params_are_not_changed_by_the_rounds():
    params = {"name": "t", "arguments": {}}
    session = ScriptedSession(asking("s", q=form("name")), DONE)
    engine(session, chain_of(flags=("name=Ada",))).run("tools/call", params)
    assert params == {"name": "t", "arguments": {}}


def test_the_round_cap_allows_exactly_max_rounds_rounds():
    answers = {"q": [accept(name=str(i)) for i in range(5)]}
    session = ScriptedSession(asking("s", q=form("name")), asking("s", q=form("name")), DONE)
    outcome = engine(session, chain_of(responses=answers), max_rounds=2).run("tools/call", PARAMS)
    assert outcome.rounds == 2
    assert len(session.requests) == 3


def test_the_round_cap_stops_the_round_after_max_rounds():
    answers = {"q": [accept(name=str(i)) for i in range(9)]}
    session = ScriptedSession(*[asking("s", q=form("name"))] * 4, DONE)
    with pytest.raises(ProtocolError) as caught:
        engine(session, chain_of(responses=answers), max_rounds=3).run("tools/call", PARAMS)
    assert caught.value.message == "the server still asks for input after 3 rounds (--max-rounds 3)"
    assert caught.value.hint == "raise --max-rounds if the server really needs more rounds"
    assert len(session.requests) == 4


def test_the_default_round_cap_is_ten():
    answers = {"q": [accept(name=str(i)) for i in range(12)]}
    session = ScriptedSession(*[asking("s", q=form("name"))] * 11, DONE)
    with pytest.raises(ProtocolError):
        engine(session, chain_of(responses=answers)).run("tools/call", PARAMS)
    assert len(session.requests) == 11


def test_a_non_string_request_state_is_a_protocol_error():
    for state in (7, {"s": 1}, ["s"], True):
        session = ScriptedSession({"resultType": "input_required", "inputRequests": {"q": form("name")},
                                   "requestState": state}, DONE)
        with pytest.raises(ProtocolError) as caught:
            engine(session, chain_of(flags=("name=Ada",))).run("tools/call", PARAMS)
        assert caught.value.message == "the server's requestState is not a string"
        assert len(session.requests) == 1


def test_input_required_with_neither_requests_nor_state_is_a_protocol_error():
    with pytest.raises(ProtocolError) as caught:
        engine(ScriptedSession({"resultType": "input_required"})).run("tools/call", PARAMS)
    assert caught.value.message == "the server's input_required result has neither inputRequests nor requestState"


def test_input_requests_alone_are_enough():
    session = ScriptedSession({"resultType": "input_required", "inputRequests": {"q": form("name")}}, DONE)
    assert engine(session, chain_of(flags=("name=Ada",))).run("tools/call", PARAMS).rounds == 1


def test_a_request_state_alone_is_retried_at_once_backing_off(monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(engine_mod.time, "sleep", slept.append)
    session = ScriptedSession(*[asking(f"s{i}") for i in range(8)], DONE)
    outcome = engine(session, max_rounds=20).run("tools/call", PARAMS)
    assert outcome.rounds == 8
    assert slept == [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0]
    for i, retry in enumerate(session.params[1:]):
        assert retry == {**PARAMS, "requestState": f"s{i}"}


def test_answered_round_resets_the_back_off(monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(engine_mod.time, "sleep", slept.append)
    session = ScriptedSession(asking("a"), asking("b"), asking("c", q=form("name")), asking("d"), DONE)
    engine(session, chain_of(flags=("name=Ada",))).run("tools/call", PARAMS)
    assert slept == [0.05, 0.1, 0.05]


def test_a_back_off_is_cut_to_what_the_deadline_leaves(monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(engine_mod.time, "sleep", slept.append)

    class Nearly(Deadline):
        def remaining(self):
            return 0.01

    engine(ScriptedSession(asking("a"), DONE), deadline=Nearly(1)).run("tools/call", PARAMS)
    assert slept == [0.01]


def test_a_back_off_past_the_deadline_times_out(monkeypatch):
    monkeypatch.setattr(engine_mod.time, "sleep", lambda s: pytest.fail("slept"))

    class Over(Deadline):
        def remaining(self):
            return 0.0

    session = ScriptedSession(asking("a"), DONE)
    with pytest.raises(TimeoutExpired) as caught:
        engine(session, deadline=Over(5)).run("tools/call", PARAMS)
    assert caught.value.message.startswith("timed out")
    assert caught.value.message == "timed out" + Over(5).describe()
    assert len(session.requests) == 1


def test_a_declined_answer_marks_the_outcome_declined():
    session = ScriptedSession(asking(q=form("name")), DONE)
    outcome = engine(session, chain_of(responses={"q": {"action": "decline"}})).run("tools/call", PARAMS)
    assert outcome.declined is True
    session = ScriptedSession(asking(q=form("name")), DONE)
    outcome = engine(session, chain_of(responses={"q": {"action": "cancel"}})).run("tools/call", PARAMS)
    assert outcome.declined is True


def test_the_recorder_and_the_sent_answers_hold_what_was_sent():
    recorder = AnswerRecorder()
    session = ScriptedSession(asking(q=form("name")), asking(q=form("name")), DONE)
    eng = engine(session, chain_of(responses={"q": [accept(name="a"), accept(name="b")]}), recorder=recorder)
    eng.run("tools/call", PARAMS)
    assert recorder.document() == {"inputResponses": {"q": [accept(name="a"), accept(name="b")]}}
    assert eng.sent.document() == recorder.document()


def test_a_resumed_call_sends_the_gathered_answers_with_the_new_ones_then_only_new_ones():
    """`mrtr resume` from a round answered in part: the round's earlier answers go with the
    retry of that round, and never into the next round's retry."""
    seed = Seed({"a": form("x"), "b": form("y")}, "st-1", answered={"a": accept(x="X")},
                sent={"old": accept(w="W")})
    session = ScriptedSession(asking("st-2", c=form("z")), DONE)
    eng = engine(session, chain_of(flags=("y=Y", "z=Z")))
    outcome = eng.run("tools/call", PARAMS, seed=seed)
    assert outcome.rounds == 2
    first, second = session.params
    assert first["inputResponses"] == {"a": accept(x="X"), "b": accept(y="Y")}
    assert first["requestState"] == "st-1"
    assert second["inputResponses"] == {"c": accept(z="Z")}
    assert second["requestState"] == "st-2"
    assert eng.sent.document() == {"inputResponses": {"old": accept(w="W"), "a": accept(x="X"),
                                                      "b": accept(y="Y"), "c": accept(z="Z")}}


def test_a_resumed_call_does_not_ask_again_for_answered_keys():
    seed = Seed({"a": form("x"), "b": form("y")}, "st-1", answered={"a": accept(x="X")})
    session = ScriptedSession(DONE)
    engine(session, chain_of(flags=("y=Y",))).run("tools/call", PARAMS, seed=seed)
    assert session.params[0]["inputResponses"] == {"a": accept(x="X"), "b": accept(y="Y")}


# ---------------------------------------------------------------- nobody can answer
def test_missing_answers_raise_input_required_with_a_pending_document():
    session = ScriptedSession(asking("st", a=form("x"), b=form("y")))
    eng = engine(session, chain_of(flags=("x=X",)))
    with pytest.raises(InputRequired) as caught:
        eng.run("tools/call", PARAMS)
    exc = caught.value
    assert exc.message == "input required for b (--no-input was given); the pending document is on stdout"
    doc = exc.pending
    assert (doc["method"], doc["params"], doc["target"]) == ("tools/call", PARAMS, TARGET)
    assert doc["protocolVersion"] == "2026-07-28"
    assert doc["requestState"] == "st"
    assert doc["missing"] == ["b"]
    assert doc["answered"] == {"a": accept(x="X")}
    assert doc["inputRequests"] == {"a": form("x"), "b": form("y")}
    assert "sentResponses" not in doc and "rejected" not in doc


def test_a_pending_document_carries_the_answers_sent_in_earlier_rounds():
    session = ScriptedSession(asking("st", a=form("x")), asking("st2", b=form("y")))
    with pytest.raises(InputRequired) as caught:
        engine(session, chain_of(responses={"a": accept(x="X")})).run("tools/call", PARAMS)
    assert caught.value.pending["sentResponses"] == {"a": accept(x="X")}


def test_why_nobody_answered_names_the_reason(monkeypatch):
    monkeypatch.delenv("MRTR_NO_INPUT", raising=False)
    env = Environment(stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO())
    session = ScriptedSession(asking(a=form("x")))
    with pytest.raises(InputRequired) as caught:
        engine(session, ResponderChain(env, AnswerStore())).run("tools/call", PARAMS)
    assert caught.value.message == "input required for a (no terminal to ask); the pending document is on stdout"


def test_an_answer_given_once_and_asked_again_is_explained():
    session = ScriptedSession(asking(a=form("x")), {"resultType": "input_required", "inputRequests": {
        "a": {"method": "elicitation/create", "params": {**form("x")["params"], "message": "too short"}}}})
    eng = engine(session, chain_of(flags=("x=X",)))
    with pytest.raises(InputRequired) as caught:
        eng.run("tools/call", PARAMS)
    doc = caught.value.pending
    assert doc["rejected"] == {"a": {"source": "-a x=X", "message": "too short"}}
    assert doc["explanation"] == rejected_explanation(doc["rejected"])
    assert caught.value.message == (f"{doc['explanation']} (--no-input was given); the pending document is on "
                                    "stdout")
    assert eng.given_once["a"][0] == "-a x=X"


def test_rejected_explanation_reads_as_one_sentence():
    assert rejected_explanation({"k": {"source": "-a x=1", "message": "no"}}) == (
        'the server asked for "k" again after the answer from -a x=1 was sent, saying: no; '
        "an answer given once is used once: give another")
    assert rejected_explanation({"k": {"source": "f.json", "message": ""}, "j": {"source": "s"}}) == (
        'the server asked for "k" again after the answer from f.json was sent (it gave no message); '
        'the server asked for "j" again after the answer from s was sent (it gave no message); '
        "an answer given once is used once: give another")


# ---------------------------------------------------------------- interruptions and failures
class InterruptingChain(ResponderChain):
    def __init__(self, exc: BaseException, **kw: Any):
        env = Environment(stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO(), no_input=True)
        super().__init__(env, AnswerStore(), **kw)
        self.exc = exc

    def answer_round(self, *args: Any, **kw: Any):
        raise self.exc


def test_ctrl_c_at_a_prompt_saves_what_was_typed_and_says_how_to_resume(tmp_path, monkeypatch):
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path))
    seed = Seed({"a": form("x"), "b": form("y"), "c": form("z")}, "st", answered={"a": accept(x="X")})
    chain = InterruptingChain(PromptInterrupted({"b": accept(y="Y")}, {"c": {"z": "half"}}))
    with pytest.raises(Interrupted) as caught:
        engine(ScriptedSession(), chain).run("tools/call", PARAMS, seed=seed)
    exc = caught.value
    assert exc.message == "interrupted while answering the server's questions"
    (saved,) = list((tmp_path / "pending").iterdir())
    assert exc.hint == (f"the call can be finished later: mrtr resume {saved} (it asks again at a terminal, "
                        "the fields typed so far filled in; in a script add --answers FILE)")
    doc = json.loads(saved.read_text())
    assert doc["requestState"] == "st"
    assert doc["missing"] == ["c"]
    assert doc["answered"] == {"a": accept(x="X"), "b": accept(y="Y")}
    assert doc["answersTemplate"]["inputResponses"]["c"]["content"] == {"z": "half"}
    assert exc.__cause__ is None and exc.__suppress_context__ is True


@pytest.mark.parametrize("shell", [False, True], ids=["command-line", "shell"])
def test_ctrl_c_at_a_url_question_promises_no_fields(tmp_path, monkeypatch, shell):
    # A URL-mode request has no fields: the hint says it asks again, not that fields typed
    # so far are filled in.
    from mrtr_cli.render.invocation import in_shell

    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path))
    url = {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://example.com/x",
                                                       "elicitationId": "e"}}
    seed = Seed({"u": url}, "st")
    with pytest.raises(Interrupted) as caught:
        if shell:
            with in_shell():
                engine(ScriptedSession(), InterruptingChain(PromptInterrupted({}))).run("tools/call", PARAMS, seed=seed)
        else:
            engine(ScriptedSession(), InterruptingChain(PromptInterrupted({}))).run("tools/call", PARAMS, seed=seed)
    hint = caught.value.hint or ""
    assert "it asks again" in hint and "fields" not in hint, hint


def test_ctrl_c_without_a_state_dir_has_no_resume_hint(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("MRTR_STATE_DIR", str(blocker))
    with pytest.raises(Interrupted) as caught:
        engine(ScriptedSession(asking(a=form("x"))), InterruptingChain(KeyboardInterrupt())).run("tools/call", PARAMS)
    assert caught.value.hint is None


class PersonChain(ResponderChain):
    """A chain a person answers (interactive), with the answers given here."""

    def __init__(self, answers: dict[str, Any]):
        env = Environment(stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO(), no_input=True)
        super().__init__(env, AnswerStore([AnswerFile("a.json", input_responses=answers)]))

    @property
    def interactive(self) -> bool:
        return True


@pytest.mark.parametrize("failure_type", [TransportError, TimeoutExpired])
def test_typed_answers_are_kept_when_their_retry_fails(tmp_path, monkeypatch, failure_type):
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path))
    failure = failure_type("the server went away")
    session = ScriptedSession(asking("st", a=form("x")), failure)
    with pytest.raises(type(failure)) as caught:
        engine(session, PersonChain({"a": accept(x="typed")})).run("tools/call", PARAMS)
    (saved,) = list((tmp_path / "pending").iterdir())
    assert caught.value.hint == f"your answers are kept: mrtr resume {saved}"
    doc = json.loads(saved.read_text())
    assert doc["answered"] == {"a": accept(x="typed")}
    assert doc["missing"] == [] and doc["requestState"] == "st"


def test_kept_answers_add_to_an_existing_hint_and_say_the_url_was_not_saved(tmp_path, monkeypatch):
    from mrtr_cli.credentials import REDACTED

    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path))
    session = ScriptedSession(asking(a=form("x")), TransportError("gone", hint="check the server"))
    eng = MrtrEngine(session, PersonChain({"a": accept(x="typed")}),
                     target={"transport": "http", "url": f"https://{REDACTED}@h.example/mcp"})
    with pytest.raises(TransportError) as caught:
        eng.run("tools/call", PARAMS)
    (saved,) = list((tmp_path / "pending").iterdir())
    assert caught.value.hint == ("check the server\nyour answers are kept: set MRTR_URL to the server's URL with "
                                 f"its credentials (shown here as https://{REDACTED}@h.example/mcp), then: "
                                 f"mrtr resume {saved}")


def test_a_failed_retry_keeps_nothing_when_no_person_answered(tmp_path, monkeypatch):
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path))
    session = ScriptedSession(asking(a=form("x")), TransportError("gone"))
    with pytest.raises(TransportError) as caught:
        engine(session, chain_of(flags=("x=X",))).run("tools/call", PARAMS)
    assert caught.value.hint is None
    assert not (tmp_path / "pending").exists()


def test_a_failed_state_only_retry_keeps_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path))
    monkeypatch.setattr(engine_mod.time, "sleep", lambda s: None)
    with pytest.raises(TransportError):
        engine(ScriptedSession(asking("s"), TransportError("gone")), PersonChain({})).run("tools/call", PARAMS)
    assert not (tmp_path / "pending").exists()


# ---------------------------------------------------------------- tasks
def test_a_task_result_goes_to_the_task_driver_with_the_declared_capabilities():
    got = []

    def on_task(result, caps):
        got.append((result, caps))
        return EngineOutcome(result={"done": True}, rounds=1)

    task = {"resultType": "task", "task": {"taskId": "t1"}}
    session = ScriptedSession(asking(a=form("x")), task)
    outcome = engine(session, chain_of(responses={"a": {"action": "decline"}}), on_task=on_task).run(
        "tools/call", PARAMS)
    assert outcome.result == {"done": True}
    assert outcome.rounds == 2 and outcome.declined is True
    (result, caps), = got
    assert result is task and caps["extensions"] == {TASKS_EXTENSION: {}}
    assert all(c["extensions"] == {TASKS_EXTENSION: {}} for _m, _p, c in session.requests)
    assert len(session.requests) == 2


def test_the_task_extension_is_declared_only_on_tools_call_with_a_task_driver():
    eng = engine(ScriptedSession(), on_task=lambda r, c: EngineOutcome(result=r))
    assert TASKS_EXTENSION in eng.capabilities("tools/call")["extensions"]
    assert "extensions" not in eng.capabilities("prompts/get")
    assert "extensions" not in engine(ScriptedSession()).capabilities("tools/call")
    assert engine(ScriptedSession()).capabilities("tools/call") == chain_of().capabilities()


@pytest.mark.parametrize("method", ["tools/call", "prompts/get"])
def test_a_task_result_without_a_task_driver_is_invalid(method):
    with pytest.raises(ProtocolError) as caught:
        engine(ScriptedSession({"resultType": "task"})).run(method, PARAMS)
    assert caught.value.message == (f"the server answered {method} with a task, but this request did not "
                                    "declare the tasks extension")


def test_a_task_result_for_prompts_is_invalid_even_with_a_task_driver():
    eng = engine(ScriptedSession({"resultType": "task"}), on_task=lambda r, c: pytest.fail("driven"))
    with pytest.raises(ProtocolError):
        eng.run("prompts/get", {"name": "p"})


def test_a_task_result_on_a_request_without_the_extension_is_invalid():
    class NoExtension(MrtrEngine):
        def capabilities(self, method):
            return {"elicitation": {"form": {}}}

    eng = NoExtension(ScriptedSession({"resultType": "task"}), chain_of(), target=TARGET,
                      on_task=lambda r, c: pytest.fail("driven"))
    with pytest.raises(ProtocolError):
        eng.run("tools/call", PARAMS)


def test_a_legacy_create_task_result_goes_to_the_task_driver():
    created = {"task": {"taskId": "t1", "status": "working", "createdAt": "2025-11-25T00:00:00Z", "ttl": 1000}}
    got = []
    session = ScriptedSession(created, era="legacy")
    outcome = engine(session, on_task=lambda r, c: got.append(r) or EngineOutcome(result={"ok": 1})).run(
        "tools/call", PARAMS)
    assert got == [created] and outcome.result == {"ok": 1}


@pytest.mark.parametrize("era, method", [("current", "tools/call"), ("legacy", "prompts/get")])
def test_a_task_member_elsewhere_is_a_plain_result(era, method):
    created = {"task": {"taskId": "t1", "status": "working", "createdAt": "2025-11-25T00:00:00Z", "ttl": 1000}}
    outcome = engine(ScriptedSession(created, era=era), on_task=lambda r, c: pytest.fail("driven")).run(method, PARAMS)
    assert outcome.result is created


def test_a_legacy_result_with_a_task_member_of_another_shape_is_a_plain_result():
    result = {"content": [], "task": "not a task"}
    outcome = engine(ScriptedSession(result, era="legacy"), on_task=lambda r, c: pytest.fail("driven")).run(
        "tools/call", PARAMS)
    assert outcome.result is result


# ---------------------------------------------------------------- small parts
def test_origin_names_the_tool_prompt_or_resource():
    assert origin_of("tools/call", {"name": "update"}) == "tools/call update"
    assert origin_of("resources/read", {"uri": "file:///a", "name": "x"}) == "resources/read file:///a"
    assert origin_of("prompts/get", {}) == "prompts/get"
    assert origin_of("resources/read", {"name": "x"}) == "resources/read"


def test_the_recorder_saves_a_key_of_several_rounds_as_a_list_and_task_keys_in_order():
    rec = AnswerRecorder()
    rec.record({"k": 1, "t9:abc": "first"}, task_id="t9")
    rec.record({"k": 2, "t9:def": "second"}, task_id="t9")
    rec.record({"j": 3, "t9:x": 4})
    assert rec.document() == {"inputResponses": {"k": [1, 2], "j": 3, "t9:x": 4}, "inOrder": ["first", "second"]}
    assert AnswerRecorder().document() == {"inputResponses": {}}


def test_the_recorder_is_seeded_from_a_pending_documents_sent_responses():
    rec = AnswerRecorder()
    rec.seed({"k": [1, 2], 5: "x"})
    rec.seed(None)
    rec.seed(["not", "a", "dict"])
    rec.record({"k": 3})
    assert rec.responses == {"k": [1, 2, 3], "5": ["x"]}


def test_the_default_outcome():
    outcome = EngineOutcome(result={})
    assert (outcome.rounds, outcome.declined, outcome.task, outcome.extra) == (0, False, None, {})


# ---------------------------------------------------------------- what the chain is given and gives
class SpyChain(ResponderChain):
    """The real chain, recording how each round is asked; `outcomes` (when given) replace
    what it answers, round by round, and `interactive_` says whether a person is there."""

    def __init__(self, *outcomes: Any, flags: tuple[str, ...] = (), interactive_: bool = False):
        env = Environment(stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO(), no_input=True)
        super().__init__(env, AnswerStore([], [parse_flag(f) for f in flags]))
        self.outcomes = list(outcomes)
        self.asked: list[tuple[Any, dict[str, Any]]] = []
        self.interactive_ = interactive_

    @property
    def interactive(self) -> bool:
        return self.interactive_

    def answer_round(self, input_requests, **kw):
        self.asked.append((input_requests, kw))
        if self.outcomes:
            return self.outcomes.pop(0)
        return super().answer_round(input_requests, **kw)


def test_each_round_is_asked_with_the_server_origin_and_declared_capabilities():
    from mrtr_cli.responders.chain import RoundOutcome

    chain = SpyChain(flags=("x=X",))
    eng = engine(ScriptedSession(asking(a=form("x")), DONE), chain)
    eng.run("resources/read", {"uri": "file:///r"})
    ((requests, kw),) = chain.asked
    assert requests == {"a": form("x")}
    assert kw == {"server_name": "srv", "origin": "resources/read file:///r", "capabilities": chain.capabilities(),
                  "given_once": eng.given_once}
    assert RoundOutcome().responses == {}


def test_a_sampling_request_is_refused_when_sampling_was_not_declared():
    ask = {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}
    sampled = {"role": "assistant", "model": "m", "content": {"type": "text", "text": "hi"}}
    with pytest.raises(ProtocolError):
        engine(ScriptedSession(asking(s=ask), DONE), chain_of()).run("tools/call", PARAMS)
    session = ScriptedSession(asking(s=ask), DONE)
    engine(session, chain_of(responses={"s": sampled})).run("tools/call", PARAMS)
    assert session.params[1]["inputResponses"] == {"s": sampled}
    assert "sampling" in session.requests[0][2]


def test_input_requests_that_are_not_a_map_are_a_protocol_error():
    with pytest.raises(ProtocolError):
        engine(ScriptedSession(asking(a=form("x")) | {"inputRequests": [form("x")]}), chain_of()).run(
            "tools/call", PARAMS)


def test_a_decline_given_during_the_call_counts_even_outside_the_retry():
    chain = chain_of()
    chain.declined = True  # e.g. an older server's own elicitation request, declined
    assert engine(ScriptedSession(DONE), chain).run("tools/call", PARAMS).declined is True


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_declined_response_in_a_round_counts(action):
    from mrtr_cli.responders.chain import RoundOutcome

    chain = SpyChain(RoundOutcome(responses={"a": {"action": action}}))
    outcome = engine(ScriptedSession(asking(a=form("x")), DONE), chain).run("tools/call", PARAMS)
    assert chain.declined is False and outcome.declined is True


def test_a_task_result_with_the_extension_but_no_task_driver_is_invalid():
    class Declared(MrtrEngine):
        def capabilities(self, method):
            return {"extensions": {TASKS_EXTENSION: {}}}

    with pytest.raises(ProtocolError):
        Declared(ScriptedSession({"resultType": "task"}), chain_of(), target=TARGET).run("tools/call", PARAMS)


def test_the_missing_keys_are_listed_and_partial_form_values_kept_in_the_template():
    two = {"method": "elicitation/create", "params": {"mode": "form", "message": "m", "requestedSchema": {
        "type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "string"}}, "required": ["x", "y"]}}}
    session = ScriptedSession(asking(a=two, b=form("z"), c=form("w")))
    with pytest.raises(InputRequired) as caught:
        engine(session, chain_of(flags=("x=X", "w=W"))).run("tools/call", PARAMS)
    assert caught.value.message == "input required for a, b (--no-input was given); the pending document is on stdout"
    assert caught.value.pending["answersTemplate"]["inputResponses"]["a"]["content"]["x"] == "X"


def test_when_a_person_gave_no_answer_the_message_says_so():
    from mrtr_cli.responders.chain import RoundOutcome

    chain = SpyChain(RoundOutcome(missing=["a"]), interactive_=True)
    chain.env.no_input = False
    with pytest.raises(InputRequired) as caught:
        engine(ScriptedSession(asking(a=form("x"))), chain).run("tools/call", PARAMS)
    assert caught.value.message == "input required for a (no answer was given); the pending document is on stdout"


def test_the_kept_and_interrupted_documents_name_the_call(tmp_path, monkeypatch):
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path / "1"))
    session = ScriptedSession(asking("st", a=form("x")), TransportError("gone"))
    with pytest.raises(TransportError):
        engine(session, PersonChain({"a": accept(x="typed")})).run("prompts/get", {"name": "p"})
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path / "2"))
    with pytest.raises(Interrupted):
        engine(ScriptedSession(asking(b=form("y"))), InterruptingChain(KeyboardInterrupt())).run(
            "resources/read", {"uri": "file:///r"})
    docs = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("*/pending/*.json"))]
    assert [(d["method"], d["params"], d["inputRequests"]) for d in docs] == [
        ("prompts/get", {"name": "p"}, {"a": form("x")}),
        ("resources/read", {"uri": "file:///r"}, {"b": form("y")})]


def test_documents_saved_in_the_same_second_do_not_overwrite_each_other(tmp_path, monkeypatch):
    """Several calls of one run (batch lines) may keep typed answers in the same second."""
    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path))
    for n in range(3):
        session = ScriptedSession(asking(a=form("x")), TransportError("gone"))
        with pytest.raises(TransportError):
            engine(session, PersonChain({"a": accept(x=f"typed-{n}")})).run("tools/call", PARAMS)
    kept = sorted(json.loads(p.read_text())["answered"]["a"]["content"]["x"]
                  for p in (tmp_path / "pending").iterdir())
    assert kept == ["typed-0", "typed-1", "typed-2"]
