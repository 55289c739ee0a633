"""The authorization code flow with PKCE, in process (mrtr_cli/auth/flows/pkce.py): the
authorization request, the checks of its response, the token request's form, and the
browser/paste flow against a real loopback listener on 127.0.0.1.

A person at a terminal is stood in for by streams that say they are terminals (the real
pseudo-terminal tests of sign-in are in auth/test_signin.py); the browser is one
registered with the standard library's `webbrowser`, which visits the URL it is given.
The controlling terminal (`/dev/tty`, or the console's `CONIN$` on Windows:
mrtr_cli/platform/console.py; read when stdin is not a terminal) is the test's
own: none at all unless a test gives one (a file of what the person types), whatever
terminal the test run itself has; the sign-in without any terminal in a process of its
own session is in auth/test_headless_trace.py.
These are the fast tests mutation testing runs (tests/README.md).
"""

from __future__ import annotations

import base64
import builtins
import codecs
import contextlib
import errno
import hashlib
import io
import os
import threading
import urllib.error
import urllib.request
import webbrowser
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from mrtr_cli.auth.discovery import AuthServer
from mrtr_cli.auth.flows import pkce as flow
from mrtr_cli.auth.flows.loopback import Loopback
from mrtr_cli.auth.flows.pkce import (
    AuthorizationRefused,
    AuthorizationRequest,
    build_request,
    check_response,
    code_exchange_data,
    pkce_pair,
    run_browser_flow,
    wait_seconds,
)
from mrtr_cli.env import Environment
from mrtr_cli.errors import AuthError, UsageError
from mrtr_cli.platform import console
from tests.support import SAFETY

ISSUER = "https://as.example"
METADATA = {"issuer": ISSUER, "authorization_endpoint": "https://as.example/authorize",
            "code_challenge_methods_supported": ["S256"]}


def server(**metadata) -> AuthServer:
    return AuthServer(issuer=ISSUER, metadata={**METADATA, **metadata}, resource="https://mcp.example/mcp")


def query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query, keep_blank_values=True)


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


# ---------------------------------------------------------------- PKCE and the request
def test_pkce_pairs_are_86_character_verifiers_with_their_s256_challenge():
    verifier, challenge = pkce_pair()
    assert len(verifier) == 86
    assert set(verifier) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert challenge == s256(verifier) and "=" not in challenge
    assert pkce_pair()[0] != verifier


def test_the_authorization_request_carries_pkce_state_and_resource():
    req = build_request(server(), "client-1", "http://127.0.0.1:5/cb", [], "st-1")
    assert req.url.startswith("https://as.example/authorize?")
    assert req.url.count("?") == 1
    assert query(req.url) == {"response_type": ["code"], "client_id": ["client-1"],
                              "redirect_uri": ["http://127.0.0.1:5/cb"], "state": ["st-1"],
                              "code_challenge": [s256(req.verifier)], "code_challenge_method": ["S256"],
                              "resource": ["https://mcp.example/mcp"]}
    assert (req.state, req.redirect_uri, req.issuer, req.iss_required) == (
        "st-1", "http://127.0.0.1:5/cb", ISSUER, False)
    assert len(req.verifier) == 86


def test_scopes_are_sent_space_separated():
    req = build_request(server(), "c", "http://127.0.0.1/cb", ["mcp:read", "mcp:write"], "s")
    assert query(req.url)["scope"] == ["mcp:read mcp:write"]
    assert "prompt" not in query(req.url)


def test_offline_access_is_asked_with_prompt_consent():
    req = build_request(server(), "c", "http://127.0.0.1/cb", ["mcp:read", "offline_access"], "s")
    assert query(req.url)["prompt"] == ["consent"]
    assert query(req.url)["scope"] == ["mcp:read offline_access"]


def test_an_endpoint_with_a_query_gets_the_parameters_after_an_ampersand():
    req = build_request(server(authorization_endpoint="https://as.example/authorize?tenant=t1"), "c",
                        "http://127.0.0.1/cb", [], "s")
    assert req.url.startswith("https://as.example/authorize?tenant=t1&response_type=code&")
    assert req.url.count("?") == 1
    assert query(req.url)["tenant"] == ["t1"] and query(req.url)["state"] == ["s"]


