"""`OAuthClient`: the MCP authorization flow for one MCP server, behind the HTTP
transport's `Authorizer` (transport/http/authhook.py).

On a 401 (or a 403 with `error="insufficient_scope"`) it refreshes the token when it
can, else discovers the authorization server, picks the client identity and the scopes,
and runs the authorization code flow (a person, at a terminal or through
`mrtr auth login`) or, with nobody present, the client credentials grant, the JWT bearer
grant with a workload's JWT, or the ID-JAG exchange then the JWT bearer grant
(auth/flows/federation.py); stores the tokens and hands back the new access token for one
retry. Tokens are DPoP-bound (auth/dpop.py) where the resource takes DPoP and the
authorization server offers it, or where the user asks (auth/endpoint/binding.py).

This module is the client itself: the hook's calls, discovery and the checks before a
sign-in, scope selection, `auth token` and `auth logout`. The ways to a token are its
base classes: the code flow (auth/flows/code.py), the unattended grants
(auth/flows/unattended.py), refresh (auth/flows/refresh.py), and the token request each of them
makes, with DPoP (auth/endpoint/requests.py).

Spec: 2026-07-28 basic/authorization (all sections), its authorization-server-discovery,
client-registration and security-considerations pages; ext-auth oauth-client-credentials
and enterprise-managed-authorization; RFC 9449 (DPoP); RFC 7523 (JWT bearer grant).
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.auth.challenge import TOKEN_OPTIONS_HINT, Challenge, parse_challenge
from mrtr_cli.auth.discovery import AuthServer, current_resource_metadata, discover, issuers_match
from mrtr_cli.auth.endpoint import binding, grants
from mrtr_cli.auth.endpoint.requests import TokenRequests
from mrtr_cli.auth.flows.code import CodeFlow
from mrtr_cli.auth.flows.refresh import Refresh
from mrtr_cli.auth.flows.unattended import UnattendedGrants
from mrtr_cli.auth.store import SCREENED_SECRET_CHARS, TokenStore
from mrtr_cli.config.oauth import AuthSettings
from mrtr_cli.env import Environment
from mrtr_cli.errors import AuthError
from mrtr_cli.render.invocation import for_new_shell, signin_command
from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line, sanitize
from mrtr_cli.transport.http.authhook import nearly_expired

#: The longest any one authorization request may take (seconds), whatever the deadline.
REQUEST_TIMEOUT = 30.0

#: Step-up authorizations for one run before the scope problem is treated as permanent
#: (basic/authorization "Step-Up Authorization Flow": "no more than a few times").
MAX_STEP_UPS = 3


def union(*scope_lists: list[str]) -> list[str]:
    """Scopes of every list, in first-seen order, without repeats."""
    return list(dict.fromkeys(s for scopes in scope_lists for s in scopes))


class OAuthClient(CodeFlow, UnattendedGrants, Refresh, TokenRequests):
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
        self.store = TokenStore(url, note=self._note, logout_hint=settings.logout_hint,
                                holds_secret=self._holds_secret)
        self.step_ups = 0
        self._issued: set[str] = set()  # access tokens obtained in this run (not read from the store)
        self._unbound: set[str] = set()  # ... of them, bearer tokens issued for a DPoP proof
        self._refreshed_on_401 = False  # a refreshed token refused again means: sign in
        self.server: AuthServer | None = None
        for secret in (settings.client_secret, settings.private_key, settings.idp_client_secret):
            if secret:
                env.add_secret(secret)
        self._as_nonces: dict[str, str] = {}  # token endpoint -> its latest DPoP-Nonce

    def _holds_secret(self, text: str, also: list[str]) -> bool:
        """Whether a value an authorization server handed back holds a secret of this run
        (or one of `also`): it is then refused before it is stored (auth/store.py `screen`)."""
        return self.env.holds_secret(text, shortest=SCREENED_SECRET_CHARS, also=also)

    def _note(self, text: str) -> None:
        if not self.env.quiet:
            self.env.err(text)

    @property
    def http(self) -> Any:
        """The `httpx2.Client` for authorization requests (no redirects followed). With `-v`
        each request is noted on stderr as method, URL and status (no headers or bodies:
        they carry codes, secrets and tokens); `-vv` and `--trace` get the exchanges through
        the run's tracer, redacted (auth/httptrace.py)."""
        if self._http is None:
            import httpx2  # noqa: PLC0415 - lazy for start-up time

            hooks: dict[str, list[Any]] = {"request": [self._bound_timeout]}
            if self.env.verbosity > 0:
                hooks["response"] = [self._trace_response]
            if self.tracer is not None:  # -vv, --trace: the exchanges themselves, redacted
                from mrtr_cli.auth.httptrace import trace_hooks  # noqa: PLC0415 - lazy for start-up time

                for kind, more in trace_hooks(self.tracer).items():
                    hooks.setdefault(kind, []).extend(more)
            from mrtr_cli.transport.http.env import new_client  # noqa: PLC0415 - lazy for start-up time

            self._http = new_client(timeout=httpx2.Timeout(REQUEST_TIMEOUT), follow_redirects=False,
                                    verify=self._verify, headers={"User-Agent": "mrtr"}, event_hooks=hooks)
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
        access_token: str = tokens["access_token"]
        return access_token

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
                                f"the scope {one_line(ch.scope or '(unnamed)', SERVER_TEXT_CHARS)} is not granted")
        with self.store.locked(timeout=_lock_wait()):
            entry = self.store.entry() or {}
            tokens = entry.get("tokens") or {}
            held = bool(sent) and tokens.get("access_token") == sent
            ch.answered_dpop = held and tokens.get("token_type") == "DPoP"
            if status == 401 and held and sent in self._issued:
                self._check_new_token(ch, sent)
            if not ch.insufficient_scope:
                if _fresh(tokens) and not held:
                    return self._remember(tokens)  # another run signed in meanwhile
                if held and not self._refreshed_on_401:
                    token = self._after_refusal(entry, ch)
                    if token:
                        return token
            return self.authorize(ch)

    def _check_new_token(self, ch: Challenge, sent: str) -> None:
        """The token `sent`, obtained in this run, was refused (401) for its kind: a
        DPoP-bound one by a challenge that offers no DPoP, a bearer one by a challenge that
        names DPoP alone while DPoP is turned off or after the authorization server
        answered a proof with it. RFC 9449 section 7.1: a resource that takes DPoP says so
        in its challenges. Signing in again would get the same kind of token.

        Raises:
            AuthError: naming the setting (or the authorization server) that decided it.
        """
        if ch.answered_dpop and ch.refuses_dpop:
            how = (f"DPoP was asked for ({binding.FORCED_ON}): leave that out" if self.settings.dpop else
                   f"sign in for bearer tokens: {signin_command(self.settings.login_hint)} --no-dpop "
                   f"(or {for_new_shell('MRTR_OAUTH_DPOP=0')})")
            raise AuthError(f"{self.label} refused the DPoP-bound token with a challenge that offers no DPoP: "
                            "it takes bearer tokens only", hint=how)
        if not ch.answered_dpop and ch.requires_dpop and self.settings.dpop is False:
            raise AuthError(f"{self.label} takes DPoP-bound tokens only (its challenge names DPoP and not Bearer), "
                            f"and DPoP is turned off ({binding.FORCED_OFF})",
                            hint="leave that setting out: mrtr then signs in with DPoP")
        if not ch.answered_dpop and ch.requires_dpop and sent in self._unbound:
            raise AuthError(f"{self.label} takes DPoP-bound tokens only, and its authorization server answered "
                            "mrtr's DPoP proof with a bearer token")

    def _after_refusal(self, entry: dict[str, Any], ch: Challenge) -> str | None:
        """The stored token was refused (401, once per run): a refreshed token, or None for
        a new sign-in. The resource's metadata is read again first: a token is not
        refreshed at an authorization server it no longer names; a DPoP-bound token that
        a resource taking no DPoP refused (a challenge offering Bearer alone, metadata
        naming no DPoP) is dropped, not refreshed (it would stay bound to the same key);
        a bearer token refused by a resource that now takes DPoP-bound tokens only is
        refreshed for one bound to a new key (the authorization server may refuse: then
        the tokens are dropped and the sign-in decides).

        Raises:
            AuthError: the setting asks for what the resource refuses (`binding.choose`).
        """
        self._refreshed_on_401 = True
        metadata = current_resource_metadata(self.http, self.url, ch.resource_metadata)
        issuer = (entry.get("endpoints") or {}).get("issuer")
        listed = [s for s in metadata["authorization_servers"] if isinstance(s, str)] if metadata else None
        if listed is not None and issuer and not any(issuers_match(s, issuer) for s in listed):
            return None  # the resource moved to another authorization server: a sign-in there
        resource = binding.resource_dpop(metadata, ch)
        if ch.answered_dpop and ch.refuses_dpop and not resource.offered:
            if self.settings.dpop:
                raise AuthError(f"{self.label} refused the DPoP-bound token with a challenge that offers no DPoP, "
                                "and its metadata names none: it takes bearer tokens only",
                                hint=f"DPoP was asked for ({binding.FORCED_ON}): leave that out")
            if issuer:
                self.store.drop_tokens(issuer)
            self._note(f"mrtr: {self.label} takes bearer tokens only (its challenge offers no DPoP): the stored "
                       "DPoP-bound token was dropped")
            return None
        new_key = None
        if not ch.answered_dpop and resource.required:
            binding.choose(self.settings.dpop, resource, None, label=self.label, issuer=issuer)
            new_key = self._new_proof_key()
        return self._refresh(entry, new_key=new_key)

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
            from mrtr_cli.auth.flows.pkce import wait_seconds  # noqa: PLC0415 - lazy for start-up time

            wait_seconds()  # so is a bad MRTR_AUTH_WAIT
        server = self._discover(ch, challenged)
        dpop = self._dpop_binding(server, ch)  # a setting the resource cannot take is named before anyone is asked
        entry = (doc.get("issuers") or {}).get(server.issuer) or {}
        if not s.unattended and not self.can_sign_in():
            # Only metadata was read: nothing is sent for a sign-in nobody can complete, and
            # the command to sign in is named only now that a sign-in could succeed.
            raise self._needs_sign_in(ch, server, entry)
        held = ((entry.get("tokens") or {}).get("scope") or "").split()
        wanted = self._select_scopes(ch, server, held, scopes)
        if s.client_credentials:
            return self._client_credentials(server, wanted, dpop)
        if s.unattended:
            return self._federated(server, wanted, dpop)
        return self._code_flow(server, entry, wanted, dpop)

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
                            hint=for_new_shell("if it wants a header of its own, give -H 'NAME: VALUE' (or a "
                                               "token with --bearer-token-env VAR)"))
        self.server = server
        if s.issuer and not issuers_match(server.issuer, s.issuer):
            raise AuthError(f"{self.label} sends you to sign in at {server.issuer}, but the configured "
                            f"credentials belong to {s.issuer}: refused")
        if not s.unattended:
            server.check_pkce()
        return server


    def _needs_sign_in(self, ch: Challenge, server: AuthServer | None = None,
                       entry: dict[str, Any] | None = None) -> AuthError:
        """The exit-8 error when nobody can sign in, with what works: the `auth login`
        command; for a server that publishes no authorization metadata (nothing to sign in
        at: the 2025-03-26 default endpoints are mrtr's guess), the options that send a token
        the user has; for a stored sign-in of the JWT bearer grant or an ID-JAG (nobody was
        needed), the settings that give this run the JWT again (`unattended_hint`)."""
        if server is not None and server.guessed:
            return AuthError(f"{self.label} asks for a bearer token (HTTP {ch.status}) and publishes no "
                             "authorization metadata: there is no sign-in mrtr can run for it",
                             hint=for_new_shell(TOKEN_OPTIONS_HINT))
        federated = unattended_hint(signin_command(self.settings.login_hint), (entry or {}).get("client"))
        if federated is not None:
            return AuthError(f"{self.label} requires sign-in: its stored token came from a grant with a JWT "
                             "(nobody signs in), and this run has none to get a new one", hint=federated)
        hint = signin_command(self.settings.login_hint)
        if ch.insufficient_scope and ch.scope:
            from mrtr_cli.render.invocation import quote_word  # noqa: PLC0415 - lazy for start-up time

            hint += ("".join(f" --scope {quote_word(x)}" for x in ch.scopes) if all(x.isprintable() for x in ch.scopes)
                     else " with --scope for each scope it asks for (one cannot be shown as typed)")
            scope = one_line(ch.scope, SERVER_TEXT_CHARS)
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


    # ------------------------------------------------------------------ refresh
    # ------------------------------------------------------------------ commands
    def token(self) -> str:
        """A valid access token (refreshed when needed) for `mrtr auth token`.

        Raises:
            AuthError: not signed in, or the refresh failed (exit 8).
        """
        token = self.stored_token()
        if token is None:
            from mrtr_cli.auth.probe import probe  # noqa: PLC0415 - lazy for start-up time

            challenge = probe(self.http, self.url, {})
            if self.settings.unattended:  # nobody is needed: get one
                token = self.authorize(challenge or Challenge(401), challenged=challenge is not None)
            else:
                self._discover(challenge or Challenge(401), challenge is not None)  # can a sign-in succeed?
        if token is None:
            entry = self.store.entry() or {}
            login = signin_command(self.settings.login_hint)
            hint = unattended_hint(login, entry.get("client"))
            raise AuthError(f"not signed in to {self.label} (or the sign-in expired)",
                            hint=hint or f"run: {login}")
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


