"""The hostile corpus: servers that break the rules, one way each.

Every case is one `Case(...)` line in `CASES`: how its server answers (`reply`, for
`tools/call` unless `methods` names more), where it runs (`transports`, `eras`), the
`mrtr` command line after the target (`args`), and what `mrtr` must do: the documented
exit `code`, a piece of its stderr (`says`), optionally more checks (`check`). The
runner (test_hostile.py) asserts for every case and transport: that code, no
"Traceback", an end within a generous safety bound, and no process of the server left.

The server side is served by `server.py` (stdio: `python -m tests.hostile.server CASE`;
HTTP: one process for all cases).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MODERN_VERSION = "2026-07-28"
M = 1 << 20


# ---------------------------------------------------------------------- server side
@dataclass
class Ctx:
    """What one server (stdio process, or HTTP case and nonce) remembers between requests."""

    case: str
    nonce: str = ""
    calls: dict[str, int] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    stash: dict[str, Any] = field(default_factory=dict)


def note_pid(pid: int) -> None:
    """Record a pid of the stdio server (or a process it started) in `$HOSTILE_PIDS`."""
    path = os.environ.get("HOSTILE_PIDS")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{pid}\n")


def dumps(msg: Any) -> bytes:
    # ensure_ascii: lone surrogates go out as the JSON escapes a hostile server would write.
    return json.dumps(msg, ensure_ascii=True).encode("ascii")


@dataclass
class Reply:
    """One answer: `body` bytes (a stdio line, or an HTTP body of `ctype`), an HTTP
    `status` and `headers`, or an `action(out_or_handler, ctx, transport)` doing it all."""

    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    ctype: str = "application/json"
    newline: bool = True
    session: bool = False
    action: Callable[[Any, Ctx, str], None] | None = None

    @staticmethod
    def message(msg: dict[str, Any], **kw: Any) -> Reply:
        return Reply(dumps(msg), **kw)

    @staticmethod
    def result(req: dict[str, Any], result: Any, **kw: Any) -> Reply:
        return Reply(dumps({"jsonrpc": "2.0", "id": req["id"], "result": result}), **kw)

    def run_stdio(self, out: Any, ctx: Ctx) -> None:
        if self.action is not None:
            self.action(out, ctx, "stdio")
            return
        out.write(self.body + (b"\n" if self.newline else b""))
        out.flush()

    def run_http(self, handler: Any, ctx: Any) -> None:
        if self.action is not None:
            self.action(handler, ctx, "http")
            return
        headers = {"Content-Type": self.ctype, **self.headers}
        if self.session:
            headers["Mcp-Session-Id"] = "s-1"
        handler._send(self.status, headers, self.body)


def complete(req: dict[str, Any], text: str, ctx: Ctx | None = None, **extra: Any) -> Reply:
    """A plain final text result, for either era."""
    result = {"content": [{"type": "text", "text": text}], **extra}
    if (req.get("params") or {}).get("_meta", {}).get("io.modelcontextprotocol/protocolVersion"):
        result["resultType"] = "complete"
    return Reply.result(req, result)


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def raw_result(body: str) -> Callable[[dict[str, Any], Ctx], Reply]:
    """A reply whose result is the JSON text `body` (written as is)."""
    return lambda req, ctx: Reply(('{"jsonrpc":"2.0","id":%s,"result":%s}' % (json.dumps(req["id"]), body)).encode())


def sse(*events: bytes) -> bytes:
    return b"".join(b"data: " + e + b"\n\n" for e in events)


# --- servers that break the rules -----------------------------------------------------
def deep_notification(req: dict[str, Any], ctx: Ctx) -> Reply:
    note = ('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%s}}'
            % deep(5000)).encode()
    answer = complete(req, "never shown").body

    def act(target: Any, ctx: Ctx, transport: str) -> None:
        if transport == "stdio":
            target.write(note + b"\n")
            target.flush()
            stall_until_stdin_closes()  # never answers: only the reader's failure can end the call
            return
        target._send(200, {"Content-Type": "text/event-stream"}, sse(note, answer))

    return Reply(action=act)


def stall_until_stdin_closes() -> None:
    """Never answer again, and exit once stdin closes (as a server on the SDK does when the
    client shuts it down): mrtr's own reader must end the call; the shutdown that follows
    is then the usual one, without the stages that a server ignoring EOF costs (those have
    cases of their own: `linger`, `linger_ignoring_term`)."""
    for _ in sys.stdin.buffer:
        pass
    os._exit(0)


def stalled(line: bytes, *, http_body: bytes | None = None) -> Callable[[dict[str, Any], Ctx], Reply]:
    """A server that sends `line` and then never answers (over stdio: only the reader's
    failing the call can end it); over HTTP the body is `line` (or `http_body`) as SSE."""
    def reply(req: dict[str, Any], ctx: Ctx) -> Reply:
        def act(target: Any, ctx: Ctx, transport: str) -> None:
            if transport == "stdio":
                target.write(line + b"\n")
                target.flush()
                stall_until_stdin_closes()
                return
            target._send(200, {"Content-Type": "text/event-stream"}, sse(http_body or line))
        return Reply(action=act)
    return reply


def with_id(body: str) -> Callable[[dict[str, Any], Ctx], Reply]:
    """`stalled` with a line made from `body`, `%(id)s` standing for the request's id."""
    return lambda req, ctx: stalled((body % {"id": json.dumps(req["id"])}).encode("utf-8", "surrogateescape"))(req, ctx)


