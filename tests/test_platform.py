"""The platform layer (mrtr_cli/platform/, docs/platforms.md), on whichever system runs it:
the interfaces every platform implements (process trees, file locks, state folders),
exercised here with real processes and files; and the Windows rules that are pure
functions (splitting a command line, quoting for PowerShell and for cmd.exe), checked on
every platform against Microsoft's documented examples."""

from __future__ import annotations

import ast
import contextlib
import importlib
import os
import re
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mrtr_cli.platform import filelock, proctree, shellwords, sockets
from mrtr_cli.platform._windows import shellwords as win
from mrtr_cli.platform.userdirs import choose_state_dir
from tests.conftest import PY, ROOT, needs_posix
from tests.support import SAFETY, wait_for

PLATFORM = ROOT / "mrtr_cli" / "platform"


# ---------------------------------------------------------------------- Windows command lines
#: "Parsing C command-line arguments" (Microsoft Learn, C runtime): the command line after
#: the program's name, and the arguments a program gets.
MICROSOFT_EXAMPLES = [
    ('"a b c" d e', ["a b c", "d", "e"]),
    ('"ab\\"c" "\\\\" d', ['ab"c', "\\", "d"]),
    ('a\\\\\\b d"e f"g h', ["a\\\\\\b", "de fg", "h"]),
    ('a\\\\\\"b c d', ['a\\"b', "c", "d"]),
    ('a\\\\\\\\"b c" d e', ["a\\\\b c", "d", "e"]),
    ('a"b"" c d', ['ab" c d']),
]


@pytest.mark.parametrize(("line", "words"), MICROSOFT_EXAMPLES)
def test_a_windows_command_line_splits_as_the_c_runtime_documents(line, words):
    assert win.split("prog " + line) == ["prog", *words]


def test_a_windows_path_keeps_its_backslashes():
    """`--stdio "python C:\\srv\\server.py"` on Windows: POSIX rules would eat them."""
    assert win.split(r"python C:\srv\server.py") == ["python", r"C:\srv\server.py"]
    assert win.split(r'"C:\Program Files\Python\python.exe" -m srv "C:\My Data\"') == [
        r"C:\Program Files\Python\python.exe", "-m", "srv", 'C:\\My Data"']
    assert win.split('  "C:\\a b\\x.exe"\t"" tail ') == ["C:\\a b\\x.exe", "", "tail"]
    assert win.split("") == []
    assert win.split('open "quote runs to the end') == ["open", "quote runs to the end"]


_WORD = st.text(st.sampled_from('ab \t"\\%&\'é'), max_size=8)
_PROGRAM = st.text(st.sampled_from("ab\\:é."), min_size=1, max_size=8).filter(lambda w: not w.endswith("\\"))


@given(_PROGRAM, st.lists(_WORD, max_size=4))
def test_a_joined_windows_command_line_splits_back_into_its_words(program, args):
    words = [program, *args]
    assert win.split(win.join(words)) == words


def _powershell_word(text: str) -> str:
    """What PowerShell reads from one quoted or bare word (`quote`'s output)."""
    if not text.startswith("'"):
        return text
    assert text.endswith("'") and len(text) >= 2
    inner, out, i = text[1:-1], [], 0
    while i < len(inner):
        if inner[i] in "'\u2018\u2019\u201a\u201b":
            assert inner[i + 1:i + 2] == inner[i], "a lone quote would end the string"
            i += 1
        out.append(inner[i])
        i += 1
    return "".join(out)


@given(st.text(max_size=12))
def test_powershell_reads_a_quoted_word_back_as_it_was(word):
    quoted = win.quote(word)
    assert _powershell_word(quoted) == word
    if not quoted.startswith("'"):
        assert re.fullmatch(r"[A-Za-z0-9_\-+./:\\=]+", quoted)


def test_powershell_quoting_examples():
    assert win.quote(r"C:\srv\server.py") == r"C:\srv\server.py"
    assert win.quote("python C:\\srv\\server.py") == "'python C:\\srv\\server.py'"
    assert win.quote("it's") == "'it''s'"
    assert win.quote("\u2019") == "'\u2019\u2019'"  # PowerShell takes typographic quotes for '
    assert win.quote("@file") == "'@file'"  # splatting, bare
    assert win.quote("$HOME") == "'$HOME'"
    assert win.quote("") == "''"
    assert win.quote('{"a":1}') == "'{\"a\":1}'"


