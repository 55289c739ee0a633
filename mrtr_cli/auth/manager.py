"""`OAuthClient`: the MCP authorization flow for one MCP server, behind the HTTP
transport's `Authorizer` (transport/authhook.py).

On a 401 (or a 403 with `error="insufficient_scope"`) it refreshes the token when it
can, else discovers the authorization server, picks the client identity and the scopes,
and runs the authorization code flow (a person, at a terminal or through
`mrtr auth login`) or, with nobody present, the client credentials grant, the JWT bearer
grant with a workload's JWT, or the ID-JAG exchange then the JWT bearer grant
(auth/federation.py); stores the tokens and hands back the new access token for one
retry. Tokens are DPoP-bound (auth/dpop.py) when the authorization server offers it or
the user asks.

Spec: 2026-07-28 basic/authorization (all sections), its authorization-server-discovery,
client-registration and security-considerations pages; ext-auth oauth-client-credentials
and enterprise-managed-authorization; RFC 9449 (DPoP); RFC 7523 (JWT bearer grant).
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from mrtr_cli.auth import grants, registration
from mrtr_cli.auth.challenge import Challenge, parse_challenge
from mrtr_cli.auth.discovery import AuthServer, advertised_issuers, discover, issuers_match
from mrtr_cli.auth.store import TokenStore
from mrtr_cli.auth.urls import shown
from mrtr_cli.config.oauth import AuthSettings
from mrtr_cli.env import Environment
from mrtr_cli.errors import AuthError
from mrtr_cli.render.sanitize import sanitize
from mrtr_cli.transport.authhook import nearly_expired

#: The longest any one authorization request may take (seconds), whatever the deadline.
REQUEST_TIMEOUT = 30.0

#: Step-up authorizations for one run before the scope problem is treated as permanent
#: (basic/authorization "Step-Up Authorization Flow": "no more than a few times").
MAX_STEP_UPS = 3


#: Errors of an authorization response that mean a reused registration is no good: the
#: server forgot the client, or registered it for fewer scopes (RFC 6749 section 4.1.2.1).
_GONE = ("invalid_client", "unauthorized_client", "invalid_scope")


class _RegistrationGone(Exception):
    """A stored client registration was refused (`reason`: the OAuth error code)."""

    def __init__(self, client: dict[str, Any], reason: str):
        super().__init__(reason)
        self.client = client
        self.reason = reason


def union(*scope_lists: list[str]) -> list[str]:
    """Scopes of every list, in first-seen order, without repeats."""
    return list(dict.fromkeys(s for scopes in scope_lists for s in scopes))


class OAuthClient:
    """Sign-in, refresh and token storage for the MCP server at `url`.

    Args:
        url: the MCP endpoint.
        settings: the user's OAuth settings for it (config/oauth.py).
        env: the run's environment (stderr, terminal facts, secrets).
        label: how messages name the server (its URL or `-s` name).
        login: this is `mrtr auth login`: sign in without asking first, also without a
            terminal (the command is the consent).
        deadline: the run's `Deadline`, paused while a person signs in, or None.
        verify: TLS verification for the authorization server requests.
        interactive: whether a person may be asked to sign in; None: when the environment
            can prompt (a terminal, no --no-input).
        tracer: the run's `render.trace.Tracer`: `-vv` and `--trace` get every
            authorization request and reply, redacted (auth/httptrace.py); or None.
    """

    def __init__(self, url: str, settings: AuthSettings, env: Environment, *, label: str | None = None,
                 login: bool = False, deadline: Any = None, verify: bool | str = True,
                 interactive: bool | None = None, tracer: Any = None):
        self.url = url
        self.tracer = tracer
        self.settings = settings
        self.env = env
        self.label = label or url
        self.login = login
        self.deadline = deadline
        self.interactive = interactive
        self._verify = verify
        self._http: Any = None
        self.store = TokenStore(url, note=self._note, logout_hint=settings.logout_hint)
        self.step_ups = 0
        self._issued: set[str] = set()  # access tokens obtained in this run (not read from the store)
        self._refreshed_on_401 = False  # a refreshed token refused again means: sign in
        self.server: AuthServer | None = None
        for secret in (settings.client_secret, settings.private_key, settings.idp_client_secret):
            if secret:
                env.add_secret(secret)
        self._as_nonces: dict[str, str] = {}  # token endpoint -> its latest DPoP-Nonce

    def _note(self, text: str) -> None:
        if not self.env.quiet:
            self.env.err(text)

    @property
    def http(self) -> Any:
        """The `httpx.Client` for authorization requests (no redirects followed). With `-v`
        each request is noted on stderr as method, URL and status (no headers or bodies:
        they carry codes, secrets and tokens); `-vv` and `--trace` get the exchanges through
        the run's tracer, redacted (auth/httptrace.py)."""
        if self._http is None:
            import httpx  # noqa: PLC0415

            hooks: dict[str, list[Any]] = {"request": [self._bound_timeout]}
            if self.env.verbosity > 0:
                hooks["response"] = [self._trace_response]
            if self.tracer is not None:  # -vv, --trace: the exchanges themselves, redacted
                from mrtr_cli.auth.httptrace import trace_hooks  # noqa: PLC0415

                for kind, more in trace_hooks(self.tracer).items():
                    hooks.setdefault(kind, []).extend(more)
            self._http = httpx.Client(timeout=httpx.Timeout(REQUEST_TIMEOUT), follow_redirects=False,
                                      verify=self._verify,
                                      headers={"User-Agent": "mrtr"}, event_hooks=hooks)
        return self._http

    def _bound_timeout(self, request: Any) -> None:
        """Bound each authorization request by the run's deadline (`--timeout`, standing
        still while a person signs in) as well as REQUEST_TIMEOUT. It ends a little before
        the deadline (a quarter of what is left, at most 1 s), so that the error names the
        authorization request that did not answer rather than what waited on it."""
        left = self.deadline.remaining() if self.deadline is not None else None
        if left is not None and left < REQUEST_TIMEOUT:
            bound = max(left - min(1.0, left / 4), 0.01)
            request.extensions["timeout"] = {"connect": bound, "read": bound, "write": bound, "pool": bound}

    def _trace_response(self, response: Any) -> None:
        url = response.request.url.copy_with(query=None)  # no query strings: nothing secret is in them,
        # but nothing in them is needed either
        self.env.err(f"mrtr: oauth: {response.request.method} {sanitize(str(url), single_line=True)} "
                     f"-> {response.status_code}")

    def close(self) -> None:
        if self._http is not None:
            self._http.close()

    def _remember(self, tokens: dict[str, Any]) -> str:
        for name in ("access_token", "refresh_token", "dpop_key"):
            if isinstance(tokens.get(name), str):
                self.env.add_secret(tokens[name])
        return tokens["access_token"]

    # ------------------------------------------------------------------ the hook's calls
    def stored_token(self) -> str | None:
        """The stored access token, refreshed first (once, under the store's lock, so that
        concurrent runs refresh once) when it has expired; None when there is none usable
        (a failed refresh is not an error here: the server's 401 starts a sign-in)."""
        with self.store.locked():
            entry = self.store.entry()
            if not entry:
                return None
            tokens = entry.get("tokens") or {}
            if _fresh(tokens):
                return self._remember(tokens)
            return self._refresh(entry)

    def on_challenge(self, status: int, www_authenticate: str | None, sent: str | None) -> str | None:
        """Answer a 401/403 that came back for a request carrying `sent` (or no token):
        the new access token to retry with, or None when this 403 is no scope challenge.

        Raises:
            AuthError: nobody can sign in here (exit 8 naming `mrtr ... auth login`),
                discovery or a check refused, the step-up limit was reached.
        """
        ch = parse_challenge(status, www_authenticate)
        if status == 403 and not ch.insufficient_scope:
            return None
        if ch.insufficient_scope:
            self.step_ups += 1
            if self.step_ups > MAX_STEP_UPS:
                raise AuthError(f"{self.label} still refuses after {MAX_STEP_UPS} step-up sign-ins: "
                                f"the scope {sanitize(ch.scope or '(unnamed)', single_line=True)} is not granted")
        with self.store.locked(timeout=_lock_wait()):
            entry = self.store.entry() or {}
            tokens = entry.get("tokens") or {}
            if (status == 401 and sent and sent in self._issued and tokens.get("access_token") == sent
                    and tokens.get("token_type") == "DPoP"
                    and www_authenticate and not re.search(r"(?:^|,)\s*dpop(?:\s|,|$)", www_authenticate.lower())):
                # RFC 9449 section 7.1: a resource that takes DPoP says so in its challenges. Only a
                # token issued in this run counts: a stored one may just have expired, and a
                # server may answer that with a Bearer challenge (a refresh or new grant comes first).
                raise AuthError(f"{self.label} refused the DPoP-bound token with a challenge that offers no DPoP: "
                                "it takes bearer tokens only",
                                hint=f"sign in for bearer tokens: {self.settings.login_hint} --no-dpop "
                                     "(or MRTR_OAUTH_DPOP=0)")
            if not ch.insufficient_scope:
                if _fresh(tokens) and tokens.get("access_token") != sent:
                    return self._remember(tokens)  # another run signed in meanwhile
                if (sent and tokens.get("access_token") == sent and not self._refreshed_on_401
                        and self._issuer_still_named(entry, ch)):
                    self._refreshed_on_401 = True
                    token = self._refresh(entry)
                    if token:
                        return token
            return self.authorize(ch)

    def _issuer_still_named(self, entry: dict[str, Any], ch: Challenge) -> bool:
        """The resource's metadata still names the authorization server of the stored
        token (a resource moved to another one gets a new sign-in there, not a refresh
        here); True when the metadata cannot be read (a 2025-03-26 server)."""
        issuer = (entry.get("endpoints") or {}).get("issuer")
        listed = advertised_issuers(self.http, self.url, ch.resource_metadata)
        return listed is None or not issuer or any(issuers_match(s, issuer) for s in listed)

    # ------------------------------------------------------------------ sign-in
    def can_sign_in(self) -> bool:
        """A person can sign in now: `auth login`, or a terminal without --no-input."""
        if self.login:
            return True
        return self.env.can_prompt() if self.interactive is None else self.interactive

    def authorize(self, ch: Challenge | None = None, scopes: list[str] | None = None, *,
                  challenged: bool = True) -> str:
        """Discover, identify, and obtain a token (authorization code or client
        credentials); store it and return the access token.

        Args:
            ch: the challenge that started it (its scope and metadata URL), or None.
            scopes: scopes asked for explicitly (`auth login --scope`), or None.
            challenged: the server asked for a sign-in; False (`auth login` to a server that
                answered without one) refuses a server that publishes no metadata either.

        Raises:
            AuthError: see `on_challenge`.
        """
        ch = ch or Challenge(401)
        s = self.settings
        doc = self.store.load()  # a damaged store is named before anything is sent
        if not s.unattended:
            from mrtr_cli.auth.flow import wait_seconds  # noqa: PLC0415

            wait_seconds()  # so is a bad MRTR_AUTH_WAIT
        server = self._discover(ch, challenged)
        if not s.unattended and not self.can_sign_in():
            # Only metadata was read: nothing is sent for a sign-in nobody can complete, and
            # the command to sign in is named only now that a sign-in could succeed.
            raise self._needs_sign_in(ch)
        entry = (doc.get("issuers") or {}).get(server.issuer) or {}
        held = ((entry.get("tokens") or {}).get("scope") or "").split()
        wanted = self._select_scopes(ch, server, held, scopes)
        if s.client_credentials:
            return self._client_credentials(server, wanted)
        if s.unattended:
            return self._federated(server, wanted)
        return self._code_flow(server, entry, wanted, ch)

    def _discover(self, ch: Challenge, challenged: bool) -> AuthServer:
        """Discovery and the checks a sign-in must pass before it is attempted or a command
        to sign in is printed (metadata documents are read; no credential is sent).

        Raises:
            AuthError: discovery refused (discovery.discover), nothing to sign in to (a
                server that publishes no authorization metadata and asked for no OAuth
                sign-in), the configured issuer differs, or PKCE S256 is not advertised
                (code flow).
            TimeoutExpired: a metadata URL did not answer in time (exit 7).
        """
        s = self.settings
        server = discover(self.http, self.url, ch.resource_metadata, prefer_issuer=s.issuer)
        if server.guessed and not challenged:
            raise AuthError(f"{self.label} answered without asking for a sign-in and publishes no authorization "
                            "metadata: there is nothing to sign in to")
        if server.guessed and not ch.bearer:
            # The 2025-03-26 default endpoints are only for a server that asked for an
            # OAuth sign-in (a Bearer challenge): a gateway that wants a key of its own
            # refuses with a bare 401, and sending anyone through a sign-in there cannot work.
            raise AuthError(f"{self.label} refused the request (HTTP {ch.status}) without an OAuth challenge "
                            "and publishes no authorization metadata: it does not ask for an MCP sign-in",
                            hint="if it wants a header of its own, give -H 'NAME: VALUE' (or a token with "
                                 "--bearer-token-env VAR)")
        self.server = server
        if s.issuer and not issuers_match(server.issuer, s.issuer):
            raise AuthError(f"{self.label} sends you to sign in at {server.issuer}, but the configured "
                            f"credentials belong to {s.issuer}: refused")
        if not s.unattended:
            server.check_pkce()
        return server

    def _send(self, client: dict[str, Any], endpoint: str, data: dict[str, str], *, issuer: str,
              guessed: bool = False, **kw: Any) -> dict[str, Any]:
        """One token request (`grants.token_request`) authenticated as `client`
        (`grants.client_auth` with this run's key). Every credential in it (the client's,
        and the grant's: code, verifier, refresh token, assertion) is registered as a
        secret first, so that a server echoing the request in an error is redacted.

        Args:
            issuer: the authorization server (the `aud` of a client assertion).
            guessed: the endpoint is a 2025-03-26 default mrtr guessed (no metadata): a
                client secret or key the user configured is never sent there.

            proof_key: the DPoP key (`dpop.ProofKey`) the token is to be bound to, or None:
                the request carries a proof, sent once more with the server's nonce when it
                answers `use_dpop_nonce` (RFC 9449 sections 5 and 8), and the key is kept
                with a DPoP-bound token (`tokens["dpop_key"]`).

        Raises:
            TokenError, TimeoutExpired: as `grants.token_request`; an `invalid_client`
                refusal of a configured client whose method mrtr chose says what chooses another.
            AuthError: a configured secret or key would go to a guessed endpoint.
        """
        method = client.get("token_endpoint_auth_method")
        if guessed and client.get("source") != "registered" and (
                client.get("client_secret") or method == "private_key_jwt"):
            raise AuthError(f"{self.label} publishes no authorization metadata, and mrtr does not send a client "
                            f"secret or key to an endpoint it guessed ({shown(endpoint)})",
                            hint="sign in without --client-secret / a private key, or ask the server's operator "
                                 "to publish its authorization server metadata")
        proof_key = kw.pop("proof_key", None)
        try:
            tokens = self._token_request(client, endpoint, data, issuer, proof_key, **kw)
        except grants.TokenError as err:
            if (err.error == "invalid_client" and not self.settings.auth_method and client.get("client_secret")
                    and client.get("source") != "registered"):
                how = ("run it again with --auth-method client_secret_basic|client_secret_post" if self.login else
                       "MRTR_OAUTH_AUTH_METHOD=client_secret_basic|client_secret_post (or oauth.tokenEndpointAuthMethod "
                       "in the server's config) chooses another")
                err.hint = f"mrtr authenticated with {method}; {how}"
            raise
        if proof_key is not None and tokens.get("token_type") == "DPoP":
            tokens["dpop_key"] = proof_key.stored()
        self._issued.add(tokens["access_token"])
        return tokens

    def _token_request(self, client: dict[str, Any], endpoint: str, data: dict[str, str], issuer: str,
                       proof_key: Any, **kw: Any) -> dict[str, Any]:
        """One token request (client authentication made anew for each attempt: a client
        assertion is never sent twice), with a DPoP proof when `proof_key`, and once more
        with the authorization server's nonce on `use_dpop_nonce`."""
        for attempt in (1, 2):
            headers: dict[str, str] = {}
            sent = grants.secret_values(data)
            if client.get("client_id"):
                sent += grants.client_auth(client, data, headers, audience=issuer,
                                           private_key=self.settings.private_key,
                                           signing_alg=self.settings.signing_alg)
            for value in sent:
                self.env.add_secret(value)
            if proof_key is not None:
                headers["DPoP"] = proof_key.proof("POST", endpoint, nonce=self._as_nonces.get(endpoint))
            try:
                return grants.token_request(self.http, endpoint, data, headers, redact=self.env.redact,
                                            dpop=proof_key is not None, **kw)
            except grants.TokenError as err:
                if (attempt == 2 or proof_key is None or err.error != "use_dpop_nonce" or not err.dpop_nonce
                        or err.dpop_nonce == self._as_nonces.get(endpoint)):
                    raise
                self._as_nonces[endpoint] = err.dpop_nonce
        raise AssertionError("unreachable")  # pragma: no cover

    def _proof_key(self, server: AuthServer) -> Any:
        """A new DPoP key for a sign-in at `server`, or None for bearer tokens: DPoP when
        the user asked (`--dpop`, MRTR_OAUTH_DPOP=1, oauth.dpop) or, unless they refused,
        when the metadata lists `dpop_signing_alg_values_supported` with ES256.

        Offered but not asked for, DPoP needs the `cryptography` package (the `jwt` extra);
        without it the sign-in asks for bearer tokens.

        Raises:
            AuthError: DPoP was asked for, and the server lists only algorithms mrtr does
                not sign with, or `cryptography` is missing.
        """
        want = self.settings.dpop
        algs = server.metadata.get("dpop_signing_alg_values_supported")
        listed = [a for a in algs if isinstance(a, str)] if isinstance(algs, list) else []
        if want is False or (want is None and not listed):
            return None
        from mrtr_cli.auth.dpop import ALG, ProofKey  # noqa: PLC0415

        if listed and ALG not in listed:
            if want:
                raise AuthError(f"the authorization server {server.issuer} signs DPoP proofs with "
                                f"{shown(' '.join(listed))} only; mrtr signs them with {ALG}")
            return None
        if want is None:
            import importlib.util  # noqa: PLC0415

            if importlib.util.find_spec("cryptography") is None:  # offered, not asked: bearer tokens then
                if self.env.verbosity > 0:
                    self._note("mrtr: oauth: the server offers DPoP; without the cryptography package "
                               "(pip install 'mrtr[jwt]') mrtr asks for bearer tokens")
                return None
        key = ProofKey.generate()
        self.env.add_secret(key.stored())
        return key

    def _needs_sign_in(self, ch: Challenge) -> AuthError:
        hint = self.settings.login_hint
        if ch.insufficient_scope and ch.scope:
            import shlex  # noqa: PLC0415

            hint += "".join(f" --scope {shlex.quote(x)}" for x in ch.scopes)
            scope = sanitize(ch.scope, single_line=True)
            return AuthError(f"{self.label} needs more permission (scope {scope}); to grant it, run: "
                             + sanitize(hint, single_line=True))
        return AuthError(f"{self.label} requires sign-in; run: {hint}")

    def _select_scopes(self, ch: Challenge, server: AuthServer, held: list[str],
                       explicit: list[str] | None) -> list[str]:
        """basic/authorization "Scope Selection Strategy": the challenge's scope, else the
        resource's `scopes_supported`, else none; a step-up asks for the union of the
        scopes held and the ones challenged; `offline_access` only when the authorization
        server lists it (and never for the client credentials grant)."""
        given = list(explicit or []) or list(self.settings.scopes)
        if given:
            chosen = union(held, given) if held else given
        elif ch.scope is not None:
            chosen = ch.scopes
        elif server.scopes_supported is not None:
            chosen = server.scopes_supported
        else:
            chosen = []
        if ch.insufficient_scope:
            chosen = union(held, chosen, ch.scopes)
        if (chosen and not self.settings.unattended and "offline_access" in server.as_scopes_supported
                and "offline_access" not in chosen):
            chosen = [*chosen, "offline_access"]
        return chosen

    def _client_credentials(self, server: AuthServer, scopes: list[str]) -> str:
        """The client credentials grant (ext-auth oauth-client-credentials)."""
        s = self.settings
        endpoint = server.endpoint("token_endpoint")
        if not endpoint:
            raise AuthError(f"the authorization server {server.issuer} has no token_endpoint")
        client = _cc_client(s)
        data = {"grant_type": "client_credentials", "resource": server.resource}
        if scopes:
            data["scope"] = " ".join(scopes)
        tokens = self._send(client, endpoint, data, issuer=server.issuer, guessed=server.guessed,
                            requested_scope=data.get("scope"), proof_key=self._proof_key(server))
        self.store.update(server.issuer, client=client, tokens=tokens, endpoints=_endpoints(server))
        return self._remember(tokens)

    def _federated(self, server: AuthServer, scopes: list[str]) -> str:
        """The JWT bearer grant (RFC 7523 section 2.1) with the workload's JWT, or with an
        ID-JAG the enterprise identity provider issued for it now (enterprise-managed
        authorization); no registration, no refresh token needed (it is run again).
        A refusal ends the sign-in: no retry, no other grant."""
        s = self.settings
        endpoint = server.endpoint("token_endpoint")
        if not endpoint:
            raise AuthError(f"the authorization server {server.issuer} has no token_endpoint")
        client = _federated_client(s)
        data = self._federated_form(server.issuer, server.resource, scopes)
        tokens = self._send(client, endpoint, data, issuer=server.issuer, guessed=server.guessed,
                            requested_scope=data.get("scope"), proof_key=self._proof_key(server))
        self.store.update(server.issuer, client=client, tokens=tokens, endpoints=_endpoints(server))
        return self._remember(tokens)

    def _federated_form(self, issuer: str, resource: str, scopes: list[str]) -> dict[str, str]:
        """The JWT bearer grant's form: the workload's JWT read now, or a new ID-JAG."""
        from mrtr_cli.auth import federation  # noqa: PLC0415

        s = self.settings
        if s.grant == "id_jag":
            assertion = federation.exchange_for_id_jag(self.http, s, audience=issuer, resource=resource,
                                                       scopes=scopes, add_secret=self.env.add_secret,
                                                       redact=self.env.redact, deadline=self.deadline)
        else:
            assertion = federation.read_assertion(s.assertion, "the workload's JWT", self.deadline)
        self.env.add_secret(assertion)
        return federation.jwt_bearer_form(assertion, resource, scopes)

    def _code_flow(self, server: AuthServer, entry: dict[str, Any], scopes: list[str], ch: Challenge) -> str:
        """The authorization code flow with PKCE through the loopback listener.

        A client registration the authorization server no longer knows (it answers
        `invalid_client` or `unauthorized_client`, or `invalid_scope` for a scope the
        registration lacks) is forgotten at once, and the sign-in starts once more with a
        new registration; a registration whose secret expired, or that does not cover the
        scopes asked for, is not used at all (basic/authorization/client-registration).
        """
        server.check_pkce()  # before a client is registered or anything is opened
        stored = entry.get("client") if isinstance(entry.get("client"), dict) else None
        try:
            return self._code_flow_once(server, stored, scopes)
        except _RegistrationGone as gone:
            self._forget_registration(server.issuer, gone.client, gone.reason, again=True)
            return self._code_flow_once(server, None, scopes)

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

    def _code_flow_once(self, server: AuthServer, stored: dict[str, Any] | None, scopes: list[str]) -> str:
        """One sign-in: pick or register the client, the browser, the code exchange.

        Raises:
            _RegistrationGone: a stored registration (not one made now) was refused.
            AuthError, TimeoutExpired: see `on_challenge`.
        """
        import secrets  # noqa: PLC0415

        from mrtr_cli.auth import consent, flow  # noqa: PLC0415
        from mrtr_cli.auth.loopback import Loopback, NoResponse  # noqa: PLC0415

        s = self.settings
        flow.check_paste_possible(self.env, s.no_browser)  # before anything is registered
        state = secrets.token_urlsafe(32)
        client = self._code_client(server, stored, scopes)
        listener = None
        if client is not None and client.get("source") == "registered":
            # A registered client is used again on the redirect URI it registered.
            listener = _reuse_listener(state, client, s.redirect_port)
            if listener is None:
                client = None
        reused = client is not None and client.get("source") == "registered"
        if listener is None:
            path = "/callback" if client is not None else None
            listener = Loopback(state, port=s.redirect_port, path=path)
        try:
            if client is None:
                client = registration.register(self.http, server, listener.redirect_uri, scopes)
                self.store.update(server.issuer, client=client, endpoints=_endpoints(server), current=False)
            if client.get("client_secret"):
                self.env.add_secret(client["client_secret"])
            grants_of = client.get("grant_types")
            if isinstance(grants_of, list) and "refresh_token" not in grants_of and "offline_access" in scopes:
                scopes = [x for x in scopes if x != "offline_access"]  # no refresh for this client
            req = flow.build_request(server, client["client_id"], listener.redirect_uri, scopes, state)
            ask = not self.login
            paused = self.deadline.paused() if self.deadline is not None else contextlib.nullcontext()
            try:
                with paused:
                    if ask or not self.env.quiet:
                        consent.describe(self.env, self.label, server.issuer, scopes)
                    code = flow.run_browser_flow(self.env, req, listener, ask=ask, no_browser=s.no_browser)
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
                        f"was dropped (a new one costs nothing): run {self.settings.login_hint} to register "
                        "again")) from None
                raise
        finally:
            listener.close()
        data = flow.code_exchange_data(code, req, server.resource)
        endpoint = server.endpoint("token_endpoint")
        if not endpoint:
            raise AuthError(f"the authorization server {server.issuer} has no token_endpoint")
        try:
            tokens = self._send(client, endpoint, data, issuer=server.issuer, guessed=server.guessed,
                                requested_scope=" ".join(scopes) or None, proof_key=self._proof_key(server))
        except grants.TokenError as err:
            if reused and err.error in ("invalid_client", "unauthorized_client"):
                raise _RegistrationGone(client, err.error) from None
            if client.get("source") == "registered" and err.error in ("invalid_client", "unauthorized_client"):
                self._forget_registration(server.issuer, client, err.error, again=False)
            raise
        self.store.update(server.issuer, client=client, tokens=tokens, endpoints=_endpoints(server))
        if not self.env.quiet and not self.login:  # `auth login` says so itself
            self.env.err(f"mrtr: signed in to {self.label}")
        return self._remember(tokens)

    def _forget_registration(self, issuer: str, client: dict[str, Any], reason: str, *, again: bool) -> None:
        """Drop a client registration the server refused (and its tokens), saying so in one
        line: `again`, mrtr registers again now; else at the next sign-in."""
        self.store.forget_client(issuer)
        when = "registering again" if again else "the next sign-in registers again"
        self._note(f"mrtr: {issuer} does not accept mrtr's registration (client {shown(client.get('client_id'))}: "
                   f"{shown(reason)}); it was forgotten, {when}")

    # ------------------------------------------------------------------ refresh
    def _refresh(self, entry: dict[str, Any]) -> str | None:
        """Refresh the current issuer's token (the caller holds the lock); the new access
        token, or None when there is no refresh token or the server refused it (its
        tokens are then forgotten; a client registration it no longer knows too). A client
        credentials sign-in gets a new token."""
        tokens = entry.get("tokens") or {}
        endpoints = entry.get("endpoints") or {}
        client = dict(entry.get("client") or {})
        issuer = endpoints.get("issuer")
        endpoint = endpoints.get("token_endpoint")
        federated = client.get("source") in ("jwt-bearer", "id-jag")  # may have no client id
        if not issuer or not endpoint or not (client.get("client_id") or federated):
            return None
        s = self.settings
        proof_key = None
        if tokens.get("token_type") == "DPoP":  # the new token is bound to the same key
            from mrtr_cli.auth.dpop import ProofKey  # noqa: PLC0415

            proof_key = ProofKey.from_stored(tokens.get("dpop_key"))
            if proof_key is None:
                return None
        if federated:
            if not s.unattended or s.client_credentials or _federated_client(s)["source"] != client["source"]:
                return None  # this run has no JWT to present: a sign-in is needed
            try:
                data = self._federated_form(issuer, endpoints.get("resource") or self.url,
                                            (tokens.get("scope") or "").split())
            except AuthError:
                return None
            client = _federated_client(s)
        elif client.get("source") == "client-credentials":
            if s.client_credentials and s.client_id == client.get("client_id"):
                client = _cc_client(s)  # the settings of this run win over the stored ones
            elif client.get("token_endpoint_auth_method") == "private_key_jwt" and not s.private_key:
                return None
            data = {"grant_type": "client_credentials", "resource": endpoints.get("resource") or self.url}
            if tokens.get("scope"):
                data["scope"] = tokens["scope"]
        else:
            refresh = tokens.get("refresh_token")
            if not isinstance(refresh, str):
                return None
            if client.get("source") == "registered" and registration.expired(client):
                self._forget_registration(issuer, client, "its client secret expired", again=False)
                return None
            if s.client_secret and s.client_id == client["client_id"]:
                client["client_secret"] = s.client_secret
            data = {"grant_type": "refresh_token", "refresh_token": refresh,
                    "resource": endpoints.get("resource") or self.url}
        try:
            new = self._send(client, endpoint, data, issuer=issuer, guessed=bool(endpoints.get("guessed")),
                             previous=tokens, requested_scope=tokens.get("scope"), proof_key=proof_key)
        except grants.TokenError as err:
            if err.error in ("invalid_client", "unauthorized_client") and client.get("source") == "registered":
                self._forget_registration(issuer, client, err.error, again=False)
            elif err.error in ("invalid_grant", "invalid_client", "unauthorized_client"):
                self.store.drop_tokens(issuer)
            return None
        except AuthError:
            return None
        self.store.update(issuer, tokens=new)
        return self._remember(new)

    # ------------------------------------------------------------------ commands
    def token(self) -> str:
        """A valid access token (refreshed when needed) for `mrtr auth token`.

        Raises:
            AuthError: not signed in, or the refresh failed (exit 8).
        """
        token = self.stored_token()
        if token is None:
            from mrtr_cli.auth.probe import probe  # noqa: PLC0415

            challenge = probe(self.http, self.url, {})
            if self.settings.unattended:  # nobody is needed: get one
                token = self.authorize(challenge or Challenge(401), challenged=challenge is not None)
            else:
                self._discover(challenge or Challenge(401), challenge is not None)  # can a sign-in succeed?
        if token is None:
            raise AuthError(f"not signed in to {self.label} (or the sign-in expired)",
                            hint=f"run: {self.settings.login_hint}")
        return token

    def logout(self) -> list[str]:
        """Revoke the stored tokens where the server offers revocation (RFC 7009) and forget
        every sign-in of this server; returns one line per issuer saying what was done."""
        lines = []
        with self.store.locked():
            doc = self.store.load()
            for issuer, entry in (doc.get("issuers") or {}).items():
                lines.append(revoke_entry(self.http, issuer, entry, self.settings))
            self.store.remove()
        return lines


