"""Start-up cost of a plain stdio call and of `mrtr shell` from a script, as an import set
(docs/performance.md): which modules they load, which of them load before the server is
launched, and how often the garbage collector runs. Sets and counts, not times: they do
not depend on the machine's speed.

`mrtr` runs in a real process under a small wrapper that records `sys.modules` when the
stdio server is launched (an audit hook on `subprocess.Popen`) and when the run ends, and
counts the garbage collector's runs (`gc.callbacks`).
"""

from __future__ import annotations

import json
import subprocess

from mrtr_cli.cli.main import COMMAND_MODULES
from tests.conftest import PY, ROOT, SAFETY, SERVERS, clean_env, stdio_cmd

#: Runs `python -m mrtr_cli ARGS...` and writes the module sets to the file named by argv[1].
WRAPPER = r"""
import atexit, gc, json, re, runpy, sys
out, sys.argv = sys.argv[1], ["mrtr", *sys.argv[2:]]
seen = {"launches": 0, "collections": 0}
def collected(phase, info):
    if phase == "start":
        seen["collections"] += 1
gc.callbacks.append(collected)
def hook(event, args):
    if event == "subprocess.Popen":
        seen["launches"] += 1
        seen.setdefault("launch", sorted(sys.modules))
sys.addaudithook(hook)
def done():
    seen["end"] = sorted(sys.modules)
    seen["patterns"] = sorted({key[1] for cache in (getattr(re, "_cache", {}), getattr(re, "_cache2", {}))
                               for key in cache if isinstance(key[1], str)})
    with open(out, "w") as fh:
        json.dump(seen, fh)
atexit.register(done)
runpy.run_module("mrtr_cli", run_name="__main__", alter_sys=True)
"""

#: Nothing a plain call over stdio needs: `logging` (loaded by `concurrent.futures`),
#: `hashlib` (loads OpenSSL), `base64`, the HTTP client and the HTTP transport, sign-in, the
#: schema modules of forms and of full JSON Schema validation, and the header-value rules
#: (only for -H), the protocol's message types (imported for type checking only), the OAuth
#: variables' record (only a run that signs in) and pending documents (only when a round
#: stops for input), nor `regex` and the module that matches a server's patterns with it (only for a
#: schema with a pattern), nor the legacy (handshake) session, which a modern server never gets
#: (the era verdict and `--protocol` read its versions from protocol/legacy_versions.py).
#: (`tempfile` is not listed: the first call to a server writes its era to the cache with it.)
NEVER_ON_A_PLAIN_CALL = ("logging", "concurrent.futures", "hashlib", "base64", "traceback", "httpx2",
                         "mrtr_cli.transport.http.transport", "mrtr_cli.transport.http.sse.events",
                         "jsonschema", "mrtr_cli.auth", "mrtr_cli.schema.elicit", "mrtr_cli.config.values",
                         "mrtr_cli.protocol.messages", "mrtr_cli.oauth_variables", "mrtr_cli.engine.pending", "regex",
                         "mrtr_cli.schema.patterns", "mrtr_cli.protocol.legacy")

#: Patterns of mrtr's that a plain call does not compile (its output is printable, it names no
#: header, URL, size or number, it has no usage error): each is compiled at its first use. (jsonfile's lone-surrogate
#: pattern is left out: the test server's tool list holds non-ASCII names, which are searched.)
def _lazy_patterns() -> dict[str, str]:
    from mrtr_cli import credentials
    from mrtr_cli.cli import main
    from mrtr_cli.config import target
    from mrtr_cli.protocol import headers
    from mrtr_cli.render import sanitize
    from mrtr_cli.schema import arguments
    from mrtr_cli.transport import limits

    named = {"sanitize._JOINERS": sanitize._JOINERS, "sanitize._SGR": sanitize._SGR,
             "target._TOKEN": target._TOKEN, "main._ASSIGNMENT": main._ASSIGNMENT, "main._EXTRA": main._EXTRA,
             "target._FIELD_VALUE": target._FIELD_VALUE, "headers._TOKEN": headers._TOKEN,
             "arguments._INT": arguments._INT, "arguments._NUMBER": arguments._NUMBER, "limits._SIZE": limits._SIZE,
             **{f"credentials.{n}": getattr(credentials, n)
                for n in ("_WORD", "_PART", "_PATH_PARAM", "_QUERY_PARAM", "_USERINFO", "_URL_IN_TEXT")}}
    return named


