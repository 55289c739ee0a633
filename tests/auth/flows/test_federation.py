"""Grants on a JWT someone else issued, in process (mrtr_cli/auth/flows/federation.py): reading
the JWT from a file, a variable or a command, the JWT bearer form, and the token exchange
at an enterprise identity provider: a small token endpoint of the test's own on 127.0.0.1
that records what arrives and answers as the test says.
These are fast tests mutation testing runs (tests/README.md "Mutation testing").
"""

from __future__ import annotations

import base64
import sys
from urllib.parse import parse_qs

import pytest

from mrtr_cli.auth.endpoint.grants import TokenError
from mrtr_cli.auth.flows import federation
from mrtr_cli.auth.flows.federation import (
    ID_JAG_TYPE,
    ID_TOKEN_TYPE,
    JWT_BEARER_GRANT,
    MAX_ASSERTION,
    TOKEN_EXCHANGE_GRANT,
    exchange_for_id_jag,
    is_compact_jwt,
    jwt_bearer_form,
    read_assertion,
)
from mrtr_cli.config.oauth import AssertionSource, AuthSettings
from mrtr_cli.errors import AuthError, TimeoutExpired, UsageError
from mrtr_cli.platform import shellwords
from mrtr_cli.protocol.deadline import Deadline
from tests.auth_support import JsonDocuments

ID_TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl"
JAG = "eyJ0eXAiOiJvYXV0aC1pZC1qYWcrand0In0.eyJhdWQiOiJhcyJ9.amFnLXNpZw"
AUDIENCE = "https://as.example"
RESOURCE = "https://mcp.example/mcp"
WHAT = "the workload's JWT"


def command(code: str) -> str:
    """A command line running `code` with this interpreter."""
    return shellwords.join([sys.executable, "-c", code])


#: A command that never ends by itself while the process that started it lives (it ends
#: once that process is gone, so a run of mrtr that failed to end it leaves nothing behind).
HANG = command("import os, time\nparent = os.getppid()\nwhile os.getppid() == parent: time.sleep(0.5)")


# ---------------------------------------------------------------- reading the JWT
def test_a_jwt_from_a_variable(monkeypatch):
    monkeypatch.setenv("MRTR_TEST_JWT", f"  {ID_TOKEN}\n")
    assert read_assertion(AssertionSource("env", "MRTR_TEST_JWT", "MRTR_ASSERTION_ENV"), WHAT) == ID_TOKEN


@pytest.mark.parametrize("value", [None, "", " \n\t"])
def test_an_empty_or_unset_variable_is_named(monkeypatch, value):
    if value is None:
        monkeypatch.delenv("MRTR_TEST_JWT", raising=False)
    else:
        monkeypatch.setenv("MRTR_TEST_JWT", value)
    with pytest.raises(UsageError) as caught:
        read_assertion(AssertionSource("env", "MRTR_TEST_JWT", "--assertion-env"), WHAT)
    assert caught.value.message == (f"{WHAT} (--assertion-env): the environment variable MRTR_TEST_JWT is empty "
                                    "or unset")


def test_a_jwt_from_a_file_is_read_again_each_time(tmp_path):
    path = tmp_path / "jwt"
    source = AssertionSource("file", str(path), "--assertion-file")
    path.write_text("\ufeff" + ID_TOKEN + "\n", encoding="utf-8")
    assert read_assertion(source, WHAT) == ID_TOKEN
    path.write_text(JAG, encoding="utf-8")
    assert read_assertion(source, WHAT) == JAG


def test_a_file_path_with_a_tilde_is_the_home_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "jwt").write_text(ID_TOKEN)
    assert read_assertion(AssertionSource("file", "~/jwt", "--assertion-file"), WHAT) == ID_TOKEN


def jwt_of(n: int) -> str:
    """A JWT-shaped value of exactly `n` characters."""
    return "a." + "b" * (n - 4) + ".c"


def test_a_jwt_at_the_size_limit_is_read_and_one_byte_more_is_refused(tmp_path):
    path = tmp_path / "jwt"
    source = AssertionSource("file", str(path), "--assertion-file")
    path.write_text(jwt_of(MAX_ASSERTION))
    assert read_assertion(source, WHAT) == jwt_of(MAX_ASSERTION)
    path.write_text(jwt_of(MAX_ASSERTION + 1))
    with pytest.raises(UsageError):
        read_assertion(source, WHAT)


def test_a_file_well_over_the_limit_is_not_read_past_it(tmp_path):
    path = tmp_path / "jwt"
    path.write_text(jwt_of(MAX_ASSERTION + 2))
    with pytest.raises(UsageError) as caught:
        read_assertion(AssertionSource("file", str(path), "--assertion-file"), WHAT)
    assert "larger than the limit of" in caught.value.message and "not a JWT" not in caught.value.message


