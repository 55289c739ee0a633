"""Every hint that prints a command builds it with render/invocation.py `command_line`: the
printed line, split as the user's shell (or, inside `mrtr shell`, its line reader) splits
it and parsed by mrtr's real click commands and item parser, names exactly the server's
names and ids it was built from, whatever they hold (`-` first, `=`, `:`, `.`, spaces,
quotes, `$(...)`); a name that cannot be shown as typed (a control character) gets a
sentence instead of a command, never an escaped line that would not run.
"""

from __future__ import annotations

import json
from typing import Any

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtr_cli.cli.main import cli
from mrtr_cli.errors import UsageError
from mrtr_cli.platform import shellwords
from mrtr_cli.render.invocation import SAME_TARGET, command_line, in_shell
from mrtr_cli.schema.arguments import build_arguments, load_args_option, parse_item, validate_arguments
from mrtr_cli.schema.example import example_call
from mrtr_cli.schema.prompt_arguments import check_prompt_arguments
from mrtr_cli.shell.words import split_line
from mrtr_cli.tasks.driver import TaskContext
from tests.conftest import SERVERS, stdio_cmd

#: Characters that make a word hard to paste: option dashes, item syntax, shell syntax, spaces.
_HARD = "-=:.@ '\"$()`;&|\\ax\u00e9"
_NAMES = st.text(alphabet=st.sampled_from(_HARD), min_size=1, max_size=6)
_UNSHOWABLE = st.text(alphabet=st.sampled_from("ab\x1b\x07\x9b\n\u202e\U000e0041"), min_size=1, max_size=4).filter(
    lambda text: not text.isprintable())


def _command(hint: str, lead: str) -> str:
    """The command a hint line gives after `lead`, without the "(with the same ...)" note."""
    line = next(line for line in hint.splitlines() if lead in line)
    command = line.split(lead, 1)[1]
    return command[: -len(SAME_TARGET)] if command.endswith(SAME_TARGET) else command


def _words(command: str, *, shell: bool = False) -> list[str]:
    """`command` as words, as the user's shell (or the shell's line reader) splits it, after `mrtr`."""
    if shell:
        return split_line(command)
    words = shellwords.split(command)
    assert words[0] == "mrtr", command
    return words[1:]


def _context(words: list[str], *path: str) -> click.Context:
    """The click context of the command at `path` that mrtr's real parser makes of `words`."""
    ctx = cli.make_context("mrtr", list(words))
    for name in path:
        assert isinstance(ctx.command, click.Group), words
        found, command, rest = ctx.command.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
        assert found == name, words
        ctx = command.make_context(found, rest, parent=ctx)
    return ctx


def _no_file(path: str) -> str:
    raise AssertionError(f"reads a file {path!r}")


def _prompt_call(words: list[str]) -> tuple[str, dict[str, Any]]:
    ctx = _context(words, "prompt")
    items = [parse_item(text, _no_file) for text in ctx.params["items"]]
    base = load_args_option(ctx.params["args_json"], _no_file) if ctx.params["args_json"] else None
    return ctx.params["name"], build_arguments(items, base, None)


def _missing_hint(name: str, required: list[str]) -> str:
    prompt = {"name": name, "arguments": [{"name": n, "required": True} for n in required]}
    with pytest.raises(UsageError) as caught:
        check_prompt_arguments(name, prompt, {})
    return caught.value.hint or ""


@settings(max_examples=300, deadline=None)
@given(name=_NAMES, required=st.lists(_NAMES, min_size=1, max_size=5, unique=True), shell=st.booleans())
def test_the_missing_prompt_arguments_hint_parses_back_to_the_prompts_names(name, required, shell):
    if shell:
        with in_shell():
            hint = _missing_hint(name, required)
    else:
        hint = _missing_hint(name, required)
    assert hint.isprintable(), hint
    got_name, arguments = _prompt_call(_words(_command(hint, "give every required one: "), shell=shell))
    assert got_name == name, hint
    assert arguments == dict.fromkeys(required, "VALUE"), hint


def test_the_testers_prompt_arguments():
    hint = _missing_hint("p", ["a b", "c=d", "-x", "e:f", "$(id)"])
    assert hint == ("give every required one: mrtr prompt --args '{\"c=d\": \"VALUE\"}' -- p 'a b=VALUE' "
                    "-x=VALUE e:f=VALUE '$(id)=VALUE'" + SAME_TARGET), hint


