"""Refreshing a stored token (the caller holds the token store's lock): with its refresh
token, or, for an unattended sign-in, by running its grant again (client credentials,
the JWT bearer grant). A refused refresh forgets the tokens (and a client registration
the server no longer knows); a DPoP-bound token is refreshed with the same key, a bearer
token for one bound to a new key where the resource now takes DPoP-bound tokens only.

Spec: 2026-07-28 basic/authorization (token refresh); RFC 6749 section 6; RFC 9449.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrtr_cli.auth import registration
from mrtr_cli.auth.clientparts import ClientParts
from mrtr_cli.auth.endpoint import grants
from mrtr_cli.auth.flows.unattended import cc_client, federated_client
from mrtr_cli.errors import AuthError

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.auth.dpop import ProofKey


class Refresh(ClientParts):
    """The refresh of `auth.client.OAuthClient` (a base class of it): it uses the
    client's settings, store, `url`, its unattended grants' forms
    (auth/flows/unattended.py), its registration handling (auth/flows/code.py) and its token
    requests (auth/endpoint/requests.py).
    """

    def _refresh(self, entry: dict[str, Any], *, new_key: ProofKey | None = None) -> str | None:
        """Refresh the current issuer's token (the caller holds the lock); the new access
        token, or None when there is no refresh token or the server refused it (its
        tokens are then forgotten; a client registration it no longer knows too). A client
        credentials sign-in gets a new token. `new_key`: a DPoP key to bind the new token
        to when the stored one is a bearer token (a resource that now takes DPoP-bound
        tokens only); a DPoP-bound token stays bound to its own key."""
        tokens = entry.get("tokens") or {}
        endpoints = entry.get("endpoints") or {}
        client = dict(entry.get("client") or {})
        issuer = endpoints.get("issuer")
        endpoint = endpoints.get("token_endpoint")
        federated = client.get("source") in ("jwt-bearer", "id-jag")  # may have no client id
        if not issuer or not endpoint or not (client.get("client_id") or federated):
            return None
        proof_key = new_key
        if tokens.get("token_type") == "DPoP":  # the new token is bound to the same key
            from mrtr_cli.auth.dpop import ProofKey  # noqa: PLC0415 - lazy for start-up time

            proof_key = ProofKey.from_stored(tokens.get("dpop_key"))
            if proof_key is None:
                return None
        resource = endpoints.get("resource") or self.url
        if federated:
            request = self._federated_request(client, issuer, resource, tokens)
        elif client.get("source") == "client-credentials":
            request = self._client_credentials_request(client, resource, tokens)
        else:
            request = self._refresh_token_request(client, issuer, resource, tokens)
        if request is None:
            return None
        client, data = request
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

    def _federated_request(self, client: dict[str, Any], issuer: str, resource: str,
                           tokens: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]] | None:
        """A federated sign-in's grant again (the JWT bearer grant, ID-JAG): its client and
        form, or None when this run has no JWT to present (a sign-in is needed)."""
        s = self.settings
        if not s.unattended or s.client_credentials or federated_client(s)["source"] != client["source"]:
            return None
        try:
            data = self._federated_form(issuer, resource, (tokens.get("scope") or "").split())
        except AuthError:
            return None
        return federated_client(s), data

    def _client_credentials_request(self, client: dict[str, Any], resource: str,
                                    tokens: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]] | None:
        """A client credentials sign-in's grant again: its client (this run's settings win
        over the stored ones) and form, or None without the private key it needs."""
        s = self.settings
        if s.client_credentials and s.client_id == client.get("client_id"):
            client = cc_client(s)
        elif client.get("token_endpoint_auth_method") == "private_key_jwt" and not s.private_key:
            return None
        data = {"grant_type": "client_credentials", "resource": resource}
        if tokens.get("scope"):
            data["scope"] = tokens["scope"]
        return client, data

    def _refresh_token_request(self, client: dict[str, Any], issuer: str, resource: str,
                               tokens: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]] | None:
        """The refresh token grant: the client (with this run's secret for it) and form, or
        None without a refresh token or with a registration whose secret expired (forgotten)."""
        refresh = tokens.get("refresh_token")
        if not isinstance(refresh, str):
            return None
        if client.get("source") == "registered" and registration.expired(client):
            self._forget_registration(issuer, client, "its client secret expired", again=False)
            return None
        s = self.settings
        if s.client_secret and s.client_id == client["client_id"]:
            client["client_secret"] = s.client_secret
        return client, {"grant_type": "refresh_token", "refresh_token": refresh, "resource": resource}