def test_iss_is_required_only_when_the_server_advertises_it_as_true():
    assert build_request(server(authorization_response_iss_parameter_supported=True), "c", "r", [], "s").iss_required
    for value in ("true", 1, False):
        req = build_request(server(authorization_response_iss_parameter_supported=value), "c", "r", [], "s")
        assert req.iss_required is False


def test_a_server_without_an_authorization_endpoint_or_s256_is_refused():
    metadata = {k: v for k, v in METADATA.items() if k != "authorization_endpoint"}
    with pytest.raises(AuthError) as caught:
        build_request(AuthServer(issuer=ISSUER, metadata=metadata, resource="r"), "c", "r", [], "s")
    assert caught.value.message == "the authorization server https://as.example has no authorization_endpoint"
    with pytest.raises(AuthError, match="does not advertise PKCE with S256"):
        build_request(server(code_challenge_methods_supported=["plain"]), "c", "r", [], "s")


# ---------------------------------------------------------------- the response
def request(iss_required: bool = False) -> AuthorizationRequest:
    return AuthorizationRequest(url="u", state="st", verifier="v", redirect_uri="http://127.0.0.1/cb",
                                issuer=ISSUER, iss_required=iss_required)


def test_the_code_of_a_good_response_is_returned():
    assert check_response(request(), {"code": "abc", "state": "st"}) == "abc"
    assert check_response(request(True), {"code": "abc", "iss": ISSUER}) == "abc"
    assert check_response(request(), {"code": "abc", "iss": ISSUER}) == "abc"


def test_a_response_from_another_issuer_is_refused_showing_nothing_of_it():
    with pytest.raises(AuthError) as caught:
        check_response(request(), {"iss": "https://evil.example", "error": "e", "error_description": "click me",
                                   "code": "abc"})
    assert type(caught.value) is AuthError
    assert caught.value.message == ("the sign-in response came from another issuer than https://as.example; "
                                    "it was refused (RFC 9207 mix-up protection)")


def test_a_response_without_iss_is_refused_where_the_server_advertises_it():
    with pytest.raises(AuthError) as caught:
        check_response(request(True), {"code": "abc"})
    assert caught.value.message == ("the sign-in response has no iss, which https://as.example advertises "
                                    "(authorization_response_iss_parameter_supported); it was refused")


def test_a_response_without_iss_tells_only_its_error_code():
    # nothing else of an unverified response is shown: the code, on one line, cut at 80
    with pytest.raises(AuthError) as caught:
        check_response(request(True), {"error": "invalid_scope\x1b[2J" + "x" * 100, "error_description": "click me"})
    message = caught.value.message
    assert message.startswith("the sign-in response has no iss, which https://as.example advertises "
                              "(authorization_response_iss_parameter_supported); it was refused (it reported the "
                              "error invalid_scope")
    assert "click me" not in message and "\x1b" not in message.replace("\\x1b", "")
    assert message.endswith("\u2026)") and len(message.split("the error ", 1)[1]) == 81


def test_a_refusal_names_the_error_and_its_description():
    with pytest.raises(AuthorizationRefused) as caught:
        check_response(request(), {"error": "access_denied", "error_description": "the user said no"})
    assert caught.value.error == "access_denied"
    assert caught.value.message == "the authorization server refused the sign-in: access_denied: the user said no"


def test_a_refusal_without_a_description_and_a_long_one_cut():
    with pytest.raises(AuthorizationRefused) as caught:
        check_response(request(), {"error": "invalid_scope", "error_description": "", "code": "abc"})
    assert caught.value.message == "the authorization server refused the sign-in: invalid_scope"
    with pytest.raises(AuthorizationRefused) as caught:
        check_response(request(), {"error": "e" * 100 + "\n", "error_description": "d\x1b[2J" + "x" * 300})
    message = caught.value.message
    assert message == ("the authorization server refused the sign-in: " + "e" * 79 + "…: "
                       + (r"d\x1b[2J" + "x" * 300)[:199] + "…")  # cut with an ellipsis: redaction sees the cut
    assert caught.value.error == "e" * 100 + "\n"


@pytest.mark.parametrize("params", [{}, {"code": ""}, {"state": "st"}])
def test_a_response_without_a_code_is_refused(params):
    with pytest.raises(AuthError) as caught:
        check_response(request(), params)
    assert type(caught.value) is AuthError
    assert caught.value.message == "the sign-in response carries no authorization code"