@settings(max_examples=100, deadline=None)
@given(bad=_UNSHOWABLE)
def test_a_prompt_name_that_cannot_be_shown_gets_no_command(bad):
    hint = _missing_hint("p" + bad, ["a"])
    assert "mrtr prompt" not in hint and "cannot be shown as typed" in hint, hint
    assert hint.isprintable()
    # an argument name with a control character goes into --args, with \uXXXX escapes
    hint = _missing_hint("p", ["y" + bad])
    name, arguments = _prompt_call(_words(_command(hint, "give every required one: ")))
    assert (name, arguments) == ("p", {"y" + bad: "VALUE"}), hint


@settings(max_examples=300, deadline=None)
@given(tool=_NAMES, shell=st.booleans())
def test_the_see_the_parameters_hint_names_the_tool(tool, shell):
    schema = {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}
    with pytest.raises(UsageError) as caught:
        if shell:
            with in_shell():
                validate_arguments({}, schema, tool)
        else:
            validate_arguments({}, schema, tool)
    command = _command(caught.value.hint or "", "see the parameters: ")
    ctx = _context(_words(command, shell=shell), "tools")
    assert ctx.params["name"] == tool, command


@settings(max_examples=300, deadline=None)
@given(task_id=_NAMES, verb=st.sampled_from(["get", "wait", "update", "cancel"]), shell=st.booleans())
def test_a_task_command_names_the_task(task_id, verb, shell):
    context = TaskContext(target={"stdio": "python s.py"}, tool=None, params=None, protocol_version="2025-11-25",
                          target_words=["--stdio", "python s.py"], origin="task")
    if shell:
        with in_shell():
            command = context.command(verb, task_id)
    else:
        command = context.command(verb, task_id)
    words = _words(command, shell=shell)
    assert words[:2] == ([] if shell else ["--stdio", "python s.py"]) or shell, command
    ctx = _context(words, "task", verb)
    assert ctx.params["task_id"] == task_id, command


@settings(max_examples=100, deadline=None)
@given(word=_UNSHOWABLE)
def test_the_builder_prints_no_command_it_cannot_show(word):
    assert command_line(["task", "get"], [word]) is None
    assert command_line(["tools"], ["x"], target=["--stdio", word]) is None
    assert command_line(["tools"], ["x" * 3000]) is None


def test_inside_the_shell_a_hint_is_quoted_for_the_shells_line_reader():
    """The shell splits every line as a POSIX shell does, on Windows too: the hint read there
    is quoted that way, without `mrtr` and its target."""
    with in_shell():
        assert command_line(["tools"], ["-dash tool"], target=["--stdio", "x"]) == "tools -- '-dash tool'"
        assert command_line(["task", "get"], ["it's"]) == "task get 'it'\"'\"'s'"


def test_the_example_follows_a_local_ref():
    """`tools NAME`'s example reads a property given as a local `$ref` through it (bounded:
    a cycle, a remote or unresolvable one keeps the placeholder)."""
    schema = {"type": "object", "required": ["k", "c", "r", "j"],
              "properties": {"k": {"$ref": "#/$defs/x"}, "c": {"$ref": "#/$defs/loop"},
                             "r": {"$ref": "https://example.invalid/s.json"}, "j": {"$ref": "#/$defs/y"}},
              "$defs": {"x": {"type": "string", "enum": ["r"]}, "loop": {"$ref": "#/$defs/loop"},
                        "y": {"$ref": "#/$defs/x"}}}
    line = example_call({"name": "e11", "inputSchema": schema}, [])
    words = _words(line)
    assert words[:2] == ["call", "e11"] and "k=r" in words and "j=r" in words, line


def _raw_server(tmp_path, script: dict[str, Any]) -> list[str]:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    return ["--stdio", stdio_cmd(SERVERS / "raw_server.py", str(path))]


