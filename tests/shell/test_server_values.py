"""Tab in `mrtr shell` completes a prompt argument's value and a resource template
variable's value from the server (`completion/complete`, 2026-07-28
server/utilities/completion), at a real pseudo-terminal against the SDK test server
tests/servers/gated_server.py over stdio and HTTP: the values the server suggests, the
arguments typed before as `context.arguments`, one question per (ref, argument, value,
context) for the session, nothing asked of a server that does not declare `completions`,
a slow server (the line editor goes on, the question is bounded and cancelled, no second
question while one is unanswered), a server answering with hostile values (no escape
sequence reaches the terminal, at most 100 offered) and one answering with an error (no
candidates, no traceback)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conftest import SERVERS, HttpServers, read_records, stdio_cmd, url_args
from tests.shell import test_pty as pty
from tests.support import wait_for

pytest.importorskip("pexpect")
pytest.importorskip("pyte")

pytestmark = pytest.mark.pty

GATED = SERVERS / "gated_server.py"
TAB, CTRL_C = pty.TAB, pty.CTRL_C
PROMPT = "gated-test"
TEMPLATE = "'repo://{owner}/{name}'"


def gated_shell(tmp_path: Path, kind: str, http_servers: HttpServers, *server_args: str,
                shell_args: tuple[str, ...] = (), env: dict[str, str] | None = None) -> tuple[pty.Shell, Path]:
    """A shell on the gated server (`server_args` given to it) over `kind`, at its first
    prompt, and the file the server records the requests it reads in."""
    record = tmp_path / f"record-{kind}.jsonl"
    target = (["--stdio", stdio_cmd(GATED, "--record", str(record), *server_args)] if kind == "stdio"
              else url_args(http_servers.start(GATED, "--record", str(record), *server_args)))
    s = pty.Shell(tmp_path, *shell_args, *target, env=env)
    s.prompt(PROMPT)
    return s, record


def asked(record: Path) -> list[dict]:
    """The `completion/complete` params the server read, in order."""
    return [m["params"] for m in read_records(record) if m.get("method") == "completion/complete"]


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_tab_completes_prompt_argument_and_template_variable_values_from_the_server(tmp_path, kind, http_servers):
    s, record = gated_shell(tmp_path, kind, http_servers)
    s.type("prompt review language=py" + TAB)
    s.expect("pytorch")  # the server's three values, in the menu
    s.expect("pyside")
    s.type(CTRL_C)
    s.prompt(PROMPT)
    s.type("prompt review language=rus" + TAB)
    s.expect_line(f"{PROMPT}> prompt review language=rust")
    s.type("framework=a" + TAB)  # the server's framework values for language=rust
    s.expect("actix")
    s.expect("axum")
    s.type("c" + TAB)
    s.expect_line(f"{PROMPT}> prompt review language=rust framework=actix")
    sent = asked(record)
    assert sent[0]["ref"] == {"type": "ref/prompt", "name": "review"}
    assert sent[0]["argument"] == {"name": "language", "value": "py"}
    assert sent[-1]["argument"] == {"name": "framework", "value": "ac"}
    assert sent[-1]["context"] == {"arguments": {"language": "rust"}}  # the arguments typed on the line
    s.type(CTRL_C)
    s.prompt(PROMPT)
    s.type(f"read {TEMPLATE} owner=ali" + TAB)
    s.expect_line(f"{PROMPT}> read {TEMPLATE} owner=alice")
    s.type("name=w" + TAB)
    s.expect_line(f"{PROMPT}> read {TEMPLATE} owner=alice name=wonderland")
    sent = asked(record)
    assert sent[-1]["ref"] == {"type": "ref/resource", "uri": "repo://{owner}/{name}"}
    assert sent[-1]["argument"] == {"name": "name", "value": "w"}
    assert sent[-1]["context"] == {"arguments": {"owner": "alice"}}
    before = len(sent)
    s.type(CTRL_C)
    s.prompt(PROMPT)
    s.type("prompt review language=rus" + TAB)  # asked before in this session: not asked again
    s.expect_line(f"{PROMPT}> prompt review language=rust")
    s.type(CTRL_C)
    s.prompt(PROMPT)
    s.run("prompt greet name=ada", PROMPT)  # a line's request after it: the server has read everything before
    assert len(asked(record)) == before
    assert s.finish() == 0


def test_a_server_without_the_completions_capability_is_not_asked(tmp_path, http_servers):
    s, record = gated_shell(tmp_path, "stdio", http_servers, "--no-complete")
    s.type("prompt review language=py" + TAB)
    s.type("thon")
    s.expect_line(f"{PROMPT}> prompt review language=python")
    s.run("", PROMPT)
    assert s.finish() == 0
    assert [m["method"] for m in read_records(record) if m.get("method") == "completion/complete"] == []
    assert "Traceback" not in s.screen


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_a_slow_server_never_holds_the_line_editor_and_is_asked_one_question_at_a_time(tmp_path, kind,
                                                                                     http_servers):
    s, record = gated_shell(tmp_path, kind, http_servers, "--slow-complete", shell_args=("-v",),
                            env={"MRTR_COMPLETE_TIMEOUT": "600", "MRTR_WAIT_NOTICE_SECONDS": "1"})
    s.type("prompt review language=py" + TAB)
    wait_for(lambda: asked(record), what="the question to reach the server")
    silence = time.monotonic() + 2  # past MRTR_WAIT_NOTICE_SECONDS: a command's request would say "still waiting"
    s.wait(lambda: time.monotonic() >= silence, "the server's silence")
    s.type("t")  # the server has not answered: the line editor goes on
    s.expect_line(f"{PROMPT}> prompt review language=pyt")
    s.type(TAB)  # the first question is unanswered: no second one
    s.type("h")
    s.expect_line(f"{PROMPT}> prompt review language=pyth")
    assert "still waiting" not in s.screen  # no person waits for it: no "Ctrl-C to stop"
    s.type(CTRL_C)  # the line goes at once, the question still unanswered
    s.prompt(PROMPT)
    s.type("prompt review language=r" + TAB)  # a new line's Tab: the last question is still unanswered
    s.expect("the server has not answered the last Tab yet")
    s.expect_line(f"{PROMPT}> prompt review language=r")
    s.type(CTRL_C)
    s.prompt(PROMPT)
    s.run("prompt greet name=ada", PROMPT)  # the line's own request is answered
    assert "greet: name=ada" in s.stdout
    assert len(asked(record)) == 1
    assert s.finish() == 0  # the unanswered question holds nothing up


def test_a_slow_server_gives_no_candidates_after_the_bound_and_the_question_is_cancelled(tmp_path,
                                                                                        http_servers):
    s, record = gated_shell(tmp_path, "stdio", http_servers, "--slow-complete", shell_args=("-v",),
                            env={"MRTR_COMPLETE_TIMEOUT": "0.5"})
    s.type("prompt review language=py" + TAB)
    s.expect("did not answer within 0.5 s")
    s.expect_line(f"{PROMPT}> prompt review language=py")  # the typed line is untouched
    wait_for(lambda: any(m.get("method") == "notifications/cancelled" for m in read_records(record)),
             what="the question to be cancelled")
    s.type(TAB)  # the last question ended: this one is asked
    wait_for(lambda: len(asked(record)) == 2, what="the second question")
    s.type(CTRL_C)
    s.prompt(PROMPT)
    assert s.finish() == 0
    assert "Traceback" not in s.screen


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_hostile_values_never_reach_the_terminal_and_are_bounded(tmp_path, kind, http_servers):
    s, record = gated_shell(tmp_path, kind, http_servers, "--hostile-complete")
    s.type("prompt review language=py" + TAB)
    s.expect("pytorch")
    s.expect("py-many-0000")
    log = s.log.getvalue()
    for hostile in ("cleared", "owned", "title", "back", "next", "\x9b", "xxxxxxxxxx"):
        assert hostile not in log
    assert "mrtr: shell:" in s.screen  # the screen was never cleared: the greeting is still there
    assert len(asked(record)) == 1
    s.type(CTRL_C)
    s.prompt(PROMPT)
    assert s.finish() == 0


def test_a_server_error_gives_no_candidates_and_no_traceback(tmp_path, http_servers):
    s, record = gated_shell(tmp_path, "stdio", http_servers, shell_args=("-v",))
    s.type("prompt greet name=a" + TAB)  # the server answers -32602 for greet
    s.expect("completion: nothing to complete there")
    s.expect_line(f"{PROMPT}> prompt greet name=a")
    s.type(CTRL_C)
    s.prompt(PROMPT)
    assert s.finish() == 0
    assert "Traceback" not in s.screen
    assert len(asked(record)) == 1