def test_the_token_request_form():
    assert code_exchange_data("abc", request(), "https://mcp.example/mcp") == {
        "grant_type": "authorization_code", "code": "abc", "redirect_uri": "http://127.0.0.1/cb",
        "code_verifier": "v", "resource": "https://mcp.example/mcp"}


def test_how_long_the_listener_waits(monkeypatch):
    monkeypatch.delenv("MRTR_AUTH_WAIT", raising=False)
    assert wait_seconds() == 300.0 == flow.DEFAULT_WAIT
    monkeypatch.setenv("MRTR_AUTH_WAIT", "12.5")
    assert wait_seconds() == 12.5
    monkeypatch.setenv("MRTR_AUTH_WAIT", "soon")
    with pytest.raises(UsageError, match="MRTR_AUTH_WAIT"):
        wait_seconds()


# ---------------------------------------------------------------- the browser and the paste flow
class Terminal(io.StringIO):
    """A stream that says it is a terminal (the person's keys are its text)."""

    def isatty(self) -> bool:
        return True


def env_of(keys: str | None = None) -> Environment:
    """No terminal when `keys` is None; else a terminal on stdin (typing `keys`) and stderr."""
    if keys is None:
        return Environment(stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO())
    return Environment(stdin=Terminal(keys), stdout=io.StringIO(), stderr=Terminal())


class ControllingTerminal:
    """What `open("/dev/tty")` gives the flow: nothing (ENXIO, as in a process without a
    controlling terminal) until `type(keys)` makes it a file holding what the person types,
    opened with the flow's own arguments (`encodings`: the encoding asked at each opening)."""

    def __init__(self, path):
        self.path, self.keys, self.opened, self.encodings = path, None, [], []

    def type(self, keys: str) -> None:
        self.path.write_text(keys, encoding="utf-8")
        self.keys = keys

    def open(self, file, *args, **kwargs):
        if file not in ("/dev/tty", "CONIN$"):
            return builtins.open(file, *args, **kwargs)
        self.encodings.append(kwargs.get("encoding"))
        if self.keys is None:
            raise OSError(errno.ENXIO, os.strerror(errno.ENXIO), file)
        stream = builtins.open(self.path, *args, **kwargs)  # noqa: SIM115 - returned: this stands in for open
        self.opened.append(stream)
        return stream


def paste_readers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "mrtr-oauth-paste"]


def join_paste_readers() -> None:
    """Wait until every paste reader has ended (each stops once the sign-in has)."""
    for reader in paste_readers():
        reader.join(SAFETY)
        assert not reader.is_alive()


#: MRTR_AUTH_WAIT in these tests: a sign-in whose redirect or paste never comes (a
#: regression in the paste flow) fails in this many seconds instead of waiting the
#: default 300; still far more than a loopback visit or a typed line takes on a loaded machine.
SHORT_WAIT = "30"


@pytest.fixture(autouse=True)
def tty(tmp_path, monkeypatch):
    """No controlling terminal unless the test types on one (`tty.type(keys)`); and a short
    sign-in wait (`SHORT_WAIT`) unless the test sets its own."""
    monkeypatch.setenv("MRTR_AUTH_WAIT", SHORT_WAIT)
    terminal = ControllingTerminal(tmp_path / "tty")
    monkeypatch.setattr(console._impl, "open", terminal.open, raising=False)
    yield terminal
    join_paste_readers()
    for stream in terminal.opened:
        stream.close()


@pytest.fixture
def listener():
    loop = Loopback("st")
    yield loop
    loop.close()


def visit(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=SAFETY) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


class VisitingBrowser(webbrowser.BaseBrowser):
    """A browser that goes to the URL it opens (the authorization server at once redirects
    to `redirect`), or that cannot start (`works=False`)."""

    def __init__(self, redirect: str | None = None, works: bool = True):
        super().__init__("visiting")
        self.redirect, self.works, self.opened = redirect, works, []

    def open(self, url, new=0, autoraise=True):
        self.opened.append(url)
        if self.works and self.redirect:
            threading.Thread(target=visit, args=(self.redirect,), daemon=True).start()
        return self.works


