"""Help that teaches: examples and argument syntax first, a command's own options,
then the shared ones under headings from one table; `mrtr help TOPIC` pages from package data,
the same text as the README's and docs/ pages' sections (scripts/sync-help); exit-code precedence decided in one place.

Help pages and usage errors need no server: mrtr runs in this process (`mrtr_here`); the
one test with a server runs it as a process."""

from __future__ import annotations

import json
import re

import click
import pytest

from tests.conftest import ROOT

SHARED_HEADINGS = ("Target options:", "Answers options:", "Tasks options:", "Output options:",
                   "Time and protocol options:", "Diagnostics options:", "Other options:")


def test_call_help_teaches_within_one_screen(mrtr_here):
    r = mrtr_here("call", "--help")
    assert r.code == 0, r.stderr
    lines = r.stdout.splitlines()
    first_shared = min(i for i, line in enumerate(lines) if line in SHARED_HEADINGS)
    assert first_shared <= 40, "\n".join(lines[:first_shared])
    head = "\n".join(lines[:first_shared])
    assert head.startswith("Usage: mrtr call [OPTIONS] TOOL [ARG]...\n\n  Call TOOL on the server (tools/call)")
    assert "Examples:" in head and head.count("mrtr ") >= 3
    for syntax in ("count=3", "note:=null", "body=@notes.txt", "address.city=Paris", "tags=a tags=b"):
        assert syntax in head
    assert "--no-validate" in head and "--args" in head  # its own options, before the shared ones
    # The shared options, grouped, each once.
    for heading in ("Target options:", "Answers options:", "Tasks options:", "Output options:", "Diagnostics options:"):
        assert lines.count(heading) == 1, heading
    assert r.stdout.index("--url URL") > r.stdout.index("Target options:")
    assert r.stdout.index("If the server creates a task") > r.stdout.index("Tasks options:")
    assert r.stdout.count("--answers FILE") == 1


@pytest.mark.parametrize("words", [["prompt"], ["read"], ["resume"], ["batch"], ["tools"], ["discover"],
                                   ["servers"], ["task", "wait"], ["task", "list"]])
def test_every_command_help_starts_with_what_it_does_then_examples(mrtr_here, words):
    r = mrtr_here(*words, "--help")
    assert r.code == 0, r.stderr
    usage, _, rest = r.stdout.partition("\n\n")
    assert usage.startswith(f"Usage: mrtr {' '.join(words)}")
    assert rest.startswith("  ") and rest.strip()[0].isupper()  # the description comes first
    assert "\nExamples:\n  mrtr " in r.stdout


def test_an_option_missing_from_the_table_falls_into_other_options():
    from mrtr_cli.cli.help.format import HelpCommand
    from mrtr_cli.cli.options import _options

    shared = _options(click.option("--brand-new", is_flag=True, help="Added by someone else."),
                      click.option("--json", "json_mode", is_flag=True, help="JSON."))

    @click.command("demo", cls=HelpCommand)
    @click.option("--mine", help="Its own.")
    @shared
    def demo(**kw):
        """Do a demo."""

    text = demo.get_help(click.Context(demo, info_name="demo"))
    assert text.index("--mine") < text.index("Output options:") < text.index("--json")
    assert text.index("Other options:") < text.index("--brand-new")


def _topic_body(text: str) -> str:
    return "\n".join(line for line in text.strip().splitlines()
                     if not line.startswith("<!--")).strip()


def _sync_help() -> dict:
    """scripts/sync-help's globals: SOURCES (topic -> source file, section, title), section()."""
    import runpy

    return runpy.run_path(str(ROOT / "scripts" / "sync-help"), run_name="sync_help")


def test_help_exit_codes_is_the_readme_table(mrtr_here):
    from mrtr_cli.cli.commands.help import topic_text
    from mrtr_cli.render.markdown import plain_text

    page = topic_text("exit-codes")
    assert page.startswith("# Exit codes\n")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Exit codes\n", 1)[1].split("\n## ", 1)[0]
    assert _topic_body(_sync_help()["unlink"](section, "README.md")) == _topic_body(page.split("\n", 1)[1])
    assert "| 130 |" in section and "When several codes apply to one run" in section
    r = mrtr_here("help", "exit-codes")  # piped: the page as plain text
    assert r.code == 0, r.stderr
    assert r.stdout == plain_text(page) and r.stdout.startswith("EXIT CODES\n")


@pytest.mark.parametrize("topic", ["exit-codes", "answers", "arguments", "environment", "configuration"])
def test_every_topic_is_its_docs_section(mrtr_here, topic):
    """One source: each `mrtr help TOPIC` page is a section of the README or of a docs/
    page, copied by scripts/sync-help (run it after editing the section)."""
    sync = _sync_help()
    source, heading, title = sync["SOURCES"][topic]
    section = sync["unlink"](sync["section"]((ROOT / source).read_text(encoding="utf-8"), heading), source)
    assert "](" not in section  # no Markdown link reaches the terminal
    from mrtr_cli.cli.commands.help import topic_text

    page = topic_text(topic)
    assert page.startswith(f"# {title}\n")
    assert _topic_body(section) == _topic_body(page.split("\n", 1)[1]), \
        f"{source} and mrtr help {topic} differ: run scripts/sync-help"


@pytest.mark.parametrize("topic", ["exit-codes", "answers", "arguments", "environment", "configuration"])
def test_every_topic_is_a_page(mrtr_here, topic):
    r = mrtr_here("help", topic)
    assert r.code == 0 and r.stdout.strip(), r.stderr
    assert topic in mrtr_here("help").stdout