def ping_flood(req: dict[str, Any], ctx: Ctx) -> Reply:
    """10,000 `ping` requests, written without reading stdin (the pongs fill the pipe to
    it), then the result: mrtr must never block on its writes."""
    pings = b"".join(dumps({"jsonrpc": "2.0", "id": f"p{i}", "method": "ping"}) + b"\n" for i in range(10000))
    answer = complete(req, "after pings").body

    def act(target: Any, ctx: Ctx, transport: str) -> None:
        if transport == "stdio":
            target.write(pings + answer + b"\n")
            target.flush()
            return
        target._send(200, {"Content-Type": "text/event-stream"},
                     sse(*pings.splitlines()[:200], answer))

    return Reply(action=act)


#: The id of every `stray_flood` response: longer than a note may quote, with controls in it.
STRAY_ID = "gone\x1b]0;PWN\x07" + "x" * 300


def stray_flood(req: dict[str, Any], ctx: Ctx) -> Reply:
    """5,000 responses (200 over HTTP, on the call's SSE stream) whose id answers no request
    of mrtr's (as after a cancellation), then the result: ignored; `-v` notes one, counts
    the rest, and the trace keeps each."""
    strays = [dumps({"jsonrpc": "2.0", "id": STRAY_ID, "result": {}})] * 5000
    answer = complete(req, "after strays").body

    def act(target: Any, ctx: Ctx, transport: str) -> None:
        if transport == "stdio":
            target.write(b"\n".join([*strays, answer]) + b"\n")
            target.flush()
            return
        target._send(200, {"Content-Type": "text/event-stream"}, sse(*strays[:200], answer))

    return Reply(action=act)


def strays_noted_once(run: Any, trace: Any) -> None:
    lines = run.stderr.splitlines()
    notes = [line for line in lines if "which no request waits for here" in line]
    assert len(notes) == 1 and "x" * 200 not in notes[0], run.stderr[-2000:]
    assert any(line.startswith("-- ... and ") and "more responses no request waited for" in line
               for line in lines), run.stderr[-2000:]
    kept = [line for line in trace.read_text(encoding="utf-8").splitlines() if "PWN" in line]
    assert len(kept) in (200, 5000)


def bad_status_line(req: dict[str, Any], ctx: Ctx) -> Reply:
    """An HTTP answer whose status line is 3,000 bytes of nonsense: the error quotes a part."""
    def act(target: Any, ctx: Ctx, transport: str) -> None:
        target.close_connection = True
        target.wfile.write(b"HTTP/1.1 " + b"X" * 3000 + b"\r\n\r\n")
        target.wfile.flush()
    return Reply(action=act)


ESC_KEY = "k\x1b]0;PWN\x07\x1b[31m\u009b2J"


