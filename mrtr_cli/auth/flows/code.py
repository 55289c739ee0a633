"""The authorization code flow with PKCE (a person signs in in a browser, the redirect
comes to a loopback listener): picking the client (configured, a Client ID Metadata
Document, the stored registration, or a new one), the browser, the code exchange; a
registration the authorization server no longer knows is forgotten and the sign-in
starts once more with a new one.

Spec: 2026-07-28 basic/authorization (authorization code grant, PKCE) and its
client-registration page; RFC 6749 section 4.1.
"""

from __future__ import annotations

import contextlib
from typing import Any

from mrtr_cli.auth import registration
from mrtr_cli.auth.clientparts import ClientParts
from mrtr_cli.auth.discovery import AuthServer
from mrtr_cli.auth.endpoint import grants
from mrtr_cli.auth.endpoint.requests import endpoints_of
from mrtr_cli.auth.urls import shown
from mrtr_cli.errors import AuthError
from mrtr_cli.render.invocation import signin_command

#: Errors of an authorization response that mean a reused registration is no good: the
#: server forgot the client, or registered it for fewer scopes (RFC 6749 section 4.1.2.1).
_GONE = ("invalid_client", "unauthorized_client", "invalid_scope")


class _RegistrationGone(Exception):
    """A stored client registration was refused (`reason`: the OAuth error code)."""

    def __init__(self, client: dict[str, Any], reason: str):
        super().__init__(reason)
        self.client = client
        self.reason = reason


