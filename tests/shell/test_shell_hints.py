"""Hints and messages inside `mrtr shell` name what can be typed at its prompt (docs/shell.md,
"What runs inside"), and the same messages at the command line keep naming `mrtr ...`:
`help`, a sign-in (`auth login`), a call kept after Ctrl-C at a form (`resume`), roots on
a 2025-11-25 server, withheld prompt arguments, URL-mode requests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.auth_support import run_mrtr, sign_in
from tests.conftest import ROOT, SERVERS, stdio_cmd, url_args

SHELL_SERVER = SERVERS / "shell_server.py"
LEGACY_SERVER = SERVERS / "legacy_server.py"
FORMS_SERVER = SERVERS / "forms_server.py"


def test_help_of_an_unknown_word_names_the_shells_help(mrtr):
    target = ["--stdio", stdio_cmd(SHELL_SERVER)]
    run = mrtr(*target, "shell", input="help nope\n")
    assert run.code == 2, run.stderr
    assert "commands: help\n" in run.stderr, run.stderr
    assert "mrtr help" not in run.stderr
    outside = mrtr("help", "nope")
    assert outside.code == 2 and "commands: mrtr help\n" in outside.stderr, outside.stderr


def test_a_sign_in_hint_inside_the_shell_names_auth_login_and_it_works(tmp_path, oauth_server, browser):
    """The sign-in commands are built for the run before any line of a shell runs; inside,
    a message names `auth login` (a command of the shell, over its one server), with the
    options it needs, and that line does what the message says."""
    server = oauth_server()
    sign_in(tmp_path, server, browser)
    run = run_mrtr(tmp_path, *url_args(server.mcp_url), "shell", browser=browser, input=(
        "call admin_tool\nauth login --scope mcp:admin\ncall admin_tool\nauth logout\ncall echo text=b\n"))
    assert run.code == 8, run.stderr
    assert "to grant it, run: auth login --scope mcp:admin\n" in run.stderr, run.stderr
    assert "requires sign-in; run: auth login\n" in run.stderr, run.stderr
    assert "mrtr --url" not in run.stderr, run.stderr
    assert "admin" in run.stdout.splitlines()[0], run.stdout  # the line the hint named signed in for it
    outside = run_mrtr(tmp_path, *url_args(server.mcp_url), "call", "echo", "text=c", browser=browser)
    assert outside.code == 8 and f"run: mrtr --url {server.mcp_url} auth login" in outside.stderr, outside.stderr


@pytest.mark.pty
def test_ctrl_c_at_a_form_in_the_shell_names_a_bare_resume(tmp_path, http_servers):
    """At a terminal, Ctrl-C while a form asks keeps the call for a bare `resume`: the
    message says that first, and names `mrtr resume FILE` only for after the shell (the
    call is saved too: leaving the shell loses nothing)."""
    from tests.shell.test_pty import CTRL_C, started

    s, _ = started("stdio", tmp_path, http_servers)
    s.submit("call unlock")
    s.expect("The password, please")
    s.type(CTRL_C)
    s.prompt("shell-test (resume)")
    assert "the call is kept: resume finishes it here" in s.screen, s.screen
    import json
    import re

    saved = re.search(r"after this shell: mrtr resume (\S+)", s.log.getvalue())
    assert saved is not None, s.screen
    assert json.loads(Path(saved.group(1)).read_text(encoding="utf-8"))["params"]["name"] == "unlock"
    s.run("resume -a password=open-sesame")
    assert s.finish() == 0
    assert s.stdout.splitlines()[-1] == "unlocked"



@pytest.mark.pty
def test_a_stop_signal_at_a_form_in_the_shell_names_only_what_works_after_it(tmp_path, http_servers):
    """SIGTERM while a form asks ends the shell with that line: the message names the
    `mrtr resume FILE` that finishes the saved call, never a bare `resume` (no line follows)."""
    import json
    import re
    import signal

    import pexpect

    from tests.shell.test_pty import started
    from tests.support import SAFETY

    s, _ = started("stdio", tmp_path, http_servers)
    s.submit("call unlock")
    s.expect("The password, please")
    s.child.kill(signal.SIGTERM)
    s.child.expect(pexpect.EOF, timeout=SAFETY)
    s.child.close()
    shown = s.log.getvalue() + (s.child.before or "")
    assert s.child.exitstatus == 130, shown
    assert "mrtr: shell: ended by SIGTERM" in shown, shown
    assert "resume finishes it here" not in shown, shown
    saved = re.search(r"mrtr resume (\S+)", shown)
    assert saved is not None, shown
    assert json.loads(Path(saved.group(1)).read_text(encoding="utf-8"))["params"]["name"] == "unlock"


def test_roots_on_a_line_of_an_older_servers_shell_are_said_to_go_on_the_shells_line(mrtr):
    """A 2025-11-25 server is told the client's capabilities once, at `initialize`: a line's
    `--root` (or `--sampling-command`) that the shell did not declare cannot reach it. The
    line says so in one warning, and an unknown tool's hint names the shell's own command
    line, where the option works; given there, a line's own roots are answered."""
    legacy = ["--stdio", stdio_cmd(LEGACY_SERVER, "--version", "2025-11-25")]
    run = mrtr(*legacy, "shell", input="call ask_roots --root .\ncall nope\n")
    assert run.code == 2, run.stderr
    warning = ("mrtr: warning: --root on this line cannot reach this server: an MCP 2025-11-25 server is told "
               "what the client answers once, when the shell starts; give it on the shell's own command line: "
               "mrtr --root PATH ... shell\n")
    assert run.stderr.count(warning) == 1, run.stderr
    assert "give them on the shell's own command line, mrtr --sampling-command CMD --root PATH ... shell)" \
        in run.stderr, run.stderr
    declared = mrtr(*legacy, "--root", str(ROOT / "docs"), "shell", input="call ask_roots --root .\n")
    assert declared.code == 0 and "warning" not in declared.stderr, declared.stderr
    assert declared.stdout.split() == [(ROOT / "docs").as_uri(), ROOT.as_uri()]
    outside = mrtr(*legacy, "call", "nope")
    assert "(--sampling-command CMD) or roots (--root PATH); this run declares neither\n" in outside.stderr
    modern = mrtr("--stdio", stdio_cmd(SHELL_SERVER), "shell", input="call nope --root .\n")
    assert "warning" not in modern.stderr and "shell's own command line" not in modern.stderr, modern.stderr