def _cmd_inner(line: str) -> str:
    prefix = 'cmd.exe /e:ON /v:OFF /d /c "'
    assert line.startswith(prefix) and line.endswith('"')
    return line[len(prefix):-1]  # what cmd.exe runs once it strips the outer quotes


def test_a_batch_file_runs_through_cmd_with_its_arguments_quoted():
    line = win.batch_command_line(r"C:\Program Files\nodejs\npx.cmd",
                                  ["-y", "@scope/server", "a b", "x&calc", "(y)", "C:\\dir\\", "C:\\sp ace\\", ""])
    inner = _cmd_inner(line)
    assert inner == ('"C:\\Program Files\\nodejs\\npx.cmd" -y @scope/server "a b" "x&calc" "(y)" C:\\dir\\ '
                     '"C:\\sp ace\\\\" ""')
    # The batch file hands %* on; the program it runs splits it back into the arguments.
    assert win.split(inner) == [r"C:\Program Files\nodejs\npx.cmd", "-y", "@scope/server", "a b", "x&calc", "(y)",
                                "C:\\dir\\", "C:\\sp ace\\", ""]
    # Outside quotes, no character cmd.exe acts on is left.
    unquoted = re.sub(r'"[^"]*"', "", inner)
    assert not set(unquoted) & set("&|<>^()%!,;=")


@pytest.mark.parametrize(("arg", "what"), [
    ("%PATH%", "a percent sign"), ('say "hi"', "a double quote"), ("two\nlines", "a line break"),
    ("cr\rhere", "a line break"), ("nul\0", "a NUL character"),
])
def test_a_batch_file_argument_cmd_would_expand_is_refused(arg, what):
    """CVE-2024-24576: cmd.exe expands `%VAR%` inside quotes, and a quote or a line break
    ends the quoting; no escaping is safe, so such an argument is refused, named."""
    with pytest.raises(win.UnsafeArgument) as caught:
        win.batch_command_line("npx.cmd", ["-y", arg])
    assert caught.value.index == 2 and caught.value.what == what
    assert f"argument 2 holds {what}" in str(caught.value)
    with pytest.raises(win.UnsafeArgument):
        win.batch_command_line("C:\\100%\\npx.cmd", [])


# ---------------------------------------------------------------------- this platform's words
def test_this_platform_splits_what_it_joins():
    words = ["python", "server.py", "a b", "it's", "", "C:\\x"]
    assert shellwords.split(shellwords.join(words)) == words
    line = shellwords.shell_line(["mrtr", "--stdio", "python server.py", "call", "x"])
    assert line.startswith("mrtr --stdio ") and "'python server.py'" in line


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell quoting")
def test_posix_words_are_a_posix_shells():
    assert shellwords.split(r"python C:\srv\server.py") == ["python", "C:srvserver.py"]  # as sh splits it
    with pytest.raises(ValueError):
        shellwords.split("python 'open")
    assert shellwords.SHELL == "a POSIX shell"


# ---------------------------------------------------------------------- state folder
def _never() -> str:
    raise AssertionError("the platform's own folder was asked for")


def _exists(*folders: str):
    return lambda path: path in folders


@pytest.mark.parametrize("platform", ["linux", "freebsd14", "darwin", "win32"])
def test_the_state_folder_settings_win_everywhere(platform, monkeypatch):
    home = "/home/u"
    assert choose_state_dir(platform, {"XDG_STATE_HOME": "/x"}, home, _exists(), _never) == os.path.join("/x", "mrtr")
    # MRTR_STATE_DIR is mrtr's own setting (settings.py), applied before the platform's choice
    from mrtr_cli.state import state_dir

    monkeypatch.setenv("XDG_STATE_HOME", "/x")
    monkeypatch.setenv("MRTR_STATE_DIR", "/s")
    assert state_dir() == "/s"


@pytest.mark.parametrize("platform", ["linux", "freebsd14"])
def test_on_linux_the_state_folder_stays_where_it_was(platform):
    """No sign-in is lost: ~/.local/state/mrtr, whether it exists yet or not."""
    legacy = os.path.join("/home/u", ".local", "state", "mrtr")
    assert choose_state_dir(platform, {}, "/home/u", _exists(), _never) == legacy
    assert choose_state_dir(platform, {}, "/home/u", _exists(legacy), _never) == legacy


