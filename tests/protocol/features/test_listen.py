"""`mrtr listen` against the SDK server tests/servers/listen_server.py, over stdio and HTTP,
in both eras (2026-07-28 `subscriptions/listen`; 2025-11-25 `resources/subscribe` and
list-changed notifications), and each of its ends: --count, --timeout, Ctrl-C (SIGINT),
and the server ending the subscription.
"""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from mrtr_cli.limits import describe_seconds
from tests.conftest import SERVERS, HttpServers, read_records, stdio_cmd, url_args
from tests.support import SAFETY, growing_bound, read_line, start_mrtr, wait_for

LISTEN_SERVER = SERVERS / "listen_server.py"
ERAS = {"modern": "2026-07-28", "legacy": "2025-11-25"}





class ListenTarget:
    def __init__(self, args: list[str], events: Path, record: Path, era: str):
        self.args, self.events, self.record, self.era = args, events, record, era

    def lines(self) -> list[str]:
        return self.events.read_text().splitlines() if self.events.exists() else []

    def closed(self) -> bool:
        """The server saw the subscription closed by the client."""
        want = "listen-cancelled" if self.era == "modern" else "unsubscribe test://watched"
        return want in self.lines()


def target(kind: str, era: str, http_servers: HttpServers, tmp_path: Path, *extra: str) -> ListenTarget:
    events, record = tmp_path / f"events-{kind}-{era}.txt", tmp_path / f"record-{kind}-{era}.jsonl"
    server = ["--events", str(events), "--record", str(record), *extra]
    where = (["--stdio", stdio_cmd(LISTEN_SERVER, *server)] if kind == "stdio"
             else url_args(http_servers.start(LISTEN_SERVER, *server)))
    return ListenTarget(["--protocol", ERAS[era], *where], events, record, era)


@pytest.fixture(params=[(k, e) for k in ("stdio", "http") for e in ERAS], ids=lambda p: f"{p[0]}-{p[1]}")
def where(request: pytest.FixtureRequest) -> tuple[str, str]:
    return request.param


def test_count_ends_after_n_notifications_closing_the_subscription(mrtr, where, http_servers, tmp_path):
    t = target(*where, http_servers, tmp_path, "--emit", "tools,resource:test://watched")
    run = mrtr(*t.args, "listen", "--tools", "--resource", "test://watched", "--count", "2", "--json")
    assert run.code == 0, run.stderr
    msgs = [json.loads(line) for line in run.stdout.splitlines()]
    assert [m["method"] for m in msgs] == ["notifications/tools/list_changed", "notifications/resources/updated"]
    assert msgs[1]["params"]["uri"] == "test://watched"
    if where[1] == "modern":
        listen = next(m for m in read_records(t.record) if m.get("method") == "subscriptions/listen")
        assert listen["params"]["notifications"] == {"toolsListChanged": True,
                                                     "resourceSubscriptions": ["test://watched"]}
        assert all(m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == listen["id"] for m in msgs)
    else:
        subscribe = [m for m in read_records(t.record) if m.get("method") == "resources/subscribe"]
        assert [m["params"]["uri"] for m in subscribe] == ["test://watched"]
    wait_for(t.closed)


def test_count_one_prints_one_readable_line(mrtr, where, http_servers, tmp_path):
    t = target(*where, http_servers, tmp_path, "--emit", "tools,resource:test://watched")
    run = mrtr(*t.args, "listen", "--tools", "--resource", "test://watched", "--count", "1")
    assert run.code == 0, run.stderr
    (line,) = run.stdout.splitlines()
    clock, text = line.split(" ", 1)
    assert len(clock) == 8 and clock.count(":") == 2
    assert text == "tools list changed"
    assert "listening (Ctrl-C to stop)" in run.stderr


def test_timeout_is_exit_7_after_closing_the_subscription(mrtr, where, http_servers, tmp_path):
    t = target(*where, http_servers, tmp_path, "--emit", "")

    # --timeout also bounds opening the session: a loaded machine can spend it all there
    # (the run then timed out waiting for a reply, not listening), and the bound grows
    # until a run reached the listening part.
    def attempt(bound: float) -> Any:
        run = mrtr(*t.args, "listen", "--tools", "--resource", "test://watched", "--timeout", f"{bound:g}")
        assert run.code == 7, run.stderr
        if "listened for" not in run.stderr and "timed out" in run.stderr:
            return None
        assert f"listened for {describe_seconds(bound)} (--timeout); 0 notification(s) received" in run.stderr
        return run

    run = growing_bound(attempt, 3, what="a run that reached the listening part")
    assert run.stdout == ""
    wait_for(t.closed)


def test_ctrl_c_closes_the_subscription_and_exits_130(where, http_servers, tmp_path):
    t = target(*where, http_servers, tmp_path, "--emit", "tools")
    proc = start_mrtr(tmp_path, *t.args, "listen", "--tools", "--resource", "test://watched")
    try:
        first = read_line(proc)  # the notification arrived: the subscription is open
        assert first.endswith("tools list changed\n")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=SAFETY)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "mrtr: interrupted" in err and "Traceback" not in err
    wait_for(t.closed)
    if where == ("stdio", "modern"):
        listen = next(m for m in read_records(t.record) if m.get("method") == "subscriptions/listen")
        (cancel,) = [m for m in read_records(t.record) if m.get("method") == "notifications/cancelled"]
        assert cancel["params"]["requestId"] == listen["id"]


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_the_server_ending_the_subscription_ends_listen(mrtr, kind, http_servers, tmp_path):
    t = target(kind, "modern", http_servers, tmp_path, "--emit", "tools,prompts", "--close-after")
    run = mrtr(*t.args, "listen", "--tools", "--prompts", "--json")
    assert run.code == 0, run.stderr
    assert [json.loads(line)["method"] for line in run.stdout.splitlines()] == [
        "notifications/tools/list_changed", "notifications/prompts/list_changed"]
    assert "the server ended the subscription after 2 notification(s)" in run.stderr
    assert "listen-ended" in t.lines()