def test_a_jwt_at_the_size_limit_from_a_variable_and_one_more(monkeypatch):
    source = AssertionSource("env", "MRTR_TEST_JWT", "--assertion-env")
    monkeypatch.setenv("MRTR_TEST_JWT", jwt_of(MAX_ASSERTION))
    assert read_assertion(source, WHAT) == jwt_of(MAX_ASSERTION)
    monkeypatch.setenv("MRTR_TEST_JWT", jwt_of(MAX_ASSERTION + 1))
    with pytest.raises(UsageError) as caught:
        read_assertion(source, WHAT)
    assert caught.value.message == (f"{WHAT} from --assertion-env is not a JWT (three base64url parts, no spaces, "
                                    f"at most {MAX_ASSERTION} bytes)")


@pytest.mark.parametrize("value", ["a.b", "a.b.c.d", "abc", "a. b.c", "a.b\u00a0.c", ".", "a..b.c"])
def test_a_value_that_is_no_jwt_is_refused(monkeypatch, value):
    monkeypatch.setenv("MRTR_TEST_JWT", value)
    with pytest.raises(UsageError, match="is not a JWT"):
        read_assertion(AssertionSource("env", "MRTR_TEST_JWT", "--assertion-env"), WHAT)


def test_a_device_or_directory_is_no_jwt_file_and_stdin_is_not_offered(tmp_path):
    # the JWT is read again for each token, so `-` (stdin) is no way to give it
    for path in (str(tmp_path), "/dev/null"):
        with pytest.raises(UsageError) as caught:
            read_assertion(AssertionSource("file", path, "--assertion-file"), WHAT)
        assert caught.value.hint == "give a regular file", path


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(UsageError) as caught:
        read_assertion(AssertionSource("file", str(tmp_path / "none"), "--assertion-file"), WHAT)
    assert caught.value.message.startswith("cannot read --assertion-file ")
    assert caught.value.hint is None


def test_a_jwt_from_a_command():
    source = AssertionSource("command", command(f"print({ID_TOKEN!r})"), "--assertion-command")
    assert read_assertion(source, WHAT) == ID_TOKEN


def test_a_command_whose_output_is_no_jwt_is_an_auth_error():
    source = AssertionSource("command", command("print('a.b.c.d')"), "--assertion-command")
    with pytest.raises(AuthError) as caught:
        read_assertion(source, WHAT)
    assert not isinstance(caught.value, UsageError)
    assert caught.value.message.startswith(f"{WHAT} from --assertion-command is not a JWT")


def test_a_failing_command_is_named_with_its_exit_code():
    source = AssertionSource("command", command(f"print({ID_TOKEN!r}); raise SystemExit(3)"), "--assertion-command")
    with pytest.raises(AuthError) as caught:
        read_assertion(source, WHAT)
    assert caught.value.message == f"--assertion-command: the command exited with 3 instead of printing {WHAT}"


@pytest.mark.parametrize(("line", "message"), [
    ("", "--assertion-command: the command is empty"),
    ("   ", "--assertion-command: the command is empty"),
    ("'unclosed", "--assertion-command: cannot split the command"),
    ("/nonexistent/mrtr-no-such-command", "--assertion-command: command not found: /nonexistent/mrtr-no-such-command")])
def test_a_command_that_cannot_run_is_named(line, message):
    with pytest.raises(AuthError) as caught:
        read_assertion(AssertionSource("command", line, "--assertion-command"), WHAT)
    assert caught.value.message.startswith(message)


def test_a_command_that_cannot_be_executed_is_named(tmp_path):
    script = tmp_path / "not-executable"
    script.write_text("#!/bin/sh\necho a.b.c\n")
    script.chmod(0o600)
    with pytest.raises(AuthError) as caught:
        read_assertion(AssertionSource("command", str(script), "--assertion-command"), WHAT)
    assert caught.value.message == "--assertion-command: cannot run the command (Permission denied)"


def test_a_run_whose_timeout_has_run_out_gives_the_command_only_a_moment():
    # 0.01 s: no interpreter starts, sleeps 0.1 s and prints within it
    source = AssertionSource("command", command(f"import time\ntime.sleep(0.1)\nprint({ID_TOKEN!r})"),
                             "--assertion-command")
    with pytest.raises(TimeoutExpired):
        read_assertion(source, WHAT, Deadline(0))


