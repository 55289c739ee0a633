"""Secrets never reach diagnostics: with `-H "Authorization: Bearer s3cret"`,
`-vv` and `--trace`, the string `s3cret` appears nowhere in stderr or in the trace, not
in HTTP header traces, not in a 401 error whose challenge echoes the token, not in a
pending document, not in a usage error about a mistyped header."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from tests.conftest import CATALOG_SERVER, EXAMPLE_SERVER, stdio_cmd, url_args

SECRET = "s3cret"


@pytest.fixture(scope="module")
def guarded(http_servers) -> str:
    """A catalog server that wants `Authorization: Bearer s3cret` (and echoes what it got)."""
    return http_servers.start(CATALOG_SERVER, "--require-token", SECRET)


def assert_clean(r, trace: Path | None = None) -> None:
    assert SECRET not in r.stderr, r.stderr
    if trace is not None:
        text = trace.read_text()
        assert text, "the trace is empty"
        assert SECRET not in text


@pytest.mark.parametrize("how", ["header", "bearer-env", "header-env"])
def test_a_traced_run_never_shows_the_token(mrtr, guarded, tmp_path, how):
    trace = tmp_path / "t.jsonl"
    auth = {"header": ["-H", f"Authorization: Bearer {SECRET}"],
            "bearer-env": ["--bearer-token-env", "TOKEN"],
            "header-env": ["-H", "Authorization: Bearer env:TOKEN"]}[how]
    r = mrtr(*url_args(guarded), *auth, "-vv", "--trace", trace, "call", "whoami", env={"TOKEN": SECRET})
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == f"you sent: Bearer {SECRET}"  # the server's own result is printed as sent
    assert "-> HTTP POST" in r.stderr and "Authorization: ***" in r.stderr  # -vv header traces
    assert '"dir": "http-request"' in trace.read_text()
    assert_clean(r, trace)
    for command in (["tools"], ["discover"], ["tools", "whoami", "--json"]):
        r = mrtr(*url_args(guarded), *auth, "-vv", "--trace", trace, *command, env={"TOKEN": SECRET})
        assert r.code == 0, r.stderr
        assert_clean(r, trace)


def test_a_401_that_echoes_the_token_is_redacted(mrtr, http_servers, tmp_path):
    url = http_servers.start(CATALOG_SERVER, "--require-token", "something-else")
    trace = tmp_path / "t.jsonl"
    r = mrtr(*url_args(url), "-H", f"Authorization: Bearer {SECRET}", "-vv", "--trace", trace, "call", "whoami")
    assert r.code == 8
    assert "HTTP 401: authentication required" in r.stderr
    assert "WWW-Authenticate" in r.stderr and "***" in r.stderr  # the challenge is shown, the token is not
    assert_clean(r, trace)
    r = mrtr(*url_args(url), "-H", f"Authorization: Bearer {SECRET}", "--json", "tools")
    assert r.code == 8
    assert json.loads(r.stderr.strip().splitlines()[-1])["error"]["exitCode"] == 8
    assert_clean(r)


def test_pending_documents_hold_no_secrets(mrtr, http_servers, tmp_path):
    url = http_servers.start(EXAMPLE_SERVER)
    trace = tmp_path / "t.jsonl"
    r = mrtr(*url_args(url), "-H", f"Authorization: Bearer {SECRET}", "-H", f"X-Api-Key: key-{SECRET}", "-vv",
             "--trace", trace, "--no-input", "call", "update_work_item", "workItemId=4522", "state=Resolved")
    assert r.code == 5, r.stderr
    assert r.json()["target"] == {"url": url}
    assert SECRET not in r.stdout
    assert_clean(r, trace)


def test_a_mistyped_header_is_not_echoed(mrtr):
    r = mrtr("--url", "http://127.0.0.1:9/mcp", "-H", f"Authorization Bearer {SECRET}", "tools")
    assert r.code == 2
    assert "-H Authorization...: expected \"Name: value\"" in r.stderr, r.stderr
    assert_clean(r)


def test_credentials_in_the_url_are_never_shown_or_saved(mrtr, http_servers, tmp_path):
    url = http_servers.start(EXAMPLE_SERVER)
    secret_url = url.replace("http://", f"http://alice:{SECRET}@") + f"?api_key=q-{SECRET}&region=eu"
    trace = tmp_path / "t.jsonl"
    r = mrtr(*url_args(secret_url), "-vv", "--trace", trace, "--no-input",
             "call", "update_work_item", "workItemId=4522", "state=Resolved")
    assert r.code == 5, r.stderr
    # The printed next step cannot carry the hidden URL: it says how to give it (MRTR_URL).
    (step,) = [line for line in r.stderr.splitlines() if " resume PENDING.json" in line]
    assert "set MRTR_URL to the server's URL with its credentials" in step and "--url" not in step, step
    doc = r.json()
    assert doc["target"]["url"] == url.replace("http://", "http://alice:***@") + "?api_key=***&region=eu"
    assert SECRET not in r.stdout
    assert_clean(r, trace)
    pending = tmp_path / "p.json"
    pending.write_text(r.stdout)
    again = mrtr("resume", pending, "-a", "resolution=Fixed")  # the saved URL cannot be used as it is
    assert again.code == 2 and "saved without its credentials" in again.stderr and "MRTR_URL" in again.stderr
    other = mrtr("resume", pending, "-a", "resolution=Fixed", env={"MRTR_URL": url})  # not the URL saved
    assert other.code == 2 and "saved without its credentials" in other.stderr
    done = mrtr("resume", pending, "--url", secret_url, "-a", "resolution=Fixed")
    assert done.code == 0, done.stderr
    by_variable = mrtr("resume", pending, "-a", "resolution=Fixed", env={"MRTR_URL": secret_url})  # as the step says
    assert by_variable.code == 0, by_variable.stderr
    gone = mrtr("--url", "http://alice:" + SECRET + "@127.0.0.1:9/mcp", "tools")
    assert gone.code == 3 and "alice:***@" in gone.stderr
    assert_clean(gone)


def test_public_header_values_stay_readable_and_the_trace_stays_json(mrtr, guarded, tmp_path):
    trace = tmp_path / "t.jsonl"
    r = mrtr(*url_args(guarded), "-H", f"Authorization: Bearer {SECRET}", "-H", "X-Flag: true",
             "-H", "Accept-Language: application", "--public-header", "accept-language",
             "-H", "X-Api-Key: jsonrpc", "--trace", trace, "call", "whoami")
    assert r.code == 0, r.stderr
    lines = [json.loads(line) for line in trace.read_text().splitlines()]  # every line is JSON
    assert any("application/json" in json.dumps(line) for line in lines)
    # A secret that is also a protocol word hides values, never keys.
    messages = [line["message"] for line in lines if "message" in line]
    assert messages and all("jsonrpc" in message for message in messages)
    assert_clean(r, trace)


def test_every_header_value_is_a_secret_unless_named_public(mrtr, guarded, tmp_path):
    """A header whose name says nothing of credentials (`X-Custom`)
    may still carry one: its value is kept out of -vv and --trace, unless --public-header."""
    trace = tmp_path / "t.jsonl"
    args = [*url_args(guarded), "-H", f"Authorization: Bearer {SECRET}", "-H", "X-Custom: hunter22",
            "-H", "X-Region: eu-west-7", "-vv", "--trace", trace]
    r = mrtr(*args, "call", "whoami")
    assert r.code == 0, r.stderr
    assert "hunter22" not in r.stderr and "hunter22" not in trace.read_text(), r.stderr
    assert "X-Custom: ***" in r.stderr
    r = mrtr(*args, "--public-header", "X-Region", "call", "whoami")
    assert r.code == 0, r.stderr
    assert "X-Region: eu-west-7" in r.stderr and "eu-west-7" in trace.read_text()
    assert "hunter22" not in r.stderr and "hunter22" not in trace.read_text()


@pytest.mark.parametrize("how", ["header", "bearer-env"])
def test_a_header_value_that_is_not_ascii_is_a_usage_error(mrtr, how):
    args = ["-H", "X-Name: Zürich"] if how == "header" else ["--bearer-token-env", "TOKEN"]
    r = mrtr("--url", "http://127.0.0.1:9/mcp", *args, "tools", env={"TOKEN": "tökén"})
    assert r.code == 2 and "not ASCII" in r.stderr
    assert "tökén" not in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:99999/mcp", "http:///mcp"])
def test_a_malformed_url_is_a_usage_error(mrtr, url):
    r = mrtr(*url_args(url), "tools")
    assert r.code == 2 and "--url" in r.stderr, r.stderr


def test_resume_does_not_run_a_stdio_command_it_has_never_run_here(mrtr, tmp_path):
    first = mrtr("--stdio", stdio_cmd(EXAMPLE_SERVER), "--no-input",
                 "call", "update_work_item", "workItemId=4522", "state=Resolved")
    assert first.code == 5
    doc = first.json()
    marker = tmp_path / "PWNED"
    doc["target"] = {"stdio": f"touch {marker}"}
    evil = tmp_path / "evil.json"
    evil.write_text(json.dumps(doc))
    r = mrtr("resume", evil, "-a", "resolution=Fixed")
    assert r.code == 2 and "names a server command mrtr has not run in" in r.stderr
    assert not marker.exists()
    own = tmp_path / "own.json"
    own.write_text(first.stdout)  # the document mrtr wrote here: its command was started here
    ok = mrtr("resume", own, "-a", "resolution=Fixed")
    assert ok.code == 0, ok.stderr


def _pending_for(mrtr, tmp_path, target: dict) -> Path:
    """A pending document for update_work_item whose target is `target`."""
    first = mrtr("--stdio", stdio_cmd(EXAMPLE_SERVER), "--no-input",
                 "call", "update_work_item", "workItemId=4522", "state=Resolved")
    assert first.code == 5
    doc = first.json()
    doc["target"] = target
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_known_command_in_another_directory_is_another_program(mrtr, tmp_path):
    first = mrtr("--stdio", stdio_cmd(EXAMPLE_SERVER), "--no-input",
                 "call", "update_work_item", "workItemId=4522", "state=Resolved")
    pending = tmp_path / "p.json"
    pending.write_text(first.stdout)
    elsewhere = tmp_path / "repo"
    elsewhere.mkdir()
    r = mrtr("resume", pending, "-a", "resolution=Fixed", cwd=elsewhere)
    assert r.code == 2 and "has not run in" in r.stderr


def test_a_named_server_from_a_document_is_checked_like_a_command(mrtr, tmp_path):
    marker = tmp_path / "PWNED"
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"work": {"command": "touch", "args": [str(marker)]}}}))
    pending = _pending_for(mrtr, tmp_path, {"server": "work"})
    r = mrtr("resume", pending, "-a", "resolution=Fixed", cwd=repo)
    assert r.code == 2 and "has not run in" in r.stderr
    assert not marker.exists()


def test_credentials_go_only_to_a_url_reached_before(mrtr, http_servers, tmp_path):
    url = http_servers.start(EXAMPLE_SERVER)
    pending = _pending_for(mrtr, tmp_path, {"url": url})
    r = mrtr("resume", pending, "-a", "resolution=Fixed", "-H", f"Authorization: Bearer {SECRET}")
    assert r.code == 2 and "credentials were given" in r.stderr
    assert mrtr("resume", pending, "-a", "resolution=Fixed").code == 0  # no credentials: nothing to protect
    pending = _pending_for(mrtr, tmp_path, {"url": url})  # ... and that resume did not make the URL known
    again = mrtr("resume", pending, "-a", "resolution=Fixed", "-H", f"Authorization: Bearer {SECRET}")
    assert again.code == 2 and "credentials were given" in again.stderr
    assert mrtr(*url_args(url), "tools").code == 0  # reached by the user: known from now on
    pending = _pending_for(mrtr, tmp_path, {"url": url})
    ok = mrtr("resume", pending, "-a", "resolution=Fixed", "-H", f"Authorization: Bearer {SECRET}")
    assert ok.code == 0, ok.stderr


@pytest.mark.parametrize("target", [{"stdio": ["touch", "x"]}, {"url": {"a": 1}}, "nope"])
def test_a_document_whose_target_is_not_text_is_a_usage_error(mrtr, tmp_path, target):
    pending = _pending_for(mrtr, tmp_path, target)
    r = mrtr("resume", pending, "-a", "resolution=Fixed")
    assert r.code == 2 and "its target is not" in r.stderr


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:9/mcp?api_key=AB%2BCDkey9", "http://127.0.0.1:9/mcp?api_key=AB+CDkey9",
    "http://127.0.0.1:9/mcp;api_key=ABCDkey9", "http://ABCDkey9@127.0.0.1:9/mcp",
    "http://alice:AB@CDkey9@127.0.0.1:9/mcp", "http://127.0.0.1:9/mcp?token=AB;CDkey9",
    "http://127.0.0.1:9/mcp#access_token=ABCDkey9", "http://127.0.0.1:9/mcp?pass=ABCDkey9",
])
def test_url_credentials_in_any_spelling_stay_hidden(mrtr, tmp_path, url):
    trace = tmp_path / "t.jsonl"
    r = mrtr(*url_args(url), "-vv", "--trace", trace, "tools")
    assert r.code == 3
    text = r.stderr + (trace.read_text() if trace.exists() else "")
    assert "CDkey9" not in text and "***" in r.stderr


def test_servers_lists_config_urls_without_their_credentials(mrtr, tmp_path):
    (tmp_path / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {"b": {"url": f"http://bob:{SECRET}@127.0.0.1:9/mcp?api_key=k{SECRET}"}}}))
    for args in ([], ["--json"]):
        r = mrtr("servers", *args, cwd=tmp_path)
        assert r.code == 0 and "bob:***@" in r.stdout and SECRET not in r.stdout


def test_a_redirect_to_another_host_gets_none_of_the_users_headers(mrtr):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    seen: list[dict] = []

    class Other(BaseHTTPRequestHandler):
        def do_POST(self):
            seen.append(dict(self.headers))
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    other = ThreadingHTTPServer(("127.0.0.1", 0), Other)
    target = f"http://localhost:{other.server_address[1]}/mcp"  # another origin than 127.0.0.1

    class Redirect(Other):
        def do_POST(self):
            self.send_response(307)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()

    first = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    for server in (other, first):
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        r = mrtr(*url_args(f"http://127.0.0.1:{first.server_address[1]}/mcp"), "-H", f"X-Api-Key: k{SECRET}",
                 "-H", "X-Team: blue", "tools")
        assert r.code == 3, r.stderr  # the other origin answers 404: not an MCP endpoint
        assert seen, "the redirect was not followed"
        assert all("X-Api-Key" not in h and "X-Team" not in h for h in seen), seen
    finally:
        first.shutdown()
        other.shutdown()


@pytest.mark.parametrize("url, shown, secret", [
    ("http://u:abc@127.0.0.1:9/mcp", "http://u:***@127.0.0.1:9/mcp", "abc"),
    ("http://k3y@127.0.0.1:9/mcp", "http://***@127.0.0.1:9/mcp", "k3y"),
    ("http://127.0.0.1:9/mcp?api_key=k3y&page=2", "http://127.0.0.1:9/mcp?api_key=***&page=2", "k3y"),
    ("http://127.0.0.1:9/mcp?page=2&token=z", "http://127.0.0.1:9/mcp?page=2&token=***", "token=z"),
])
def test_a_short_url_credential_is_shown_as_stars_wherever_the_url_is_named(mrtr_here, tmp_path, url, shown, secret):
    trace = tmp_path / "t.jsonl"
    r = mrtr_here(*url_args(url), "-vv", "--trace", trace, "tools")
    assert r.code == 3
    assert f"-> HTTP POST {shown}\n" in r.stderr
    assert f"mrtr: error: cannot connect to {shown}: " in r.stderr  # the URL ends before the colon
    assert secret not in r.stderr
    urls = [json.loads(line)["http"]["url"] for line in trace.read_text().splitlines() if '"http-request"' in line]
    assert urls and set(urls) == {shown}
    assert secret not in trace.read_text()
    r = mrtr_here(*url_args(url), "--json", "tools")
    assert r.code == 3
    assert json.loads(r.stderr)["error"]["message"].startswith(f"cannot connect to {shown}: ")



# ---------------------------------------------------------------------- secrets as a person reads them
LONG_SECRET = "tok-9Qx7Lm2Vb8Zr4Wn6Ks1Jd3Hf"

#: Ways a server cuts a secret in two that a reader sees past: an escape sequence (colour,
#: hyperlink, cursor), a control character, zero-width and bidi characters, a line break
#: with indentation (wrapped text), a soft hyphen.
BREAKS = {"colour": "\x1b[0m", "hyperlink": "\x1b]8;;https://x.example/\x07", "cursor": "\x1b[2K\x1b[1G",
          "bell": "\x07", "nul": "\x00", "backspace": "\x08", "carriage-return": "\r", "c1-csi": "\x9b31m",
          "zero-width-space": "\u200b", "zero-width-joiner": "\u200d", "word-joiner": "\u2060",
          "bom": "\ufeff", "bidi-override": "\u202e", "bidi-isolate": "\u2066", "soft-hyphen": "\u00ad",
          "wrapped": "\n    ", "line-separator": "\u2028", "several": "\x1b[1m\u200b\x1b[0m\u2060",
          "tag": "\U000e0041", "variation-selector": "\ufe00", "hangul-filler": "\u3164"}


def shown_forms(text: str) -> dict[str, str]:
    """`text` in each form mrtr prints server text in: sanitized (multi-line and one line),
    inside a JSON line (ASCII-only, as errors with --json; and not), a sanitized text inside
    a JSON line (an error message quoting server text, with --json), and cut short."""
    from mrtr_cli.render.sanitize import quote_text, sanitize

    return {"raw": text, "sanitized": sanitize(text), "one-line": sanitize(text, single_line=True),
            "json-ascii": json.dumps({"m": text}), "json": json.dumps({"m": text}, ensure_ascii=False),
            "json-of-sanitized": json.dumps({"m": sanitize(text, single_line=True)}),
            "quoted-and-cut": quote_text(text, limit=30), "cut": sanitize(text, single_line=True)[:39] + "…"}


def parts_shown(text: str, secret: str, size: int = 6) -> list[str]:
    """The pieces of `size` characters of `secret` that `text` shows."""
    return [secret[i:i + size] for i in range(len(secret) - size + 1) if secret[i:i + size] in text]


@pytest.mark.parametrize("brk", BREAKS.values(), ids=BREAKS.keys())
def test_a_secret_cut_in_two_is_redacted_in_every_form_it_is_shown_in(brk):
    from mrtr_cli.env import Environment

    env = Environment()
    env.add_secret(LONG_SECRET)
    for cut in (4, 11, len(LONG_SECRET) - 4):
        text = "the server said: " + LONG_SECRET[:cut] + brk + LONG_SECRET[cut:] + " (end)"
        for form, shown in shown_forms(text).items():
            out = env.redact(shown)
            assert not parts_shown(out, LONG_SECRET), (form, shown, out)
            assert out.startswith(shown[:10]), (form, out)  # the rest is kept
            assert "***" in out or "cut" in form, (form, out)


def test_redaction_keeps_what_is_not_a_secret():
    from mrtr_cli.env import Environment

    env = Environment()
    env.add_secret("true")
    env.add_secret(LONG_SECRET)
    text = 'tr ue, "t r u e", t-rue; ' + LONG_SECRET[:10] + " " + LONG_SECRET[10:] + "; C:\\new\\true"
    assert env.redact(text) == text.replace("\\true", "\\***")  # words with spaces between stay apart
    assert env.redact("x" * 5 + "…") == "x" * 5 + "…"
    assert env.redact(LONG_SECRET[:5] + "… and more") == LONG_SECRET[:5] + "… and more"  # 5 characters say nothing


def test_rich_output_on_stderr_is_redacted_as_rendered(tmp_path):
    import io

    from mrtr_cli.env import Environment
    from mrtr_cli.render.color import console

    err = io.StringIO()
    env = Environment(stderr=err, stdout=io.StringIO(), color="always")
    env.add_secret(LONG_SECRET)
    c = console(env, env.stderr, width=12)  # rich wraps the secret over three lines, styled
    c.print("[bold]token:[/bold] " + LONG_SECRET[:7] + "\u200b[red]" + LONG_SECRET[7:] + "[/red] ok")
    assert "\n" in err.getvalue().strip() and "\x1b[" in err.getvalue()
    assert not parts_shown(err.getvalue(), LONG_SECRET), err.getvalue()
    console(env, env.stdout).print(LONG_SECRET)  # stdout carries results: never changed
    assert LONG_SECRET in env.stdout.getvalue()


def test_a_traced_message_cut_at_its_length_limit_shows_no_part_of_a_secret():
    import io

    from mrtr_cli.env import Environment
    from mrtr_cli.render.trace import Tracer

    err = io.StringIO()
    env = Environment(stderr=err)
    env.add_secret(LONG_SECRET)
    for pad in range(3950, 3980, 3):  # the secret across the cut at 4000 characters
        err.seek(0)
        err.truncate()
        Tracer(env, verbosity=1).message("recv", {"result": {"text": "x" * pad + LONG_SECRET + "y" * 5000}})
        assert "(" in err.getvalue() and not parts_shown(err.getvalue(), LONG_SECRET), pad


@pytest.mark.parametrize("name", ["Mcp-Session-Id", "mcp-session-id"])
def test_a_session_id_is_never_traced_even_before_the_session_knows_it(name):
    """The reply that hands over an `Mcp-Session-Id` is traced before the session registers
    it as a secret, and a short one is below the length redaction looks for: the header is a
    credential by its name (whoever holds it acts in the session)."""
    import io

    from mrtr_cli.env import Environment
    from mrtr_cli.render.trace import Tracer

    err, trace = io.StringIO(), io.StringIO()
    env = Environment(stderr=err)
    tracer = Tracer(env, verbosity=2, trace_file=trace)
    tracer.http("response", {"status": 200, "headers": {name: "s1d", "content-type": "application/json"}})
    tracer.http("request", {"method": "POST", "url": "http://127.0.0.1/mcp", "headers": {name: "s1d"}})
    assert "s1d" not in err.getvalue() and "s1d" not in trace.getvalue()
    assert f"   {name}: ***" in err.getvalue().splitlines()
    assert "application/json" in trace.getvalue()  # other headers stay readable


@pytest.mark.parametrize("command", ["touch '$(id)' 'a b'", "touch 'y\x1b]0;title\x07'"])
def test_the_refused_commands_stdio_words_are_the_documents_command(mrtr, tmp_path, command):
    """The hint for a document's unknown stdio command gives `--stdio CMD` that splits back
    to that very command; one holding a control character (shown escaped, it would be
    another command) is not given as words."""
    pending = _pending_for(mrtr, tmp_path, {"stdio": command})
    r = mrtr("resume", pending, "-a", "resolution=Fixed")
    assert r.code == 2, r.stderr
    hint = next(line for line in r.stderr.splitlines() if "giving it yourself: " in line)
    given = hint.split("giving it yourself: ", 1)[1]
    if command.isprintable():
        assert shlex.split(given) == ["--stdio", command], hint
    else:
        assert given == "--stdio with that command (it cannot be shown as typed)", hint