def test_help_names_commands_and_refuses_unknown_words(mrtr_here):
    r = mrtr_here("help", "call")
    assert r.code == 0 and r.stdout.startswith("Usage: mrtr call [OPTIONS] TOOL [ARG]...")
    r = mrtr_here("help", "task", "wait")
    assert r.code == 0 and r.stdout.startswith("Usage: mrtr task wait")
    r = mrtr_here("help", "exitcodes")
    assert r.code == 2 and "did you mean: exit-codes?" in r.stderr
    r = mrtr_here("help", "zzzz")
    assert r.code == 2 and "did you mean" not in r.stderr and "topics: exit-codes" in r.stderr


def test_the_environment_topic_names_every_variable_mrtr_reads():
    from mrtr_cli.cli.commands.help import topic_text

    text = topic_text("environment")
    source = "\n".join(p.read_text() for p in (ROOT / "mrtr_cli").rglob("*.py"))
    # Every MRTR_* name in a string literal, however it is read (os.environ, seconds_setting,
    # a table of settings), except the one mrtr sets rather than reads.
    set_not_read = {"MRTR_STDIO_RUN"}  # marks a stdio server's environment (docs/limits.md)
    read = set(re.findall(r"[\"'](MRTR_[A-Z_]+)[\"']", source)) - set_not_read
    assert {"MRTR_AUTH_WAIT", "MRTR_COMPLETE_TIMEOUT", "MRTR_OAUTH_SCOPE", "MRTR_URL"} <= read  # not only os.environ
    named = set(re.findall(r"`(MRTR_[A-Z_]+)", text))
    assert sorted(read - named) == []  # a variable mrtr reads and the topic does not name
    assert sorted(named - read) == []  # a variable the topic names and mrtr does not read


def test_exit_code_precedence_is_decided_in_one_place():
    from mrtr_cli.errors import PRECEDENCE, ExitStatus, winning_status

    assert winning_status(6, 1) == 1  # a declined form whose result has isError: true
    assert winning_status(6, 7) == 7  # a task cancelled after --timeout struck
    assert winning_status(7, 130) == 130
    assert winning_status() == 0
    # The README / help text states the same order.
    order = ", ".join(str(int(s)) for s in PRECEDENCE if s != ExitStatus.SUCCESS)
    from mrtr_cli.cli.commands.help import topic_text

    assert f"the first of {order} wins" in " ".join(topic_text("exit-codes").split())


def test_a_declined_form_with_an_is_error_result_exits_1(mrtr, tmp_path):
    from tests.conftest import SERVERS, stdio_cmd

    answers = tmp_path / "a.json"
    answers.write_text('{"inputResponses": {"ok": {"action": "decline"}}}')
    r = mrtr("--stdio", stdio_cmd(SERVERS / "forms_server.py"), "call", "strict_confirm", "--answers", answers)
    assert (r.code, r.stdout) == (1, "refused: decline\n"), r.stderr


@pytest.mark.parametrize("args", [
    ["listen", "--tools", "--count", "-1"], ["ping", "-c", "abc"], ["ping", "-i", "nan"],
    ["--color", "bogus", "tools"], ["ping", "--no-such-option"], ["no-such-command"],
])
def test_a_bad_option_value_is_one_error_line_and_a_hint(mrtr_here, args):
    r = mrtr_here("--stdio", "unused", *args)
    assert r.code == 2 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith("mrtr: error: "), r.stderr
    assert "Usage:" not in r.stderr and "Try '" not in r.stderr
    if len(lines) == 2:
        assert lines[1].startswith("  see: mrtr") and lines[1].endswith("--help")


def test_a_bad_option_value_with_json_is_the_json_error_object(mrtr_here):
    r = mrtr_here("--json", "ping", "-c", "abc")
    assert r.code == 2
    assert json.loads(r.stderr)["error"]["exitCode"] == 2


@pytest.mark.parametrize("words", [[], ["task"], ["auth"]])
def test_a_group_without_its_command_prints_its_help_as_help_and_exits_2(mrtr_here, words):
    r = mrtr_here(*words)
    assert r.code == 2 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert lines[0].startswith("Usage: mrtr") and len(lines) > 5  # the help, not one flattened error line
    assert "mrtr: error:" not in r.stderr
    r = mrtr_here("--json", *words)  # for scripts: one JSON error line
    assert r.code == 2 and r.stdout == ""
    group = " ".join(["mrtr", *words])
    message = f"{group}: missing command" if words else "Missing command."  # the top level says click's words
    assert r.stderr.splitlines() == [json.dumps({"error": {"exitCode": 2, "code": None, "message": message,
                                                           "data": None, "hint": f"see: {group} --help"}})]


def test_a_command_followed_by_another_word_says_it_takes_no_topic(mrtr_here):
    r = mrtr_here("help", "call", "extra")
    assert r.code == 2
    assert r.stderr.splitlines() == ["mrtr: error: help: call is a command and takes no topic or subcommand ('extra')",
                                     "  see: mrtr help call"]
    r = mrtr_here("help", "task", "nope")
    assert r.code == 2 and "help: task has no subcommand 'nope'" in r.stderr and "wait" in r.stderr


def test_a_topic_followed_by_another_word_names_the_extra_word(mrtr_here):
    r = mrtr_here("help", "exit-codes", "extra")
    assert r.code == 2
    assert "the topic exit-codes takes no further word ('extra')" in r.stderr