@pytest.fixture
def browser(monkeypatch):
    """Install a VisitingBrowser as the preferred browser; `browser(redirect, works)`."""
    with contextlib.suppress(webbrowser.Error):  # no browser on this machine
        webbrowser.get()  # the standard browsers registered first, so that ours goes first
    saved = list(webbrowser._tryorder or [])

    def install(redirect: str | None = None, works: bool = True) -> VisitingBrowser:
        made = VisitingBrowser(redirect, works)
        webbrowser.register("mrtr-test", None, made, preferred=True)
        return made

    yield install
    webbrowser._tryorder[:] = saved


def callback(loop: Loopback, **params: str) -> str:
    return loop.redirect_uri + "?" + urlencode(params)


NO_TERMINAL = ("cannot sign in here: with --no-browser, the address the browser is sent to must be pasted back, "
               "and there is no terminal to paste it in (stdin is not a terminal)")
NO_TERMINAL_HINT = ("run the same command in a terminal, or sign in on a machine where a browser can open "
                    "(BROWSER names one)")


def test_with_no_browser_flag_and_no_terminal_the_sign_in_fails_at_once(listener, monkeypatch):
    monkeypatch.setenv("MRTR_AUTH_WAIT", "0.5")
    env = env_of()
    assert visit(callback(listener, code="c1", state="st")) == 200  # not taken: nobody could paste it
    with pytest.raises(AuthError) as caught:
        run_browser_flow(env, request(), listener, ask=False, no_browser=True)
    assert type(caught.value) is AuthError
    assert (caught.value.message, caught.value.hint) == (NO_TERMINAL, NO_TERMINAL_HINT)
    assert env.stderr.getvalue() == ""
    assert paste_readers() == []


def test_with_stdin_redirected_the_address_is_pasted_on_the_controlling_terminal(listener, monkeypatch, tty):
    tty.type(callback(listener, code="c1", state="st") + "\n")
    env = env_of()
    req = AuthorizationRequest(url="https://as.example/authorize?x=1", state="st", verifier="v",
                               redirect_uri=listener.redirect_uri, issuer=ISSUER, iss_required=False)
    assert run_browser_flow(env, req, listener, ask=False, no_browser=True) == "c1"
    join_paste_readers()
    assert env.stderr.getvalue() == (
        "Open this URL in a browser to sign in:\n  https://as.example/authorize?x=1\n"
        "Paste the address your browser was sent to after signing in (or wait for it to come back): ")
    assert [codecs.lookup(name).name for name in tty.encodings] == ["utf-8"]  # not the locale's (None)


def test_a_bad_wait_setting_is_refused_before_anything_opens(listener, monkeypatch, browser):
    opened = browser()
    monkeypatch.setenv("MRTR_AUTH_WAIT", "-1")
    env = env_of("y\n")
    with pytest.raises(UsageError):
        run_browser_flow(env, request(), listener, ask=True, no_browser=False)
    assert env.stderr.getvalue() == "" and opened.opened == []


def test_the_browser_is_opened_and_its_redirect_taken(listener, browser):
    opened = browser(callback(listener, code="c2", state="st"))
    env = env_of()
    req = build_request(server(), "c", listener.redirect_uri, [], "st")
    assert run_browser_flow(env, req, listener, ask=False, no_browser=False) == "c2"
    assert opened.opened == [req.url]
    assert env.stderr.getvalue() == ("mrtr: opening the browser to sign in (waiting for it to come back)\n"
                                     "If the browser shows nothing, open this URL in a browser to sign in:\n"
                                     "  " + req.url + "\n")
    assert paste_readers() == []  # no terminal: nothing is read


def test_at_a_terminal_the_person_is_asked_before_the_browser_opens(listener, browser):
    opened = browser(callback(listener, code="c3", state="st"))
    env = env_of("yes\n")
    assert run_browser_flow(env, request(), listener, ask=True, no_browser=False) == "c3"
    assert opened.opened == ["u"]
    assert env.stderr.getvalue().startswith("Open the browser to sign in? [Y]es / [s]how the URL / [n]o, cancel: ")


def test_a_person_who_cancels_ends_the_sign_in(listener, browser):
    opened = browser()
    with pytest.raises(AuthError) as caught:
        run_browser_flow(env_of("n\n"), request(), listener, ask=True, no_browser=False)
    assert caught.value.message == "sign-in cancelled"
    assert caught.value.__suppress_context__ is True
    assert opened.opened == []


