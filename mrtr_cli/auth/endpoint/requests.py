"""One token request of a sign-in or refresh, made safely: the client authenticated anew
for each attempt (a client assertion is never sent twice), every credential in it
registered as a secret first (a server echoing the request in an error is redacted), no
configured secret or key sent to an endpoint mrtr guessed, and a DPoP proof (RFC 9449)
when the token is to be DPoP-bound, sent once more with the server's nonce on
`use_dpop_nonce`. Also whether a sign-in binds its token to a DPoP key (auth/endpoint/binding.py).

Spec: 2026-07-28 basic/authorization (token requests, security considerations);
RFC 9449 sections 5 and 8 (DPoP proofs, nonces).
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.auth.challenge import Challenge
from mrtr_cli.auth.clientparts import ClientParts
from mrtr_cli.auth.discovery import AuthServer
from mrtr_cli.auth.dpop import ProofKey
from mrtr_cli.auth.endpoint import binding, grants
from mrtr_cli.auth.urls import shown
from mrtr_cli.errors import AuthError
from mrtr_cli.render.invocation import for_new_shell


class TokenRequests(ClientParts):
    """The token requests of `auth.client.OAuthClient` (a base class of it): it uses the
    client's settings, environment (secrets, notes), `http` client, `label`, `login`, the
    set of tokens `_issued` in this run (`_unbound`: those issued as bearer tokens for a
    DPoP proof) and the authorization servers' DPoP nonces (`_as_nonces`).
    """

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
                       for_new_shell("MRTR_OAUTH_AUTH_METHOD=client_secret_basic|client_secret_post "
                                     "(or oauth.tokenEndpointAuthMethod in the server's config) chooses another"))
                err.hint = f"mrtr authenticated with {method}; {how}"
            raise
        if proof_key is not None and tokens.get("token_type") == "DPoP":
            tokens["dpop_key"] = proof_key.stored()
        elif proof_key is not None:  # the server took the proof and issued a bearer token
            self._unbound.add(tokens["access_token"])
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

    def _dpop_binding(self, server: AuthServer, ch: Challenge) -> bool:
        """Whether a sign-in at `server` asks for DPoP-bound tokens (True) or bearer tokens,
        from the resource's metadata and challenge `ch`, the authorization server's metadata
        and the user's setting (auth/endpoint/binding.py `choose`).

        Raises:
            AuthError: a setting or a resource that cannot be satisfied (`binding.choose`).
        """
        resource = binding.resource_dpop(server.resource_metadata, ch)
        return binding.choose(self.settings.dpop, resource, server.metadata.get("dpop_signing_alg_values_supported"),
                              label=self.label, issuer=server.issuer,
                              note=self._note if self.env.verbosity > 0 else None)

    def _new_proof_key(self) -> ProofKey:
        """A new DPoP key for a token to be bound to, registered as a secret.

        Raises:
            AuthError: the `cryptography` package is missing.
        """
        key = ProofKey.generate()
        self.env.add_secret(key.stored())
        return key


def endpoints_of(server: AuthServer) -> dict[str, Any]:
    """What the token store keeps of `server` with a sign-in: its issuer, the resource,
    its token, revocation and authorization endpoints, and whether they were guessed."""
    out: dict[str, Any] = {"issuer": server.issuer, "resource": server.resource}
    if server.guessed:
        out["guessed"] = True
    for name in ("token_endpoint", "revocation_endpoint", "authorization_endpoint"):
        value = server.endpoint(name)
        if value:
            out[name] = value
    return out