def test_output_that_is_not_utf8_is_no_jwt_not_a_crash():
    source = AssertionSource("command", command("import sys\nsys.stdout.buffer.write(b'a.b\\xff.c')"),
                             "--assertion-command")
    with pytest.raises(AuthError) as caught:
        read_assertion(source, WHAT)
    assert "is not a JWT" in caught.value.message


@pytest.mark.parametrize("value", ["a.b.c", "eyJh.eyJz.", "A-_9.b_-.c-9_"])
def test_a_compact_jwt_is_three_base64url_parts(value):
    assert is_compact_jwt(value)


@pytest.mark.parametrize("value", ["a.b", "a.b.c.d", ".b.c", "a..c", "a.b\ufffd.c", "a.b=.c", "a.b.c ", "a.b+/.c",
                                   "é.b.c", ""])
def test_anything_else_is_no_jwt(value):
    assert not is_compact_jwt(value)


def test_a_command_that_writes_much_to_stderr_still_gives_its_jwt():
    # stderr is never shown (it may hold the JWT) and only its end is kept, but it is read
    # to its end: a command blocked on a full stderr pipe would never print the JWT
    source = AssertionSource("command", command(f"import sys\nsys.stderr.write('e' * 1000000)\nsys.stderr.flush()\n"
                                                f"print({ID_TOKEN!r})"), "--assertion-command")
    assert read_assertion(source, WHAT) == ID_TOKEN


def test_a_command_that_prints_too_much_is_stopped():
    source = AssertionSource("command", command("import sys\nwhile True: sys.stdout.write('a' * 65536)"),
                             "--assertion-command")
    with pytest.raises(AuthError) as caught:
        read_assertion(source, WHAT)
    assert caught.value.message == (f"--assertion-command: the command printed more than {MAX_ASSERTION // 1024} KiB, "
                                    f"more than {WHAT} can be; mrtr stopped reading and ended it")


def test_a_command_may_print_the_longest_jwt_and_a_line_end():
    source = AssertionSource("command", command(f"print({jwt_of(MAX_ASSERTION)!r} + '  ')"), "--assertion-command")
    assert read_assertion(source, WHAT) == jwt_of(MAX_ASSERTION)


def test_a_command_past_the_runs_timeout_is_a_timeout():
    # The command never ends by itself: only the --timeout of the run can end it.
    source = AssertionSource("command", HANG, "--assertion-command")
    with pytest.raises(TimeoutExpired) as caught:
        read_assertion(source, WHAT, Deadline(0.5))
    assert caught.value.message == "--assertion-command: the command did not finish within --timeout"


def test_a_command_past_its_own_bound_is_named(monkeypatch):
    monkeypatch.setattr(federation, "COMMAND_TIMEOUT", 0.5)
    source = AssertionSource("command", HANG, "--assertion-command")
    with pytest.raises(AuthError) as caught:
        read_assertion(source, WHAT, Deadline(None))
    assert caught.value.message == "--assertion-command: the command did not finish within 500 ms"


def test_the_bounds():
    assert MAX_ASSERTION == 64 * 1024
    assert federation.MAX_COMMAND_OUTPUT == MAX_ASSERTION + 64
    assert federation.COMMAND_TIMEOUT == 30.0


# ---------------------------------------------------------------- the JWT bearer form
def test_the_jwt_bearer_form():
    assert jwt_bearer_form(ID_TOKEN, RESOURCE, []) == {"grant_type": JWT_BEARER_GRANT, "assertion": ID_TOKEN,
                                                       "resource": RESOURCE}
    assert jwt_bearer_form(ID_TOKEN, RESOURCE, ["a", "b"])["scope"] == "a b"
    assert JWT_BEARER_GRANT == "urn:ietf:params:oauth:grant-type:jwt-bearer"


# ---------------------------------------------------------------- the token exchange
@pytest.fixture
def idp(started):
    return started(JsonDocuments)


@pytest.fixture
def id_token(monkeypatch):
    monkeypatch.setenv("MRTR_TEST_ID_TOKEN", ID_TOKEN)
    return AssertionSource("env", "MRTR_TEST_ID_TOKEN", "--id-token-env")


@pytest.fixture
def http():
    import httpx2

    client = httpx2.Client(timeout=httpx2.Timeout(60), follow_redirects=False)
    yield client
    client.close()


def settings(id_token, endpoint, client_id=None, secret=None) -> AuthSettings:
    return AuthSettings(id_token=id_token, idp_token_endpoint=endpoint, idp_client_id=client_id,
                        idp_client_secret=secret)


def exchange(http, s, scopes=(), secrets=None, **kw):
    secrets = [] if secrets is None else secrets
    return exchange_for_id_jag(http, s, audience=AUDIENCE, resource=RESOURCE, scopes=list(scopes),
                               add_secret=secrets.append, **kw)


