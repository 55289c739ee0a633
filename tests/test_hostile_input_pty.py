"""What a person is shown, in a real pseudo-terminal (pexpect): an optional
boolean with no default starts on "(leave empty)"; a rejected one-off answer is shown with
the server's message and asked again pre-filled; a URL is shown with the host a browser
visits, and one a browser reads differently is never opened."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import SERVERS, stdio_cmd, url_args
from tests.responders.test_forms_elicitation_pty import ENTER, Session, browser

pytest.importorskip("pexpect")

pytestmark = pytest.mark.pty

PICKY = SERVERS / "picky_server.py"


@pytest.fixture(params=["stdio", "http"])
def picky(request, http_servers) -> list[str]:
    if request.param == "stdio":
        return ["--stdio", stdio_cmd(PICKY)]
    return url_args(http_servers.start(PICKY))


def test_enter_on_an_optional_boolean_with_no_default_leaves_it_empty(tmp_path, picky):
    s = Session(tmp_path, *picky, "call", "optional_flag")
    s.expect("Subscribe?")
    s.expect("(leave empty)")
    s.child.send(ENTER)  # the pointer starts on "(leave empty)": Enter agrees to nothing
    s.answer("note", ENTER)
    s.answer("Send these answers?", ENTER)
    assert s.finish() == 0, s.screen
    assert s.stdout.strip() == "{}"  # no subscribe: true


def test_a_rejected_answer_is_asked_again_with_the_servers_message_prefilled(tmp_path, picky):
    s = Session(tmp_path, *picky, "call", "pick", "-a", "code=wrong")
    s.expect("again after the answer from -a code=wrong was sent: 'wrong' is wrong, try again")  # the note
    s.expect("'wrong' is wrong, try again")  # the form's own message
    s.answer("code *", "")
    s.expect("wrong")  # the rejected value, pre-filled
    s.child.send("\x15right" + ENTER)  # Ctrl-U clears the line
    s.answer("Send these answers?", ENTER)
    assert s.finish() == 0, s.screen
    assert s.stdout.strip() == "picked right"
    assert s.screen.count("'wrong' is wrong") == 2, s.screen  # the note and the form's message


def test_a_url_a_browser_reads_differently_shows_the_browsers_host_and_never_opens(tmp_path, picky):
    env, opened = browser(tmp_path)
    evil = "https://evil.example\\@good.com/"
    s = Session(tmp_path, *picky, "call", "visit", "--args", json.dumps({"url": evil}), "--open-urls", env=env)
    s.expect("host: ")
    s.expect("evil.example")
    s.expect("reads this URL differently")
    s.answer("What now?", ENTER)  # "Open it" is not offered: the first choice is "I have finished there"
    assert s.finish() == 0, s.screen
    screen = s.screen
    styled = r"host: (?:\x1b\[[0-9;]*m)*"  # rich may style the host
    assert re.search(styled + r"evil\.example(?:\x1b\[[0-9;]*m)*\s", screen), screen
    assert not re.search(styled + "good", screen)
    assert "Open it in my browser" not in screen
    assert not opened.exists()


PASTE = "\x1b[200~%s\x1b[201~"  # text pasted, as a terminal sends it with bracketed paste on


def test_a_paste_of_several_lines_into_a_field_keeps_its_first_line_only(tmp_path):
    s = Session(tmp_path, "--stdio", stdio_cmd(PICKY), "call", "optional_flag")
    s.answer("(leave empty)", ENTER)
    s.answer("note", PASTE % "first line\r\ncall echo a=1\r\nthird\r\n")  # some terminals paste \r\n
    s.expect("note")
    s.child.send(ENTER)  # the paste itself never answers the field
    s.answer("Send these answers?", ENTER)
    assert s.finish() == 0, s.screen
    assert json.loads(s.stdout) == {"note": "first line"}  # no newline, nothing of the lines after it
    assert s.screen.count("2 more lines were left out") == 1, s.screen


def test_keys_left_after_a_forms_last_answer_are_dropped_with_a_notice(tmp_path):
    s = Session(tmp_path, "--stdio", stdio_cmd(PICKY), "call", "optional_flag")
    s.answer("(leave empty)", ENTER)
    s.answer("note", "first line" + ENTER)
    # A paste without bracketed paste is keys typed at once: Enter sends the form; what
    # follows is not the form's, and not the next command's. (Typed once the review shows:
    # keys typed before a question shows never answer it.)
    s.answer("Send these answers?", ENTER + "call echo a=1" + ENTER)
    assert s.finish() == 0, s.screen
    assert json.loads(s.stdout) == {"note": "first line"}
    assert "typed after the form's last answer was dropped" in s.screen, s.screen
