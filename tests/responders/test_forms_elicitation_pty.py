"""A person at a real pseudo-terminal (pexpect) answers every property kind, reviews and edits,
answers several requests of one round in turn, consents (or not) to URLs, is shown hostile
server text inertly, and presses Ctrl-C. stdout goes to a file and holds only the result."""

from __future__ import annotations

import io
import json
import re
import shlex
from pathlib import Path

import pytest

from tests.conftest import PY, ROOT, SERVERS, Target, clean_env, stdio_cmd
from tests.responders.test_answers_elicitation import EXPECTED
from tests.support import SAFETY
from tests.terminals import spawn_pty

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.pty

DOWN = "\x1b[B"
ENTER = "\r"
BACKSPACE = "\x7f"
URL = "https://auth.example.com/connect?flow=42"
CPR, CPR_REPLY = "\x1b[6n", "\x1b[1;1R"  # cursor position request / report (row 1, column 1)


class Session:
    """One `mrtr` run in a pseudo-terminal; everything it draws is kept in `screen`."""

    def __init__(self, tmp_path: Path, *args: str, env: dict[str, str] | None = None):
        self.out = tmp_path / "stdout.txt"
        command = shlex.join([PY, "-m", "mrtr_cli", *map(str, args)]) + f" > {shlex.quote(str(self.out))}"
        self.log = io.StringIO()
        self.child = spawn_pty("/bin/sh", ["-c", command], cwd=str(ROOT), encoding="utf-8", timeout=SAFETY,
                               env=clean_env(tmp_path, {"TERM": "xterm-256color", **(env or {})}),
                               dimensions=(50, 160))
        self.child.logfile_read = self.log

    def expect(self, text: str) -> None:
        """Wait for `text`, answering the prompt library's cursor-position requests on the way
        (as a real terminal does; without answers it hides validation messages)."""
        while self.child.expect_exact([text, CPR]) == 1:
            self.child.send(CPR_REPLY)

    def answer(self, prompt: str, keys: str) -> None:
        """Wait for `prompt`, then type `keys`."""
        self.expect(prompt)
        self.child.send(keys)

    def finish(self) -> int:
        while self.child.expect_exact([pexpect.EOF, CPR]) == 1:
            self.child.send(CPR_REPLY)
        self.child.close()
        return self.child.exitstatus

    @property
    def screen(self) -> str:
        return self.log.getvalue()

    @property
    def stdout(self) -> str:
        return self.out.read_text(encoding="utf-8")