def unattended_hint(login_hint: str, client: Any) -> str | None:
    """For a stored sign-in of the JWT bearer grant (`client.source` "jwt-bearer") or an
    ID-JAG ("id-jag"), which no person made: the settings that give a run the JWT (or ID
    token) again, and the `auth login` that does it once; None for any other sign-in."""
    source = client.get("source") if isinstance(client, dict) else None
    if source == "jwt-bearer":
        return ("give this run the workload's JWT: " + for_new_shell(
                    "MRTR_ASSERTION_FILE=PATH (or MRTR_ASSERTION holding it, MRTR_ASSERTION_COMMAND printing it)")
                + f", or sign in with it once: {login_hint} --assertion-file PATH")
    if source == "id-jag":
        return ("give this run the identity provider's ID token: " + for_new_shell(
                    "MRTR_ID_TOKEN_FILE=PATH (or MRTR_ID_TOKEN, MRTR_ID_TOKEN_COMMAND) "
                    "with MRTR_IDP_TOKEN_ENDPOINT=URL")
                + f", or sign in with it once: {login_hint} --id-token-file PATH --idp-token-endpoint URL")
    return None


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
        token = tokens.get(hint)
        if isinstance(token, str) and grants.revoke(http, endpoint, token, hint, client, issuer, settings.private_key):
            done.append(hint.replace("_", " "))
    if done:
        return f"{issuer}: revoked {', '.join(done)}"
    return f"{issuer}: revocation failed; the tokens were forgotten here"


def _fresh(tokens: dict[str, Any]) -> bool:
    if not isinstance(tokens.get("access_token"), str):
        return False
    return not nearly_expired(tokens)


def _lock_wait() -> float:
    from mrtr_cli.auth.flows.pkce import wait_seconds  # noqa: PLC0415 - lazy for start-up time

    return wait_seconds() + 60.0