@pytest.mark.parametrize(("platform", "native"), [
    ("darwin", "/Users/u/Library/Application Support/mrtr"), ("win32", r"C:\Users\u\AppData\Local\mrtr")])
def test_on_macos_and_windows_an_existing_state_folder_is_kept(platform, native):
    """A user of an earlier mrtr keeps their sign-ins, task records and pending calls: the
    old folder is used in place (never moved); a new user gets the platform's own."""
    legacy = os.path.join("/Users/u", ".local", "state", "mrtr")
    assert choose_state_dir(platform, {}, "/Users/u", _exists(legacy), _never) == legacy
    assert choose_state_dir(platform, {}, "/Users/u", _exists(), lambda: native) == native


def test_the_native_state_folder_comes_from_platformdirs():
    """macOS and Windows ask platformdirs (installed there; here only when something else
    brought it) for the folder."""
    platformdirs = pytest.importorskip("platformdirs")
    from platformdirs.macos import MacOS

    from mrtr_cli.platform.userdirs import _native

    assert _native() == platformdirs.user_state_dir("mrtr", appauthor=False)
    assert MacOS("mrtr", appauthor=False).user_state_dir.endswith(os.path.join("Library", "Application Support",
                                                                              "mrtr"))


def test_mrtr_uses_the_state_folder_the_environment_names(mrtr, tmp_path):
    """End to end: the state directory of a run is `$XDG_STATE_HOME/mrtr` (as every test's)."""
    from tests.conftest import SERVERS, stdio_cmd

    run = mrtr("--stdio", stdio_cmd(SERVERS / "core_server.py"), "tools", "--json")
    assert run.code == 0, run.stderr
    assert (tmp_path / "state" / "mrtr").is_dir()


# ---------------------------------------------------------------------- file locks
HOLDER = textwrap.dedent("""
    import os, sys
    from mrtr_cli.platform import filelock
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
    print("locked" if filelock.try_lock(fd) else "busy", flush=True)
    sys.stdin.read()  # hold it until stdin closes
""")