class CodeFlow(ClientParts):
    """The code flow of `auth.client.OAuthClient` (a base class of it): it uses the
    client's settings, store, `http` client, environment, deadline, `label`, `login`
    and its token requests (auth/endpoint/requests.py).
    """

    def _code_flow(self, server: AuthServer, entry: dict[str, Any], scopes: list[str], dpop: bool) -> str:
        """The authorization code flow with PKCE through the loopback listener; `dpop`:
        the code is exchanged for DPoP-bound tokens (`TokenRequests._dpop_binding`).

        A client registration the authorization server no longer knows (it answers
        `invalid_client` or `unauthorized_client`, or `invalid_scope` for a scope the
        registration lacks) is forgotten at once, and the sign-in starts once more with a
        new registration; a registration whose secret expired, or that does not cover the
        scopes asked for, is not used at all (basic/authorization/client-registration).
        """
        server.check_pkce()  # before a client is registered or anything is opened
        stored = entry.get("client") if isinstance(entry.get("client"), dict) else None
        try:
            return self._code_flow_once(server, stored, scopes, dpop)
        except _RegistrationGone as gone:
            self._forget_registration(server.issuer, gone.client, gone.reason, again=True)
            return self._code_flow_once(server, None, scopes, dpop)

    def _code_client(self, server: AuthServer, stored: dict[str, Any] | None,
                     scopes: list[str]) -> dict[str, Any] | None:
        """The client for a code flow: configured (pre-registered, a Client ID Metadata
        Document), else the stored one when it is still usable; None: register."""
        s = self.settings
        client = registration.preregistered(s, server) or registration.cimd_client(s, server)
        if client is not None or not stored or not stored.get("client_id"):
            return client
        source = stored.get("source")
        if source == "registered":
            if registration.expired(stored):
                self._note(f"mrtr: the client secret of mrtr's registration at {server.issuer} has expired "
                           "(client_secret_expires_at); registering again")
                return None
            if not registration.covers(stored, scopes, server):
                missing = " ".join(x for x in scopes if x not in str(stored.get("scope")).split())
                self._note(f"mrtr: mrtr's registration at {server.issuer} does not cover the scope "
                           f"{shown(missing)}; registering again")
                return None
            return stored
        if source == "pre-registered" or (source == "cimd"
                                          and server.metadata.get("client_id_metadata_document_supported")):
            return stored
        return None

    def _code_flow_once(self, server: AuthServer, stored: dict[str, Any] | None, scopes: list[str],
                        dpop: bool) -> str:
        """One sign-in: pick or register the client, the browser, the code exchange.

        Raises:
            _RegistrationGone: a stored registration (not one made now) was refused.
            AuthError, TimeoutExpired: see `on_challenge`.
        """
        import secrets  # noqa: PLC0415 - lazy for start-up time

        from mrtr_cli.auth.flows import pkce as flow  # noqa: PLC0415 - lazy for start-up time

        flow.check_paste_possible(self.env, self.settings.no_browser)  # before anything is registered
        state = secrets.token_urlsafe(32)
        client, listener = self._client_and_listener(server, stored, scopes, state)
        reused = client is not None and client.get("source") == "registered"
        try:
            if client is None:
                client = registration.register(self.http, server, listener.redirect_uri, scopes)
                self.store.update(server.issuer, client=client, endpoints=endpoints_of(server), current=False)
            if client.get("client_secret"):
                self.env.add_secret(client["client_secret"])
            scopes = _scopes_for(client, scopes)
            req = flow.build_request(server, client["client_id"], listener.redirect_uri, scopes, state)
            code = self._browser_code(server, client, req, listener, scopes, reused)
        finally:
            listener.close()
        tokens = self._exchange_code(server, client, flow.code_exchange_data(code, req, server.resource), scopes,
                                     dpop=dpop, reused=reused)
        self.store.update(server.issuer, client=client, tokens=tokens, endpoints=endpoints_of(server))
        if not self.env.quiet and not self.login:  # `auth login` says so itself
            self.env.err(f"mrtr: signed in to {self.label}")
        return self._remember(tokens)

    def _client_and_listener(self, server: AuthServer, stored: dict[str, Any] | None, scopes: list[str],
                             state: str) -> tuple[dict[str, Any] | None, Any]:
        """The client to sign in with (None: register one) and the loopback listener for the
        redirect: a registered client is used again on the redirect URI it registered, or
        not at all when that cannot be bound."""
        from mrtr_cli.auth.flows.loopback import Loopback  # noqa: PLC0415 - lazy for start-up time

        port = self.settings.redirect_port
        client = self._code_client(server, stored, scopes)
        if client is not None and client.get("source") == "registered":
            listener = _reuse_listener(state, client, port)
            if listener is not None:
                return client, listener
            client = None
        return client, Loopback(state, port=port, path="/callback" if client is not None else None)

    def _browser_code(self, server: AuthServer, client: dict[str, Any], req: Any, listener: Any,
                      scopes: list[str], reused: bool) -> str:
        """The authorization code, from the browser (the person asked first unless `auth
        login`), the run's deadline paused while they are away.

        Raises:
            _RegistrationGone: a reused registration was refused by the authorization server.
            AuthError: refused, or no redirect came (a reused registration is then forgotten).
        """
        from mrtr_cli.auth.flows import consent  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.auth.flows import pkce as flow  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.auth.flows.loopback import NoResponse  # noqa: PLC0415 - lazy for start-up time

        ask = not self.login
        paused = self.deadline.paused() if self.deadline is not None else contextlib.nullcontext()
        try:
            with paused:
                if ask or not self.env.quiet:
                    consent.describe(self.env, self.label, server.issuer, scopes, req.url)
                return flow.run_browser_flow(self.env, req, listener, ask=ask, no_browser=self.settings.no_browser)
        except flow.AuthorizationRefused as refused:
            if reused and refused.error in _GONE and (
                    refused.error != "invalid_scope" or not registration.covers(client, scopes, server)
                    or not isinstance(client.get("scope"), str)):
                raise _RegistrationGone(client, refused.error) from None
            raise
        except NoResponse as exc:
            if reused:
                # The server may show an "unknown client" page and never come back: the
                # registration is dropped, so that the next sign-in registers again.
                self.store.forget_client(server.issuer)  # no note: the hint below says it
                raise AuthError(str(exc), hint=(
                    f"mrtr reused its registration at {server.issuer}; if the sign-in page showed an error "
                    "(an unknown client), the server has forgotten it. In case it has, that registration "
                    "was dropped (a new one costs nothing): run "
                    f"{signin_command(self.settings.login_hint)} to register again")) from None
            raise

    def _exchange_code(self, server: AuthServer, client: dict[str, Any], data: dict[str, str], scopes: list[str],
                       *, dpop: bool, reused: bool) -> dict[str, Any]:
        """The tokens for the authorization code (`data`: the token request's form).

        Raises:
            _RegistrationGone: a reused registration was refused at the token endpoint.
            AuthError: no token endpoint; grants.TokenError: refused (a registration made
                now and refused is forgotten, for the next sign-in).
        """
        endpoint = server.endpoint("token_endpoint")
        if not endpoint:
            raise AuthError(f"the authorization server {server.issuer} has no token_endpoint")
        try:
            tokens = self._send(client, endpoint, data, issuer=server.issuer, guessed=server.guessed,
                                requested_scope=" ".join(scopes) or None,
                                proof_key=self._new_proof_key() if dpop else None)
        except grants.TokenError as err:
            if reused and err.error in ("invalid_client", "unauthorized_client"):
                raise _RegistrationGone(client, err.error) from None
            if client.get("source") == "registered" and err.error in ("invalid_client", "unauthorized_client"):
                self._forget_registration(server.issuer, client, err.error, again=False)
            raise
        return tokens

    def _forget_registration(self, issuer: str, client: dict[str, Any], reason: str, *, again: bool) -> None:
        """Drop a client registration the server refused (and its tokens), saying so in one
        line: `again`, mrtr registers again now; else at the next sign-in."""
        self.store.forget_client(issuer)
        when = "registering again" if again else "the next sign-in registers again"
        self._note(f"mrtr: {issuer} does not accept mrtr's registration (client {shown(client.get('client_id'))}: "
                   f"{shown(reason)}); it was forgotten, {when}")


def _scopes_for(client: dict[str, Any], scopes: list[str]) -> list[str]:
    """`scopes` without `offline_access` when `client` may not use refresh tokens."""
    grants_of = client.get("grant_types")
    if isinstance(grants_of, list) and "refresh_token" not in grants_of and "offline_access" in scopes:
        return [x for x in scopes if x != "offline_access"]  # no refresh for this client
    return scopes


def _reuse_listener(state: str, client: dict[str, Any], port: int) -> Any:
    """A listener on the redirect URI registered for `client` (port and path), so that the
    registered client can be used again; None when it cannot be bound (register anew)."""
    from urllib.parse import urlsplit  # noqa: PLC0415 - lazy for start-up time

    from mrtr_cli.auth.flows.loopback import Loopback  # noqa: PLC0415 - lazy for start-up time

    for uri in client.get("redirect_uris") or []:
        p = urlsplit(str(uri))
        if p.hostname != "127.0.0.1" or not p.port or (port and p.port != port):
            continue
        try:
            return Loopback(state, port=p.port, path=p.path or "/")
        except AuthError:
            return None
    return None