def test_the_help_of_withheld_arguments_names_a_prompts_arguments_for_a_prompt():
    """A pending document's `withheld._help` says whose arguments were left out: a
    prompt's for `prompts/get` (no "tool arguments", no "call"), a tool's for `tools/call`."""
    from mrtr_cli.engine.pending import build_pending

    def withheld_help(method: str) -> str:
        doc = build_pending(target={"url": "http://x.example/mcp"}, protocol_version="2026-07-28", method=method,
                            params={"name": "p", "arguments": {"topic": "t", "apiToken": "v"}},
                            input_requests={}, request_state=None, missing=[])
        assert doc["withheld"]["arguments"] == ["apiToken"]
        return doc["withheld"]["_help"]

    prompt = withheld_help("prompts/get")
    assert prompt.startswith("Secret prompt arguments, left out of params.arguments.") and "tool" not in prompt
    assert prompt.endswith("a prompt command started again takes it as NAME=VALUE."), prompt
    tool = withheld_help("tools/call")
    assert tool.startswith("Secret tool arguments, left out of params.arguments.")
    assert tool.endswith("a call started again takes it as NAME=VALUE."), tool


def test_a_url_mode_request_is_answered_in_the_shell_by_the_resume_its_hint_names(mrtr):
    """A URL-mode request has no fields: the exit-5 hint names `resume -a KEY=accept` (its
    answer once the person has been at the URL), and that line answers it (the flag is
    used, never said to be "not used (yet)"); another value is one line, exit 2."""
    forms = ["--stdio", stdio_cmd(FORMS_SERVER)]
    run = mrtr(*forms, "shell", input="call url_login\nresume -a login=accept\ncall url_login -a login=maybe\n")
    assert run.code == 5, run.stderr
    assert ("  answer and go on here: resume -a login=accept (accept once you have been at the URL; or decline, "
            "cancel), or resume --answers FILE\n") in run.stderr, run.stderr
    assert "FIELD=VALUE" not in run.stderr and "not used" not in run.stderr, run.stderr
    assert run.stdout.splitlines()[-1] == "connected", run.stdout
    assert ('mrtr: error: -a login=...: input "login" is a URL-mode request (it has no fields): its '
            "answer is accept, decline or cancel\n") in run.stderr, run.stderr
    outside = mrtr(*forms, "call", "url_login", "-a", "login=decline")
    assert outside.code == 6 and outside.stdout.strip() == "not connected (decline)", outside.stderr  # declined
    assert "not used" not in outside.stderr, outside.stderr