def test_a_file_lock_holds_across_processes_until_released(tmp_path):
    path = tmp_path / "store.lock"
    holder = subprocess.Popen([PY, "-c", HOLDER, str(path)], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        fd = os.open(path, os.O_RDWR)
        try:
            assert filelock.try_lock(fd) is False  # another process holds it
            holder.communicate("", timeout=SAFETY)  # it exits: the system releases its lock
            assert filelock.try_lock(fd) is True
            second = subprocess.run([PY, "-c", HOLDER, str(path)], cwd=ROOT, input="", capture_output=True,
                                    text=True, timeout=SAFETY)
            assert second.stdout.strip() == "busy"
            filelock.unlock(fd)
            third = subprocess.run([PY, "-c", HOLDER, str(path)], cwd=ROOT, input="", capture_output=True,
                                   text=True, timeout=SAFETY)
            assert third.stdout.strip() == "locked"
        finally:
            os.close(fd)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()


def test_the_lock_does_not_stop_its_holder_writing_the_file(tmp_path):
    """The batch records file is locked and written through the same descriptor."""
    with open(tmp_path / "records.jsonl", "a+b") as fh:
        assert filelock.try_lock(fh.fileno())
        fh.write(b'{"line": 1}\n')
        fh.flush()
        fh.seek(0)
        assert fh.read() == b'{"line": 1}\n'
        fh.truncate(0)
        filelock.unlock(fh.fileno())


# ---------------------------------------------------------------------- process trees
#: A parent that starts a child (as `npx` starts `node`), prints both pids, and waits;
#: with "stubborn", both ignore the polite request to end.
TREE = textwrap.dedent("""
    import signal, subprocess, sys, time
    if "stubborn" in sys.argv:
        for name in ("SIGTERM", "SIGBREAK"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), signal.SIG_IGN)
    if "child" in sys.argv:
        print("child ready", flush=True)
        time.sleep(600)
        sys.exit(0)
    child = subprocess.Popen([sys.executable, __file__, "child", *sys.argv[1:]], stdout=subprocess.PIPE, text=True)
    child.stdout.readline()
    print(child.pid, flush=True)
    time.sleep(600)
""")


def _start_tree(tmp_path: Path, *flags: str) -> tuple[subprocess.Popen[bytes], int]:
    script = tmp_path / "tree.py"
    script.write_text(TREE)
    proc = proctree.start([PY, str(script), *flags], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    return proc, child


def _running(pid: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - tasklist names running pids
        out = subprocess.run(["tasklist", "/FI", f"PID eq {pid}"], capture_output=True, text=True).stdout
        return str(pid) in out
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # pragma: no cover - no /proc (macOS)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def _tree_gone(proc: subprocess.Popen[bytes], child: int) -> bool:
    """No process of the tree is left. On Linux `proctree.start` made this process the
    subreaper of what it starts, so the orphaned child is this process's to reap, as it is
    mrtr's (an unreaped one would still count as a member of the group)."""
    if hasattr(os, "WNOHANG"):
        with contextlib.suppress(ChildProcessError):
            os.waitpid(child, os.WNOHANG)
    return not proctree.any_left(proc)


def test_asking_a_tree_to_end_ends_the_child_and_what_it_started(tmp_path):
    proc, child = _start_tree(tmp_path)
    try:
        assert proctree.any_left(proc) and _running(child)
        assert proctree.ask_to_end(proc)
        assert proctree.wait_exit(proc, 60)
        wait_for(lambda: _tree_gone(proc, child), timeout=SAFETY)
        assert not _running(child)
    finally:
        proctree.end_now(proc)
        proctree.wait_exit(proc, 60)
        proctree.end_escaped(proc, "", 0)


def test_a_tree_that_ignores_the_request_is_ended_at_once(tmp_path):
    proc, child = _start_tree(tmp_path, "stubborn")
    try:
        proctree.ask_to_end(proc)
        assert not proctree.wait_exit(proc, 0.5)  # it ignores the request (a bound is the behaviour)
        assert proctree.end_now(proc)
        assert proctree.wait_exit(proc, 60)
        wait_for(lambda: _tree_gone(proc, child), timeout=SAFETY)
        assert not _running(child)
        assert proctree.ask_to_end(proc) is False  # nobody is left
    finally:
        proctree.end_now(proc)
        proctree.wait_exit(proc, 60)
        proctree.end_escaped(proc, "", 0)


def test_the_tree_outlives_its_leader_until_it_is_ended(tmp_path):
    """A wrapper that exits while its server runs on (`npx`): the tree is still there, and
    ending it ends the server."""
    proc, child = _start_tree(tmp_path, "stubborn")
    try:
        if sys.platform == "win32":  # pragma: no cover
            subprocess.run(["taskkill", "/F", "/PID", str(proc.pid)], capture_output=True)
        else:
            os.kill(proc.pid, 9)
        assert proctree.wait_exit(proc, 60)
        assert not _tree_gone(proc, child) and _running(child)
        proctree.end_now(proc)
        wait_for(lambda: _tree_gone(proc, child), timeout=SAFETY)
        assert not _running(child)
    finally:
        proctree.end_now(proc)
        proctree.end_escaped(proc, "", 0)


#: In a process of its own (no child of pytest's in the way): a server started and reaped,
#: then `end_escaped` with no child left and with one; prints whether /proc was searched.
_SEARCHES = r"""
import subprocess, sys
from mrtr_cli.platform import proctree
from mrtr_cli.platform._posix import proctree as posix
searched = []
found = posix._marked_orphans
posix._marked_orphans = lambda marking: searched.append(marking) or found(marking)
proc = proctree.start([sys.executable, "-c", "pass"])
proc.wait()
proctree.end_escaped(proc, "none-left", 0)
other = proctree.start([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
proctree.end_escaped(proc, "one-left", 0)
other.stdin.close(); other.wait()
print(" ".join(m.rsplit("=", 1)[1] for m in searched))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the child subreaper is Linux's")
def test_escaped_processes_are_searched_for_only_while_a_child_is_left():
    """`end_escaped` reads `/proc` (every process's entry) only when `mrtr` has a child: with
    none left, nothing can have been reparented to it."""
    out = subprocess.run([PY, "-c", _SEARCHES], capture_output=True, text=True, cwd=ROOT, timeout=SAFETY)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["one-left"]


# ---------------------------------------------------------------------- waiting on sockets
@pytest.mark.parametrize("impl", ["facade", "windows"])
def test_a_socket_is_waited_on_until_it_can_be_read_or_written_or_has_ended(impl):
    """`wait_socket` (the HTTP direct lane's waits): False when nothing came in time, True once
    a byte came, at the peer's end, and for room to write; a closed socket raises. The Windows
    implementation (`select`) takes sockets everywhere, so it runs here too."""
    wait = sockets.wait_socket if impl == "facade" else importlib.import_module(
        "mrtr_cli.platform._windows.sockets").wait_socket
    mine, peer = socket.socketpair()
    with mine, peer:
        mine.setblocking(False)
        assert wait(mine, False, 0) is False
        assert wait(mine, False, 0.05) is False
        assert wait(mine, True, None) is True
        peer.sendall(b"x")
        assert wait(mine, False, SAFETY) is True
        assert mine.recv(1) == b"x"
        peer.shutdown(socket.SHUT_WR)
        assert wait(mine, False, None) is True
        assert mine.recv(1) == b""
    with pytest.raises((OSError, ValueError)):
        wait(mine, False, 0)


# ---------------------------------------------------------------------- the layer itself
def test_every_windows_module_imports_on_any_platform():
    """The Windows implementations import only what every platform has at module level
    (msvcrt and ctypes' Windows parts load inside their functions): a slip shows here, not
    only on a Windows machine."""
    names = sorted(p.stem for p in (PLATFORM / "_windows").glob("[!_]*.py"))
    assert len(names) >= 7
    for name in names:
        importlib.import_module(f"mrtr_cli.platform._windows.{name}")
    posix = {p.stem for p in (PLATFORM / "_posix").glob("[!_]*.py")}
    assert posix == set(names)  # each concern has both


#: What only the platform layer may use (the calls of one system, or tests of which
#: system runs), and the files where an exception is documented.
PLATFORM_ONLY = {
    r"\bsys\.platform\b": {"config/hosts/paths.py"},  # host config paths: each platform's, as data
    r"\bos\.name\b": set(),
    r"^\s*import (fcntl|termios|msvcrt|pty|tty|resource)\b": set(),
    r"\bsignal\.SIG(KILL|BREAK|TERM)\b": set(),
    r"\bCTRL_BREAK_EVENT\b|\bkillpg\b|\bsetsid\b|start_new_session|CREATE_NEW_PROCESS_GROUP": set(),
    r"/dev/tty|CONIN\$|/proc/": set(),
    r"\bO_NONBLOCK\b|\bO_NOCTTY\b|\bO_BINARY\b|\bfchmod\b": set(),
    r"\bselect\.(select|poll)\b": set(),
    # completions for bash, zsh and fish; the line grammar of `mrtr shell`, its own and the
    # same on every system (docs/shell.md), and hints quoted for that grammar (render/invocation.py)
    r"\bimport shlex\b|\bshlex\.": {"cli/names.py", "shell/words.py", "shell/history.py", "shell/completion.py",
                                    "render/invocation.py"},
    r"XDG_STATE_HOME|\.local.state": {"state.py", "userfiles.py", "protocol/lists/cache.py"},
}


def _code_lines(source: str) -> list[str]:
    """The lines of `source` without its docstrings and comments."""
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for i in range(node.lineno - 1, node.end_lineno or node.lineno):
                lines[i] = ""
    return [line.split("  # ")[0] for line in lines if not line.lstrip().startswith("#")]


def test_the_rest_of_mrtr_makes_no_platform_test():
    found = []
    for path in sorted((ROOT / "mrtr_cli").rglob("*.py")):
        rel = path.relative_to(ROOT / "mrtr_cli").as_posix()
        if rel.startswith("platform/"):
            continue
        code = _code_lines(path.read_text(encoding="utf-8"))
        for pattern, allowed in PLATFORM_ONLY.items():
            if rel in allowed:
                continue
            found += [f"{rel}: {line.strip()}" for line in code if re.search(pattern, line)]
    assert found == []


#: Each thing the issue of Windows and macOS support named, as docs/platforms.md's table
#: words it: every one has a row with its status on each system.
PLATFORM_ITEMS = ("ending a stdio server at shutdown", "`--trace FILE`, `--save-answers FILE`", "saving a sign-in",
                  "`--stdio \"python C:\\srv\\server.py\"`", "`npx`, `uvx`", "ending what a server started",
                  "the token store's lock across processes", "the paste prompt", "printed commands",
                  "where state is kept", "mrtr's own config file", "SIGTERM", "Ctrl-C")


def test_docs_platforms_has_a_row_with_a_status_for_each_item():
    rows = [line for line in (ROOT / "docs" / "platforms.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| ") and not line.startswith("| what ")]
    for item in PLATFORM_ITEMS:
        row = next((r for r in rows if r.startswith("| " + item)), None)
        assert row is not None, item
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        assert len(cells) == 5, row
        assert all(c.split(":")[0].split(";")[0] in ("works", "degraded", "not available") or c.startswith("works")
                   for c in cells[1:4]), row


# ---------------------------------------------------------------------- the browser
@pytest.fixture
def browsers(monkeypatch, tmp_path):
    """webbrowser's choice made by the test: `use(kind)` registers a browser of webbrowser's
    class `kind` (a script that notes the URL it is given, and says so) as the only one."""
    import webbrowser

    monkeypatch.delenv("BROWSER", raising=False)
    saved = (dict(webbrowser._browsers), list(webbrowser._tryorder or []))
    log = tmp_path / "opened.log"
    script = tmp_path / "browser.py"
    script.write_text(f"import sys\nopen({str(log)!r}, 'a').write(sys.argv[1] + '\\n')\nprint('browser chatter')\n")

    def use(kind) -> Path:
        webbrowser._browsers.clear()
        webbrowser._tryorder = []
        webbrowser.register("test-browser", None, kind([PY, str(script), "%s"]), preferred=True)
        return log

    yield use
    webbrowser._browsers.clear()
    webbrowser._browsers.update(saved[0])
    webbrowser._tryorder = saved[1]


@needs_posix("pointing file descriptor 1 elsewhere while a browser starts, as the test reads it")
def test_a_terminal_browser_is_started_only_when_browser_names_it(browsers, monkeypatch, capfd):
    """Where no desktop runs, webbrowser falls back to lynx, w3m, links: a browser that
    would take over the terminal mrtr asks in. Without BROWSER naming one it is not started
    (the caller shows the URL); BROWSER naming it starts it; a graphical one just opens."""
    import webbrowser

    from mrtr_cli.platform.browser import open_url

    log = browsers(webbrowser.GenericBrowser)
    assert open_url("https://example.test/a") is False
    assert not log.exists()
    monkeypatch.setenv("BROWSER", "test-browser")
    assert open_url("https://example.test/b") is True
    assert log.read_text() == "https://example.test/b\n"
    monkeypatch.delenv("BROWSER")
    log = browsers(webbrowser.BackgroundBrowser)
    assert open_url("https://example.test/c") is True
    wait_for(lambda: log.read_text().splitlines()[-1] == "https://example.test/c")
    assert "browser chatter" not in capfd.readouterr().out  # what a browser prints never reaches stdout


def test_no_browser_at_all_is_false(browsers):
    import webbrowser

    from mrtr_cli.platform.browser import open_url

    browsers(webbrowser.GenericBrowser)
    webbrowser._browsers.clear()
    webbrowser._tryorder = []
    assert open_url("https://example.test/") is False


@needs_posix("SIGHUP")
def test_a_sighup_inherited_as_ignored_stays_ignored_and_otherwise_stops_the_run():
    """Closing the terminal (SIGHUP) ends a run as SIGTERM does, its server included; under
    `nohup` (SIGHUP ignored from the start) the run goes on."""
    code = textwrap.dedent("""
        import signal, sys
        from mrtr_cli.platform import signals
        if sys.argv[1] == "nohup":
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
        def handler(signum, frame): pass
        signals.on_termination(handler)
        print(signal.getsignal(signal.SIGHUP) is handler, signal.getsignal(signal.SIGTERM) is handler)
    """)
    for how, want in (("nohup", "False True"), ("terminal", "True True")):
        out = subprocess.run([PY, "-c", code, how], cwd=ROOT, capture_output=True, text=True, timeout=SAFETY)
        assert out.stdout.strip() == want, (how, out.stderr)
