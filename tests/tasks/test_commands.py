"""The `task` commands and `--detach` (tester's findings 6, 7 and 9): an id recorded for two
servers is ambiguous, `--detach` and `task wait` over stdio, an empty id is a usage error."""

from __future__ import annotations

import json

from mrtr_cli.tasks.records import TaskRecord, TaskRecords
from tests.conftest import SERVERS, stdio_cmd, url_args

LEGACY_TASKS = SERVERS / "legacy_task_server.py"


def records(tmp_path) -> TaskRecords:
    return TaskRecords(str(tmp_path / "state" / "mrtr" / "tasks"))


def test_a_task_id_recorded_for_two_servers_is_ambiguous(mrtr, http_servers, tmp_path):
    url = http_servers.start(LEGACY_TASKS)
    r = mrtr(*url_args(url), "call", "countdown", "polls:=1", "--detach")
    assert r.code == 0, r.stderr
    task_id = r.stdout.strip()
    other = "http://127.0.0.1:9/mcp"
    records(tmp_path).save(TaskRecord(task_id, {"url": other}, tool="countdown", protocol_version="2025-11-25"))
    for verb in ("get", "wait", "cancel"):
        r = mrtr("task", verb, task_id)
        assert r.code == 2, (verb, r.stderr)
        assert f"task id {task_id!r} is ambiguous: it is recorded for 2 servers" in r.stderr
        assert url in r.stderr and other in r.stderr and "name the server" in r.stderr
    # A prefix finds the same two records: just as ambiguous.
    r = mrtr("task", "get", "--", task_id[:12])
    assert r.code == 2 and "recorded for 2 servers" in r.stderr
    # Naming the server picks one.
    r = mrtr(*url_args(url), "task", "get", "--", task_id)
    assert r.code == 0, r.stderr


def test_an_empty_task_id_is_a_usage_error(mrtr, tmp_path):
    records(tmp_path).save(TaskRecord("t-1", {"url": "http://127.0.0.1:9/mcp"}))
    for verb in ("get", "wait", "cancel"):
        r = mrtr("task", verb, "")
        assert r.code == 2, r.stderr
        assert "the task id is empty" in r.stderr


def test_detach_over_stdio_warns_instead_of_suggesting_task_wait(mrtr, tmp_path):
    server = stdio_cmd(LEGACY_TASKS)
    r = mrtr("--stdio", server, "call", "slow", "seconds:=30", "--detach")
    assert r.code == 0, r.stderr
    task_id = r.stdout.strip()
    assert "stops when mrtr exits: unless the server keeps its tasks elsewhere" in r.stderr
    assert "the task ends with this run" in r.stderr and "follow it with" not in r.stderr
    r = mrtr("task", "wait", "--", task_id)
    assert r.code == 4, r.stderr
    assert "over stdio a task lives in the server process that created it" in r.stderr
    assert "may have expired" not in r.stderr


def test_detach_over_http_still_prints_the_command(mrtr, http_servers):
    url = http_servers.start(LEGACY_TASKS)
    r = mrtr(*url_args(url), "call", "countdown", "polls:=1", "--detach")
    assert r.code == 0, r.stderr
    assert f"follow it with: mrtr --url {url} task wait {r.stdout.strip()}" in r.stderr


def test_a_task_on_a_server_found_through_config_is_found_again_without_it(mrtr, http_servers, tmp_path):
    url = http_servers.start(LEGACY_TASKS)
    config = tmp_path / "elsewhere" / "servers.json"
    config.parent.mkdir()
    config.write_text('{"mcpServers": {"builds": {"url": "%s"}}}' % url)
    r = mrtr("--config", str(config), "-s", "builds", "call", "countdown", "polls:=1", "--detach")
    assert r.code == 0, r.stderr
    task_id = r.stdout.strip()
    saved = next(rec for rec in records(tmp_path).all() if rec.task_id == task_id)
    assert saved.config == str(config) and saved.target == {"server": "builds"}
    for args in (("task", "get", "--", task_id), ("-s", "builds", "task", "get", "--", task_id)):
        r = mrtr(*args)
        assert r.code == 0, (args, r.stderr)