def form(idp) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(idp.last_body.decode(), keep_blank_values=True).items()}


def test_the_exchange_sends_the_id_token_and_returns_the_id_jag(idp, id_token, http):
    idp.docs["/token"] = {"access_token": JAG, "issued_token_type": ID_JAG_TYPE, "token_type": "N_A"}
    secrets: list[str] = []
    assert exchange(http, settings(id_token, idp.url("/token")), ["mcp:read", "mcp:write"], secrets) == JAG
    assert form(idp) == {"grant_type": TOKEN_EXCHANGE_GRANT, "requested_token_type": ID_JAG_TYPE,
                         "subject_token": ID_TOKEN, "subject_token_type": ID_TOKEN_TYPE, "audience": AUDIENCE,
                         "resource": RESOURCE, "scope": "mcp:read mcp:write"}
    assert idp.last_headers.get("Accept") == "application/json"
    assert "Authorization" not in idp.last_headers
    # the ID token is a secret before it is sent, the ID-JAG once it comes
    assert secrets == [ID_TOKEN, JAG]
    assert (TOKEN_EXCHANGE_GRANT, ID_TOKEN_TYPE, ID_JAG_TYPE) == (
        "urn:ietf:params:oauth:grant-type:token-exchange", "urn:ietf:params:oauth:token-type:id_token",
        "urn:ietf:params:oauth:token-type:id-jag")


def test_no_scope_is_sent_when_none_is_asked(idp, id_token, http):
    idp.docs["/token"] = {"access_token": JAG, "issued_token_type": ID_JAG_TYPE}
    exchange(http, settings(id_token, idp.url("/token")))
    assert "scope" not in form(idp) and "client_id" not in form(idp)


def test_a_client_with_a_secret_authenticates_with_basic(idp, id_token, http):
    idp.docs["/token"] = {"access_token": JAG, "issued_token_type": ID_JAG_TYPE}
    secrets: list[str] = []
    exchange(http, settings(id_token, idp.url("/token"), "idp-client", "idp-s3cret"), secrets=secrets)
    basic = base64.b64encode(b"idp-client:idp-s3cret").decode()
    assert idp.last_headers.get("Authorization") == f"Basic {basic}"
    assert form(idp)["client_id"] == "idp-client" and "client_secret" not in form(idp)
    assert "idp-s3cret" in secrets and basic in secrets and secrets[-1] == JAG


def test_a_client_without_a_secret_names_itself_in_the_form(idp, id_token, http):
    idp.docs["/token"] = {"access_token": JAG, "issued_token_type": ID_JAG_TYPE}
    exchange(http, settings(id_token, idp.url("/token"), "idp-client"))
    assert form(idp)["client_id"] == "idp-client"
    assert "Authorization" not in idp.last_headers


def test_the_wrong_token_type_is_named(idp, id_token, http):
    idp.docs["/token"] = {"access_token": JAG, "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"}
    with pytest.raises(AuthError) as caught:
        exchange(http, settings(id_token, idp.url("/token")))
    assert caught.value.message == ("the identity provider answered the token exchange without an ID-JAG "
                                    "(issued_token_type urn:ietf:params:oauth:token-type:access_token)")


def test_an_id_token_that_is_no_jwt_is_named_as_the_id_token(monkeypatch, http):
    monkeypatch.setenv("MRTR_TEST_ID_TOKEN", "not-a-jwt")
    with pytest.raises(UsageError) as caught:
        exchange(http, settings(AssertionSource("env", "MRTR_TEST_ID_TOKEN", "--id-token-env"), "https://idp.example/t"))
    assert caught.value.message.startswith("the identity provider's ID token from --id-token-env is not a JWT")


def test_the_id_token_command_is_bounded_by_the_runs_timeout(http):
    source = AssertionSource("command", HANG, "--id-token-command")
    with pytest.raises(TimeoutExpired) as caught:
        exchange(http, settings(source, "https://idp.example/t"), deadline=Deadline(0.5))
    assert caught.value.message == "--id-token-command: the command did not finish within --timeout"


def test_a_provider_whose_name_resolves_to_a_metadata_address_is_refused(id_token, http, monkeypatch):
    import socket

    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if host == "idp.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("169.254.169.254", 0))]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    with pytest.raises(AuthError) as caught:
        exchange(http, settings(id_token, "https://idp.test/token"))
    assert caught.value.message == ("the identity provider's token endpoint https://idp.test/token resolves to "
                                    "169.254.169.254, a link-local or cloud-metadata address; mrtr never sends "
                                    "requests there on a server's word")