#: What loads while the server boots, not before it is launched: the command line parser,
#: the session, the era probe and the engine, and `typing` (mrtr_cli.errors, which the entry
#: point loads first, imports it for the type checker only).
AFTER_THE_LAUNCH = ("typing", "click", "mrtr_cli.cli.main", "mrtr_cli.protocol.era.opener",
                    "mrtr_cli.protocol.era.probe", "mrtr_cli.protocol.era.verdict", "mrtr_cli.protocol.session",
                    "mrtr_cli.protocol.waiting", "mrtr_cli.engine.mrtr", "mrtr_cli.responders.chain",
                    "mrtr_cli.schema.quickcheck")


#: What `mrtr shell` reading a script does not need: the terminal's line editor, completion
#: and history (and prompt_toolkit, rich and questionary under them), the grammar the shell
#: reads from the commands (for completion and a bare `resume`), the help summaries (for
#: `help`), the `--strict` checks, `mrtr batch`'s input format, records and runner (the
#: shell shares only the `App` of many lines, batch/manylines.py), and all that a plain
#: call does without.
NEVER_IN_A_SCRIPTED_SHELL = (*NEVER_ON_A_PLAIN_CALL, "prompt_toolkit", "rich", "questionary",
                             "mrtr_cli.shell.terminal", "mrtr_cli.shell.completion", "mrtr_cli.shell.history",
                             "mrtr_cli.shell.grammar", "mrtr_cli.cli.help.summaries",
                             "mrtr_cli.protocol.checks.strict", "mrtr_cli.render.markdown",
                             "mrtr_cli.batch.lines", "mrtr_cli.batch.records", "mrtr_cli.batch.runner")


def imported(tmp_path, *args: str, stdin: str | None = None) -> tuple[subprocess.CompletedProcess[str], dict]:
    out = tmp_path / "modules.json"
    proc = subprocess.run([PY, "-c", WRAPPER, str(out), *args], capture_output=True, text=True, cwd=ROOT,
                          env=clean_env(tmp_path), input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
                          timeout=SAFETY)
    return proc, json.loads(out.read_text())


def loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    """Those of `names` (a package counts with its submodules) among `modules`."""
    return sorted(m for m in modules for n in names if m == n or m.startswith(n + "."))


def test_a_plain_stdio_call_imports_only_what_it_needs(tmp_path):
    proc, seen = imported(tmp_path, "--stdio", stdio_cmd(SERVERS / "core_server.py"), "call", "shed")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "mrtr_cli.protocol.era.opener" in seen["end"]  # the record covers the whole call
    assert loaded(seen["end"], NEVER_ON_A_PLAIN_CALL) == []
    assert loaded(seen["launch"], AFTER_THE_LAUNCH) == []
    assert seen["launches"] == 1  # the server launched early is the one the call uses
    assert [name for name, text in _lazy_patterns().items() if text in seen["patterns"]] == []
    # The garbage collector does not go through the objects of every module loaded, again and
    # again, while mrtr loads (cli/entry.py: about thirty collections with Python's default).
    assert seen["collections"] <= 5


def test_a_scripted_shell_imports_only_what_it_needs(tmp_path):
    """`mrtr --stdio CMD shell` with lines on stdin: its server is launched before click loads
    (and adopted: one launch), and nothing the terminal, help or --strict need is loaded."""
    proc, seen = imported(tmp_path, "--stdio", stdio_cmd(SERVERS / "core_server.py"), "shell",
                          stdin="call shed\ncall shed\n")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "mrtr_cli.shell.loop" in seen["end"] and "mrtr_cli.engine.mrtr" in seen["end"]  # the lines ran
    assert loaded(seen["end"], NEVER_IN_A_SCRIPTED_SHELL) == []
    assert loaded(seen["launch"], AFTER_THE_LAUNCH) == []
    assert seen["launches"] == 1


def test_the_check_sees_a_module_a_call_does_import(tmp_path):
    """The check above can fail: a call whose server asks a question (a form) loads the
    form-schema module, and it shows up in the set."""
    proc, seen = imported(tmp_path, "--stdio", stdio_cmd(SERVERS / "core_server.py"), "call", "typed",
                          "-a", "count=3")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "mrtr_cli.schema.elicit" in loaded(seen["end"], NEVER_ON_A_PLAIN_CALL)


