"""The sign-ins with nobody present: the client credentials grant (ext-auth
oauth-client-credentials), and the JWT bearer grant (RFC 7523 section 2.1) with a
workload's JWT or with an ID-JAG the enterprise identity provider issues for it
(enterprise-managed authorization; auth/flows/federation.py). No registration and no refresh
token: the grant is run again when the token expires (auth/flows/refresh.py).
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.auth.clientparts import ClientParts
from mrtr_cli.auth.discovery import AuthServer
from mrtr_cli.auth.endpoint.requests import endpoints_of
from mrtr_cli.config.oauth import AuthSettings
from mrtr_cli.errors import AuthError
from mrtr_cli.render.invocation import for_new_shell


class UnattendedGrants(ClientParts):
    """The unattended grants of `auth.client.OAuthClient` (a base class of it): it uses
    the client's settings, store, `http` client, environment, deadline and its token
    requests (auth/endpoint/requests.py).
    """

    def _client_credentials(self, server: AuthServer, scopes: list[str], dpop: bool) -> str:
        """The client credentials grant (ext-auth oauth-client-credentials); `dpop`: for a
        DPoP-bound token (`TokenRequests._dpop_binding`)."""
        s = self.settings
        endpoint = server.endpoint("token_endpoint")
        if not endpoint:
            raise AuthError(f"the authorization server {server.issuer} has no token_endpoint")
        client = cc_client(s)
        data = {"grant_type": "client_credentials", "resource": server.resource}
        if scopes:
            data["scope"] = " ".join(scopes)
        tokens = self._send(client, endpoint, data, issuer=server.issuer, guessed=server.guessed,
                            requested_scope=data.get("scope"), proof_key=self._new_proof_key() if dpop else None)
        self.store.update(server.issuer, client=client, tokens=tokens, endpoints=endpoints_of(server))
        return self._remember(tokens)

    def _federated(self, server: AuthServer, scopes: list[str], dpop: bool) -> str:
        """The JWT bearer grant (RFC 7523 section 2.1) with the workload's JWT, or with an
        ID-JAG the enterprise identity provider issued for it now (enterprise-managed
        authorization); no registration, no refresh token needed (it is run again).
        A refusal ends the sign-in: no retry, no other grant. `dpop`: for a DPoP-bound
        token (`TokenRequests._dpop_binding`; the ID-JAG exchange itself carries no proof)."""
        s = self.settings
        endpoint = server.endpoint("token_endpoint")
        if not endpoint:
            raise AuthError(f"the authorization server {server.issuer} has no token_endpoint")
        client = federated_client(s)
        data = self._federated_form(server.issuer, server.resource, scopes)
        tokens = self._send(client, endpoint, data, issuer=server.issuer, guessed=server.guessed,
                            requested_scope=data.get("scope"), proof_key=self._new_proof_key() if dpop else None)
        self.store.update(server.issuer, client=client, tokens=tokens, endpoints=endpoints_of(server))
        return self._remember(tokens)

    def _federated_form(self, issuer: str, resource: str, scopes: list[str]) -> dict[str, str]:
        """The JWT bearer grant's form: the workload's JWT read now, or a new ID-JAG."""
        from mrtr_cli.auth.flows import federation  # noqa: PLC0415 - lazy for start-up time

        s = self.settings
        if s.grant == "id_jag":
            assertion = federation.exchange_for_id_jag(self.http, s, audience=issuer, resource=resource,
                                                       scopes=scopes, add_secret=self.env.add_secret,
                                                       redact=self.env.redact, deadline=self.deadline)
        else:
            assert s.assertion is not None  # jwt_bearer comes with an assertion (config/oauth.py checks it)
            assertion = federation.read_assertion(s.assertion, "the workload's JWT", self.deadline)
        self.env.add_secret(assertion)
        return federation.jwt_bearer_form(assertion, resource, scopes)


def cc_client(s: AuthSettings) -> dict[str, Any]:
    """The configured client of the client credentials grant (its id, secret or key, method).

    Raises:
        AuthError: no client id is configured.
    """
    if not s.client_id:
        raise AuthError("the client credentials grant needs a client id",
                        hint=for_new_shell("give --client-id ID, MRTR_CLIENT_ID, or oauth.clientId in the "
                                           "server's config"))
    method = s.auth_method or ("private_key_jwt" if s.private_key else "client_secret_basic")
    client = {"client_id": s.client_id, "token_endpoint_auth_method": method, "source": "client-credentials"}
    if s.client_secret:
        client["client_secret"] = s.client_secret
    return client


def federated_client(s: AuthSettings) -> dict[str, Any]:
    """The client of a JWT bearer grant: the configured client id with its secret
    (client_secret_basic) or none (the id in the form), or no client at all."""
    client: dict[str, Any] = {"source": "id-jag" if s.grant == "id_jag" else "jwt-bearer"}
    if s.client_id:
        client["client_id"] = s.client_id
        client["token_endpoint_auth_method"] = s.auth_method or ("client_secret_basic" if s.client_secret else "none")
        if s.client_secret:
            client["client_secret"] = s.client_secret
    return client