def strict_escaped_key(req: dict[str, Any], ctx: Ctx) -> Reply:
    """An input request under a key full of terminal controls that needs a capability
    mrtr did not declare (sampling with tools), so `--strict` names its path."""
    return Reply.result(req, {"resultType": "input_required", "requestState": "s", "inputRequests": {ESC_KEY: {
        "method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 1, "tools": []}}}})


def inert_strict_lines(run: Any, trace: Any) -> None:
    lines = [line for line in run.stderr.splitlines() if line.startswith("mrtr: strict:")]
    assert lines and any('inputRequests["k' in line for line in lines), run.stderr
    assert not any(ch in run.stderr for ch in "\x1b\x07\x9b"), run.stderr


def echo_check(req: dict[str, Any], ctx: Ctx) -> Reply:
    """Round 1 asks with a lone surrogate in requestState and in the input key; round 2
    checks that both came back exactly."""
    params = req["params"]
    if "requestState" not in params:
        return Reply.result(req, {"resultType": "input_required", "requestState": "st\ud800ate",
                                  "inputRequests": {"k\udc00": {"method": "elicitation/create", "params": {
                                      "mode": "form", "message": "say \ud800",
                                      "requestedSchema": {"type": "object", "properties": {"f": {"type": "string"}},
                                                          "required": ["f"]}}}}})
    ok = params["requestState"] == "st\ud800ate" and list(params.get("inputResponses", {})) == ["k\udc00"]
    return complete(req, "echo ok" if ok else f"echo WRONG: {params!r}")


def bad_schema(prop: dict[str, Any]) -> Callable[[dict[str, Any], Ctx], Reply]:
    return lambda req, ctx: Reply.result(req, {
        "resultType": "input_required", "inputRequests": {"k": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {"p": prop}}}}}})


def legacy_bad_elicitation(req: dict[str, Any], ctx: Ctx) -> Reply:
    """A 2025-11-25 server asking, by a request of its own, with a schema the spec forbids."""
    ask = dumps({"jsonrpc": "2.0", "id": "ask-1", "method": "elicitation/create", "params": {
        "message": "m", "requestedSchema": {"type": "object", "properties": {"p": {"type": "object"}}}}})

    def act(target: Any, ctx: Ctx, transport: str) -> None:
        if transport == "stdio":
            target.write(ask + b"\n")
            target.flush()
            return
        target.send_response(200)
        target.send_header("Content-Type", "text/event-stream")
        target.end_headers()
        target.wfile.write(sse(ask))
        target.wfile.flush()
        time.sleep(60)  # the stream stays open: mrtr must end the call on its own

    return Reply(action=act)


def fuzz(req: dict[str, Any], ctx: Ctx) -> Reply:
    """Whatever the fuzzer wrote (tests/hostile/test_fuzz_reader.py): a JSON file
    {"mode": "line" | "sse", "payload": hex bytes}, named by HOSTILE_FUZZ (stdio) or by
    the URL's nonce (HTTP: the path, hex-encoded). The payload's `{id}` is the request id;
    a valid final answer follows it where the transport allows one."""
    path = os.environ.get("HOSTILE_FUZZ") or bytes.fromhex(ctx.nonce).decode()
    with open(path, encoding="utf-8") as fh:
        spec = json.load(fh)
    payload = bytes.fromhex(spec["payload"]).replace(b"{id}", json.dumps(req["id"]).encode())
    final = complete(req, "fuzz done").body

    def act(target: Any, ctx: Ctx, transport: str) -> None:
        if transport == "stdio":
            target.write(payload + b"\n" + final + b"\n")
            target.flush()
        elif spec["mode"] == "sse":
            target._send(200, {"Content-Type": "text/event-stream"}, payload + b"\n\n" + sse(final))
        else:
            target._send(200, {"Content-Type": "application/json"}, payload)

    return Reply(action=act)


def task_with_surrogates(req: dict[str, Any], ctx: Ctx) -> Reply:
    """A task (tasks extension) whose id and status message hold lone surrogates."""
    return Reply.result(req, {"resultType": "task", "taskId": "t\ud800", "status": "working",
                              "statusMessage": "s\udfff", "createdAt": "2026-01-01T00:00:00Z",
                              "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": 600000})


def task_bad_result(req: dict[str, Any], ctx: Ctx) -> Reply:
    """A task that completes with a result whose `content` is a string."""
    task = {"taskId": "t1", "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
            "ttlMs": 600000}
    if req["method"] == "tools/call":
        return Reply.result(req, {"resultType": "task", "status": "working", **task})
    return Reply.result(req, {"resultType": "complete", "status": "completed", **task,
                              "result": {"content": "not a list", "resultType": "complete"}})


def task_huge_status(req: dict[str, Any], ctx: Ctx) -> Reply:
    """A task whose status messages (working, then failed) are 3 MB each."""
    task = {"taskId": "t1", "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
            "ttlMs": 600000}
    if req["method"] == "tools/call":
        return Reply.result(req, {"resultType": "task", "status": "working", "statusMessage": "busy " + HUGE, **task})
    return Reply.result(req, {"resultType": "complete", "status": "failed", "statusMessage": "gave up " + HUGE,
                              **task})


def task_bad_input_request(req: dict[str, Any], ctx: Ctx) -> Reply:
    """A task that asks for input with an elicitation whose `message` is a number."""
    task = {"taskId": "t1", "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
            "ttlMs": 600000}
    if req["method"] == "tools/call":
        return Reply.result(req, {"resultType": "task", "status": "working", **task})
    return Reply.result(req, {"resultType": "complete", "status": "input_required", **task, "inputRequests": {
        "q": {"method": "elicitation/create", "params": {"mode": "form", "message": 5, "requestedSchema": {
            "type": "object", "properties": {"x": {"type": "string"}}}}}}})


def quoted_bounded(run: Any, trace: Any) -> None:
    """A server value quoted in the error is JSON, escaped and cut: a short line."""
    line = next(x for x in run.stderr.splitlines() if x.startswith("mrtr: error:"))
    assert len(line) < 300 and "…" in line, line
    assert "\x1b" not in run.stderr and "\\u001b" in line, line


LONG = "\x1b[31m" + "v" * 5000
#: Three megabytes of a server's own words, beginning with a terminal control.
HUGE = "\x1b[31m" + "w" * (3 * M)


def huge_error(req: dict[str, Any], ctx: Ctx) -> Reply:
    """A JSON-RPC error whose `message` (and `data`) is 3 MB."""
    return Reply.message({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32000, "message": "boom " + HUGE,
                                                                        "data": {"why": HUGE}}})


def stderr_bounded_naming(*pieces: str) -> Callable[[Any, Any], None]:
    """A check: stderr is a few lines, however much the server said, names each of `pieces`,
    carries no terminal control, and shows where the server's text was cut (`…`)."""
    def check(run: Any, trace: Any) -> None:
        assert len(run.stderr) < 5000, (len(run.stderr), run.stderr[:3000])
        assert all(piece in run.stderr for piece in pieces), run.stderr
        assert "\x1b" not in run.stderr and "\\x1b[31m" in run.stderr and "…" in run.stderr, run.stderr
    return check


def error_kept_whole(run: Any, trace: Any) -> None:
    """With `--json` the server's error is printed as it came: every character of it."""
    error = json.loads(run.stderr.strip().splitlines()[-1])["error"]
    assert (error["code"], error["message"], error["data"]) == (-32000, "boom " + HUGE, {"why": HUGE})


def log_then_answer(params: dict[str, Any]) -> Callable[[dict[str, Any], Ctx], Reply]:
    """A log notification with `params`, then the answer `done` (an SSE stream over HTTP)."""
    note = dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": params})

    def reply(req: dict[str, Any], ctx: Ctx) -> Reply:
        answer = complete(req, "done").body

        def act(target: Any, ctx: Ctx, transport: str) -> None:
            if transport == "stdio":
                target.write(note + b"\n" + answer + b"\n")
                target.flush()
                return
            target._send(200, {"Content-Type": "text/event-stream"}, sse(note, answer))
        return Reply(action=act)
    return reply


def flag_escaped(run: Any, trace: Any) -> None:
    """What the user typed is echoed escaped: no control reaches the terminal."""
    assert "-a k\\x1b]0;PWN\\x07=... was not used" in run.stderr, run.stderr
    assert not any(ch in run.stderr for ch in "\x1b\x07"), run.stderr


def nothing_recorded(run: Any, trace: Any) -> None:
    """No task record was written (not even a temporary file), and the id is shown escaped."""
    tasks = trace.parent / "state" / "mrtr" / "tasks"
    assert not tasks.exists(), list(tasks.iterdir())
    assert '"t\\ud800"' in run.stderr, run.stderr