def test_a_person_who_asks_for_the_url_pastes_the_address(listener, browser):
    opened = browser()
    env = env_of("s\n" + callback(listener, code="c4", state="st") + "\n")
    assert run_browser_flow(env, request(), listener, ask=True, no_browser=False) == "c4"
    assert opened.opened == []
    assert "Open this URL in a browser to sign in:\n  u\n" in env.stderr.getvalue()


def test_with_no_browser_flag_the_address_is_pasted_at_a_terminal(listener, browser):
    opened = browser()
    pasted = callback(listener, code="c5", state="st")
    env = env_of("https://elsewhere.example/?state=st\n" + pasted + "\n")
    assert run_browser_flow(env, request(), listener, ask=True, no_browser=True) == "c5"
    assert opened.opened == []
    text = env.stderr.getvalue()
    assert "Open the browser" not in text
    assert ("mrtr: that is not the address the browser was sent to (it has no code); paste the whole address"
            in text)
    assert text.count("Paste the address your browser was sent to after signing in "
                      "(or wait for it to come back): ") == 2


def test_a_pasted_error_is_the_servers_refusal(listener, browser):
    browser()
    env = env_of(callback(listener, error="access_denied", error_description="", state="st") + "\n")
    with pytest.raises(AuthorizationRefused) as caught:
        run_browser_flow(env, request(), listener, ask=False, no_browser=True)
    assert caught.value.message == "the authorization server refused the sign-in: access_denied"


def test_a_pasted_address_of_another_sign_in_ends_it(listener, browser):
    browser()
    env = env_of(callback(listener, code="c", state="other") + "\n")
    with pytest.raises(AuthError) as caught:
        run_browser_flow(env, request(), listener, ask=False, no_browser=True)
    assert caught.value.message == ("the pasted address does not belong to this sign-in (its state differs); "
                                    "it was refused")


def test_when_the_browser_cannot_start_the_url_is_shown_and_the_address_pasted(listener, browser):
    opened = browser(works=False)
    env = env_of(callback(listener, code="c6", state="st") + "\n")
    assert run_browser_flow(env, request(), listener, ask=False, no_browser=False) == "c6"
    assert opened.opened == ["u"]
    text = env.stderr.getvalue()
    assert "mrtr: note: the browser could not be started (or it failed)" in text
    assert "Paste the address" in text


def test_when_no_browser_can_start_and_there_is_no_terminal_the_sign_in_fails_at_once(listener, browser,
                                                                                     monkeypatch):
    opened = browser(works=False)
    monkeypatch.setenv("MRTR_AUTH_WAIT", "0.5")
    env = env_of()
    with pytest.raises(AuthError) as caught:
        run_browser_flow(env, request(), listener, ask=False, no_browser=False)
    assert (caught.value.message, caught.value.hint) == (
        NO_TERMINAL.replace("with --no-browser", "no browser could be started"), NO_TERMINAL_HINT)
    assert opened.opened == ["u"]
    assert env.stderr.getvalue() == ("mrtr: opening the browser to sign in (waiting for it to come back)\n"
                                     "mrtr: note: the browser could not be started (or it failed)\n"
                                     "Open this URL in a browser to sign in:\n  u\n")  # shown all the same
    assert paste_readers() == []


def test_the_end_of_the_pasted_input_leaves_the_listener_waiting(listener, browser, monkeypatch):
    browser()
    env = env_of("")
    visit(callback(listener, code="c7", state="st"))
    assert run_browser_flow(env, request(), listener, ask=False, no_browser=True) == "c7"
    waiting = Loopback("st")
    try:
        flow._read_pasted(env, waiting, Terminal(""))  # at the end of input it returns, failing nothing
        assert not waiting.done()
    finally:
        waiting.close()


def test_any_failure_of_the_paste_thread_ends_the_wait(listener):
    class Broken(Terminal):
        def readline(self, *args):
            raise KeyboardInterrupt

    env = Environment(stdin=Broken(""), stdout=io.StringIO(), stderr=Terminal())
    flow._paste_in_background(env, listener, env.stdin)
    with pytest.raises(KeyboardInterrupt):
        listener.wait(60)


def test_a_refusal_is_shown_on_one_line():
    with pytest.raises(AuthorizationRefused) as caught:
        check_response(request(), {"error": "bad\nerror", "error_description": "line one\nline two"})
    assert caught.value.message == r"the authorization server refused the sign-in: bad\nerror: line one\nline two"


