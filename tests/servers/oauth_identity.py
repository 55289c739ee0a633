"""DPoP and federated grants for tests/servers/oauth_server.py (the sign-in tests' server).

- `--dpop`: the authorization server lists `dpop_signing_alg_values_supported` ["ES256"]
  and checks the DPoP proof of a token request (RFC 9449 sections 4.3 and 5: signature
  by the `jwk` of its header, `typ`, `htm` POST, `htu` the token endpoint, `iat`, a `jti`
  never seen before); a token issued on a proof is a DPoP token bound to the proof key's
  thumbprint, and so is its refresh token (a refresh needs a proof by the same key). The
  MCP server takes a bound token only as `Authorization: DPoP` with a proof (`htm`, `htu`
  the MCP URL, `ath` of the token, the bound key, a new `jti`).
- `--dpop-nonce`: both servers want their nonce in the proof (`use_dpop_nonce` with a
  `DPoP-Nonce` header otherwise: 400 at the token endpoint, 401 at the MCP server).
- `--trust-key PEM`: a public key whose JWTs the authorization server takes in the JWT
  bearer grant (RFC 7523 section 2.1: `aud` the issuer or its token endpoint, `exp`), and
  the identity provider at `/idp/token` (a token exchange, RFC 8693) takes as ID tokens,
  answering with an ID-JAG (`typ` oauth-id-jag+jwt, `aud` the requested audience,
  `resource`, `client_id`) that the authorization server trusts too.

Every proof checked goes to the stats (`dpop`: where, jti, htm, htu, nonce, ok, error),
and every JWT bearer grant (`assertions`: its sub and jti).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from typing import Any

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
AS_NONCE = "as-nonce-" + secrets.token_hex(4)
RS_NONCE = "rs-nonce-" + secrets.token_hex(4)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638 thumbprint of an EC public JWK."""
    canonical = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True)
    return b64url(hashlib.sha256(canonical.encode()).digest())


class Identity:
    """The DPoP and federation state of one authorization server and its MCP server."""

    def __init__(self, args: Any, stats: Any):
        self.args = args
        self.stats = stats
        self.jtis: set[str] = set()
        self.bound: dict[str, str] = {}  # access or refresh token -> jkt
        self.trusted = None
        if getattr(args, "trust_key", None):
            from cryptography.hazmat.primitives.serialization import load_pem_public_key

            with open(args.trust_key, "rb") as fh:
                self.trusted = load_pem_public_key(fh.read())
        from cryptography.hazmat.primitives.asymmetric import ec

        self.idp_key = ec.generate_private_key(ec.SECP256R1())  # signs the ID-JAGs

    # -------------------------------------------------------------- DPoP proofs
    def check_proof(self, proof: str | None, where: str, htm: str, htu: str, *, token: str | None = None,
                    nonce: str | None = None) -> tuple[str | None, str | None]:
        """(jkt, None) for a valid proof, else (None, error); `nonce` is the one wanted
        (error "use_dpop_nonce" when the proof lacks it)."""
        import jwt

        entry: dict[str, Any] = {"where": where, "ok": False}
        self.stats.dpop.append(entry)
        if not proof or "," in proof:
            entry["error"] = "no single DPoP proof"
            return None, entry["error"]
        try:
            header = jwt.get_unverified_header(proof)
            jwk = header.get("jwk") or {}
            if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256" or "d" in jwk:
                raise ValueError("bad header")
            key = jwt.PyJWK(jwk, "ES256").key
            claims = jwt.decode(proof, key, algorithms=["ES256"], options={"verify_aud": False})
        except Exception as exc:  # noqa: BLE001 - any flaw is a refusal
            entry["error"] = f"invalid proof: {exc}"
            return None, entry["error"]
        entry.update(jti=claims.get("jti"), htm=claims.get("htm"), htu=claims.get("htu"), nonce=claims.get("nonce"),
                     ath=claims.get("ath"))
        error = None
        if not isinstance(claims.get("jti"), str) or claims["jti"] in self.jtis:
            error = "jti missing or replayed"
        elif claims.get("htm") != htm or claims.get("htu") != htu:
            error = f"htm/htu {claims.get('htm')} {claims.get('htu')} do not match {htm} {htu}"
        elif not isinstance(claims.get("iat"), int) or abs(time.time() - claims["iat"]) > 60:
            error = "iat out of range"
        elif token is not None and claims.get("ath") != b64url(hashlib.sha256(token.encode()).digest()):
            error = "ath does not match the token"
        if error is None:
            self.jtis.add(claims["jti"])
            if nonce is not None and claims.get("nonce") != nonce:
                error = "use_dpop_nonce"
        entry["error"] = error
        entry["ok"] = error is None
        return (thumbprint(jwk), None) if error is None else (None, error)

    # -------------------------------------------------------------- federation
    def verify_assertion(self, assertion: str, issuer: str, token_endpoint: str) -> dict[str, Any] | None:
        """The claims of a JWT bearer grant's assertion: a workload JWT signed by the
        trusted key, or an ID-JAG this identity provider issued; None when refused."""
        import jwt

        audience = [issuer, issuer + "/", token_endpoint]
        try:
            if jwt.get_unverified_header(assertion).get("typ") == "oauth-id-jag+jwt":
                claims = jwt.decode(assertion, self.idp_key.public_key(), algorithms=["ES256"], audience=audience)
                claims["id_jag"] = True
            elif self.trusted is not None:
                claims = jwt.decode(assertion, self.trusted, algorithms=["ES256", "RS256"], audience=audience,
                                    options={"require": ["exp", "sub"]})
            else:
                return None
        except jwt.PyJWTError:
            return None
        self.stats.assertions.append({"sub": claims.get("sub"), "jti": claims.get("jti"),
                                      "id_jag": bool(claims.get("id_jag")), "resource": claims.get("resource"),
                                      "client_id": claims.get("client_id")})
        return claims

    def exchange(self, form: dict[str, str], idp: str) -> tuple[int, dict[str, Any]]:
        """The identity provider's token exchange: an ID token signed by the trusted key for
        an ID-JAG (status, JSON body)."""
        import jwt

        self.stats.exchanges.append({k: v for k, v in form.items() if k != "subject_token"})
        if (form.get("grant_type") != TOKEN_EXCHANGE or form.get("requested_token_type") != ID_JAG
                or form.get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token"
                or not form.get("audience") or not form.get("resource")):
            return 400, {"error": "invalid_request", "error_description": "not an ID-JAG token exchange"}
        try:
            claims = jwt.decode(form.get("subject_token", ""), self.trusted, algorithms=["ES256", "RS256"],
                                options={"verify_aud": False, "require": ["sub", "exp"]})
        except jwt.PyJWTError as exc:
            return 400, {"error": "invalid_grant", "error_description": f"ID token refused: {exc}"}
        now = int(time.time())
        jag = jwt.encode({"iss": idp, "sub": claims["sub"], "aud": form["audience"], "resource": form["resource"],
                          "client_id": self.args.client_id, "iat": now, "exp": now + 300,
                          "jti": secrets.token_hex(8)}, self.idp_key, algorithm="ES256",
                         headers={"typ": "oauth-id-jag+jwt"})
        return 200, {"access_token": jag, "issued_token_type": ID_JAG, "token_type": "N_A", "expires_in": 300}