def alias_bomb_manifest() -> str:
    """A SKILL.md of about 600 bytes whose frontmatter expands to 9**12 nodes."""
    lines = ["---", "name: bomb", 'a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 12)]
    return "\n".join([*lines, "---", "", "never shown", ""])


def serve_skill(manifest: str) -> Callable[[dict[str, Any], Ctx], Reply]:
    """A modern server declaring the skills extension with one skill, `bomb`, whose
    SKILL.md is `manifest` (listed with its true size and digest, so only reading it
    can refuse it)."""
    import hashlib

    data = manifest.encode("utf-8")
    uri = "skill://bomb/SKILL.md"
    entry = {"uri": uri, "frontmatter": {"name": "bomb"}, "resources": [
        {"uri": uri, "size": len(data), "digest": "sha256:" + hashlib.sha256(data).hexdigest()}]}

    def reply(req: dict[str, Any], ctx: Ctx) -> Reply | None:
        method = req["method"]
        if method == "server/discover":
            return Reply.result(req, {"resultType": "complete", "supportedVersions": [MODERN_VERSION],
                                      "capabilities": {"tools": {}, "resources": {},
                                                       "extensions": {"io.modelcontextprotocol/skills": {}}},
                                      "serverInfo": {"name": "hostile", "version": "1"}})
        if method == "skills/list":
            return Reply.result(req, {"resultType": "complete", "skills": [entry]})
        if method == "resources/read":
            return Reply.result(req, {"resultType": "complete", "contents": [
                {"uri": uri, "mimeType": "text/markdown", "text": manifest}]})
        return None
    return reply


def stdout_noise(req: dict[str, Any], ctx: Ctx) -> Reply:
    """50,000 lines of non-JSON noise on stdout, then the answer."""
    noise = b"".join(b"noise line %d of the server\n" % i for i in range(50000))
    return Reply(noise + complete(req, "after the noise").body)


def noise_summarised(run: Any, trace: Any) -> None:
    warnings = [x for x in run.stderr.splitlines() if "is not a JSON-RPC message" in x]
    assert len(warnings) == 10, len(warnings)
    assert len(run.stderr) < 8192, len(run.stderr)


def completion(count: int, total: int | None) -> Callable[[dict[str, Any], Ctx], Reply]:
    """A completion/complete answer with `count` values (and `total`, when given)."""
    def reply(req: dict[str, Any], ctx: Ctx) -> Reply:
        body = {"values": [f"v{i}" for i in range(count)], "hasMore": True}
        if total is not None:
            body["total"] = total
        return Reply.result(req, {"resultType": "complete", "completion": body})
    return reply


def hundred_lines(run: Any, trace: Any) -> None:
    assert run.stdout.splitlines() == [f"v{i}" for i in range(100)], len(run.stdout)


def huge_line(size: int) -> Callable[[dict[str, Any], Ctx], Reply]:
    return lambda req, ctx: complete(req, "x" * size)


def endless(req: dict[str, Any], ctx: Ctx) -> Reply:
    """A message that never ends: `{"jsonrpc":"2.0","id":N,"result":{"x":"xxxx...` for ever."""
    head = ('{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"' % json.dumps(req["id"])).encode()

    def act(target: Any, ctx: Ctx, transport: str) -> None:
        block = b"x" * (1 << 16)
        try:
            if transport == "stdio":
                target.write(head)
                while True:
                    target.write(block)
            target.send_response(200)
            target.send_header("Content-Type", "application/json")
            target.send_header("Transfer-Encoding", "chunked")
            target.end_headers()
            for chunk in [head] + [block] * 100000:
                target.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except OSError:  # the reader went away, as it should
            pass

    return Reply(action=act)


def sse_cut(keep: int | None) -> Callable[[dict[str, Any], Ctx], Reply]:
    """An SSE response whose one event is cut: the first `keep` bytes of the answer's data
    line (None: the whole line, but not the blank line that ends the event), then the end."""
    def reply(req: dict[str, Any], ctx: Ctx) -> Reply:
        line = b"data: " + complete(req, "never shown").body
        return Reply(line[:keep] if keep is not None else line + b"\n", ctype="text/event-stream")
    return reply


def log_then_break(again: bool) -> Callable[[dict[str, Any], Ctx], Reply]:
    """A 2026-07-28 response stream that carries one log notification and ends before the
    final response (the request is lost: mrtr re-issues it); the re-issued call is answered,
    logging the line again only if `again` (the server ran the tool twice, logging each time)."""
    note = dumps({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "info", "logger": "tool", "data": "tool started"}})

    def reply(req: dict[str, Any], ctx: Ctx) -> Reply:
        if ctx.calls.get("tools/call", 0) == 1:
            return Reply(sse(note), ctype="text/event-stream")
        return Reply(sse(*([note] if again else []), complete(req, "done").body), ctype="text/event-stream")
    return reply


def logged(times: int) -> Callable[[Any, Any], None]:
    """A check: the server's log line is shown `times` times, as often as the server sent it
    (never again only because the request was re-issued), and the re-issue is said once,
    after the broken stream's line."""
    def check(run: Any, trace: Any) -> None:
        lines = run.stderr.splitlines()
        shown = [i for i, line in enumerate(lines) if line == "[server info tool] tool started"]
        said = [i for i, line in enumerate(lines) if "tools/call t sent again as a new request" in line]
        assert len(shown) == times and len(said) == 1, run.stderr
        assert shown[0] < said[0] and all(i > said[0] for i in shown[1:]), run.stderr
    return check


def huge_sse(req: dict[str, Any], ctx: Ctx) -> Reply:
    return Reply(sse(complete(req, "x" * (3 * M)).body), ctype="text/event-stream")