def test_a_pasted_address_with_an_empty_code_is_refused(listener, browser):
    browser()
    env = env_of(callback(listener, code="", state="st") + "\n" + callback(listener, code="c8", state="st") + "\n")
    with pytest.raises(AuthError) as caught:
        run_browser_flow(env, request(), listener, ask=False, no_browser=True)
    assert caught.value.message == "the sign-in response carries no authorization code"


def test_the_paste_reader_is_a_named_daemon_thread(listener):
    """It may still wait on the terminal when the sign-in ends: it must not keep mrtr alive."""
    release = threading.Event()

    class Waiting(Terminal):
        def readline(self, *args):
            release.wait(60)
            return ""

    env = Environment(stdin=Waiting(""), stdout=io.StringIO(), stderr=Terminal())
    before = set(threading.enumerate())
    flow._paste_in_background(env, listener, env.stdin)
    try:
        (reader,) = [t for t in threading.enumerate() if t not in before]
        assert reader.name == "mrtr-oauth-paste"
        assert reader.daemon is True
    finally:
        release.set()


# ---------------------------------------------------------------- whether a paste can come back at all
def test_no_browser_without_any_terminal_is_refused_before_anything_starts():
    with pytest.raises(AuthError) as caught:
        flow.check_paste_possible(env_of(), no_browser=True)
    assert type(caught.value) is AuthError
    assert (caught.value.message, caught.value.hint) == (NO_TERMINAL, NO_TERMINAL_HINT)
    assert caught.value.__suppress_context__ is True  # not the OSError of /dev/tty


def test_a_paste_is_possible_with_a_browser_or_a_terminal(tty):
    assert flow.check_paste_possible(env_of(), no_browser=False) is None  # the browser brings it back
    assert flow.check_paste_possible(env_of(""), no_browser=True) is None  # stdin is a terminal
    assert tty.opened == []
    tty.type("")
    assert flow.check_paste_possible(env_of(), no_browser=True) is None  # the controlling terminal
    assert [stream.closed for stream in tty.opened] == [True]  # only looked at


# ---------------------------------------------------------------- reading a line while the sign-in waits
class Lines:
    """A stream with lines and nothing else (no file descriptor to wait on)."""

    def __init__(self, text: str):
        self.stream = io.StringIO(text)

    def readline(self) -> str:
        return self.stream.readline()


def test_a_line_is_read_from_a_stream_without_a_file_descriptor(listener):
    assert flow._read_line_while_waiting(listener, Lines("  pasted \nnext\n")) == "pasted"
    assert flow._read_line_while_waiting(listener, Terminal("typed\n")) == "typed"
    assert flow._read_line_while_waiting(listener, Lines("")) is None  # end of input


def test_a_descriptor_that_cannot_be_waited_on_is_read_directly(listener):
    class BadDescriptor(Terminal):
        def fileno(self) -> int:
            return -1  # select refuses it (ValueError)

    assert flow._read_line_while_waiting(listener, BadDescriptor("typed\n")) == "typed"


def test_the_person_may_take_their_time_to_paste():
    """The reader keeps waiting for a line (polling whether the sign-in ended meanwhile)."""

    class Watched(Loopback):
        def __init__(self):
            super().__init__("st")
            self.polls, self.polled = 0, threading.Event()

        def done(self) -> bool:
            self.polls += 1
            if self.polls == 2:  # once a wait for a line has run out
                self.polled.set()
            return super().done()

    watched, got = Watched(), []
    read_end, write_end = os.pipe()
    try:
        with open(read_end, encoding="utf-8") as stream, open(write_end, "w", encoding="utf-8") as typing:
            def read() -> None:
                got.append(flow._read_line_while_waiting(watched, stream))
                watched.polled.set()

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            assert watched.polled.wait(SAFETY)
            typing.write("pasted late\n")
            typing.flush()
            reader.join(SAFETY)
        assert got == ["pasted late"]
        assert watched.polls >= 3
    finally:
        watched.close()