@pytest.mark.parametrize("task_id", ["-h", "a b", "$(id)"])
def test_a_refused_cancel_names_the_task_get_that_works(mrtr, tmp_path, task_id):
    """2025-11-25 `tasks/cancel` refused (-32602) for a task still working: the hint's `task
    get` carries the target, quotes the id and puts `--` before one that starts with `-`;
    run as printed, it shows that task."""
    now = "2026-12-04T00:00:00Z"
    task = {"taskId": task_id, "status": "working", "createdAt": now, "lastUpdatedAt": now, "ttl": 60000,
            "pollInterval": 500}
    target = _raw_server(tmp_path, {
        "discoverError": {"code": -32601, "message": "Method not found"},
        "initialize": {"protocolVersion": "2025-11-25", "serverInfo": {"name": "leg", "version": "1"},
                       "capabilities": {"tools": {}, "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}}}},
        "methods": {"tasks/cancel": [{"error": {"code": -32602, "message": "cannot cancel"}}],
                    "tasks/get": [{"result": task}]}})
    run = mrtr(*target, "task", "cancel", "--", task_id)
    assert run.code != 0, run.stderr
    command = _command(run.stderr, "see it with: ")
    words = _words(command)
    assert words[:2] == target, command
    ctx = _context(words, "task", "get")
    assert ctx.params["task_id"] == task_id, command
    shown = mrtr("--json", *words)
    assert shown.code == 0, shown.stderr
    assert json.loads(shown.stdout)["taskId"] == task_id


@pytest.mark.parametrize("name", ["-dash tool", "plain", "$(id)"])
def test_start_again_puts_the_options_before_a_guarded_name(name):
    """A pending call's "start it again" command (engine/pending.py): its options come
    before the `--` that guards a name starting with `-`, so each is still read as one."""
    from mrtr_cli.engine.pending import start_again_legacy

    doc = {"method": "tools/call", "protocolVersion": "2025-11-25", "target": {"stdio": "python s.py"},
           "params": {"name": name, "arguments": {"a b": "x"}}}
    command = start_again_legacy(doc)
    words = _words(command)
    assert words[:2] == ["--stdio", "python s.py"], command
    ctx = _context(words, "call")
    assert ctx.params["tool"] == name, command
    assert json.loads(ctx.params["args_json"]) == {"a b": "x"}, command
    assert ctx.find_root().params["protocol"] == "2025-11-25" or ctx.params.get("protocol") == "2025-11-25", command


@settings(max_examples=200, deadline=None)
@given(name=_NAMES, value=st.one_of(st.integers(), st.booleans(), st.lists(st.integers(), max_size=2)))
def test_give_it_as_text_names_the_argument(name, value):
    """A prompt argument given as JSON that is not a string: the hint's `NAME=TEXT` item reads
    back, through mrtr's item parser, as that one argument with the value as text; an item
    that would not (`c=d`) is not printed."""
    from mrtr_cli.schema.prompt_arguments import require_strings

    with pytest.raises(UsageError) as caught:
        require_strings({name: value}, "prompt argument")
    hint = caught.value.hint or ""
    if hint.startswith("give it as text: "):
        (text,) = shellwords.split(hint[len("give it as text: "):])
        parsed = parse_item(text, _no_file)
        assert (parsed.path, build_arguments([parsed], None, None)) == ([name], {name: json.dumps(value)}), hint
    else:
        assert hint == "give it as text (NAME=TEXT, or a JSON string in --args)", hint


def test_the_missing_prompt_arguments_hint_runs_as_printed(mrtr, tmp_path):
    """The tester's prompt (argument names `a b`, `c=d`, `-x`, `e:f`, `$(id)`) at the
    command line: the hint is a whole command with this run's target, and run as printed
    it gets the prompt with exactly those arguments."""
    names = ["a b", "c=d", "-x", "e:f", "$(id)"]
    prompt = {"name": "p", "arguments": [{"name": n, "required": True} for n in names]}
    target = _raw_server(tmp_path, {"discover": {
        "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"prompts": {}},
        "ttlMs": 0, "cacheScope": "public"}, "methods": {
        "prompts/list": [{"result": {"resultType": "complete", "prompts": [prompt], "ttlMs": 0,
                                     "cacheScope": "public"}}],
        "prompts/get": [{"result": {"resultType": "complete",
                                    "messages": [{"role": "user", "content": {"type": "text", "text": "ok"}}]}}]}})
    run = mrtr(*target, "prompt", "p")
    assert run.code == 2, run.stderr
    command = _command(run.stderr, "give every required one: ")
    words = _words(command)
    assert words[:2] == target, command
    assert _prompt_call(words) == ("p", dict.fromkeys(names, "VALUE")), command
    again = mrtr(*words)
    assert again.code == 0, again.stderr