TASKS_EXT = SERVERS / "task_server.py"
STOPPED = "stopped when that mrtr run ended"


def _unknown_id_servers() -> list[tuple[str, ...]]:
    return [(str(TASKS_EXT),), (str(TASKS_EXT), "--variant", "sep2322"), (str(LEGACY_TASKS),)]


def test_an_id_the_stdio_server_never_had_is_not_blamed_on_a_stopped_process(mrtr, tmp_path):
    # The server process is alive and answers -32602 for an id nobody created: `task wait`,
    # `task cancel` and `resume` say the server does not know it, claim no earlier process
    # that stopped, and write no record of a task that never existed.
    for server in _unknown_id_servers():
        stdio = stdio_cmd(*server)
        for args in (("task", "wait", "nosuch-1"), ("task", "cancel", "nosuch-1")):
            r = mrtr("--stdio", stdio, *args)
            assert r.code == 4, (server, args, r.stderr)
            assert "-32602" in r.stderr and STOPPED not in r.stderr, (server, args, r.stderr)
        r = mrtr("--stdio", stdio, "task", "wait", "nosuch-1")
        assert "the server does not know task nosuch-1, and no mrtr run on this machine recorded" in r.stderr
        assert records(tmp_path).all() == [], server


def test_resume_of_a_task_the_stdio_server_never_had_blames_no_stopped_process(mrtr, tmp_path):
    stdio = stdio_cmd(TASKS_EXT)
    doc = {"mrtr": "pending/1", "target": {"stdio": stdio}, "protocolVersion": "2026-07-28",
           "method": "tools/call", "params": {"name": "ask_once", "arguments": {}}, "taskId": "nosuch-2",
           "inputRequests": {"name-1": {"method": "elicitation/create", "params": {
               "mode": "form", "message": "Who?",
               "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}},
           "missing": ["name-1"]}
    pending = tmp_path / "pending.json"
    pending.write_text(json.dumps(doc))
    r = mrtr("--stdio", stdio, "resume", pending, "-a", "name-1.name=Ann")
    assert r.code == 4, r.stderr
    assert "the server does not know task nosuch-2" in r.stderr and STOPPED not in r.stderr, r.stderr


def test_a_stdio_task_the_server_reported_then_dropped_is_not_blamed_on_a_stopped_process(mrtr, tmp_path):
    # A server that keeps its tasks in a file: `task wait` sees the task (its server process
    # reports it), then the task is gone when the answer arrives. The same live process just
    # reported it, so no stopped process explains the -32602.
    stdio = stdio_cmd(TASKS_EXT, "--store", str(tmp_path / "store.json"))
    r = mrtr("--stdio", stdio, "call", "vanish", "--detach")
    assert r.code == 0, r.stderr
    task_id = r.stdout.strip()
    r = mrtr("--stdio", stdio, "task", "wait", "-a", "name=Ann", "--", task_id)
    assert r.code == 4, r.stderr
    assert f"the server no longer knows task {task_id}: it may have expired" in r.stderr, r.stderr
    assert STOPPED not in r.stderr, r.stderr


def test_a_stale_unknown_record_is_explained_again_from_what_is_true_now(mrtr, tmp_path):
    # A record left `unknown` with an explanation of its own (an older mrtr wrote it): `task get`
    # and `task wait` over stdio ask the server again, explain its -32602 as it stands now (this
    # command's server process is a new one), and write that explanation into the record.
    stdio = stdio_cmd(TASKS_EXT)
    now = ("the server no longer knows task old-1: over stdio a task lives in the server process that "
           "created it, which stopped when that mrtr run ended; this command started a new one, which "
           "does not know it")
    for verb in ("get", "wait"):
        records(tmp_path).save(TaskRecord("old-1", {"stdio": stdio}, tool="slow", status="unknown",
                                          status_message="the task expired (ttlMs 1000)",
                                          protocol_version="2026-07-28"))
        r = mrtr("task", verb, "old-1")
        assert r.code == 4, (verb, r.stderr)
        assert r.stderr.splitlines()[1:] == [f"  {now}"], (verb, r.stderr)
        (record,) = records(tmp_path).all()
        assert (record.status, record.status_message) == ("unknown", now), verb
