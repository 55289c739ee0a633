"""Hostile and careless user input (the user's side): secrets in every header
source, bad files and streams, arguments that conflict or cannot be typed, output that
cannot be written. Every case asserts its documented exit code, no traceback, and that
no secret from the run appears in any output or file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import CATALOG_SERVER, stdio_cmd, url_args
from tests.support import SAFETY

SECRET = "s3cretT0ken"


def assert_sane(r, *, code: int, secret: str | None = SECRET, files: tuple[Path, ...] = ()) -> None:
    """`r` ended with `code`, printed no traceback, and no output or file holds `secret`."""
    assert r.code == code, (r.code, r.stdout[-2000:], r.stderr[-2000:])
    assert "Traceback" not in r.stderr
    assert "internal error" not in r.stderr
    if secret:
        assert secret not in r.stdout and secret not in r.stderr
        for f in files:
            if f.exists():
                assert secret not in f.read_text(errors="replace")


@pytest.fixture(scope="module")
def guarded(http_servers) -> str:
    """A catalog server over HTTP that wants `Authorization: Bearer SECRET`."""
    return http_servers.start(CATALOG_SERVER, "--require-token", SECRET)


# ---------------------------------------------------------------------- secrets
BAD_VALUES = {"newline": SECRET + "\n", "cr": SECRET + "\r", "nul": SECRET + "\x00x", "ctl": SECRET + "\x01x",
              "del": SECRET + "\x7fx", "trailing space": SECRET + " ", "non-ascii": SECRET + "é"}


# Left out: what a source cannot carry at all (an argument or an environment variable cannot
# hold NUL; -H strips trailing spaces as it parses).
CARRIED = [(how, bad) for how in ["bearer-env", "header-env", "header-file", "header", "config"] for bad in BAD_VALUES
           if not (how in ("header", "bearer-env", "header-env") and bad == "nul")
           and not (how == "header" and bad == "trailing space")]


@pytest.mark.parametrize(("how", "bad"), CARRIED)
def test_a_header_value_that_cannot_be_sent_is_refused_by_its_source_never_shown(mrtr, guarded, tmp_path, how, bad):
    value = BAD_VALUES[bad]
    token_file = tmp_path / "token"
    # file: drops trailing line breaks only: put one inside.
    token_file.write_bytes(value.encode() + (b"x" if value.endswith(("\n", "\r")) else b""))
    (tmp_path / "c.json").write_text(json.dumps({"mcpServers": {"g": {"url": guarded, "headers": {"X-Plain": value}}}}))
    target = ["-s", "g", "--config", str(tmp_path / "c.json")] if how == "config" else url_args(guarded)
    args = {"bearer-env": ["--bearer-token-env", "TOK"],
            "header-env": ["-H", "Authorization: Bearer env:TOK"],
            "header-file": ["-H", f"Authorization: Bearer file:{token_file}"],
            "header": ["-H", f"Authorization: Bearer {value}"],
            "config": []}[how]
    trace = tmp_path / "t.jsonl"
    r = mrtr(*target, *args, "--trace", trace, "-vv", "tools", env={"TOK": value} if how.endswith("env") else None)
    assert_sane(r, code=2, files=(trace,))
    named = {"bearer-env": "--bearer-token-env TOK", "header-env": "-H Authorization",
             "header-file": "-H Authorization", "header": "-H Authorization", "config": "header X-Plain"}[how]
    assert named in r.stderr, r.stderr
    assert not trace.exists()  # refused before anything was sent, or traced


def test_config_header_values_are_secrets_whatever_their_name(mrtr, guarded, tmp_path):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"mcpServers": {"g": {"url": guarded, "headers": {
        "X-Plain": f"plain-{SECRET}", "Authorization": f"Bearer {SECRET}"}}}}))
    trace = tmp_path / "t.jsonl"
    r = mrtr("-s", "g", "--config", cfg, "-vv", "--trace", trace, "call", "whoami")
    assert r.code == 0, r.stderr
    assert "X-Plain: ***" in r.stderr  # -vv shows the header, not its value
    assert f"plain-{SECRET}" not in r.stderr and f"plain-{SECRET}" not in trace.read_text()


# ---------------------------------------------------------------------- what a person is shown
PICKY = Path(__file__).parent / "servers" / "picky_server.py"


@pytest.fixture(scope="module", params=["stdio", "http"])
def picky(request, http_servers) -> list[str]:
    """The picky server (tests/servers/picky_server.py) over stdio or HTTP."""
    if request.param == "stdio":
        return ["--stdio", stdio_cmd(PICKY)]
    return url_args(http_servers.start(PICKY))


@pytest.mark.parametrize("how", ["flag", "fields", "inputResponses"])
def test_a_rejected_one_off_answer_is_used_once_then_exit_5_explains(mrtr, picky, tmp_path, how):
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"fields": {"code": "wrong"}} if how == "fields" else
                                  {"inputResponses": {"code": {"action": "accept", "content": {"code": "wrong"}}}}))
    given = ["-a", "code=wrong"] if how == "flag" else ["--answers", answers]
    source = {"flag": "-a code=wrong", "fields": "fields.code", "inputResponses": "inputResponses.code"}[how]
    r = mrtr(*picky, "--trace", tmp_path / "t.jsonl", "call", "pick", *given, "--max-rounds", "1000")
    assert_sane(r, code=5, secret=None)
    doc = r.json()
    assert doc["missing"] == ["code"]
    assert source in doc["explanation"] and '"code"' in doc["explanation"]
    assert "'wrong' is wrong, try again" in doc["explanation"]
    assert doc["rejected"]["code"]["message"] == "'wrong' is wrong, try again"
    assert doc["answersTemplate"]["inputResponses"]["code"]["content"] == {"code": "wrong"}  # filled with it
    assert "'wrong' is wrong, try again" in r.stderr and "max-rounds" not in r.stderr
    sent = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    calls = [x for x in sent if x.get("dir") == "send" and (x.get("message") or {}).get("method") == "tools/call"]
    assert len(calls) == 2  # the first request and one retry carrying the answer, never again


def test_a_list_in_an_answer_file_still_answers_one_round_per_entry(mrtr, picky, tmp_path):
    answers = tmp_path / "a.json"
    entry = lambda code: {"action": "accept", "content": {"code": code}}  # noqa: E731
    answers.write_text(json.dumps({"inputResponses": {"code": [entry("one"), entry("two"), entry("right")]}}))
    r = mrtr(*picky, "call", "pick", "--answers", answers)
    assert_sane(r, code=0, secret=None)
    assert r.stdout.strip() == "picked right"


@pytest.mark.parametrize("url", [5, None, ["https://a.example/"], {"href": "https://a.example/"}, "absent"])
def test_a_url_request_without_a_string_url_is_an_invalid_request(mrtr, picky, url):
    args = {} if url == "absent" else {"url": url}
    r = mrtr(*picky, "call", "visit", "--args", json.dumps(args))
    assert_sane(r, code=4, secret=None)
    assert "params.url" in r.stderr and r.stdout == ""


@pytest.mark.parametrize(("url", "shown", "host"), [
    ("https://evil.example\\@good.com/x", "https://evil.example\\@good.com/x", "evil.example"),
    ("https://good.com\t.evil.example/", "https://good.com\\t.evil.example/", "good.com.evil.example"),
    ("https://good.com\n.evil.example/", "https://good.com\\n.evil.example/", "good.com.evil.example"),
    (" https://good.com/\x01", " https://good.com/\\x01", "good.com"),
    ("https://good.com%2eevil.example/", "https://good.com%2eevil.example/", "good.com.evil.example"),
    ("https://xn--gd-fka.com/", "https://xn--gd-fka.com/", "xn--gd-fka.com (punycode)"),
    ("https://g\u00f6d.com/", "https://g\u00f6d.com/", "xn--gd-fka.com (punycode)"),
    ("http://0x7f.1/", "http://0x7f.1/", "127.0.0.1"),
    ("http://2130706433/", "http://2130706433/", "127.0.0.1"),
    ("http://127.1/", "http://127.1/", "127.0.0.1"),
    ("//evil.example/x", "//evil.example/x", "(none)"),
    ("javascript:alert(1)", "javascript:alert(1)", "(none)"),
])
def test_without_a_terminal_the_url_is_listed_as_sent_with_the_browsers_host(mrtr, picky, url, shown, host):
    # The URL as the server sent it (escaped, never masked: what is shown is what can be
    # opened), and the host a browser goes to (WHATWG URL standard), not urllib's.
    r = mrtr(*picky, "call", "visit", "--args", json.dumps({"url": url}))
    assert_sane(r, code=5, secret=None)
    assert f"open this URL yourself: {shown}\n" in r.stderr, r.stderr
    assert f"a browser would go to host: {host}\n" in r.stderr, r.stderr
    assert "***" not in r.stderr


@pytest.mark.parametrize("url", ["https://user:pw@good.com/", "https://evil.example%5C@good.com/",
                                 "https://good.com\t@evil.example/", "https://user@good.com/"])
def test_a_url_with_a_user_name_or_password_is_refused_naming_the_browsers_host(mrtr, picky, url):
    # `user:pw@host` is there to be read as the host (phishing); shown masked it cannot be
    # opened as shown either. Refused outright, with the host a browser would visit.
    r = mrtr(*picky, "call", "visit", "--args", json.dumps({"url": url}))
    assert_sane(r, code=4, secret=None)
    host = "evil.example" if "@evil" in url else "good.com"
    assert "has a user name or password before its host" in r.stderr and f"goes to host {host}" in r.stderr, r.stderr
    assert "***" not in r.stderr and "pw" not in r.stderr and r.stdout == ""


def test_a_url_longer_than_the_limit_is_refused_in_one_bounded_line(mrtr, picky, tmp_path):
    # A URL-mode link is shown whole before consent (never a part hidden), so one too long to
    # show is refused (docs/limits.md): exit 4, one line, the URL not in it.
    from mrtr_cli.responders.urls import MAX_URL_CHARS

    prefix = "https://good.com/\\"  # a backslash: the browser's href would be quoted too
    args = tmp_path / "args.json"
    args.write_text(json.dumps({"url": prefix + "a" * (MAX_URL_CHARS + 1 - len(prefix))}))
    r = mrtr(*picky, "call", "visit", "--args", f"@{args}")
    assert_sane(r, code=4, secret=None)
    assert f"the URL is {MAX_URL_CHARS + 1:,} characters long" in r.stderr, r.stderr[:500]
    assert len(r.stderr) < 2000 and "a" * 600 not in r.stderr, r.stderr[:3000]


def test_a_url_at_the_limit_is_shown_whole_once_and_its_other_copies_cut(mrtr, picky, tmp_path):
    # At the limit the URL is listed whole (one copy); the warning's copy of where a browser
    # goes, and a host line, are cut as all server text in a message is (SERVER_TEXT_CHARS).
    from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS
    from mrtr_cli.responders.urls import MAX_URL_CHARS

    host = ".".join(["h" * 60] * 40)[:3000]
    prefix = f"https://{host}/\\"
    url = prefix + "b" * (MAX_URL_CHARS - len(prefix))
    args = tmp_path / "args.json"
    args.write_text(json.dumps({"url": url}))
    r = mrtr(*picky, "call", "visit", "--args", f"@{args}")
    assert_sane(r, code=5, secret=None)
    assert r.stderr.count(url) == 1, r.stderr[:3000]
    assert f"open this URL yourself: {url}\n" in r.stderr
    notes = [line for line in r.stderr.splitlines() if line.startswith(("    warning:", "    a browser would go"))]
    assert len(notes) >= 2 and "it goes to https://hhh" in r.stderr, r.stderr[:3000]
    assert all(len(line) < SERVER_TEXT_CHARS + 200 for line in notes), notes


# ---------------------------------------------------------------------- files, streams and arguments
import subprocess  # noqa: E402

from tests.conftest import PY, ROOT, clean_env  # noqa: E402


def sh(tmp_path: Path, script: str, *, timeout: float = SAFETY, stdin: str | None = None):
    """Run `script` in /bin/sh with $M = mrtr and $S = the picky server over stdio (for
    redirections a list of arguments cannot express: > /dev/full, >&-, 2>&-, < FIFO)."""
    from tests.conftest import Run

    env = clean_env(tmp_path, {"M": f"{PY} -m mrtr_cli", "S": stdio_cmd(PICKY)})
    proc = subprocess.run(["/bin/sh", "-c", script], input=stdin, capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=timeout)
    return Run(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("how", ["answers", "arg-file", "args-file", "header-file", "resume", "config",
                                 "batch-file", "batch-answersFile"])
@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "directory"])
def test_a_user_file_that_is_not_a_regular_file_is_refused_at_once(mrtr, picky, tmp_path, fifo, how, kind):
    path = {"dev-zero": "/dev/zero", "fifo": str(fifo), "directory": str(tmp_path)}[kind]
    batch = tmp_path / "batch.jsonl"
    batch.write_text(json.dumps({"call": "echo", "arguments": {}, "answersFile": path}) + "\n")
    args = {"answers": [*picky, "call", "echo", "--answers", path],
            "arg-file": [*picky, "call", "echo", f"a=@{path}"],
            "args-file": [*picky, "call", "echo", "--args", f"@{path}"],
            "header-file": ["--url", "http://127.0.0.1:9/mcp", "-H", f"Authorization: Bearer file:{path}", "tools"],
            "resume": ["resume", path],
            "config": ["-s", "x", "--config", path, "tools"],
            "batch-file": [*picky, "batch", path],
            "batch-answersFile": [*picky, "batch", str(batch)]}[how]
    r = mrtr(*args, "--timeout", "30", timeout=SAFETY)  # a FIFO must not block: well inside the bound
    if how == "batch-answersFile":  # the line fails with exit 2, in its record
        assert_sane(r, code=2, secret=None)
        assert "not a regular file" in r.stdout
        return
    assert_sane(r, code=2, secret=None)
    assert "not a regular file" in r.stderr and path in r.stderr


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_files_in_the_state_directory_are_read_as_user_files(mrtr, picky, tmp_path, kind):
    """The state directory is named by the environment (`MRTR_STATE_DIR`, `XDG_STATE_HOME`):
    a FIFO or a device where mrtr keeps a cache, its known targets or a task record is as
    good as absent, never a hang or an endless read."""
    state = tmp_path / "mine"
    env = {"MRTR_STATE_DIR": str(state)}
    http = picky[0] == "--url"
    header = ["-H", f"X-Api-Key: {SECRET}"] if http else []  # a secret the run carries (never shown)
    secret = SECRET if http else None
    first = mrtr(*header, *picky, "call", "echo", "a=1", env=env)
    assert_sane(first, code=0, secret=secret)
    (state / "tasks").mkdir(parents=True, exist_ok=True)
    (state / "tasks" / "0123.json").write_text("{}")
    kept = [path for path in state.rglob("*") if path.is_file()]
    assert any(p.name == "known-targets" for p in kept) and any(p.parent.parent.name == "cache" for p in kept), kept
    for path in kept:  # every file mrtr keeps there
        path.unlink()
        if kind == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to("/dev/zero")
    r = mrtr(*header, *picky, "call", "echo", "a=1", "--timeout", "60", env=env, timeout=120)
    assert_sane(r, code=0, secret=secret)
    r = mrtr("task", "get", "0123", "--timeout", "60", env=env, timeout=120)  # the records name its server
    assert_sane(r, code=2, secret=secret)
    assert "0123" in r.stderr


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "missing"])
def test_openssl_conf_is_read_as_a_user_file_before_openssl_loads(mrtr, picky, tmp_path, kind):
    """OpenSSL reads the file `OPENSSL_CONF` names as Python's hashlib or ssl loads (every
    run loads one): a FIFO there hung every run before it began; a missing one OpenSSL
    does without."""
    path = {"fifo": tmp_path / "openssl.fifo", "dev-zero": Path("/dev/zero"), "missing": tmp_path / "none.cnf"}[kind]
    if kind == "fifo":
        os.mkfifo(path)
    http = picky[0] == "--url"
    header = ["-H", f"X-Api-Key: {SECRET}"] if http else []  # a secret the run carries (never shown)
    r = mrtr(*header, *picky, "call", "echo", "a=1", env={"OPENSSL_CONF": str(path)}, timeout=120)
    if kind == "missing":
        assert_sane(r, code=0, secret=SECRET if http else None)
        return
    assert_sane(r, code=2, secret=SECRET if http else None)
    assert r.stderr.startswith(f"mrtr: error: OPENSSL_CONF={path}: "), r.stderr
    assert "not a regular file (OpenSSL's configuration file)" in r.stderr


def test_a_user_file_over_the_size_limit_is_refused_with_the_limit(mrtr, picky, tmp_path):
    from mrtr_cli.limits import MAX_USER_FILE_BYTES

    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(MAX_USER_FILE_BYTES + 1)  # sparse: no disk used
    for args in (["call", "echo", "--answers", big], ["call", "echo", f"a=@{big}"], ["resume", big],
                 ["batch", big]):
        r = mrtr(*picky, *args)
        assert_sane(r, code=2, secret=None)
        assert "larger than the limit of 64 MiB" in r.stderr


@pytest.mark.parametrize("command", ["batch -", "call echo --answers -", "call echo --args -", "call echo a=@-"])
def test_stdin_is_bounded_in_size(tmp_path, command):
    r = sh(tmp_path, f'head -c 70000000 /dev/zero | $M --stdio "$S" {command}', timeout=SAFETY)
    assert_sane(r, code=2, secret=None)
    assert "larger than the limit" in r.stderr


@pytest.mark.parametrize("command", ["batch -", "call echo --answers -"])
def test_timeout_bounds_a_silent_stdin(tmp_path, fifo, command):
    # The FIFO's writer (this shell) holds it open and writes nothing until mrtr has ended.
    r = sh(tmp_path, f'exec 3<>"{fifo}"; $M --stdio "$S" --timeout 1 {command} <"{fifo}"; echo "rc=$?"', timeout=SAFETY)
    assert "rc=7" in r.stdout, r.stderr
    assert "timed out after 1 s waiting for" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize(("redirect", "code", "message"), [
    ("> /dev/full", 2, "cannot write the results to stdout: No space left on device"),
    (">&-", 2, "stdout is closed"),
    ("--trace /dev/full > /dev/null", 2, "cannot write --trace /dev/full"),
])
@pytest.mark.parametrize("command", ["call echo a=1", "call pick --no-input", "tools"])
def test_output_that_cannot_be_written_is_exit_2(tmp_path, redirect, code, message, command):
    r = sh(tmp_path, f'$M --stdio "$S" {command} {redirect}')
    assert_sane(r, code=code, secret=None)
    assert message in r.stderr


@pytest.mark.parametrize("option", ["--trace", "--save-answers"])
def test_an_output_fifo_with_no_reader_is_refused_at_once(mrtr, picky, fifo, option):
    r = mrtr(*picky, "call", "pick", "-a", "code=right", option, fifo, "--timeout", "30", timeout=SAFETY)
    assert_sane(r, code=2, secret=None)
    assert "no process is reading the FIFO" in r.stderr and str(fifo) in r.stderr
    assert r.stdout == ""  # refused before the call: no answer sent, no result printed


def test_a_batch_output_fifo_with_no_reader_is_refused_before_any_line_runs(mrtr, fifo):
    r = mrtr("--stdio", stdio_cmd(PICKY), "batch", "-", "-o", str(fifo), "--timeout", "30",
             input=json.dumps({"call": "echo", "arguments": {"a": 1}}) + "\n", timeout=SAFETY)
    assert_sane(r, code=2, secret=None)
    assert f"-o {fifo}: no process is reading the FIFO" in r.stderr
    assert "batch: 1 line" not in r.stderr


@pytest.mark.parametrize("option", ["--trace", "--save-answers", "batch-o"])
def test_an_output_fifo_with_a_reader_is_written(tmp_path, fifo, option):
    command = {"--trace": f'--trace "{fifo}" call echo a=1',
               "--save-answers": f'call pick -a code=right --save-answers "{fifo}"',
               "batch-o": f'batch - -o "{fifo}"'}[option]
    line = json.dumps({"call": "echo", "arguments": {"a": 1}}) + "\n"
    r = sh(tmp_path, f'cat "{fifo}" > "{tmp_path}/got" & $M --stdio "$S" {command}; rc=$?; wait; echo "rc=$rc"',
           stdin=line)
    assert "rc=0" in r.stdout, r.stderr
    expected = {"--trace": '"dir": "send"', "--save-answers": '"inputResponses"', "batch-o": '"exitCode": 0'}[option]
    assert expected in (tmp_path / "got").read_text()


def test_save_answers_that_cannot_be_written_is_exit_2(tmp_path):
    r = sh(tmp_path, '$M --stdio "$S" call pick -a code=right --save-answers /dev/full')
    assert_sane(r, code=2, secret=None)
    assert r.stdout.strip() == "picked right"  # the result was delivered; the file asked for was not
    assert "cannot write --save-answers /dev/full: No space left on device" in r.stderr


@pytest.mark.parametrize("redirect", ["> /dev/full", ">&-"])
@pytest.mark.parametrize("tool", ["echo", "nope"])  # a result record, an error record
def test_batch_output_that_cannot_be_written_is_exit_2(tmp_path, redirect, tool):
    line = json.dumps({"call": tool, "arguments": {}})
    r = sh(tmp_path, f'$M --stdio "$S" batch - {redirect}', stdin=line + "\n")
    assert_sane(r, code=2, secret=None)
    assert "cannot write the records" in r.stderr


@pytest.mark.parametrize("redirect", ["> /dev/full", ">&-"])
@pytest.mark.parametrize("command", ["help", "help exit-codes", "help call", "--help", "call --help", "--version"])
def test_help_and_version_that_cannot_be_written_are_exit_2(tmp_path, redirect, command):
    r = sh(tmp_path, f"$M {command} {redirect}")
    assert_sane(r, code=2, secret=None)
    assert "cannot write to stdout" in r.stderr


@pytest.mark.parametrize(("command", "code"), [("call nope", 2), ("call echo a=x", 2), ("call echo a=1", 0),
                                                ("call pick --no-input", 5)])
def test_a_closed_stderr_keeps_the_documented_exit_code(tmp_path, command, code):
    r = sh(tmp_path, f'$M --stdio "$S" {command} 2>&- >/dev/null; echo "rc=$?" >&2')
    assert f"rc={code}" in r.stderr


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/m\x01cp", "http://127.0.0.1:9/mcp\n", "http://exa\x7fmple/",
                                 "http://127.0.0.1:9/m cp", "http://127.0.0.1:9/\x85"])
def test_a_url_with_control_characters_or_spaces_is_a_usage_error(mrtr, url):
    r = mrtr("--url", url, "tools")
    assert_sane(r, code=2, secret=None)
    assert "--url" in r.stderr


@pytest.mark.parametrize("items", [["a.b=1", "a=2"], ["a=2", "a.b=1"], ["a.b=1", "a=2", "a=3"],
                                   ["x.y.z=1", "x.y=2"], ["x.y=2", "x.y.z=1"],
                                   ['a:={"b":1}', "a.c=2"], ["a.c=2", 'a:={"b":1}']])
def test_a_key_that_is_both_a_value_and_an_object_conflicts_in_either_order(mrtr, picky, items):
    r = mrtr(*picky, "call", "echo", *items)
    assert_sane(r, code=2, secret=None)
    assert "already" in r.stderr


def test_no_validate_types_each_item_on_its_own(mrtr, picky):
    r = mrtr(*picky, "call", "--no-validate", "echo", "a=1", "b=x", "c=true")
    assert_sane(r, code=0, secret=None)
    assert json.loads(r.stdout) == {"a": 1, "b": "x", "c": True}


@pytest.mark.parametrize("how", ["args", "literal", "dotted", "answer-flag", "answers-file"])
def test_the_users_json_deeper_than_the_limit_is_exit_2(mrtr, picky, tmp_path, how):
    from mrtr_cli.limits import MAX_JSON_DEPTH

    deep = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    (tmp_path / "deep.json").write_text('{"fields": {"code": ' + deep + "}}")
    args = {"args": ["call", "echo", "--args", '{"a": ' + deep + "}"],
            "literal": ["call", "echo", "k:=" + deep],
            "dotted": ["call", "echo", ".".join(["k"] * 2000) + "=1"],
            "answer-flag": ["call", "pick", "-a", "code:=" + deep],
            "answers-file": ["call", "pick", "--answers", tmp_path / "deep.json"]}[how]
    r = mrtr(*picky, *args)
    assert_sane(r, code=2, secret=None)
    assert str(MAX_JSON_DEPTH) in r.stderr


@pytest.mark.parametrize("how", ["args", "literal", "answer-flag", "answers-file", "batch-line", "resume"])
def test_an_integer_with_too_many_digits_in_the_users_json_is_exit_2(mrtr, picky, tmp_path, how):
    from mrtr_cli.jsonfile import MAX_INT_DIGITS

    big = "9" * (MAX_INT_DIGITS + 700)
    (tmp_path / "big.json").write_text('{"fields": {"code": ' + big + "}}")
    (tmp_path / "batch.jsonl").write_text('{"call": "echo", "arguments": {"a": ' + big + "}}\n")
    args = {"args": ["call", "echo", "--args", '{"a": ' + big + "}"],
            "literal": ["call", "echo", "k:=" + big],
            "answer-flag": ["call", "pick", "-a", "code:=-" + big],
            "answers-file": ["call", "pick", "--answers", tmp_path / "big.json"],
            "batch-line": ["batch", tmp_path / "batch.jsonl"],
            "resume": ["resume", tmp_path / "big.json"]}[how]
    r = mrtr(*picky, *args)
    assert_sane(r, code=2, secret=None)
    assert f"{MAX_INT_DIGITS + 700} digits" in r.stderr + r.stdout and str(MAX_INT_DIGITS) in r.stderr + r.stdout


def test_the_users_json_at_the_limit_is_sent(mrtr, picky, tmp_path):
    from mrtr_cli.limits import MAX_JSON_DEPTH

    inner = MAX_JSON_DEPTH - 1  # inside {"k": ...}
    trace = tmp_path / "t.jsonl"
    r = mrtr(*picky, "--no-input", "--trace", trace, "call", "--no-validate", "echo",
             "k:=" + "[" * inner + "]" * inner)
    # mrtr sent it; the picky server (Python's json, default recursion limit of 1000) cannot
    # read 1000 nested arrays inside an object and dies: a transport failure (exit 3).
    assert r.code == 3, r.stderr
    assert "internal error" not in r.stderr and "Traceback (most recent call last):\n  File \"" not in r.stderr.split(
        "mrtr: ")[-1]
    assert '"method": "tools/call"' in trace.read_text()


@pytest.mark.parametrize(("entry", "named"), [
    ({"command": PY, "args": [str(PICKY)], "env": {"TOKENISH": f"{SECRET}\u0000x"}}, "env TOKENISH"),
    ({"command": PY, "args": [str(PICKY)], "env": {"A=B": "1"}}, "env name 'A=B'"),
    ({"command": PY + "\u0000", "args": []}, "command"),
    ({"command": PY, "args": ["a\u0000b"]}, "args[0]"),
])
def test_a_config_entry_a_process_cannot_take_is_a_usage_error(mrtr, tmp_path, entry, named):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"mcpServers": {"s": entry}}))
    r = mrtr("-s", "s", "--config", cfg, "tools")
    assert_sane(r, code=2)
    assert named in r.stderr


def test_the_url_parser_is_imported_only_when_a_url_is_shown(mrtr, picky):
    r = mrtr(*picky, "call", "echo", "a=1", env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert r.code == 0 and "ada_url" not in r.stderr
    r = mrtr(*picky, "call", "visit", "--args", json.dumps({"url": "https://a.example/"}),
             env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert r.code == 5 and "ada_url" in r.stderr