def test_json_honours_forced_colour_like_other_json_output(mrtr, http_servers, tmp_path):
    # the same JSON printer as every --json: styled when forced, still one JSON line each
    t = target("stdio", "modern", http_servers, tmp_path, "--emit", "tools,prompts", "--close-after")
    run = mrtr(*t.args, "listen", "--tools", "--prompts", "--json", env={"FORCE_COLOR": "1"})
    assert run.code == 0, run.stderr
    assert "\x1b[" in run.stdout
    plain = re.sub(r"\x1b\[[0-9;]*m", "", run.stdout)
    assert [json.loads(line)["method"] for line in plain.splitlines()] == [
        "notifications/tools/list_changed", "notifications/prompts/list_changed"]


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_legacy_notifications_not_asked_for_are_not_printed(mrtr, kind, http_servers, tmp_path):
    # A 2025-11-25 server sends what it likes; only what was named is printed and counted.
    t = target(kind, "legacy", http_servers, tmp_path, "--emit", "tools,prompts,resource:test://watched")
    run = mrtr(*t.args, "listen", "--prompts", "--resource", "test://watched", "--count", "2", "--json")
    assert run.code == 0, run.stderr
    assert [json.loads(line)["method"] for line in run.stdout.splitlines()] == [
        "notifications/prompts/list_changed", "notifications/resources/updated"]


def test_nothing_named_is_a_usage_error(mrtr, http_servers, tmp_path):
    t = target("stdio", "modern", http_servers, tmp_path)
    run = mrtr(*t.args, "listen")
    assert run.code == 2 and "name what to listen for" in run.stderr
    assert not t.events.exists()


def test_event_lines_are_sanitized():
    from mrtr_cli.cli.commands.listen import describe_event

    line = describe_event({"method": "notifications/resources/updated",
                           "params": {"uri": "test://x\x1b[31mred\nnext", "title": "t\x07"}})
    assert "\x1b" not in line and "\n" not in line and "\x07" not in line
    assert describe_event({"method": "notifications/prompts/list_changed"}) == "prompts list changed"


def test_legacy_server_offering_no_subscribe_is_refused(mrtr):
    # The hand-written 2025-06-18 server declares neither resources.subscribe nor listChanged.
    run = mrtr("--stdio", stdio_cmd(SERVERS / "legacy_server.py"), "listen", "--resource", "legacy://hello")
    assert run.code == 4
    assert "does not offer resources/subscribe" in run.stderr
    assert "offers nothing of what was asked to listen for" in run.stderr
    assert "listening" not in run.stderr  # nothing is said before the subscription is in place


def test_an_acknowledgement_that_leaves_something_out_is_named():
    from mrtr_cli.protocol.features.listen import Want

    want = Want(kinds=["tools", "prompts"], uris=["a://1", "a://2"])
    assert want.filter() == {"toolsListChanged": True, "promptsListChanged": True,
                             "resourceSubscriptions": ["a://1", "a://2"]}
    assert want.missing_from({"toolsListChanged": True, "resourceSubscriptions": ["a://1"]}) == [
        "promptsListChanged", "resource a://2"]
    assert want.missing_from(None) == ["toolsListChanged", "promptsListChanged", "resource a://1", "resource a://2"]
    assert want.matches({"method": "notifications/resources/updated", "params": {"uri": "a://2"}})
    assert not want.matches({"method": "notifications/resources/updated", "params": {"uri": "a://3"}})
    assert not want.matches({"method": "notifications/resources/list_changed"})


def test_a_modern_server_without_listen_gets_a_hint(mrtr):
    run = mrtr("--stdio", stdio_cmd(SERVERS / "skills_server.py"), "listen", "--tools")
    assert run.code == 4
    assert "-32601" in run.stderr and "does not serve subscriptions/listen" in run.stderr


@pytest.mark.pty
def test_a_subscription_at_a_terminal_gets_no_still_waiting_line(tmp_path):
    """A subscription is silent until something changes: "still waiting" (the notice for a
    stdio server silent on a request) is wrong for it, however long nothing comes."""
    import pexpect

    from tests.support import spawn

    t = target("stdio", "modern", HttpServers(), tmp_path, "--emit", "")
    child, _ = spawn(tmp_path, *t.args, "listen", "--tools", env={"MRTR_WAIT_NOTICE_SECONDS": "0.2"})
    # The notice would come after 0.2 s of silence (MRTR_WAIT_NOTICE_SECONDS, above), before
    # the acknowledgement or after it; twenty times that passes after it without one.
    assert child.expect(["still waiting", "listening"]) == 1, child.before
    assert child.expect(["still waiting", pexpect.TIMEOUT], timeout=4) == 1, child.before
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