def test_an_older_servers_url_request_names_a_start_again_that_works(mrtr):
    """A 2025-11-25 server's call cannot be resumed: the shell names the call started again
    with `-a elicitation-1=accept` (its keys count from one on every line), which works."""
    legacy = ["--stdio", stdio_cmd(LEGACY_SERVER, "--version", "2025-11-25")]
    run = mrtr(*legacy, "shell", input="call visit_url\nresume\n")
    assert run.code == 5, run.stderr
    assert "  call visit_url -a elicitation-1=accept\n" in run.stderr, run.stderr
    assert "start it again with the answers: call visit_url -a elicitation-1=accept (accept once" in run.stderr
    assert "FIELD=VALUE" not in run.stderr, run.stderr
    again = mrtr(*legacy, "shell", input="call visit_url -a elicitation-1=accept\n")
    assert again.code == 0 and again.stdout.strip() == "url elicitation: accept", again.stderr


def test_hints_naming_stdin_or_a_session_option_say_what_works_inside(mrtr):
    """Inside the shell `-` is not stdin (the shell reads its lines there), and an option
    that sets up the session is refused on a line: a hint names neither as if it worked on
    the line. A message built in the stdio reader thread (a message over the limit) is
    shell-aware too. At the command line both hints stay as they were."""
    target = ["--stdio", stdio_cmd(SHELL_SERVER)]
    big = "x" * 3000
    run = mrtr(*target, "--max-message-size", "2K", "shell",
               input=f"call echo text=a --answers /dev/null\ncall echo text={big}\n")
    assert run.code == 2, run.stderr
    assert "not a regular file\n  give a regular file\n" in run.stderr, run.stderr
    assert ("e.g. --max-message-size 2M (on the command line of a new shell: mrtr ... shell)\n"
            in run.stderr), run.stderr
    tasks = mrtr(*target, "shell", input="task list --remote\n")
    assert "\n  `task list` (without --remote) shows the tasks recorded on this machine\n" in tasks.stderr, tasks.stderr
    outside = mrtr(*target, "task", "list", "--remote")
    assert "`mrtr task list` (without --remote)" in outside.stderr, outside.stderr
    outside = mrtr(*target, "call", "echo", "text=a", "--answers", "/dev/null")
    assert "give a regular file, or - to read stdin\n" in outside.stderr, outside.stderr
    outside = mrtr(*target, "--max-message-size", "2K", "call", "echo", f"text={big}")
    assert outside.code == 4 and "e.g. --max-message-size 2M\n" in outside.stderr, outside.stderr


@pytest.mark.pty
def test_at_a_terminal_a_url_requests_hint_names_the_resume_that_answers_it(tmp_path):
    """At a real terminal (`--no-input` on the line, so nothing is asked): the exit-5 hint
    of a URL-mode request names `resume -a login=accept`, and typing it finishes the call."""
    from tests.shell.test_pty import Shell

    s = Shell(tmp_path, "--stdio", stdio_cmd(FORMS_SERVER))
    s.prompt("forms-test")
    s.submit("call url_login --no-input")
    s.prompt("forms-test (resume)")
    assert "answer and go on here: resume -a login=accept" in s.screen, s.screen
    assert "FIELD=VALUE" not in s.screen, s.screen
    s.run("resume -a login=accept", "forms-test")
    assert s.finish() == 0
    assert s.stdout.splitlines()[-1] == "connected"


def test_a_tools_example_inside_the_shell_is_a_line_the_shell_runs(mrtr):
    """`tools NAME` ends with an example call; inside the shell it names no target (a target
    option on a line is refused there), and running it as shown works."""
    target = ["--stdio", stdio_cmd(SHELL_SERVER)]
    run = mrtr(*target, "shell", input="tools echo\n")
    assert run.code == 0, run.stderr
    example = run.stdout.split("Example:\n", 1)[1].strip()
    assert example.startswith("call echo "), run.stdout
    again = mrtr(*target, "shell", input=example + "\n")
    assert again.code == 0, again.stderr
    outside = mrtr(*target, "tools", "echo")
    assert outside.code == 0 and "\n  mrtr --stdio " in outside.stdout, outside.stdout
