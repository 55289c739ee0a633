"""Colour and terminal notes, in a real pseudo-terminal (pexpect) and through pipes.

JSON printed to a terminal is syntax-coloured; `--color auto|always|never`; NO_COLOR removes
every style; FORCE_COLOR forces it; nothing styled reaches a pipe; an `isError: true` result
is said on stderr at a terminal; a silent stdio server gets a "still waiting" line.

Also sanitizing server text for the terminal (escapes and overwrites made visible,
invisible spaces shown, JSON kept lossless and inert)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from mrtr_cli.render.sanitize import dumps_safe, sanitize
from tests.conftest import EXAMPLE_SERVER, PY, ROOT, SERVERS, clean_env, stdio_cmd
from tests.support import SAFETY
from tests.terminals import spawn_pty

pexpect = pytest.importorskip("pexpect")

FORMS = stdio_cmd(SERVERS / "forms_server.py")
SLOW = stdio_cmd(SERVERS / "slow_server.py")
WORK = stdio_cmd(EXAMPLE_SERVER)
SGR = re.compile("\x1b\\[[0-9;]*m")


def pty(tmp_path: Path, *args: str, env: dict[str, str] | None = None, stdout: Path | None = None) -> pexpect.spawn:
    """mrtr in a pseudo-terminal (stdout too, unless redirected to `stdout`)."""
    command = "exec " + shlex.join([PY, "-m", "mrtr_cli", *args])
    if stdout is not None:
        command += f" > {shlex.quote(str(stdout))}"
    return spawn_pty("/bin/sh", ["-c", command], cwd=str(ROOT), env=clean_env(tmp_path, env),
                     encoding="utf-8", timeout=SAFETY, dimensions=(40, 140))


def finish(child: pexpect.spawn) -> tuple[int, str]:
    child.expect(pexpect.EOF)
    text = child.before
    child.close()
    return child.exitstatus, text


@pytest.mark.pty
def test_json_on_a_terminal_is_syntax_coloured(tmp_path):
    child = pty(tmp_path, "--stdio", WORK, "call", "list_work_items", "--json")
    code, text = finish(child)
    assert code == 0, text
    assert SGR.search(text), repr(text)
    assert re.search("\x1b\\[[0-9;]*m\"content\"", text), repr(text)  # a key, styled
    plain = SGR.sub("", text)
    assert '"type": "text"' in plain and plain.lstrip().startswith("{")


@pytest.mark.pty
@pytest.mark.parametrize("how", ["NO_COLOR", "--color never"])
def test_no_color_removes_every_style(tmp_path, how):
    env = {"NO_COLOR": "1"} if how == "NO_COLOR" else None
    flags = ["--color", "never"] if how != "NO_COLOR" else []
    child = pty(tmp_path, "--stdio", FORMS, *flags, "call", "strict_confirm",
                "--answers", str(write_decline(tmp_path)), "--json", env=env)
    code, text = finish(child)
    assert code == 1, text
    assert "isError: true" in text
    assert "\x1b[" not in text, repr(text)  # no colour, no bold: nothing styled at all


@pytest.mark.pty
def test_an_is_error_result_is_said_on_stderr_at_a_terminal(tmp_path):
    out = tmp_path / "out.txt"
    child = pty(tmp_path, "--stdio", FORMS, "call", "strict_confirm", "--answers", str(write_decline(tmp_path)),
                stdout=out)
    code, text = finish(child)
    # A declined form whose result has isError: true exits 1 (errors.PRECEDENCE).
    assert code == 1, text
    assert out.read_text() == "refused: decline\n"
    assert "the tool reported an error (isError: true in its result); exit 1" in SGR.sub("", text)
    assert re.search("\x1b\\[[0-9;]*31m", text), repr(text)  # red


def test_off_a_terminal_there_is_no_marker_and_no_style(mrtr, tmp_path):
    r = mrtr("--stdio", FORMS, "call", "strict_confirm", "--answers", str(write_decline(tmp_path)), "--json")
    assert r.code == 1 and "isError" not in r.stderr and "\x1b" not in r.stdout + r.stderr
    # FORCE_COLOR styles a pipe; --color never beats it; --color always styles a pipe too.
    r = mrtr("--stdio", WORK, "call", "list_work_items", "--json", env={"FORCE_COLOR": "1"})
    assert r.code == 0 and SGR.search(r.stdout) and SGR.sub("", r.stdout).startswith('{"content"')
    for off in ("0", ""):  # FORCE_COLOR=0 (and empty) is not a request to force
        r = mrtr("--stdio", WORK, "call", "list_work_items", "--json", env={"FORCE_COLOR": off})
        assert r.code == 0 and "\x1b" not in r.stdout, off
    r = mrtr("--stdio", WORK, "call", "list_work_items", "--json", "--color", "never", env={"FORCE_COLOR": "1"})
    assert r.code == 0 and "\x1b" not in r.stdout
    r = mrtr("--stdio", WORK, "--color", "always", "call", "list_work_items", "--json", env={"NO_COLOR": "1"})
    assert r.code == 0 and SGR.search(r.stdout)
    r = mrtr("--stdio", WORK, "--color", "sometimes", "call", "list_work_items")
    assert r.code == 2 and "--color" in r.stderr


@pytest.mark.pty
def test_a_silent_stdio_server_gets_a_still_waiting_line(tmp_path):
    # `hang` blocks until cancelled; the notice comes after MRTR_WAIT_NOTICE_SECONDS of silence.
    child = pty(tmp_path, "--stdio", SLOW, "call", "hang", env={"MRTR_WAIT_NOTICE_SECONDS": "0.3"},
                stdout=tmp_path / "out.txt")
    child.expect(r"the server has not answered tools/call hang for 300 ms; still waiting \(Ctrl-C to stop\)")
    child.sendintr()
    code, _ = finish(child)
    assert code == 130


@pytest.mark.pty
def test_no_still_waiting_line_while_progress_arrives(tmp_path):
    child = pty(tmp_path, "--stdio", SLOW, "call", "slow", "steps:=6", "delay:=0.3",
                env={"MRTR_WAIT_NOTICE_SECONDS": "1"}, stdout=tmp_path / "out.txt")
    code, text = finish(child)
    assert code == 0 and "still waiting" not in text, text
    assert (tmp_path / "out.txt").read_text().startswith("slow done\n")


def write_decline(tmp_path: Path) -> Path:
    path = tmp_path / "decline.json"
    path.write_text('{"inputResponses": {"ok": {"action": "decline"}}}')
    return path


@pytest.mark.pty
def test_a_refused_value_is_shown_right_above_the_field_asked_again(tmp_path):
    # A tall terminal: questionary's own validation would draw the reason on its bottom line.
    child = spawn_pty("/bin/sh", ["-c", "exec " + shlex.join(
        [PY, "-m", "mrtr_cli", "--stdio", WORK, "call", "update_work_item", "workItemId=4522", "state=Resolved",
         "-a", "resolution=Duplicate"]) + f" > {shlex.quote(str(tmp_path / 'out.txt'))}"],
        cwd=str(ROOT), env=clean_env(tmp_path), encoding="utf-8", timeout=SAFETY, dimensions=(60, 120))
    child.expect("Original work item id")
    child.send("abc\r")
    # The reason, then (on the next line) the same field again with the refused text filled in.
    child.expect("✗ expected an integer[^\r\n]*\r\n")
    child.expect("Original work item id")
    child.expect("abc")
    assert "\x1b[60;1H" not in child.before  # nothing drawn on the bottom row
    child.send("\x08" * 3 + "4301\r")
    child.expect(r"Send these answers\?")
    child.send("\r")
    code, _ = finish(child)
    assert code == 0
    assert (tmp_path / "out.txt").read_text().startswith("Work item 4522 resolved as a duplicate of 4301.")


@pytest.mark.pty
@pytest.mark.parametrize("no_color", [False, True])
def test_no_color_removes_bold_from_the_form_heading(tmp_path, no_color):
    child = pty(tmp_path, "--stdio", FORMS, "call", "strict_confirm", env={"NO_COLOR": "1"} if no_color else None,
                stdout=tmp_path / "out.txt")
    child.expect(r"asks \(tools/call strict_confirm, input ok\)")
    heading = child.before
    assert "Forms Test Server" in heading
    assert ("\x1b[1" in heading) is not no_color, repr(heading)  # bold (and colour) only without NO_COLOR
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()


def test_sanitize_makes_escapes_and_overwrites_visible():
    evil = "ok\x1b[2J\x1b]0;title\x07\rFAKE\u202egnp.exe\x9b31m"
    out = sanitize(evil)
    assert "\x1b" not in out and "\r" not in out and "\u202e" not in out and "\x9b" not in out
    assert out == "ok\\x1b[2J\\x1b]0;title\\x07\\rFAKE\\u202egnp.exe\\x9b31m"
    assert sanitize("line1\n\tline2") == "line1\n\tline2"
    assert sanitize("a\nb", single_line=True) == "a\\nb"


def test_dumps_safe_is_lossless_and_inert():
    value = {"t": "x\x1b[31m\u009b\u202eé☃"}
    text = dumps_safe(value)
    assert json.loads(text) == value
    assert "\x1b" not in text and "\u009b" not in text and "\u202e" not in text
    assert "é☃" in text


def test_single_line_text_shows_invisible_spaces():
    assert sanitize("touch\u200b x\ufeff", single_line=True) == "touch\\u200b x\\ufeff"
    assert sanitize("ไทย\u200bคำ") == "ไทย\u200bคำ"  # between words in some scripts: kept in running text


#: Characters that render as nothing, from Unicode's data: format characters (Cf) and the other
#: default-ignorable code points (variation selectors, Hangul fillers, the tag characters).
INVISIBLE = ["\u00ad", "\U000e0041", "\U000e0001", "\U000e007f", "\u2060", "\ufeff", "\u2064", "\u061c", "\u180e",
             "\u034f", "\u3164", "\uffa0", "\u115f", "\ufe00", "\U000e0100", "\u17b4", "\U0001d173", "\ufff0"]


@pytest.mark.parametrize("char", INVISIBLE)
def test_every_invisible_character_is_shown_as_its_escape(char):
    code = ord(char)
    escape = json.dumps(char)[1:-1]  # \uXXXX, a surrogate pair beyond the BMP
    assert code > 0xFFFF or escape == f"\\u{code:04x}"
    for single_line in (False, True):
        assert sanitize(f"pay{char}me{char}", single_line=single_line) == f"pay{escape}me{escape}"
    text = dumps_safe({"k": f"a{char}"})
    assert char not in text and json.loads(text) == {"k": f"a{char}"}  # --json: escaped, lossless


def test_every_format_character_of_the_unicode_data_is_made_visible():
    """The rule is the Unicode data's, not a list: each Cf character is escaped."""
    import sys
    import unicodedata

    formats = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
    kept = {"\u200b", "\u200c", "\u200d"}  # zero-width space and joiners: kept inside words
    for char in formats:
        shown = sanitize(f"x{char}x")
        assert (char in shown) == (char in kept), f"U+{ord(char):04X}"
        assert char not in sanitize(f"x{char}x", single_line=True) or char in kept - {"\u200b"}


def test_joiners_and_presentation_selectors_are_kept_only_where_text_uses_them():
    for text in ("\u2764\ufe0f", "\u2764\ufe0f\u200d\U0001f525", "\U0001f468\u200d\U0001f469", "نص\u200cفا",
                 "ไทย\u200bคำ", "1\ufe0f\u20e3"):
        assert sanitize(text) == text
    # at the start, after a space, or three in a row (bits hidden in text): shown
    assert sanitize("\u200dab") == "\\u200dab"
    assert sanitize("a \ufe0fb") == "a \\ufe0fb"
    assert sanitize("a\u200b\u200c\u200db") == "a\\u200b\\u200c\\u200db"
    assert sanitize("\U0001f600\ufe0f\ufe0f\ufe0f") == "\U0001f600\\ufe0f\\ufe0f\\ufe0f"


def test_the_printable_ignorables_are_those_of_the_unicode_data():
    from mrtr_cli.render import sanitize as module

    computed = {chr(c) for lo, hi in module._OTHER_IGNORABLE for c in range(lo, hi + 1) if chr(c).isprintable()}
    assert computed == module._PRINTABLE_IGNORABLE