def revoke_entry(http: Any, issuer: str, entry: dict[str, Any], settings: AuthSettings) -> str:
    """Revoke an entry's refresh and access tokens (RFC 7009) when it recorded a
    revocation endpoint; one line saying what happened."""
    endpoints = entry.get("endpoints") or {}
    tokens = entry.get("tokens") or {}
    endpoint = endpoints.get("revocation_endpoint")
    client = entry.get("client") or {}
    if not tokens:
        return f"{issuer}: nothing to revoke"
    if not endpoint or not client.get("client_id"):
        return f"{issuer}: the server offers no revocation; the tokens were forgotten here"
    if settings.client_secret and settings.client_id == client.get("client_id"):
        client = {**client, "client_secret": settings.client_secret}
    done = []
    for hint in ("refresh_token", "access_token"):
        if isinstance(tokens.get(hint), str):
            if grants.revoke(http, endpoint, tokens[hint], hint, client, issuer, settings.private_key):
                done.append(hint.replace("_", " "))
    return f"{issuer}: revoked {', '.join(done)}" if done else f"{issuer}: revocation failed; the tokens were forgotten here"


def _fresh(tokens: dict[str, Any]) -> bool:
    if not isinstance(tokens.get("access_token"), str):
        return False
    return not nearly_expired(tokens)