def browser(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A BROWSER that records the URL it is asked to open (Python's webbrowser honours $BROWSER)."""
    opened = tmp_path / "opened.txt"
    script = tmp_path / "browser.sh"
    script.write_text(f"#!/bin/sh\necho \"$1\" >> {shlex.quote(str(opened))}\n")
    script.chmod(0o755)
    return {"BROWSER": str(script)}, opened


def retries(target: Target) -> list[dict]:
    return [m["params"] for m in target.requests() if m["method"] == "tools/call" and "inputResponses" in m["params"]]


def fill_every_kind(s: Session) -> None:
    """Answer the every_kind form, with a wrong answer for most kinds (each is re-asked with the reason)."""
    s.expect("Forms Test Server")  # who asks
    s.expect("Tell us about you")
    s.expect("As on your badge")  # a description
    s.answer("Full name * [2-20 characters]", "A" + ENTER)
    s.answer("must be at least 2 characters", "da" + ENTER)
    s.answer("Email * [email address]", "ada@" + ENTER)
    s.answer("is not an email address", "example.com" + ENTER)
    s.answer("Homepage [URI", "ada.dev" + ENTER)
    s.answer("is not an absolute URI", "\x01https://" + ENTER)  # Ctrl-A: to the start of the line
    s.answer("Birthday [YYYY-MM-DD]", "1815-02-30" + ENTER)
    s.answer("is not a valid calendar date", BACKSPACE * 5 + "12-10" + ENTER)
    s.answer("Meeting time [date-time", "2026-07-28 09:30" + ENTER)
    s.answer("is not a date-time", "\x15" + "2026-07-28T09:30:00Z" + ENTER)  # Ctrl-U: clear the line
    s.answer("Age * [integer 18..130]", "12" + ENTER)
    s.answer("must be >= 18", BACKSPACE * 2 + "36" + ENTER)
    s.answer("Score [number 0..1]", "half" + ENTER)
    s.answer("expected a number", "\x15.5" + ENTER)
    s.expect("Subscribe")
    s.answer("(Y/n)", "n")  # the default (true) is shown; "n" answers no
    s.answer("Color", DOWN + ENTER)  # the pointer starts at the default, green -> blue
    s.expect("Small")
    s.answer("Medium", DOWN + ENTER)  # titles shown: Small -> Medium
    s.expect("(leave empty)")  # optional, no default: listed first, the pointer starts there
    s.answer("Beta", DOWN + DOWN + ENTER)  # (leave empty) -> Alpha -> Beta
    s.answer("Toppings * [choose 1 to 2]", ENTER)
    s.expect("choose at least 1")  # the reason; keys typed before the list is asked again never answer it
    s.answer("Toppings * [choose 1 to 2]", " " + DOWN + " " + DOWN + " " + ENTER)
    # "choose at most 2", printed above the field asked again (not in a bottom toolbar),
    # with the ticks kept and the pointer back at the top: untick olives.
    s.expect("✗ choose at most 2")
    s.answer("Toppings * [choose 1 to 2]", DOWN + DOWN + " " + ENTER)
    s.expect("Monday")  # ticked by default
    s.answer("Wednesday", " " + DOWN + " " + DOWN + " " + ENTER)


def test_every_kind_at_the_terminal_with_review_and_edit(tmp_path, forms: Target, mrtr):
    forms.reset()
    saved = tmp_path / "saved.json"
    s = Session(tmp_path, *forms.args, "call", "every_kind", "--json", "--save-answers", saved)
    fill_every_kind(s)
    s.expect("Review your answers for")
    for shown in ("Ada", "ada@example.com", "1815-12-10", "36", "0.5", "no", "blue", "Medium", "Beta",
                  "cheese, ham", "Tuesday, Wednesday"):
        s.expect(shown)
    s.answer("Send these answers?", DOWN + ENTER)  # Edit
    s.answer("Which answer do you want to change?", ENTER)  # the first: Full name
    # The earlier answer is pre-filled: typing appends to it.
    s.answer("Full name * [2-20 characters]", " Lovelace" + ENTER)
    s.expect("Ada Lovelace")
    s.answer("Send these answers?", ENTER)
    assert s.finish() == 0
    assert json.loads(json.loads(s.stdout)["content"][0]["text"]) == EXPECTED
    (retry,) = retries(forms)
    assert retry["inputResponses"] == {"kinds": {"action": "accept", "content": EXPECTED}}
    # Replaying the saved answers without a terminal gives the same result.
    replay = mrtr(*forms.args, "call", "every_kind", "--json", "--no-input", "--answers", saved)
    assert replay.code == 0, replay.stderr
    assert json.loads(replay.stdout) == json.loads(s.stdout)


def test_a_form_without_fields_is_a_plain_confirmation(tmp_path, forms: Target):
    s = Session(tmp_path, *forms.args, "call", "just_confirm")
    s.expect("Restart the service now?")
    s.expect("this form has no fields")
    s.expect("Send these answers?")
    s.expect("Send")
    s.answer("Decline (refuse to answer)", ENTER)  # Send; there is nothing to edit
    assert s.finish() == 0
    assert "Edit" not in s.screen
    assert s.stdout.strip() == "accept {}"


def test_a_key_field_flag_the_form_lacks_stops_before_the_person_is_asked(tmp_path, forms: Target):
    # "ok" is asked and its form has no fields: `-a ok.force=yes` fits nothing, so the run
    # stops (exit 2) before the form is shown, and nothing is sent.
    forms.reset()
    s = Session(tmp_path, *forms.args, "call", "just_confirm", "-a", "ok.force=yes")
    s.expect('question "ok" has no field "force" (it has no fields)')
    assert s.finish() == 2
    assert "Restart the service now?" not in s.screen
    assert retries(forms) == []


def test_several_requests_are_asked_in_turn_and_sent_together(tmp_path, forms: Target):
    forms.reset()
    s = Session(tmp_path, *forms.args, "call", "three_forms")
    s.expect("[1 of 3] ")
    s.answer("A word *", "hello" + ENTER)
    s.answer("Keep these answers? (all 3 are sent together)", ENTER)
    s.expect("[2 of 3] ")
    s.answer("Sure", "y")
    s.answer("Keep these answers?", ENTER)
    s.expect("[3 of 3] ")
    s.answer("Pick *", DOWN + ENTER)
    s.answer("Send these answers?", DOWN + DOWN + DOWN + ENTER)  # Cancel (dismiss)
    assert s.finish() == 6
    (retry,) = retries(forms)  # one retry carries the whole round
    assert retry["inputResponses"] == {"a": {"action": "accept", "content": {"word": "hello"}},
                                       "b": {"action": "accept", "content": {"sure": True}},
                                       "c": {"action": "cancel"}}
    assert retry["requestState"] == "three"


@pytest.mark.parametrize("key", ["\x03", "\x04"], ids=["ctrl-c", "ctrl-d"])
def test_ctrl_c_keeps_earlier_answers_for_resume(tmp_path, forms: Target, mrtr, key):
    forms.reset()
    s = Session(tmp_path, *forms.args, "call", "three_forms")
    s.answer("A word *", "kept" + ENTER)
    s.answer("Keep these answers?", ENTER)
    s.answer("Sure", key)
    assert s.finish() == 130
    match = re.search(r"mrtr resume (\S+\.json)", s.screen)
    assert match, s.screen
    # resume asks again at a terminal, so the hint does not demand --answers FILE.
    assert f"mrtr resume {match.group(1)} (it asks again at a terminal" in s.screen
    doc = json.loads(Path(match.group(1)).read_text())
    assert Path(match.group(1)).is_relative_to(tmp_path / "state" / "mrtr" / "pending")
    assert doc["answered"] == {"a": {"action": "accept", "content": {"word": "kept"}}}
    assert doc["missing"] == ["b", "c"]
    assert retries(forms) == []
    r = mrtr("resume", match.group(1), "-a", "sure=no", "-a", "pick=x", *forms.args)
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout)["a"] == '{"word": "kept"}'


def test_hostile_server_text_is_shown_inert(tmp_path, forms: Target):
    s = Session(tmp_path, *forms.args, "call", "hostile")
    s.expect("Approve the change?")
    s.answer("Fine", ENTER)
    s.answer("Send these answers?", ENTER)
    assert s.finish() == 0
    screen = s.screen
    # Nothing the server sent reaches the terminal as a control sequence ...
    for raw in ("\x1b]0;PWNED", "\x1b[2J\rAll good", "nothing to see\x1b[31m", "Choice\x1b[5m", "Fine\x1b[41m",
                "Nope\x1b]8;;http://evil", "desc\x1b[1mBOLD", "BOLD\rX", "hidden\rOVERWRITTEN"):
        assert raw not in screen, repr(raw)
    # ... it is shown, visibly escaped.
    for shown in ("\\x1b]0;PWNED", "\\x1b[2J\\rAll good, nothing to see\\x1b[31m", "Choice\\x1b[5m",
                  "Fine\\x1b[41m", "desc\\x1b[1mBOLD\\rX", "Nope\\x1b]8;;http://evil.example"):
        assert shown in screen, shown
    # Tool output in text mode too.
    assert s.stdout.strip() == 'done\\x1b[8m hidden\\rOVERWRITTEN {"pick": "ok"}'


def test_url_shown_with_host_and_nothing_opens_without_consent(tmp_path, forms: Target):
    env, opened = browser(tmp_path)
    forms.reset()
    s = Session(tmp_path, *forms.args, "call", "url_login", env=env)
    s.expect("Sign in to Example to connect your account.")
    s.expect("URL:")
    s.expect("host: ")
    s.expect("auth.example.com")
    s.answer("Open it in my browser", DOWN + ENTER)  # "I have finished there" without opening
    assert s.finish() == 0
    assert s.stdout.strip() == "connected"
    assert re.search(r"https://\x1b\[[0-9;]*7[0-9;]*mauth\.example\.com\x1b\[0m/connect\?flow=42", s.screen)
    assert "warning" not in s.screen
    assert not opened.exists()
    (retry,) = retries(forms)
    assert retry["inputResponses"] == {"login": {"action": "accept"}}
    assert retry["requestState"] == "url-state ☃"


def test_url_opens_after_choosing_open(tmp_path, forms: Target):
    env, opened = browser(tmp_path)
    forms.reset()
    s = Session(tmp_path, *forms.args, "call", "url_login", env=env)
    s.answer("Open it in my browser", ENTER)
    s.expect("opened in your browser")
    s.answer("Open it again", ENTER)  # the pointer is on "I have finished there (continue)"
    assert s.finish() == 0
    assert opened.read_text().strip() == URL
    assert s.stdout.strip() == "connected"
    assert retries(forms)[0]["inputResponses"] == {"login": {"action": "accept"}}


def test_open_urls_consents_up_front(tmp_path, forms: Target):
    env, opened = browser(tmp_path)
    s = Session(tmp_path, *forms.args, "call", "url_login", "--open-urls", env=env)
    s.expect("opened in your browser")
    s.answer("I have finished there (continue)", ENTER)
    assert s.finish() == 0
    assert opened.read_text().strip() == URL


@pytest.mark.parametrize(("url", "warnings"), [
    ("http://xn--80ak6aa92e.com/login", ["not https", "the host is punycode", "'аррӏе.com'"]),
    ("https://192.168.1.10/login", ["the host is an IP address"]),
])
def test_suspicious_urls_are_warned_about_and_can_be_declined(tmp_path, forms: Target, url, warnings):
    env, opened = browser(tmp_path)
    forms.reset()
    s = Session(tmp_path, *forms.args, "call", "url_login", f"url={url}", env=env)
    s.expect("URL:")
    for warning in warnings:
        s.expect(warning)
    # Open it / I have finished there / Decline / Cancel
    s.answer("Decline (refuse to answer)", DOWN + DOWN + ENTER)
    assert s.finish() == 6
    assert s.stdout.strip() == "not connected (decline)"
    assert not opened.exists()
    assert retries(forms)[0]["inputResponses"] == {"login": {"action": "decline"}}


def test_a_url_with_a_user_name_is_refused_before_anything_is_asked(tmp_path, forms: Target):
    # `accounts.example.com@` is there to be read as the host; a browser visits evil.example.
    env, opened = browser(tmp_path)
    s = Session(tmp_path, *forms.args, "call", "url_login", "url=https://accounts.example.com@evil.example/login",
                env=env)
    assert s.finish() == 4
    assert "has a user name or password before its host" in s.screen and "goes to host evil.example" in s.screen
    assert "What now" not in s.screen and not opened.exists()


def test_non_web_url_is_never_offered_for_opening(tmp_path):
    env, opened = browser(tmp_path)
    target = stdio_cmd(SERVERS / "forms_server.py")
    s = Session(tmp_path, "--stdio", target, "call", "url_login", "url=file:///etc/passwd", "--open-urls", env=env)
    s.expect("will not open it")
    s.expect("What now?")
    s.answer("I have finished there (continue)", DOWN + DOWN + ENTER)  # Cancel
    assert s.finish() == 6
    assert "Open it in my browser" not in s.screen
    assert not opened.exists()


def test_answers_typed_before_the_server_died_are_kept_for_resume(tmp_path, mrtr):
    import subprocess
    import uuid

    tag = f"--tag={uuid.uuid4().hex}"  # lets the test find this server process
    target = stdio_cmd(SERVERS / "forms_server.py", tag)
    s = Session(tmp_path, "--stdio", target, "call", "two_rounds")
    s.expect("Which city?")
    s.expect("city")
    subprocess.run(["pkill", "-f", "^" + re.escape(target)], check=False)  # the server, not mrtr
    s.child.send("Paris" + ENTER)
    s.answer("Send these answers?", ENTER)
    assert s.finish() == 3
    match = re.search(r"your answers are kept: mrtr resume (\S+\.json)", s.screen)
    assert match, s.screen
    doc = json.loads(Path(match.group(1)).read_text())
    assert doc["answered"]["first"]["content"] == {"city": "Paris"} and doc["missing"] == []
    saved = tmp_path / "saved.json"
    r = mrtr("resume", match.group(1), "-a", "nights=2", "--save-answers", saved)  # round 1 is sent again
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == "Paris for 2 nights"
    assert json.loads(saved.read_text())["inputResponses"]["first"] == {  # once: it was sent in one round
        "action": "accept", "content": {"city": "Paris"}}


def test_open_urls_does_not_cover_a_suspicious_url(tmp_path, forms: Target):
    env, opened = browser(tmp_path)
    s = Session(tmp_path, *forms.args, "call", "url_login", "url=https://192.168.1.10/login", "--open-urls", env=env)
    s.expect("the host is an IP address")
    s.expect("not opened although --open-urls was given")
    s.answer("What now?", DOWN + DOWN + DOWN + ENTER)  # Open it / I have finished / Decline / Cancel
    assert s.finish() == 6
    assert not opened.exists()


def test_a_url_a_browser_reads_otherwise_is_shown_as_sent_with_the_browsers_host(tmp_path, forms: Target):
    # urllib reads user `evil.example\` at good.com; a browser reads `\` as `/` and visits
    # evil.example. The URL is shown as sent (never masked as if it had a password), the
    # host line names evil.example, and it is not offered for opening.
    env, opened = browser(tmp_path)
    s = Session(tmp_path, *forms.args, "call", "url_login", "url=https://evil.example\\@good.com/x", env=env)
    s.answer("What now?", DOWN + ENTER)  # I have finished / Decline / Cancel
    assert s.finish() == 6
    assert "URL:  https://evil.example\\@good.com/x" in s.screen, s.screen
    assert re.search(r"host: (\x1b\[[0-9;]*m)*evil\.example", s.screen), s.screen
    assert "***" not in s.screen and "Open it in my browser" not in s.screen
    assert not opened.exists()


def test_without_a_terminal_the_url_is_listed_with_its_warnings(mrtr, forms: Target):
    r = mrtr(*forms.args, "call", "url_login", "url=https://192.168.1.10/login", "--no-input")
    assert r.code == 5
    assert "open this URL yourself: https://192.168.1.10/login" in r.stderr
    assert "warning: the host is an IP address" in r.stderr


def test_ctrl_c_in_the_middle_of_a_form_keeps_the_fields_typed(tmp_path, forms: Target):
    s = Session(tmp_path, *forms.args, "call", "every_kind")
    s.answer("Full name * [2-20 characters]", "Ada" + ENTER)
    s.answer("Email * [email address]", "ada@example.com" + ENTER)
    s.answer("Homepage [URI", "\x03")  # Ctrl-C
    assert s.finish() == 130
    match = re.search(r"mrtr resume (\S+\.json)", s.screen)
    assert match, s.screen
    doc = json.loads(Path(match.group(1)).read_text())
    content = doc["answersTemplate"]["inputResponses"]["kinds"]["content"]
    assert content["name"] == "Ada" and content["email"] == "ada@example.com"
    again = Session(tmp_path, "resume", match.group(1))  # asked again: the typed fields are pre-filled
    again.expect("Full name * [2-20 characters]")
    again.expect("Ada")
    again.child.send(ENTER)
    again.expect("Email * [email address]")
    again.expect("ada@example.com")
    again.child.send("\x03")
    assert again.finish() == 130



def _interrupted(s: Session) -> tuple[str, dict]:
    """A run ended by Ctrl-C (exit 130): its pending document's path and the typed fields of
    its `kinds` form (the answers template's content)."""
    assert s.finish() == 130
    match = re.search(r"mrtr resume (\S+\.json)", s.screen)
    assert match, s.screen
    doc = json.loads(Path(match.group(1)).read_text())
    return match.group(1), doc["answersTemplate"]["inputResponses"]["kinds"]["content"]


def _stopped_at_birthday(tmp_path: Path, forms: Target) -> str:
    """`call every_kind` with name, email and homepage typed, then Ctrl-C at the birthday:
    the pending document's path."""
    first = Session(tmp_path, *forms.args, "call", "every_kind")
    first.answer("Full name * [2-20 characters]", "Ada" + ENTER)
    first.answer("Email * [email address]", "ada@example.com" + ENTER)
    first.answer("Homepage [URI", "https://ada.dev" + ENTER)
    first.answer("Birthday [YYYY-MM-DD]", "\x03")  # Ctrl-C
    return _interrupted(first)[0]


def test_ctrl_c_keeps_the_text_of_the_field_being_typed_as_its_default(tmp_path, forms: Target):
    """Text typed into a field but not Entered when Ctrl-C comes is kept in the pending
    document, and resuming offers it in that field, to finish or change: not sent unseen."""
    first = Session(tmp_path, *forms.args, "call", "every_kind")
    first.answer("Full name * [2-20 characters]", "Ada" + ENTER)
    first.answer("Email * [email address]", "ada@exa")
    first.expect("ada@exa")
    first.child.send("\x03")  # Ctrl-C, the email half typed
    path, content = _interrupted(first)
    assert (content["name"], content["email"]) == ("Ada", "ada@exa"), content
    again = Session(tmp_path, "resume", path)
    again.answer("Full name * [2-20 characters]", ENTER)
    again.expect("Email * [email address]")
    again.expect("ada@exa")  # the half-typed value, in its field
    again.child.send("mple.com" + ENTER)
    again.answer("Homepage [URI", "\x03")
    _, content = _interrupted(again)
    assert content["email"] == "ada@example.com", content


def test_a_second_ctrl_c_in_a_resumed_form_keeps_every_field_typed(tmp_path, forms: Target):
    """Ctrl-C, resume (pre-filled), type more, Ctrl-C again: the new pending document holds the
    fields typed in both runs, and resuming it pre-fills them all."""

    path = _stopped_at_birthday(tmp_path, forms)
    again = Session(tmp_path, "resume", path)
    again.expect("Full name * [2-20 characters]")
    again.expect("Ada")
    again.child.send(" Lovelace" + ENTER)  # the pre-filled answer is extended
    again.expect("Email * [email address]")
    again.expect("ada@example.com")
    again.child.send("\x03")  # Ctrl-C again, before the fields typed in the first run are reached
    path, content = _interrupted(again)
    assert (content["name"], content["email"], content["homepage"]) == (
        "Ada Lovelace", "ada@example.com", "https://ada.dev")
    last = Session(tmp_path, "resume", path)
    for prompt, shown in (("Full name * [2-20 characters]", "Ada Lovelace"), ("Email * [email address]",
                          "ada@example.com"), ("Homepage [URI", "https://ada.dev")):
        last.expect(prompt)
        last.expect(shown)
        last.child.send(ENTER)
    last.answer("Birthday [YYYY-MM-DD]", "\x03")
    assert last.finish() == 130


def test_a_field_cleared_in_a_resumed_form_stays_cleared_after_ctrl_c(tmp_path, forms: Target):
    """A pre-filled optional field the person empties (Ctrl-U, Enter) and then Ctrl-C: the new
    pending document leaves it out; the earlier run's value is not brought back."""
    again = Session(tmp_path, "resume", _stopped_at_birthday(tmp_path, forms))
    for prompt in ("Full name * [2-20 characters]", "Email * [email address]"):
        again.expect(prompt)
        again.child.send(ENTER)
    again.expect("Homepage [URI")
    again.expect("https://ada.dev")
    again.child.send("\x15" + ENTER)  # Ctrl-U empties the pre-filled answer
    again.answer("Birthday [YYYY-MM-DD]", "\x03")
    _, content = _interrupted(again)
    assert (content["name"], content["email"]) == ("Ada", "ada@example.com"), content
    assert content.get("homepage") is None, content


def test_a_secret_typed_before_ctrl_c_is_never_saved_and_is_asked_again_on_resume(tmp_path, forms: Target):
    """`sign_in`'s PIN is a secret (`writeOnly`): typed and then Ctrl-C in the same form, the
    pending document's template has no PIN; typed, sent on to the next form of the round and
    then Ctrl-C, `answered` has none either. Each time stderr says so, and each resume asks
    for the PIN again (the user filled in) until the call completes."""
    note = "login.pin is a secret: not written to the pending document; give it again on resume"
    first = Session(tmp_path, *forms.args, "call", "sign_in")
    first.answer("User *", "ada" + ENTER)
    first.answer("PIN *", "2468x" + ENTER)  # refused by its pattern: the reason does not show it
    first.expect("PIN *")
    first.child.send("\x7f" + ENTER)  # Backspace: 2468
    first.answer("Remember me", "\x03")  # Ctrl-C with the PIN typed
    path, content = _signed_in(first)
    assert content == {"user": "ada", "pin": None, "remember": False}, content
    assert note in first.screen
    assert not _shows_pin(first.screen), first.screen  # typed masked, never echoed
    again = Session(tmp_path, "resume", path)
    again.expect("User *")
    again.expect("ada")
    again.child.send(ENTER)
    again.answer("PIN *", "2468" + ENTER)  # asked empty
    again.answer("Remember me", ENTER)
    again.answer("Keep these answers?", ENTER)
    again.answer("I agree", "\x03")  # Ctrl-C with the login form answered
    assert again.finish() == 130
    assert note in again.screen
    match = re.search(r"mrtr resume (\S+\.json)", again.screen)
    assert match, again.screen
    text = Path(match.group(1)).read_text()
    assert "2468" not in text, text
    assert json.loads(text)["answered"]["login"]["content"] == {"user": "ada", "pin": None, "remember": False}
    last = Session(tmp_path, "resume", match.group(1))
    last.expect("User *")  # asked again, the user filled in
    last.expect("ada")
    last.child.send(ENTER)
    last.answer("PIN *", "2468" + ENTER)
    last.answer("Remember me", ENTER)
    last.answer("Keep these answers?", ENTER)
    last.answer("I agree", "y")
    last.answer("Send these answers?", ENTER)
    last.answer("code *", "777111" + ENTER)
    last.answer("Send these answers?", ENTER)
    assert last.finish() == 0, last.screen
    assert last.stdout.strip() == "welcome ada: pin ok, code ok"
    assert not _shows_pin(again.screen + last.screen)
    assert re.search(r"PIN\s+(\x1b\[[0-9;]*m)*\*\*\*", last.screen), last.screen  # the review: ***


def _shows_pin(screen: str) -> bool:
    """Whether the PIN typed (2468) shows anywhere on `screen` (not inside a longer number such
    as a pending document's name)."""
    return re.search(r"(?<![\d-])2468(?!\d)", screen) is not None


def _signed_in(s: Session) -> tuple[str, dict]:
    """A `sign_in` run ended by Ctrl-C in its login form: the pending document's path and
    the login form's content in its template (the document holds no PIN anywhere)."""
    assert s.finish() == 130
    match = re.search(r"mrtr resume (\S+\.json)", s.screen)
    assert match, s.screen
    text = Path(match.group(1)).read_text()
    assert "2468" not in text, text
    return match.group(1), json.loads(text)["answersTemplate"]["inputResponses"]["login"]["content"]


#: A URL-mode link whose query has secret-looking parameters: the person's own link to open.
TOKEN_URL = "https://auth.example.com/connect?flow=42&token=tok-5150&access_token=at-6160&code=c-7170"


def test_a_link_with_a_token_is_shown_whole_at_the_consent_prompt(tmp_path, forms: Target):
    env, opened = browser(tmp_path)
    forms.reset()
    s = Session(tmp_path, *forms.args, "call", "url_login", f"url={TOKEN_URL}", env=env)
    s.answer("Open it in my browser", ENTER)
    s.expect("opened in your browser")
    s.answer("Open it again", ENTER)  # the pointer is on "I have finished there (continue)"
    assert s.finish() == 0
    plain = re.sub(r"\x1b\[[0-9;]*m", "", s.screen)
    assert f"URL:  {TOKEN_URL}" in plain, s.screen
    assert opened.read_text().strip() == TOKEN_URL


def test_a_link_with_a_token_is_listed_whole_to_open_and_masked_in_v_lines(mrtr, forms: Target):
    r = mrtr(*forms.args, "-v", "call", "url_login", f"url={TOKEN_URL}", "--no-input")
    assert r.code == 5
    assert f"open this URL yourself: {TOKEN_URL}" in r.stderr
    traced = [line for line in r.stderr.splitlines() if line.startswith("<- ") and "inputRequests" in line]
    assert traced and all("tok-5150" not in line and "token=***" in line for line in traced), r.stderr
    assert r.stderr.count("tok-5150") == 1  # the one line that asks to open it


def test_a_link_with_a_token_is_listed_whole_to_open_in_the_shell(mrtr, forms: Target):
    r = mrtr(*forms.args, "shell", input=f"call url_login url={TOKEN_URL}\n")
    assert r.code == 5
    assert f"open this URL yourself: {TOKEN_URL}" in r.stderr
    assert r.stderr.count("tok-5150") == 1, r.stderr  # the failing line's echo masks it: it is no link to open