def sse_retry(value: bytes, event_id: bytes = b"e1") -> Callable[[dict[str, Any], Ctx], Reply]:
    """A 2025-11-25 response stream the server closes after one event carrying `id:
    event_id` and `retry: value`, before the final response (a resumption would wait
    `value` ms, then send `event_id` back in `Last-Event-ID`)."""
    return lambda req, ctx: Reply(b"id: " + event_id + b"\nretry: " + value + b"\ndata: \n\n",
                                  ctype="text/event-stream")


def nothing_resumed(run: Any, trace: Any) -> None:
    """No GET went out to resume the stream (its `Last-Event-ID` could not be sent)."""
    sent = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    resumed = [e for e in sent if e.get("dir") == "http-request" and e["http"].get("method") == "GET"
               and "Last-Event-ID" in e["http"]["headers"]]
    assert not resumed, resumed
    assert run.stderr.count("\n") == 1, run.stderr  # one line, no codec message


def value_never_shown(value: str) -> Callable[[Any, Any], None]:
    """A check: `value` (a session id, a cookie: secrets) is in no output and not in the
    trace, in any form."""
    forms = (value, json.dumps(value), json.dumps(value)[1:-1])

    def check(run: Any, trace: Any) -> None:
        written = trace.read_text(encoding="utf-8") if trace.exists() else ""
        for text in (run.stdout, run.stderr, written):
            assert not any(form in text for form in forms), text[-3000:]
    return check


def session_header(name: str, value: str) -> Callable[[dict[str, Any], Ctx], Reply]:
    """A 2025-11-25 server whose `initialize` reply sets the response header `name: value`
    (a value mrtr would send back on every later request: a session id, a cookie); the
    call is answered "call ok"."""
    def reply(req: dict[str, Any], ctx: Ctx) -> Reply:
        if req.get("method") == "initialize":
            return Reply.result(req, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                      "serverInfo": {"name": "hostile", "version": "1"}}, headers={name: value})
        return complete(req, "call ok")
    return reply


def probe_answer(line: bytes) -> Callable[[dict[str, Any], Ctx], Reply]:
    """`server/discover` answered with `line` (`%(id)s`: the request's id), as a stdio line
    or an HTTP JSON body; the server then goes on reading (and, in its era, answering)."""
    return lambda req, ctx: Reply(line.replace(b"%(id)s", json.dumps(req["id"]).encode()))


def too_many(times: int, retry_after: str | None) -> Callable[[dict[str, Any], Ctx], Reply]:
    def reply(req: dict[str, Any], ctx: Ctx) -> Reply:
        n = ctx.stash["429"] = ctx.stash.get("429", 0) + 1
        if n <= times:
            return Reply(b"slow down", status=429, ctype="text/plain",
                         headers={"Retry-After": retry_after} if retry_after is not None else {})
        return complete(req, f"ok after {n - 1} refusals")
    return reply


def too_many_on_initialized(msg: dict[str, Any], ctx: Ctx) -> Reply:
    """Legacy HTTP: `notifications/initialized` is refused once with 429; a call before the
    notification got through is an error (so a client that drops the refused one fails)."""
    if msg.get("method") == "notifications/initialized":
        n = ctx.stash["429"] = ctx.stash.get("429", 0) + 1
        if n == 1:
            return Reply(b"slow down", status=429, ctype="text/plain", headers={"Retry-After": "0"})
        ctx.stash["initialized"] = True
        return Reply(b"", status=202)
    if not ctx.stash.get("initialized"):
        return Reply.message({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32600,
                                                                           "message": "not initialized"}})
    return complete(msg, "ok after the notification was retried")


def expired_session(req: dict[str, Any], ctx: Ctx) -> Reply:
    """Legacy HTTP: the first call gets 404 with a JSON-RPC error carrying its id."""
    if not ctx.stash.get("expired"):
        ctx.stash["expired"] = True
        return Reply(dumps({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32001,
                                                                         "message": "Session not found"}}),
                     status=404)
    return complete(req, "new session ok")


# --- processes ------------------------------------------------------------------------
def exit_leaving_holder(req: dict[str, Any], ctx: Ctx) -> Reply:
    """Start a child that keeps our stdout open, then exit without answering."""
    def act(target: Any, ctx: Ctx, transport: str) -> None:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        note_pid(child.pid)
        os._exit(0)

    return Reply(action=act)


def linger(ctx: Ctx) -> None:
    """After stdin closes, stay (a server that does not notice)."""
    time.sleep(600)


def linger_ignoring_term(ctx: Ctx) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(600)


def flood_stderr(total: int, newline: bool) -> Callable[[Ctx], None]:
    def start(ctx: Ctx) -> None:
        block = (b"log line of the server " * 40 + b"\n") if newline else b"e" * (1 << 16)
        written = 0
        while written < total:
            sys.stderr.buffer.write(block)
            written += len(block)
        sys.stderr.buffer.write(b"\nflood done\n")
        sys.stderr.flush()
    return start


def stderr_bounded(run: Any, trace: Any) -> None:
    """64 MiB of stderr in one line is shown cut, not whole."""
    assert len(run.stderr) < 64 * 1024, len(run.stderr)


def slow_start(seconds: float) -> Callable[[Ctx], None]:
    return lambda ctx: time.sleep(seconds)


