"""The authorization code flow with PKCE (OAuth 2.1 section 4.1; 2026-07-28
basic/authorization "Authorization Flow Steps", "Authorization Response Validation",
security-considerations "Authorization Code Protection").

PKCE uses S256 only; `state` is sent and checked; `resource` goes on the authorization
request; the response's `iss` is compared with the recorded issuer by plain string
equality (RFC 9207 section 2.4), and on a mismatch nothing of the response (not even
its `error_description`) is shown or used.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import threading
from dataclasses import dataclass
from typing import IO, Any
from urllib.parse import parse_qs, urlencode, urlsplit

from mrtr_cli.auth.discovery import AuthServer
from mrtr_cli.auth.flows import consent
from mrtr_cli.auth.flows.loopback import Loopback
from mrtr_cli.env import Environment
from mrtr_cli.errors import AuthError, Declined
from mrtr_cli.render.sanitize import one_line
from mrtr_cli.settings import DEFAULT_AUTH_WAIT

DEFAULT_WAIT = DEFAULT_AUTH_WAIT


class AuthorizationRefused(AuthError):
    """The authorization server answered the sign-in with an error (`error` holds its
    code, e.g. "invalid_scope", "access_denied"; RFC 6749 section 4.1.2.1)."""

    def __init__(self, message: str, error: str):
        super().__init__(message)
        self.error = error


def pkce_pair() -> tuple[str, str]:
    """(code_verifier, code_challenge): 64 random bytes as base64url (86 characters,
    RFC 7636 section 4.1) and its S256 challenge."""
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(64)).rstrip(b"=").decode("ascii")
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode("ascii")
    return verifier, challenge


@dataclass
class AuthorizationRequest:
    """One authorization request and what its response is checked against."""

    url: str
    state: str
    verifier: str
    redirect_uri: str
    issuer: str
    iss_required: bool


def build_request(server: AuthServer, client_id: str, redirect_uri: str, scopes: list[str],
                  state: str) -> AuthorizationRequest:
    """The authorization URL with PKCE S256, `state`, `resource` and `scope` (when any).

    Raises:
        AuthError: the server has no authorization endpoint or does not advertise S256.
    """
    server.check_pkce()
    endpoint = server.endpoint("authorization_endpoint")
    if not endpoint:
        raise AuthError(f"the authorization server {server.issuer} has no authorization_endpoint")
    verifier, challenge = pkce_pair()
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, "state": state,
              "code_challenge": challenge, "code_challenge_method": "S256", "resource": server.resource}
    if scopes:
        params["scope"] = " ".join(scopes)
        if "offline_access" in scopes:
            params["prompt"] = "consent"  # OpenID Connect Core 11: offline_access needs consent
    sep = "&" if urlsplit(endpoint).query else "?"
    return AuthorizationRequest(url=endpoint + sep + urlencode(params), state=state, verifier=verifier,
                                redirect_uri=redirect_uri, issuer=server.issuer,
                                iss_required=server.metadata.get(
                                    "authorization_response_iss_parameter_supported") is True)


def check_response(req: AuthorizationRequest, params: dict[str, str]) -> str:
    """The authorization code of a response whose `state` already matched.

    Raises:
        AuthorizationRefused: the server answered with an error.
        AuthError: `iss` differs from the recorded issuer (nothing else of the response
            is shown), `iss` is missing where the server advertised it, or no code came.
    """
    iss = params.get("iss")
    if iss is not None and iss != req.issuer:
        raise AuthError(f"the sign-in response came from another issuer than {req.issuer}; "
                        "it was refused (RFC 9207 mix-up protection)")
    if iss is None and req.iss_required:
        # Nothing of an unverified response is used; its error code alone (sanitized) tells
        # the person what the server said, e.g. invalid_scope from a server that leaves `iss`
        # off its error redirects.
        said = (f" (it reported the error {one_line(params['error'], 80)})"
                if params.get("error") else "")
        raise AuthError(f"the sign-in response has no iss, which {req.issuer} advertises "
                        f"(authorization_response_iss_parameter_supported); it was refused{said}")
    if "error" in params:
        desc = params.get("error_description")
        text = f"the authorization server refused the sign-in: {one_line(params['error'], 80)}"
        if desc:
            text += f": {one_line(desc, 200)}"
        raise AuthorizationRefused(text, params["error"])
    code = params.get("code")
    if not code:
        raise AuthError("the sign-in response carries no authorization code")
    return code


def wait_seconds() -> float:
    """How long the loopback listener waits (MRTR_AUTH_WAIT, default 300 s).

    Raises:
        UsageError: MRTR_AUTH_WAIT is not a positive number of seconds (exit 2).
    """
    from mrtr_cli.settings import current  # noqa: PLC0415 - start-up time

    return current().auth_wait()


def run_browser_flow(env: Environment, req: AuthorizationRequest, listener: Loopback, *,
                     ask: bool, no_browser: bool) -> str:
    """Send the person to the authorization URL and return the authorization code.

    The URL is always shown on stderr (sanitized; it carries the PKCE challenge and
    `state`, nothing secret), also when a browser was started: one that shows nothing
    (`BROWSER=/bin/true`) must not leave the person without it. Where a terminal exists
    the person may paste the address the browser was sent to, while the loopback
    listener waits for the redirect itself. Where the address could only come back by
    pasting (`--no-browser`, or no browser could start) and no terminal exists, the
    sign-in fails at once instead of waiting `MRTR_AUTH_WAIT` for nothing.

    Args:
        ask: ask before opening the browser (automatic sign-in at a terminal); False
            for `mrtr auth login`, where the command is the consent.
        no_browser: show the URL and read the redirected URL back (the paste flow);
            the listener still takes a redirect that reaches it.

    Raises:
        AuthError: no response in time, a refused or mismatching response, the person
            cancelled, or nothing can come back (exit 8).
        KeyboardInterrupt: Ctrl-C.
    """
    wait = wait_seconds()  # a bad MRTR_AUTH_WAIT is refused before anything opens
    show = no_browser
    if ask and not no_browser:
        try:
            show = not consent.ask_open(env)
        except Declined:
            raise AuthError("sign-in cancelled") from None
    paste = _paste_source(env)
    if show and paste is None:
        raise _nothing_can_come_back("--no-browser" if no_browser else None)
    if show:
        consent.show_url(env, req.url)
    else:
        env.err("mrtr: opening the browser to sign in (waiting for it to come back)")
        if consent.open_browser(env, req.url):
            consent.show_url(env, req.url, opened=True)
        elif paste is None:  # no browser could start (a remote shell, a container), no terminal
            raise _nothing_can_come_back("no browser could be started")
    if paste is not None:
        _paste_in_background(env, listener, paste)
    params = listener.wait(wait)
    return check_response(req, params)


def check_paste_possible(env: Environment, no_browser: bool) -> None:
    """Fail at once, before a client is registered or anything is opened, when the sign-in
    can only come back by pasting (`--no-browser`) and there is no terminal to paste in.

    Raises:
        AuthError: (exit 8) as `run_browser_flow` would, later.
    """
    if not no_browser or env.prompt_input() is not None:
        return
    from mrtr_cli.platform.console import open_terminal  # noqa: PLC0415 - lazy for start-up time

    terminal = open_terminal()
    if terminal is None:
        raise _nothing_can_come_back("--no-browser") from None
    terminal.close()


def _nothing_can_come_back(why: str | None) -> AuthError:
    """The sign-in that needs a pasted address where there is no terminal to paste it in."""
    reason = f"with {why}" if why == "--no-browser" else why
    return AuthError(f"cannot sign in here: {reason}, the address the browser is sent to must be pasted back, "
                     "and there is no terminal to paste it in (stdin is not a terminal)",
                     hint="run the same command in a terminal, or sign in on a machine where a browser can open "
                          "(BROWSER names one)")


def _paste_source(env: Environment) -> IO[str] | None:
    """Where a pasted address can be read: the run's prompt input (stdin at a terminal),
    else the terminal (`platform.console`: stdin redirected in a terminal), else None."""
    stream = env.prompt_input()
    if stream is not None:
        return stream
    from mrtr_cli.platform.console import open_terminal  # noqa: PLC0415 - lazy for start-up time

    return open_terminal()  # read by the paste thread for the run


def _paste_in_background(env: Environment, listener: Loopback, stream: IO[str]) -> None:
    """Read the pasted redirect URL from the terminal `stream` (the listener may get the
    redirect itself meanwhile). An address without a code or error is asked for again; one
    whose `state` is not this sign-in's ends it (exit 8): it belongs to another sign-in."""

    def read() -> None:
        try:
            _read_pasted(env, listener, stream)
        except BaseException as exc:  # noqa: BLE001 - any failure ends the flow, never a hang
            listener.fail(exc)

    threading.Thread(target=read, name="mrtr-oauth-paste", daemon=True).start()


