"""The shell's `subscriptions/listen` stream (shell/watch.py `ListWatcher`) when its session
closes, over HTTP against the SDK test server tests/servers/shell_server.py: the close
breaks the stream, and a request whose stream breaks while its session is closing ends
quietly, never sent again as a new request (protocol/session.py `Session.closing`), nor
said to be; also when a stop signal (SIGTERM) ends `mrtr shell`."""

from __future__ import annotations

import io
import signal
import subprocess

from tests.conftest import PY, ROOT, SERVERS, clean_env, url_args
from tests.support import SAFETY, LineWatch, communicate, read_line

SHELL_SERVER = SERVERS / "shell_server.py"
REISSUED = "sent again as a new request"


def test_a_listen_stream_broken_by_the_sessions_close_ends_quietly(http_servers, tmp_path, monkeypatch):
    from mrtr_cli.app import App
    from mrtr_cli.env import Environment
    from mrtr_cli.runcontext import RunOptions
    from mrtr_cli.shell.watch import ListWatcher

    monkeypatch.setenv("MRTR_STATE_DIR", str(tmp_path / "state"))
    url = http_servers.start(SHELL_SERVER)
    err = io.StringIO()
    env = Environment(stdin=io.StringIO(""), stdout=io.StringIO(), stderr=err)
    ended: list[BaseException] = []
    with App(RunOptions(url=url, probe_timeout=SAFETY), env).session() as session:
        watcher = ListWatcher(session, lambda kind: None, ended.append)
        watcher.start(wait=SAFETY)
        assert watcher.covers("tools"), err.getvalue()  # acknowledged: the stream is open
        watcher.stop()
    assert watcher._thread is not None
    watcher._thread.join(SAFETY)  # the close broke its stream: whatever the thread does next is done
    assert not watcher._thread.is_alive()
    assert REISSUED not in err.getvalue() and "warning" not in err.getvalue(), err.getvalue()
    assert ended == [] and not watcher.broken


def test_sigterm_ends_a_shell_over_http_without_sending_its_listen_again(http_servers, tmp_path):
    """The shell subscribes as its session opens, before it reads a line: once its first
    line is answered, SIGTERM ends it, and the close breaks the subscription's stream. (Not
    with -v or --trace: the re-issue this guards against showed without them.)"""
    url = http_servers.start(SHELL_SERVER)
    proc = subprocess.Popen([PY, "-m", "mrtr_cli", *url_args(url), "shell"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(tmp_path),
                            cwd=ROOT)
    watch = LineWatch(proc.stderr)
    try:
        proc.stdin.write("call echo text=ready\n")
        proc.stdin.flush()
        assert read_line(proc).strip() == "ready", watch.lines
        proc.send_signal(signal.SIGTERM)
        _, err = communicate(proc, watch)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(SAFETY)
    assert proc.returncode == 130, err
    assert "mrtr: shell: ended by SIGTERM" in err, err
    assert REISSUED not in err and "warning" not in err, err