def _cc_client(s: AuthSettings) -> dict[str, Any]:
    if not s.client_id:
        raise AuthError("the client credentials grant needs a client id",
                        hint="give --client-id ID, MRTR_CLIENT_ID, or oauth.clientId in the server's config")
    method = s.auth_method or ("private_key_jwt" if s.private_key else "client_secret_basic")
    client = {"client_id": s.client_id, "token_endpoint_auth_method": method, "source": "client-credentials"}
    if s.client_secret:
        client["client_secret"] = s.client_secret
    return client


def _federated_client(s: AuthSettings) -> dict[str, Any]:
    """The client of a JWT bearer grant: the configured client id with its secret
    (client_secret_basic) or none (the id in the form), or no client at all."""
    client: dict[str, Any] = {"source": "id-jag" if s.grant == "id_jag" else "jwt-bearer"}
    if s.client_id:
        client["client_id"] = s.client_id
        client["token_endpoint_auth_method"] = s.auth_method or ("client_secret_basic" if s.client_secret else "none")
        if s.client_secret:
            client["client_secret"] = s.client_secret
    return client


def _endpoints(server: AuthServer) -> dict[str, Any]:
    out: dict[str, Any] = {"issuer": server.issuer, "resource": server.resource}
    if server.guessed:
        out["guessed"] = True
    for name in ("token_endpoint", "revocation_endpoint", "authorization_endpoint"):
        value = server.endpoint(name)
        if value:
            out[name] = value
    return out


def _reuse_listener(state: str, client: dict[str, Any], port: int) -> Any:
    """A listener on the redirect URI registered for `client` (port and path), so that the
    registered client can be used again; None when it cannot be bound (register anew)."""
    from urllib.parse import urlsplit  # noqa: PLC0415

    from mrtr_cli.auth.loopback import Loopback  # noqa: PLC0415

    for uri in client.get("redirect_uris") or []:
        p = urlsplit(str(uri))
        if p.hostname != "127.0.0.1" or not p.port or (port and p.port != port):
            continue
        try:
            return Loopback(state, port=p.port, path=p.path or "/")
        except AuthError:
            return None
    return None


def _lock_wait() -> float:
    from mrtr_cli.auth.flow import wait_seconds  # noqa: PLC0415

    return wait_seconds() + 60.0