def _read_line_while_waiting(listener: Loopback, stream: IO[str]) -> str | None:
    """A line typed at the terminal, or None once the sign-in ended without one (the
    redirect reached the listener) or at end of input: nothing typed after the sign-in
    is taken from what comes next (a form, a prompt)."""
    from mrtr_cli.platform.console import key_waiting  # noqa: PLC0415 - lazy for start-up time

    waitable = True
    while not listener.done():
        if waitable:
            typed = key_waiting(stream, 0.2)
            if typed is False:
                continue
            waitable = typed is not None
        line = stream.readline()
        return line.strip() if line and not listener.done() else None
    return None


def _read_pasted(env: Environment, listener: Loopback, stream: IO[str]) -> None:
    """The paste loop of `_paste_in_background` (runs in its thread)."""
    consent.paste_prompt(env)
    while True:
        text = _read_line_while_waiting(listener, stream)
        if text is None:
            return
        params = {k: v[0] for k, v in parse_qs(urlsplit(text).query, keep_blank_values=True).items()}
        if "code" not in params and "error" not in params:
            env.err("mrtr: that is not the address the browser was sent to (it has no code); "
                    "paste the whole address")
            consent.paste_prompt(env)
            continue
        if not listener.accept(params):
            listener.fail(AuthError("the pasted address does not belong to this sign-in (its state differs); "
                                    "it was refused"))
        return


def code_exchange_data(code: str, req: AuthorizationRequest, resource: str) -> dict[str, Any]:
    """The form of the token request for `code` (RFC 6749 section 4.1.3, PKCE, RFC 8707)."""
    return {"grant_type": "authorization_code", "code": code, "redirect_uri": req.redirect_uri,
            "code_verifier": req.verifier, "resource": resource}