def test_the_reader_looks_whether_the_sign_in_ended_at_least_every_fifth_of_a_second():
    """While nothing is typed, the reader waits for a key at most 0.2 s at a time before it
    looks again whether the sign-in ended: once it ended, what the person types next (the
    answer to a form) is left for what asks next; a longer wait would take that line and
    drop it. The gaps between its looks are measured; a wait for a key never ends early
    without one, so a gap under 1.2 s shows the wait is shorter than 1.2 s, however
    loaded the machine (the smallest of up to 20 gaps is taken)."""

    class Timed(Loopback):
        def __init__(self):
            super().__init__("st")
            self.looks: list[float] = []
            self.enough = threading.Event()

        def done(self) -> bool:
            import time

            self.looks.append(time.monotonic())
            gaps = [b - a for a, b in zip(self.looks, self.looks[1:], strict=False)]
            if len(gaps) >= 20 or any(g < 1.0 for g in gaps[1:]):
                self.enough.set()
            return super().done()

    timed = Timed()
    read_end, write_end = os.pipe()
    try:
        with open(read_end, encoding="utf-8") as stream, open(write_end, "w", encoding="utf-8"):
            reader = threading.Thread(target=flow._read_line_while_waiting, args=(timed, stream), daemon=True)
            reader.start()
            assert timed.enough.wait(SAFETY)
            timed.accept({"state": "st", "code": "c"})  # the sign-in ends: the reader returns
            reader.join(SAFETY)
            assert not reader.is_alive()
        gaps = [b - a for a, b in zip(timed.looks, timed.looks[1:], strict=False)][1:-1]
        assert gaps and 0.19 <= min(gaps) < 1.0, gaps
    finally:
        timed.close()


def test_a_line_is_read_when_the_terminal_has_one(listener):
    read_end, write_end = os.pipe()
    with open(read_end, encoding="utf-8") as stream, open(write_end, "w", encoding="utf-8") as typing:
        typing.write("https://pasted.example/?code=c\n")
        typing.flush()
        assert flow._read_line_while_waiting(listener, stream) == "https://pasted.example/?code=c"


def test_nothing_is_read_once_the_sign_in_has_ended(listener):
    """What the person types after the redirect came belongs to what comes next (a form)."""
    read_end, write_end = os.pipe()
    with open(read_end, encoding="utf-8") as stream, open(write_end, "w", encoding="utf-8") as typing:
        threading.Thread(target=visit, args=(callback(listener, code="c", state="st"),), daemon=True).start()
        assert flow._read_line_while_waiting(listener, stream) is None  # the redirect ends the wait
        typing.write("the answer to a form\n")
        typing.flush()
        assert flow._read_line_while_waiting(listener, stream) is None
        assert flow._read_line_while_waiting(listener, Terminal("typed\n")) is None
        assert stream.readline() == "the answer to a form\n"


def test_a_line_that_comes_as_the_sign_in_ends_is_not_taken(listener):
    class RedirectMeanwhile(Terminal):
        def readline(self, *args):
            listener.accept({"state": "st", "code": "c"})
            return "typed meanwhile\n"

    assert flow._read_line_while_waiting(listener, RedirectMeanwhile("")) is None


def test_the_paste_prompt_is_not_repeated_once_a_redirect_came(listener, browser):
    opened = browser(callback(listener, code="c9", state="st"))
    env = env_of("")  # a terminal where nothing is typed
    assert run_browser_flow(env, request(), listener, ask=False, no_browser=False) == "c9"
    join_paste_readers()
    assert opened.opened == ["u"]
    assert env.stderr.getvalue() == (
        "mrtr: opening the browser to sign in (waiting for it to come back)\n"
        "If the browser shows nothing, open this URL in a browser to sign in:\n  u\n"
        "Paste the address your browser was sent to after signing in (or wait for it to come back): ")


def test_the_sign_in_url_to_open_is_shown_whole_whatever_its_parameters_are_named():
    # The authorization endpoint's own query may carry a `token=` or `code=`: the line that
    # asks the person to open it shows it whole (masked, it could not be opened as shown).
    from mrtr_cli.auth.flows.consent import show_url

    env = env_of(None)
    url = "https://as.example/authorize?tenant_token=t-5150&code=c-7170&state=st"
    show_url(env, url)
    assert env.stderr.getvalue() == f"Open this URL in a browser to sign in:\n  {url}\n"
    env.err(f"mrtr: error: cannot reach {url}")  # anywhere else it is any URL: masked
    assert "t-5150" not in env.stderr.getvalue().splitlines()[-1]