@pytest.mark.parametrize("reply", [
    {"access_token": JAG, "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"},
    {"access_token": JAG},
    {"access_token": JAG, "issued_token_type": ID_JAG_TYPE.upper()},
    {"access_token": JAG + ".extra", "issued_token_type": ID_JAG_TYPE},
    {"access_token": "a.b", "issued_token_type": ID_JAG_TYPE},
    {"access_token": 5, "issued_token_type": ID_JAG_TYPE},
    {"issued_token_type": ID_JAG_TYPE}])
def test_a_reply_without_an_id_jag_is_refused(idp, id_token, http, reply):
    idp.docs["/token"] = reply
    secrets: list[str] = []
    with pytest.raises(AuthError) as caught:
        exchange(http, settings(id_token, idp.url("/token")), secrets=secrets)
    assert not isinstance(caught.value, TokenError)
    assert caught.value.message.startswith("the identity provider answered the token exchange without an ID-JAG "
                                           "(issued_token_type ")
    assert secrets == [ID_TOKEN]  # nothing of the reply was taken


def test_a_refusal_is_a_token_error_with_the_providers_code(idp, id_token, http):
    idp.docs["/token"] = (400, {"error": "invalid_grant", "error_description": f"bad token {ID_TOKEN}"})
    with pytest.raises(TokenError) as caught:
        exchange(http, settings(id_token, idp.url("/token")), redact=lambda text: text.replace(ID_TOKEN, "***"))
    assert caught.value.error == "invalid_grant"
    assert caught.value.message == ("the identity provider refused the token exchange (HTTP 400, invalid_grant: "
                                    "bad token ***)")


def test_a_reply_that_is_not_json_is_a_refusal(idp, id_token, http):
    idp.docs["/token"] = (200, b"<html>hello</html>")
    with pytest.raises(TokenError) as caught:
        exchange(http, settings(id_token, idp.url("/token")))
    assert caught.value.message == "the identity provider refused the token exchange (HTTP 200)"


def test_an_unreachable_provider_is_named(id_token, http, refused_port):
    port = refused_port  # a port nobody listens on, held for the test
    endpoint = f"http://127.0.0.1:{port}/token"
    with pytest.raises(TokenError) as caught:
        exchange(http, settings(id_token, endpoint))
    assert caught.value.message == f"cannot reach the identity provider's token endpoint {endpoint}: ConnectError"


def test_a_provider_that_does_not_answer_is_a_timeout(idp, id_token):
    import threading

    import httpx2

    held = threading.Event()
    idp.docs["/token"] = lambda server: held.wait(300) or (200, {})
    try:
        with httpx2.Client(timeout=httpx2.Timeout(0.5)) as http, pytest.raises(TimeoutExpired) as caught:
            exchange(http, settings(id_token, idp.url("/token")))
    finally:
        held.set()
    assert caught.value.message == (f"the identity provider's token endpoint {idp.url('/token')} did not answer in "
                                    "time")


@pytest.mark.parametrize(("endpoint", "rule"), [
    ("http://idp.example/token", "plain HTTP to another machine"),
    ("https://169.254.169.254/token", "a link-local or cloud-metadata address"),
    ("ftp://idp.example/token", "not a valid http(s) URL")])
def test_the_providers_endpoint_follows_the_rule_on_server_urls(monkeypatch, http, endpoint, rule):
    # Checked before the ID token is even read (it is unset here) and before a byte is
    # sent: an ID token and a client secret never go over plain HTTP to another host.
    monkeypatch.delenv("MRTR_TEST_ID_TOKEN", raising=False)
    secrets: list[str] = []
    with pytest.raises(AuthError) as caught:
        exchange(http, settings(AssertionSource("env", "MRTR_TEST_ID_TOKEN", "--id-token-env"), endpoint,
                                "idp-client", "idp-s3cret"), secrets=secrets)
    assert not isinstance(caught.value, TokenError)
    assert caught.value.message.startswith("the identity provider's token endpoint ")
    assert rule in caught.value.message
    assert secrets == []


def test_an_unreachable_proxy_is_named(id_token, monkeypatch, refused_port):
    import httpx2

    port = refused_port  # a port nobody listens on, held for the test
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    endpoint = f"http://127.0.0.1:{port}/token"
    with httpx2.Client(timeout=httpx2.Timeout(60)) as http, pytest.raises(AuthError) as caught:
        exchange(http, settings(id_token, endpoint))
    assert caught.value.message == (f"cannot reach the identity provider's token endpoint {endpoint} through the proxy "
                                    f"http://127.0.0.1:{port} (HTTP_PROXY): ConnectError")
