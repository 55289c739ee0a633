"""The HTTP transport's door to OAuth (2026-07-28 basic/authorization).

The transport asks an `Authorizer` two things: `headers(method)` ("headers for this
request") and `challenge(status, www_authenticate, sent, nonce)` ("this response was a
401/403: may I retry?"), and tells it `note_nonce(value)` when a response carries a
`DPoP-Nonce`. This module is the cheap part: a stored, unexpired token costs one small
file read (the token file of the resource, `token_path`); the `mrtr_cli.auth` package is
imported only when a token must be refreshed or obtained (the first 401/403), so a call
to an open server never loads it. A DPoP-bound token (RFC 9449) also costs a proof per
request (`mrtr_cli.auth.dpop`, loaded only for such a token). This module imports nothing
of `mrtr_cli.auth` itself: the client and the DPoP key come from callables it is given
(config/oauth_target.py `make_authorizer`), since the transport sits below the auth layer.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from mrtr_cli.errors import AuthError
from mrtr_cli.render.invocation import signin_command
from mrtr_cli.transport.http.tokenfile import DamagedTokenStore, read_token_file

#: A token this close to its expiry (seconds) is refreshed before it is sent; for a
#: short-lived token, 10% of its lifetime when that is less (`nearly_expired`).
EXPIRY_MARGIN = 30.0
MARGIN_SHARE = 0.1


def nearly_expired(tokens: dict[str, Any], now: float | None = None) -> bool:
    """Whether a stored token set (`expires_at`, `obtained_at`: Unix seconds) is expired or
    within its margin: min(EXPIRY_MARGIN, MARGIN_SHARE x lifetime), so that a fresh token
    that lives 30 s or less is still used once. No `expires_at`: never."""
    at = tokens.get("expires_at")
    if not isinstance(at, int | float):
        return False
    margin = EXPIRY_MARGIN
    got = tokens.get("obtained_at")
    if isinstance(got, int | float) and at > got:
        margin = min(EXPIRY_MARGIN, MARGIN_SHARE * (at - got))
    return at - margin <= (time.time() if now is None else now)


def canonical_resource(url: str) -> str:
    """The canonical URI of an MCP server (2026-07-28 basic/authorization "Canonical Server
    URI"; RFC 8707 section 2): scheme and host lowercased, no fragment, as given otherwise."""
    from urllib.parse import urlsplit, urlunsplit  # noqa: PLC0415 - lazy for start-up time

    p = urlsplit(url)
    return urlunsplit((p.scheme.lower(), p.netloc.lower(), p.path, p.query, ""))


def store_dir() -> str:
    """The token store's folder: `<state dir>/auth` (0700 once written)."""
    from mrtr_cli.state import state_dir  # noqa: PLC0415 - lazy for start-up time

    return os.path.join(state_dir(), "auth")


def token_path(url: str) -> str:
    """The token file of the MCP server at `url`: `<store_dir>/<sha256(canonical URI)[:32]>.json`."""
    key = hashlib.sha256(canonical_resource(url).encode("utf-8")).hexdigest()[:32]
    return os.path.join(store_dir(), key + ".json")


def read_record(path: str, fix: str | None = None) -> dict[str, Any] | None:
    """The token file at `path` as a dict, or None when there is none (http/tokenfile.py).

    Args:
        fix: the command that removes the file, named by the error.

    Raises:
        DamagedTokenStore: the file is unreadable, too large or deep, or not of the
            token store's shape (exit 8).
    """
    return read_token_file(path, fix)


def usable_token(doc: dict[str, Any] | None) -> str | None:
    """The current issuer's access token in a token file if it is not (nearly) expired."""
    if not doc:
        return None
    entry = (doc.get("issuers") or {}).get(doc.get("issuer") or "")
    tokens = entry.get("tokens") if isinstance(entry, dict) else None
    if not isinstance(tokens, dict) or not isinstance(tokens.get("access_token"), str):
        return None
    return None if nearly_expired(tokens) else tokens["access_token"]


def _current_tokens(doc: dict[str, Any] | None) -> dict[str, Any]:
    entry = ((doc or {}).get("issuers") or {}).get((doc or {}).get("issuer") or "")
    tokens = entry.get("tokens") if isinstance(entry, dict) else None
    return tokens if isinstance(tokens, dict) else {}


class Authorizer:
    """Supplies the bearer token for one MCP server and handles its 401/403 challenges.

    Args:
        url: the MCP endpoint (the token goes only to its origin: the transport's job).
        add_secret: registers a token with the run's redaction (`Environment.add_secret`).
        make_client: builds the `mrtr_cli.auth.client.OAuthClient` when first needed
            (a callable, so that the package is imported only then).
        note: shows a one-line note on stderr (None: none shown).
        logout_hint: the command that removes this server's token file
            (`mrtr ... auth logout`), named when the file is damaged.
        proof_key: the DPoP key of a DPoP-bound token from its stored form
            (`mrtr_cli.auth.dpop.ProofKey.from_stored`), or None when unusable; without
            it a DPoP-bound token is refused as having no usable key. A callable, so
            that this package imports nothing of `mrtr_cli.auth`.

    A damaged token file (http/tokenfile.py) does not stop the run at once: the requests go
    without a token, with a note naming the file and `logout_hint`; if the server then asks
    for a sign-in, that fails with the same words (exit 8), since none can be stored there.
    """

    def __init__(self, url: str, add_secret: Callable[[str], None], make_client: Callable[[], Any],
                 note: Callable[[str], None] | None = None, logout_hint: str | None = None,
                 proof_key: Callable[[Any], Any] | None = None):
        self.url = url
        self._note = note
        self.logout_hint = logout_hint
        self._add_secret = add_secret
        self._make_client = make_client
        self._load_proof_key = proof_key
        self._client: Any = None
        self._token: str | None = None
        self._doc: dict[str, Any] | None = None
        self._checked = False
        self._failed: Exception | None = None
        self._lock = threading.Lock()
        self._idle = threading.Event()  # cleared while the authorization server is being asked (sign-in, refresh)
        self._idle.set()
        self._proof_key: Any = None  # the DPoP key of the token held (None: a bearer token)
        self._nonce: str | None = None  # the MCP server's latest DPoP-Nonce

    @property
    def client(self) -> Any:
        """The OAuth client (imports `mrtr_cli.auth` on first use)."""
        if self._client is None:
            self._client = self._make_client()
        return self._client

    def _logout(self) -> str | None:
        """The command that removes this server's token file, as a message names it here
        (`auth logout` inside the shell: render/invocation.py); None when none was given."""
        return signin_command(self.logout_hint, "logout") or None

    def _set(self, token: str | None, doc: dict[str, Any] | None = None) -> None:
        if token:
            self._add_secret(token)
        self._token = token
        self._doc = doc if doc is not None or not token else read_record(token_path(self.url), self._logout())
        self._proof_key = self._bound_key() if token else None

    def _bound_key(self) -> Any:
        """The DPoP key (`mrtr_cli.auth.dpop.ProofKey`) the held token is bound to, or None
        for a bearer token. The key is read from the token file, or through the token store
        when it is kept in the OS keychain."""
        tokens = _current_tokens(self._doc)
        if str(tokens.get("token_type", "")).lower() != "dpop":
            return None
        stored = tokens.get("dpop_key")
        if not isinstance(stored, str):  # in the keychain
            stored = ((self.client.store.entry() or {}).get("tokens") or {}).get("dpop_key")
        key = self._load_proof_key(stored) if self._load_proof_key is not None else None
        if key is None or not isinstance(stored, str):  # a key is only ever read from a string
            logout = self._logout() or f"mrtr --url {self.url} auth logout"
            login = logout[:-len("logout")] + "login" if logout.endswith(" logout") else "mrtr auth login"
            raise AuthError("the stored DPoP-bound token has no usable key",
                            hint=f"sign in again: {logout}, then {login}")
        self._add_secret(stored)
        return key

    def identity(self) -> dict[str, Any] | None:
        """Who is signed in, for keying per-identity caches: the resource, issuer and client
        id of the token in use (never the token, which changes on refresh), or None."""
        if not self._token or not self._doc:
            return None
        issuer = self._doc.get("issuer")
        entry = (self._doc.get("issuers") or {}).get(issuer or "") or {}
        client = entry.get("client") if isinstance(entry, dict) else None
        return {"resource": self._doc.get("resource"), "issuer": issuer,
                "client_id": client.get("client_id") if isinstance(client, dict) else None}

    def headers(self, method: str = "POST", url: str | None = None) -> dict[str, str]:
        """`{"Authorization": "Bearer ..."}` when a token is held or stored for this
        server (refreshed first when it expired), else `{}`. A DPoP-bound token goes as
        `{"Authorization": "DPoP ...", "DPoP": proof}`, a new proof for each request of
        HTTP method `method` to `url` (default: this server's URL; another only on this
        server's origin, where it redirected) (RFC 9449 section 7.1), with the latest
        nonce the server supplied.

        Raises:
            AuthError: a refresh failed and nobody can sign in again (exit 8).
            TimeoutExpired: the token endpoint did not answer in time (exit 7); raised
                again for every later request of the run.
        """
        with self._lock:
            if self._failed is not None:
                raise self._failed  # every request of the run ends as the first did
            if not self._checked:
                self._checked = True
                path = token_path(self.url)
                try:
                    doc = read_record(path, self._logout())
                except DamagedTokenStore as exc:  # a damaged file: go on as not signed in (class docstring)
                    if self._note is not None:
                        self._note(f"mrtr: note: {exc.message}; going on without a sign-in")
                    self._set(None)
                    return {}
                token = usable_token(doc)
                if token is None and doc is not None:
                    self._idle.clear()  # a refresh is an exchange with the authorization server too
                    try:
                        token = self.client.stored_token()  # expired: refreshed under the store's lock
                    except Exception as exc:
                        self._failed = exc  # e.g. the token endpoint did not answer in time (exit 7)
                        raise
                    finally:
                        self._idle.set()
                    doc = None
                try:
                    self._set(token, doc)
                except Exception as exc:
                    self._failed = exc
                    raise
            if not self._token:
                return {}
            if self._proof_key is None:
                return {"Authorization": f"Bearer {self._token}"}
            proof = self._proof_key.proof(method, url or self.url, access_token=self._token, nonce=self._nonce)
            return {"Authorization": f"DPoP {self._token}", "DPoP": proof}

    def read_again(self) -> None:
        """The token store may have changed since it was read (a line of `mrtr shell` ran
        `auth login` or `auth logout`, or another process signed in): forget the token held
        and what failed, and read the store again at the next request (docs/shell.md)."""
        with self._lock:
            self._checked = False
            self._failed = None
            self._token, self._doc, self._proof_key, self._nonce = None, None, None, None

    def note_nonce(self, nonce: str | None) -> None:
        """A response of the MCP server carried `DPoP-Nonce: nonce`: later proofs carry it
        (RFC 9449 section 9; the latest one wins)."""
        if nonce and self._proof_key is not None:
            self._nonce = nonce

    def wait_idle(self) -> bool:
        """Block while the authorization server is being asked for a token: a challenge
        answered (a person may be signing in) or a stored token refreshed, each bounded by
        the run's deadline; True when one was."""
        if self._idle.is_set():
            return False
        self._idle.wait()
        return True

    def current(self) -> str | None:
        """The token sent now (None when none)."""
        return self._token

    def challenge(self, status: int, www_authenticate: str | None, sent: str | None,
                  nonce: str | None = None) -> bool:
        """A 401, or a 403 with `error="insufficient_scope"`, came back for a request that
        carried token `sent` (None: no token). Obtains a new token (refresh, sign-in,
        step-up, client credentials) and returns True when the request should be sent
        again with `headers()`; False when this response is not an OAuth challenge.
        A 401 `use_dpop_nonce` challenge to a DPoP-bound token with a `nonce` (the
        response's `DPoP-Nonce`) is answered by sending the request again with that nonce
        in its proof (RFC 9449 section 9).

        Raises:
            AuthError: sign-in is needed and nobody can do it, or it failed (exit 8).
            Interrupted: Ctrl-C during sign-in.
        """
        with self._lock:
            if self._token and self._token != sent:
                return True  # another request of this run already got a new token
            if status == 401 and nonce and self._proof_key is not None and "use_dpop_nonce" in (www_authenticate or ""):
                self._nonce = nonce  # (another request may have set it already; the transport bounds retries)
                return True
            self._idle.clear()
            try:
                token = self.client.on_challenge(status, www_authenticate, sent)
            finally:
                self._idle.set()
            if token is None:
                return False
            self._set(token)
            return True