def era_reply(req: dict[str, Any], ctx: Ctx) -> Reply:
    """Say which era the call came in (a dual-era server)."""
    if req["method"] == "initialize":
        return Reply.result(req, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                  "serverInfo": {"name": "dual", "version": "1"}}, session=True)
    modern = (req["params"].get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion")
    return complete(req, "era: modern" if modern else "era: legacy")


# ---------------------------------------------------------------------- the table
@dataclass
class Case:
    name: str
    reply: Callable[[dict[str, Any], Ctx], Reply | None]
    code: int
    says: str = ""
    args: tuple[str, ...] = ("call", "t")
    transports: tuple[str, ...] = ("stdio", "http")
    eras: tuple[str, ...] = ("modern", "legacy")
    era: str = "modern"  # set per run by the runner (the server's own era)
    methods: tuple[str, ...] = ()
    on_start: Callable[[Ctx], None] = lambda ctx: None
    on_stdin_closed: Callable[[Ctx], None] = lambda ctx: None
    wrap: bool = False  # stdio: run behind `bash -c '...; true'` (a wrapper that stays)
    protocol: str | None = None  # --protocol (default: pinned to the era)
    prime: tuple[str, ...] | None = None  # a run before, e.g. to fill the era cache
    out: str = ""  # a piece of stdout
    check: Callable[[Any, Any], None] | None = None


def valid_trace(run: Any, trace: Any) -> None:
    for line in trace.read_text(encoding="utf-8").splitlines():
        json.loads(line)


LIMIT = ("--max-message-size", "1M")

_TABLE = [
    # Depth: beyond the documented limit (128), and far beyond Python's own (about 1,000).
    Case("deep_5000", raw_result('{"content":[],"structuredContent":{"a":%s}}' % deep(5000)), 4,
         "nested more than 128"),
    Case("deep_200", raw_result('{"content":[],"structuredContent":{"a":%s}}' % deep(200)), 4, "nested more than 128"),
    Case("deep_error_body", lambda req, ctx: Reply(b'{"error":' + deep(5000).encode() + b"}", status=500), 3,
         "HTTP 500",
         transports=("http",)),
    Case("deep_notification", deep_notification, 4, "nested more than 128"),
    # Valid JSON-RPC the reader cannot take: fails at once (stdio: never "non-JSON" noise).
    Case("bigint_result", with_id('{"jsonrpc":"2.0","id":%(id)s,"result":{"content":[],"structuredContent":{"a":'
                                  + "9" * 5000 + "}}}"), 4, "5000 digits"),
    Case("bigint_notification", stalled(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info",'
                                        b'"data":-' + b"9" * 5000 + b"}}"), 4, "5000 digits"),
    Case("bad_utf8_result",
         with_id('{"jsonrpc":"2.0","id":%(id)s,"result":{"content":[{"type":"text","text":"\udcff"}]}}'),
         4, "UTF-8", transports=("stdio",)),
    Case("batch_response", with_id('[{"jsonrpc":"2.0","id":%(id)s,"result":{"content":[]}}]'), 4, "batch"),
    # A JSON reply to a POST that answers another request: not this request's result.
    Case("json_reply_wrong_id", lambda req, ctx: Reply(dumps({"jsonrpc": "2.0", "id": "someone-else",
                                                              "result": {"content": []}})),
         4, "answers the request id \"someone-else\", not", transports=("http",)),
    Case("error_null_id", stalled(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'),
         4, "Parse error"),
    Case("deep_foreign_request", stalled(('{"jsonrpc":"2.0","id":"zz","method":"ping","params":{"a":%s}}'
                                          % deep(300)).encode()), 4, "nested more than 128"),
    Case("deep_foreign_response", stalled(('{"jsonrpc":"2.0","id":"zz","result":{"a":%s}}' % deep(300)).encode()),
         4, "nested more than 128", transports=("stdio",)),
    # A server that floods requests without reading its stdin: writes never block the run.
    Case("ping_flood_no_read", ping_flood, 0, args=("--timeout", "60", "call", "t"), eras=("legacy",),
         out="after pings"),
    # Responses to no request in flight, a flood of them: ignored, noted once at -v, all traced.
    Case("stray_flood", stray_flood, 0, args=("-v", "call", "t"), eras=("modern",), out="after strays",
         check=strays_noted_once),
    # --strict names paths through server-chosen keys: sanitized as every other line.
    Case("strict_escaped_key", strict_escaped_key, 4, "strict", args=("--strict", "--no-input", "call", "t"),
         eras=("modern",), check=inert_strict_lines),
    # Lone surrogates: echoed exactly, written to every file.
    Case("surrogate_echo", echo_check, 0, args=("call", "t", "-a", "f=v"), eras=("modern",), out="echo ok"),
    Case("surrogate_trace", lambda req, ctx: complete(req, "bad \ud800 text"), 0, check=valid_trace, out="bad"),
    # ...but a task id names the task in records, commands and headers: it must have a UTF-8 form.
    Case("task_id_surrogate", task_with_surrogates, 4, "has no UTF-8 form", eras=("modern",),
         methods=("tasks/get",), check=nothing_recorded),
    Case("task_id_surrogate_detached", task_with_surrogates, 4, "has no UTF-8 form", args=("call", "t", "--detach"),
         eras=("modern",), check=nothing_recorded),
    Case("task_result_content_string", task_bad_result, 4, "result.content", eras=("modern",),
         methods=("tasks/get",)),
    Case("task_input_request_invalid", task_bad_input_request, 4, 'inputRequests["q"].params.message',
         eras=("modern",), methods=("tasks/get",)),
    Case("task_status_huge", task_huge_status, 4, "gave up \\x1b[31mwww", eras=("modern",), methods=("tasks/get",),
         check=stderr_bounded_naming("busy \\x1b[31mwww")),
    # What the user typed is shown escaped.
    Case("unused_flag_escaped", lambda req, ctx: complete(req, "done"), 0, "was not used",
         args=("call", "t", "-a", "k\x1b]0;PWN\x07=1"), out="done", check=flag_escaped),
    # Shapes the schema forbids.
    # A JSON-RPC error is reported like every error: one "mrtr: error:" line.
    Case("jsonrpc_error_prefixed", lambda req, ctx: Reply.message({"jsonrpc": "2.0", "id": req["id"], "error": {
        "code": -32601, "message": "no such tool"}}), 4, "mrtr: error: server error -32601: no such tool"),
    # A server value quoted in an error: as JSON, escaped, cut (never a Python repr of any length).
    Case("error_code_not_integer", lambda req, ctx: Reply.message({"jsonrpc": "2.0", "id": req["id"], "error": {
        "code": "x", "message": {"": {}, "m": LONG}}}), 4, 'without an integer code: {"code": "x", "message": {"": {}',
         check=quoted_bounded),
    Case("result_type_unknown", lambda req, ctx: Reply.result(req, {"resultType": {"k": LONG}}), 4,
         'unrecognised resultType {"k": "', eras=("modern",), check=quoted_bounded),
    # A server's own words in a message are cut short (--json keeps them whole).
    Case("error_message_huge", huge_error, 4, "mrtr: error: server error -32000: boom \\x1b[31mwww",
         check=stderr_bounded_naming("-32000")),
    Case("error_message_huge_json", huge_error, 4, '"message": "boom \\u001b[31mwww', args=("--json", "call", "t"),
         check=error_kept_whole),
    Case("log_huge", log_then_answer({"level": "info", "logger": "L" + HUGE, "data": "d" + HUGE}), 0,
         "[server info L\\x1b[31mwww", out="done",
         check=stderr_bounded_naming("[server info L")),
    Case("content_string", raw_result('{"content":"hello"}'), 4, "content"),
    Case("content_item_no_type", raw_result('{"content":[{"text":"x"}]}'), 4, "content[0]"),
    Case("text_not_string", raw_result('{"content":[{"type":"text","text":7}]}'), 4, "content[0].text"),
    Case("is_error_not_bool", raw_result('{"content":[],"isError":"yes"}'), 4, "isError"),
    Case("object_property", bad_schema({"type": "object"}), 4, "requestedSchema", eras=("modern",)),
    Case("legacy_elicitation_object_property", legacy_bad_elicitation, 4, "requestedSchema", eras=("legacy",)),
    Case("input_requests_list", raw_result('{"resultType":"input_required","inputRequests":[1]}'), 4, "inputRequests",
         eras=("modern",)),
    # Untrusted YAML is bounded: nested aliases are refused, not expanded (in C, for ever).
    Case("skill_alias_bomb", serve_skill(alias_bomb_manifest()), 4, "skill://bomb/SKILL.md: its frontmatter expands "
         "to more than 10000 YAML nodes", args=("skill", "bomb"), eras=("modern",),
         methods=("server/discover", "skills/list", "resources/read")),
    # Floods: repeated diagnostics are shown a few times, then counted.
    Case("stdout_noise_flood", stdout_noise, 0, "... and 49,990 more lines on the server's stdout",
         transports=("stdio",), out="after the noise", check=noise_summarised),
    Case("completion_million_values", completion(1_000_000, None), 0, "100 of the 1,000,000 values",
         args=("complete", "resource", "r://{x}", "x="), eras=("modern",), methods=("completion/complete",),
         check=hundred_lines),
    Case("completion_huge_total", completion(3, 10 ** 3999), 0, "3 of 100000…(4000 digits) values shown",
         args=("complete", "resource", "r://{x}", "x="), eras=("modern",), methods=("completion/complete",),
         out="v2"),
    # Size.
    Case("huge_line", huge_line(3 * M), 4, "over the limit of 1048576 bytes", args=(*LIMIT, "call", "t")),
    Case("endless_line", endless, 4, "over the limit", args=(*LIMIT, "call", "t")),
    # An SSE event ends at a blank line: a stream that ends before it is broken (as a cut stdio line).
    Case("sse_cut_in_data", sse_cut(30), 3, "ended in the middle of an event", transports=("http",)),
    Case("sse_cut_before_blank_line", sse_cut(None), 3, "ended in the middle of an event", transports=("http",)),
    # A 2026-07-28 stream that breaks after a log line: the request is re-issued (said on
    # stderr), and the line is shown as often as the server sent it.
    Case("log_then_broken_stream", log_then_break(False), 0, "tool started", transports=("http",),
         eras=("modern",), out="done", check=logged(1)),
    Case("log_then_broken_stream_logged_again", log_then_break(True), 0, "tool started", transports=("http",),
         eras=("modern",), out="done", check=logged(2)),
    Case("huge_sse_event", huge_sse, 4, "over the limit", args=(*LIMIT, "call", "t"), transports=("http",)),
    # A 2025-11-25 stream closed early is resumed after its `retry` delay; one asking for
    # more than mrtr waits (30 s) is not resumed: exit 3 at once, never a wait or a crash.
    Case("sse_retry_huge", sse_retry(b"99999999999999999999"), 3, "more than the 30 s mrtr waits",
         transports=("http",), eras=("legacy",)),
    Case("sse_retry_5000_digits", sse_retry(b"9" * 5000), 3, "more than the 30 s mrtr waits",
         transports=("http",), eras=("legacy",)),
    Case("sse_retry_over_cap", sse_retry(b"30001"), 3, "more than the 30 s mrtr waits",
         transports=("http",), eras=("legacy",)),
    # A value the server hands over that mrtr would send back in a header (an event id in
    # Last-Event-ID, a session id, a cookie) must be one a header can carry: visible ASCII.
    Case("sse_id_not_ascii", sse_retry(b"0", "\u00e9v\u00e9nement".encode()), 3,
         "cannot be resumed: its last event id", transports=("http",), eras=("legacy",), check=nothing_resumed),
    Case("sse_id_control", sse_retry(b"0", b"e\x01\x7f"), 3, "cannot be resumed: its last event id",
         transports=("http",), eras=("legacy",), check=nothing_resumed),
    Case("sse_id_not_utf8", sse_retry(b"0", b"e\xff"), 3, "cannot be resumed: its last event id",
         transports=("http",), eras=("legacy",), check=nothing_resumed),
    Case("session_id_not_ascii", session_header("Mcp-Session-Id", "s3cr\u00e9t"), 4, "Mcp-Session-Id",
         transports=("http",), eras=("legacy",), methods=("initialize",), check=value_never_shown("s3cr\u00e9t")),
    Case("session_id_space", session_header("Mcp-Session-Id", "s3cr 3t"), 4, "Mcp-Session-Id",
         transports=("http",), eras=("legacy",), methods=("initialize",), check=value_never_shown("s3cr 3t")),
    Case("cookie_not_ascii", session_header("Set-Cookie", "c=s3cr\u00e9t; Path=/"), 0, transports=("http",),
         eras=("legacy",), methods=("initialize",), out="call ok", check=value_never_shown("s3cr\u00e9t")),
    # The era probe answered with a message no server may send: exit 4 at once, as with a
    # pinned protocol, never a legacy verdict (this server would go on to answer initialize).
    Case("probe_huge_line", probe_answer(b'{"jsonrpc":"2.0","id":%(id)s,"result":{"x":"' + b"x" * (3 * M) + b'"}}'),
         4, "over the limit of 1048576 bytes", args=(*LIMIT, "tools"), eras=("legacy",), protocol="auto",
         methods=("server/discover",)),
    Case("probe_too_deep", probe_answer(b'{"jsonrpc":"2.0","id":%(id)s,"result":{"x":' + deep(5000).encode() + b"}}"),
         4, "nested more than 128", args=("tools",), eras=("legacy",), protocol="auto",
         methods=("server/discover",)),
    Case("probe_not_utf8", probe_answer(b'{"jsonrpc":"2.0","id":%(id)s,"result":{"x":"\xff"}}'),
         4, "not valid UTF-8", args=("tools",), transports=("stdio",), eras=("legacy",), protocol="auto",
         methods=("server/discover",)),
    # HTTP 429.
    Case("429_then_ok", too_many(2, "0"), 0, transports=("http",), out="ok after 2 refusals"),
    Case("429_http_date", too_many(1, "Wed, 21 Oct 2015 07:28:00 GMT"), 0, transports=("http",), out="ok after 1"),
    Case("429_no_retry_after", too_many(1, None), 0, transports=("http",), out="ok after 1"),
    Case("429_on_a_notification", too_many_on_initialized, 0, transports=("http",), eras=("legacy",),
         methods=("notifications/initialized",), out="ok after the notification was retried"),
    Case("429_forever", too_many(1000, "0"), 4, "still refused after 3 retries", transports=("http",)),
    Case("429_too_long", too_many(1000, "3600"), 4, "asks to wait 3600 s", transports=("http",)),
    Case("bad_status_line", bad_status_line, 3, "illegal status line", transports=("http",)),
    Case("429_endless", too_many(1000, "1" + "0" * 23), 4, "asks to wait for ever", transports=("http",)),
    # Retry-After 50 s (under the 60 s mrtr would wait), more than all of --timeout (30 s, which
    # start-up and the first requests on a loaded machine never use up before the 429).
    Case("429_beyond_timeout", too_many(1000, "50"), 4, "left of --timeout", transports=("http",),
         args=("--timeout", "30", "call", "t")),
    # A 2025-11-25 session that expired: a new one, and the call again.
    Case("expired_session_404", expired_session, 0, transports=("http",), eras=("legacy",), out="new session ok"),
    # Processes.
    Case("exit_leaving_holder", exit_leaving_holder, 3, "exited with code 0", transports=("stdio",),
         args=("--timeout", "120", "call", "t")),
    Case("wrapper_lingers", lambda req, ctx: complete(req, "done"), 0, transports=("stdio",), wrap=True,
         on_stdin_closed=linger, out="done"),
    Case("wrapper_ignores_sigterm", lambda req, ctx: complete(req, "done"), 0, transports=("stdio",), wrap=True,
         on_stdin_closed=linger_ignoring_term, out="done"),
    Case("stderr_flood_no_newline", lambda req, ctx: complete(req, "done"), 0, "[...]", transports=("stdio",),
         on_start=flood_stderr(64 * M, newline=False), out="done", check=stderr_bounded),
    Case("stderr_flood_lines", lambda req, ctx: complete(req, "done"), 0, "flood done", transports=("stdio",),
         on_start=flood_stderr(16 * M, newline=True), out="done"),
    # Era: a slow-starting dual-era server (accepts initialize too) is modern when the
    # cache says so, or when its late server/discover answer comes.
    Case("slow_modern_cached", era_reply, 0, transports=("stdio",), eras=("modern",), methods=("initialize",),
         on_start=slow_start(4), protocol="auto", prime=("--probe-timeout", "60", "call", "t"), out="era: modern"),
    Case("slow_modern_late_answer", era_reply, 0, transports=("stdio",), eras=("modern",), methods=("initialize",),
         on_start=slow_start(3), protocol="auto", out="era: modern"),
    Case("slow_start_timeout", era_reply, 7, "was still starting", transports=("stdio",), eras=("modern",),
         methods=("initialize",), on_start=slow_start(60), protocol="auto", args=("--timeout", "1", "call", "t")),
]

#: Not run by the table: driven by the fuzzer.
FUZZ = Case("fuzz", fuzz, 0)

CASES: dict[str, Case] = {case.name: case for case in [*_TABLE, FUZZ]}
TABLE: list[Case] = _TABLE