def test_the_check_sees_a_pattern_a_call_does_compile(tmp_path):
    """The pattern check can fail: a result whose text holds a run of zero-width joiners (shown
    as `\\u200d`) compiles the sanitizer's pattern for them, and it shows up."""
    proc, seen = imported(tmp_path, "--stdio", stdio_cmd(SERVERS / "batch_server.py"), "call", "echo",
                          "text=a\u200d\u200d\u200db")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "\\u200d\\u200d\\u200db" in proc.stdout
    assert _lazy_patterns()["sanitize._JOINERS"] in seen["patterns"]


def test_help_imports_no_command_module(tmp_path):
    """`mrtr --help` lists the commands from cli/help/summaries.py: no command module is loaded."""
    proc, seen = imported(tmp_path, "--help")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Commands:" in proc.stdout
    command_modules = tuple(f"mrtr_cli.cli.commands.{m}" for m in set(COMMAND_MODULES.values()))
    assert loaded(seen["end"], command_modules) == []


#: What `mrtr --help` and `mrtr --version` never load: no command module (above), nor the
#: reader of user files, whose registry every run opens (env.run_scope) but makes only when
#: a file is first added (userfiles.current_run_files).
NEVER_ON_HELP = ("mrtr_cli.userfiles",)


def test_help_and_version_do_not_load_the_user_file_reader(tmp_path):
    for option in ("--help", "--version"):
        proc, seen = imported(tmp_path, option)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert proc.stdout.strip(), option
        assert loaded(seen["end"], NEVER_ON_HELP) == [], option


#: Runs `python -m mrtr_cli ARGS...` and writes, to the file named by argv[1], every dataclass
#: of mrtr's built meanwhile, with the methods `dataclass` generated for it.
DATACLASS_WRAPPER = r"""
import atexit, dataclasses, json, runpy, sys
out, sys.argv = sys.argv[1], ["mrtr", *sys.argv[2:]]
built = {}
process = dataclasses._process_class
def recording(cls, *args, **kwargs):
    made = process(cls, *args, **kwargs)
    if cls.__module__.startswith("mrtr_cli."):
        params = cls.__dataclass_params__
        built[f"{cls.__module__}.{cls.__qualname__}"] = {"frozen": params.frozen, "eq": params.eq,
                                                         "repr": params.repr}
    return made
dataclasses._process_class = recording
def done():
    with open(out, "w") as fh:
        json.dump(built, fh)
atexit.register(done)
runpy.run_module("mrtr_cli", run_name="__main__", alter_sys=True)
"""

#: The frozen value objects a plain call builds: they keep the generated `__eq__` and `__repr__`.
VALUE_OBJECTS = ("mrtr_cli.cli.quickparse._Plan", "mrtr_cli.engine.mrtr.Round",
                 "mrtr_cli.protocol.capabilities.kinds.InputKind")


def test_a_plain_calls_state_holders_have_no_generated_eq_or_repr(tmp_path):
    """The dataclasses a plain stdio call builds that are not frozen (the run's options,
    environment, target, session settings, answers, outcomes) are never compared by value
    nor printed: they are built without the generated `__eq__` and `__repr__` (identity
    equality, the object's own repr), whose code `dataclass` compiles when the class is made
    (docs/performance.md). The frozen value objects keep both."""
    out = tmp_path / "dataclasses.json"
    proc = subprocess.run([PY, "-c", DATACLASS_WRAPPER, str(out), "--stdio", stdio_cmd(SERVERS / "core_server.py"),
                           "call", "shed"], capture_output=True, text=True, cwd=ROOT, env=clean_env(tmp_path),
                          stdin=subprocess.DEVNULL, timeout=SAFETY)
    assert proc.returncode == 0, proc.stderr[-2000:]
    built = json.loads(out.read_text())
    # The record covers the call: its options and environment are among the classes built.
    assert "mrtr_cli.runcontext.RunOptions" in built and "mrtr_cli.env.Environment" in built
    assert sorted(name for name, made in built.items() if made["frozen"]) == sorted(VALUE_OBJECTS)
    assert {name: made for name, made in built.items() if not made["frozen"] and (made["eq"] or made["repr"])} == {}
    assert all(built[name]["eq"] and built[name]["repr"] for name in VALUE_OBJECTS)
