"""A secret tool argument (`writeOnly` in the tool's `inputSchema`, or a name that says
secret) never reaches a pending document: it is left out of `params.arguments` and named in
`withheld.arguments`, stderr says so, and the printed commands do not carry it. `mrtr resume`
takes it again from `-a NAME=VALUE`, an answer file's `fields`, or the terminal (masked);
with nobody to ask it stops with exit 5 naming it (docs/answers.md, "Secrets").

The test server's `vault {card, cvv}` (tests/servers/forms_server.py): `cvv` is a
`writeOnly` integer; the tool asks "unlock" (`pin`) and says whether the cvv (123) and the
pin (246813) were right.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from tests.conftest import SERVERS, Target, stdio_cmd
from tests.engine.test_resume import calls

CVV, PIN = "123", "246813"
RIGHT = "cvv ok, pin ok"
#: A value that shows up nowhere else (the cvv 123 is also a part of longer numbers).
SECRET_NAMED = "s3cr3t-Value-9"


def _pending(mrtr, forms: Target, tmp_path: Path, *args: str) -> tuple[dict, str, Path]:
    r = mrtr(*forms.args, "-v", "call", "vault", "card=visa", f"cvv={CVV}", *args, "--no-input")
    assert r.code == 5, r.stderr
    path = tmp_path / "pending.json"
    path.write_text(r.stdout)
    return r.json(), r.stderr, path


def test_a_secret_argument_is_withheld_from_the_pending_document(mrtr, forms: Target, tmp_path):
    doc, stderr, _ = _pending(mrtr, forms, tmp_path)
    assert doc["params"] == {"name": "vault", "arguments": {"card": "visa"}}, doc
    assert doc["withheld"]["arguments"] == ["cvv"] and "mrtr resume" in doc["withheld"]["_help"], doc
    assert ("tool argument cvv is a secret: not written to the pending document; give it again on resume"
            in stderr), stderr
    # The commands printed for the next step (-v) leave it out too, and say how to give it.
    assert '"cvv"' not in stderr.split("-> ")[-1].split("\n", 1)[1], stderr
    assert "the secret arguments not in the document (cvv)" in stderr, stderr


@pytest.mark.parametrize("how", ["flag", "json flag", "answer file"])
def test_resume_takes_a_withheld_argument_as_call_does(mrtr, forms: Target, tmp_path, how):
    _, _, path = _pending(mrtr, forms, tmp_path)
    forms.reset()
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"fields": {"cvv": int(CVV)}}))
    given = {"flag": ["-a", f"cvv={CVV}"], "json flag": ["-a", f"cvv:={CVV}"],
             "answer file": ["--answers", str(answers)]}[how]
    r = mrtr("resume", path, *given, "-a", f"pin={PIN}", "--no-input")
    assert (r.code, r.stdout.strip()) == (0, RIGHT), r.stderr
    assert calls(forms)[0]["arguments"] == {"card": "visa", "cvv": int(CVV)}
    assert "was not used" not in r.stderr, r.stderr


def test_resume_without_the_withheld_argument_and_nobody_to_ask_exits_5_naming_it(mrtr, forms: Target, tmp_path):
    doc, _, path = _pending(mrtr, forms, tmp_path)
    forms.reset()
    r = mrtr("resume", path, "-a", f"pin={PIN}", "--no-input")
    assert r.code == 5, r.stderr
    assert "the secret argument cvv of this call is not in the pending document: give it again" in r.stderr, r.stderr
    assert "-a cvv=VALUE" in r.stderr, r.stderr
    again = r.json()
    assert again["params"] == doc["params"] and again["withheld"] == doc["withheld"], again
    assert calls(forms) == []  # nothing was sent without it


def test_a_resume_that_stops_again_withholds_the_argument_again(mrtr, forms: Target, tmp_path):
    _, _, path = _pending(mrtr, forms, tmp_path)
    r = mrtr("resume", path, "-a", f"cvv={CVV}", "--no-input")
    assert r.code == 5, r.stderr
    again = r.json()
    assert again["params"]["arguments"] == {"card": "visa"} and again["withheld"]["arguments"] == ["cvv"], again
    second = tmp_path / "second.json"
    second.write_text(r.stdout)
    r = mrtr("resume", second, "-a", f"cvv={CVV}", "-a", f"pin={PIN}", "--no-input")
    assert (r.code, r.stdout.strip()) == (0, RIGHT), r.stderr


@pytest.mark.parametrize("mutate", [
    lambda doc: doc.update(withheld=["cvv"]),
    lambda doc: doc["withheld"].update(arguments="cvv"),
    lambda doc: doc["params"]["arguments"].update(cvv=1),
])
def test_a_malformed_withheld_member_is_a_usage_error(mrtr, forms: Target, tmp_path, mutate):
    doc, _, path = _pending(mrtr, forms, tmp_path)
    mutate(doc)
    path.write_text(json.dumps(doc))
    r = mrtr("resume", path, "-a", f"cvv={CVV}", "-a", f"pin={PIN}", "--no-input")
    assert r.code == 2 and "withheld" in r.stderr, r.stderr


def test_a_secret_argument_by_its_name_is_withheld_from_a_legacy_document(mrtr, tmp_path):
    """A 2025-06-18 server asks during the call: its document (`resumable: false`) leaves out
    an argument that is a secret by its name (the tool's schema does not list it), and the
    command printed to start the call again does not carry it."""
    r = mrtr("--stdio", stdio_cmd(SERVERS / "legacy_server.py"), "-v", "call", "book_table", "date=2026-01-01",
             f"api_key={SECRET_NAMED}", "--no-input")
    assert r.code == 5, r.stderr
    doc = r.json()
    assert doc["resumable"] is False and doc["withheld"]["arguments"] == ["api_key"], doc
    assert doc["params"]["arguments"] == {"date": "2026-01-01"}, doc
    assert SECRET_NAMED not in r.stdout and SECRET_NAMED not in r.stderr, r.stderr


def test_a_secret_prompt_argument_by_its_name_is_withheld():
    """A prompt's arguments have no schema: one whose name says secret is left out."""
    from mrtr_cli.engine.pending import build_pending

    notes: list[str] = []
    doc = build_pending(target={"url": "http://x.example/mcp"}, protocol_version="2026-07-28",
                        method="prompts/get", params={"name": "p", "arguments": {"topic": "t", "apiToken": "v"}},
                        input_requests={}, request_state=None, missing=[], note=notes.append)
    assert doc["params"] == {"name": "p", "arguments": {"topic": "t"}}
    assert doc["withheld"]["arguments"] == ["apiToken"]
    assert notes == ["mrtr: prompt argument apiToken is a secret: not written to the pending document; give it "
                     "again on resume (-a apiToken=VALUE, or typed at the terminal)"]


@pytest.mark.pty
def test_resume_at_a_terminal_asks_for_the_withheld_argument_masked(mrtr, forms: Target, tmp_path):
    from tests.responders.test_forms_elicitation_pty import ENTER, Session

    _, _, path = _pending(mrtr, forms, tmp_path)
    s = Session(tmp_path, "resume", path, "-a", f"pin={PIN}")
    s.answer("cvv (secret argument of vault)", CVV + ENTER)
    assert s.finish() == 0, s.screen
    assert s.stdout.strip() == RIGHT
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", s.screen.split("secret argument of vault", 1)[1])
    assert CVV not in shown and "***" in shown, shown


def test_the_shell_prints_a_document_without_it_and_its_resume_takes_it_again(mrtr, forms: Target):
    r = mrtr(*forms.args, "shell", input=f"call vault card=visa cvv={CVV}\nresume -a pin={PIN}\n"
                                         f"resume -a cvv={CVV} -a pin={PIN}\n")
    assert r.code == 5, r.stderr
    first, second, result = r.stdout.splitlines()
    for line in (first, second):
        doc = json.loads(line)
        assert doc["params"]["arguments"] == {"card": "visa"} and doc["withheld"]["arguments"] == ["cvv"], doc
    assert result == RIGHT, r.stderr
    assert "the secret arguments not in the document (cvv)" in r.stderr, r.stderr
    assert "the secret argument cvv of this call is not in the pending document" in r.stderr, r.stderr


def test_a_tasks_document_withholds_a_secret_argument(mrtr, tmp_path):
    """A task that asks for input (tests/servers/task_server.py `ask_once`): its document
    leaves out an argument that is a secret by its name, and so does the state it keeps."""
    state = tmp_path / "state"
    r = mrtr("--stdio", stdio_cmd(SERVERS / "task_server.py"), "call", "ask_once", f"api_key={SECRET_NAMED}",
             "--no-validate", "--no-input", env={"MRTR_STATE_DIR": str(state)})
    assert r.code == 5, r.stderr
    doc = r.json()
    assert doc["taskId"] and doc["params"] == {"name": "ask_once", "arguments": {}}, doc
    assert doc["withheld"]["arguments"] == ["api_key"], doc
    assert SECRET_NAMED not in r.stdout + r.stderr, r.stderr
    assert not [p for p in state.rglob("*") if p.is_file() and SECRET_NAMED in p.read_text(errors="replace")]


def test_a_batch_lines_pending_document_withholds_a_secret_argument(mrtr, forms: Target, tmp_path):
    batch = tmp_path / "batch.jsonl"
    batch.write_text(json.dumps({"id": "v", "call": "vault", "arguments": {"card": "visa", "cvv": 987654}}) + "\n")
    r = mrtr(*forms.args, "batch", str(batch), cwd=tmp_path)
    assert r.code == 5, r.stderr
    record = json.loads(r.stdout)
    assert record["exitCode"] == 5 and record["pending"]["params"]["arguments"] == {"card": "visa"}, record
    assert record["pending"]["withheld"]["arguments"] == ["cvv"], record
    assert "987654" not in r.stdout + r.stderr, r.stderr


NESTED_SERVER = '''
import json, sys
SCHEMA = {"type": "object", "properties": {"obj": {"type": "object", "properties": {
    "inner": {"type": "string", "writeOnly": True}}}, "note": {"type": "object"}}}
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    p = m.get("params") or {}
    if m["method"] == "server/discover":
        r = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "public"}
    elif m["method"] == "tools/list":
        r = {"tools": [{"name": "wo", "inputSchema": SCHEMA}], "ttlMs": 0, "cacheScope": "public"}
    elif "inputResponses" not in p:
        r = {"resultType": "input_required", "requestState": "s", "inputRequests": {"q": {
            "method": "elicitation/create", "params": {"mode": "form", "message": "m", "requestedSchema": {
                "type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}}}}
    else:
        r = {"content": [{"type": "text", "text": json.dumps(p["arguments"], sort_keys=True)}]}
    r.setdefault("resultType", "complete")
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
'''


def test_an_argument_holding_a_nested_secret_is_withheld_whole(mrtr, tmp_path):
    """`obj.inner` is `writeOnly` in the schema, `note.password` is secret by its name: each
    top-level argument holding one is withheld whole, from the document, the trace and the
    printed commands; resume takes them again."""
    server = tmp_path / "nested.py"
    server.write_text(NESTED_SERVER)
    target = ["--stdio", stdio_cmd(server)]
    r = mrtr(*target, "-v", "call", "wo", 'obj:={"inner": "S3CRET-99"}', 'note:={"password": "hunter-22"}',
             "--no-input")
    assert r.code == 5, r.stderr
    doc = r.json()
    assert doc["params"]["arguments"] == {} and doc["withheld"]["arguments"] == ["obj", "note"], doc
    for secret in ("S3CRET-99", "hunter-22"):
        assert secret not in r.stdout and secret not in r.stderr, r.stderr
    path = tmp_path / "pending.json"
    path.write_text(r.stdout)
    again = mrtr("resume", path, "-a", "a=x", "-a", 'obj:={"inner": "S3CRET-99"}',
                 "-a", 'note:={"password": "hunter-22"}', "--no-input")
    assert again.code == 0, again.stderr
    assert json.loads(again.stdout) == {"note": {"password": "hunter-22"}, "obj": {"inner": "S3CRET-99"}}


def test_a_command_to_start_again_never_holds_a_value_stderr_would_mask(mrtr, tmp_path):
    """A tool argument of the user's own that is URL-shaped with a secret-named parameter
    (`token=...`) is masked by stderr's redaction wherever it stands: the command printed to
    start the call again names a file of the arguments instead (`--args @ARGS.json`) and says
    where they are, and it works as printed once that file and the answers are written."""
    link = "https://x.example/cb?token=tok-8f3k2mZq"
    server = stdio_cmd(SERVERS / "legacy_server.py")
    r = mrtr("--stdio", server, "-v", "call", "book_table", "date=2026-01-01", f"note={link}", "--no-input")
    assert r.code == 5, r.stderr
    doc = r.json()
    assert doc["params"]["arguments"] == {"date": "2026-01-01", "note": link}, doc
    command = next(line.strip() for line in r.stderr.splitlines() if line.strip().startswith("mrtr --stdio"))
    assert "***" not in command and "tok-8f3k2mZq" not in command, r.stderr
    assert "--args @ARGS.json" in command and "params.arguments" in command, r.stderr
    words = shlex.split(command.split("  (", 1)[0])
    (tmp_path / "ARGS.json").write_text(json.dumps(doc["params"]["arguments"]))
    answers = doc["answersTemplate"]
    answers["inputResponses"]["elicitation-1"]["content"] = {"partySize": 2, "seating": "indoor"}
    (tmp_path / "ANSWERS.json").write_text(json.dumps(answers))
    again = mrtr(*words[1:], cwd=tmp_path)
    assert again.code == 0 and "Booked a table for 2 (indoor)" in again.stdout, again.stderr


def test_the_shells_command_to_start_again_never_holds_a_value_stderr_would_mask(mrtr):
    """The same inside `mrtr shell`: its hint after exit 5 and a bare `resume`'s."""
    link = "https://x.example/cb?token=tok-8f3k2mZq"
    r = mrtr("--stdio", stdio_cmd(SERVERS / "legacy_server.py"), "shell",
             input=f"call book_table date=2026-01-01 note={link}\nresume\n")
    assert r.code == 5, r.stderr
    commands = [line for line in r.stderr.splitlines() if "call book_table --args" in line]
    assert len(commands) == 2, r.stderr
    assert all("--args @ARGS.json" in line and "***" not in line and "params.arguments" in line
               for line in commands), r.stderr
