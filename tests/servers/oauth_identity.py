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
- How an MCP server takes DPoP (`DpopPolicy`, `DpopGate`, also in front of
  tests/servers/jwt_resource_server.py): its mode ("bearer": it knows nothing of DPoP;
  "capable": DPoP-bound and bearer tokens; "required": DPoP-bound tokens only), where it
  says so (its RFC 9728 metadata: `dpop_signing_alg_values_supported`,
  `dpop_bound_access_tokens_required`; its challenges: `DPoP algs="..."` beside or
  instead of `Bearer`, RFC 9449 section 7.1) and the proof algorithms it names.
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


def verify_proof(proof: str | None, htm: str, htu: str, jtis: set[str], *, token: str | None = None,
                 nonce: str | None = None) -> tuple[str | None, str | None, dict[str, Any]]:
    """Check a DPoP proof (RFC 9449 section 4.3): (jkt, None, claims) when valid, else
    (None, error, claims so far); `nonce` is the one wanted (error "use_dpop_nonce" when
    the proof lacks it); a valid proof's `jti` joins `jtis` (a replay is refused)."""
    import jwt

    if not proof or "," in proof:
        return None, "no single DPoP proof", {}
    try:
        header = jwt.get_unverified_header(proof)
        jwk = header.get("jwk") or {}
        if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256" or "d" in jwk:
            raise ValueError("bad header")
        key = jwt.PyJWK(jwk, "ES256").key
        claims = jwt.decode(proof, key, algorithms=["ES256"], options={"verify_aud": False})
    except Exception as exc:  # noqa: BLE001 - any flaw is a refusal
        return None, f"invalid proof: {exc}", {}
    error = None
    if not isinstance(claims.get("jti"), str) or claims["jti"] in jtis:
        error = "jti missing or replayed"
    elif claims.get("htm") != htm or claims.get("htu") != htu:
        error = f"htm/htu {claims.get('htm')} {claims.get('htu')} do not match {htm} {htu}"
    elif not isinstance(claims.get("iat"), int) or abs(time.time() - claims["iat"]) > 60:
        error = "iat out of range"
    elif token is not None and claims.get("ath") != b64url(hashlib.sha256(token.encode()).digest()):
        error = "ath does not match the token"
    if error is None:
        jtis.add(claims["jti"])
        if nonce is not None and claims.get("nonce") != nonce:
            error = "use_dpop_nonce"
    return (thumbprint(jwk), None, claims) if error is None else (None, error, claims)


class DpopPolicy:
    """How an MCP server takes DPoP-bound tokens (the module docstring): `mode`,
    `signal` ("both", "metadata", "challenge" or "none": where it says so) and `algs`
    (the proof algorithms it names). `mode` may change while it runs (a test hook)."""

    MODES = ("bearer", "capable", "required")
    SIGNALS = ("both", "metadata", "challenge", "none")

    def __init__(self, mode: str = "capable", signal: str = "both", algs: str = "ES256"):
        assert mode in self.MODES and signal in self.SIGNALS, (mode, signal)
        self.mode, self.signal, self.algs = mode, signal, algs.split()

    def route(self) -> Any:
        """The test hook `POST /_test/resource-dpop?mode=M` (a Starlette route): `mode` is M
        from now on (400 for an unknown one)."""
        from starlette.requests import Request
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        async def set_mode(request: Request) -> JSONResponse:
            mode = request.query_params.get("mode", "")
            if mode not in self.MODES:
                return JSONResponse({"error": f"mode: one of {', '.join(self.MODES)}"}, status_code=400)
            self.mode = mode
            return JSONResponse({"mode": self.mode})

        return Route("/_test/resource-dpop", set_mode, methods=["POST"])

    def metadata(self) -> dict[str, Any]:
        """The members of its protected resource metadata about DPoP (RFC 9728 section 2)."""
        if self.mode == "bearer" or self.signal not in ("both", "metadata"):
            return {}
        return {"dpop_signing_alg_values_supported": self.algs,
                **({"dpop_bound_access_tokens_required": True} if self.mode == "required" else {})}

    def challenge(self, bearer: str) -> str:
        """Its `WWW-Authenticate` for a refusal the bearer gate wrote as `bearer` (a Bearer
        challenge): DPoP named beside Bearer ("capable") or instead of it ("required")."""
        if self.mode == "bearer" or self.signal not in ("both", "challenge"):
            return bearer
        dpop = f'DPoP algs="{" ".join(self.algs)}"'
        if self.mode == "capable":
            return f"{bearer}, {dpop}"
        params = bearer[len("Bearer"):].strip() if bearer.lower().startswith("bearer") else ""
        return f"{dpop}, {params}" if params else dpop

    def own_challenge(self, params: str) -> str:
        """Its `WWW-Authenticate` for a refusal of its own (a proof or binding that fails,
        a bearer token where DPoP is required): the DPoP scheme, unless it names DPoP in
        no challenge."""
        if self.signal in ("both", "challenge"):
            return f'DPoP algs="{" ".join(self.algs)}", {params}'
        return f"Bearer {params}"


class DpopGate:
    """In front of an MCP server's bearer-token gate (ASGI): a DPoP-bound token is taken
    only as `Authorization: DPoP` with a valid proof for this request (then passed on as
    Bearer); a bearer token is refused in mode "required"; the gate's challenges say what
    `policy` says. In mode "bearer" every request passes untouched.

    Args:
        app: the protected app; `resource`: the MCP URL (the proofs' `htu`); `path`: its
            path; `metadata_url`: its protected resource metadata URL.
        check: (proof, method, token) -> (jkt, error) of a DPoP proof (`verify_proof`).
        bound: the jkt a token is bound to, or None for a bearer token.
        nonce: the nonce the server wants in proofs (sent with `use_dpop_nonce`), or None.
    """

    def __init__(self, app: Any, resource: str, path: str, metadata_url: str, policy: DpopPolicy,
                 check: Any, bound: Any, nonce: Any = None):
        self.app, self.resource, self.path, self.metadata_url = app, resource, path, metadata_url
        self.policy, self.check, self.bound, self.nonce = policy, check, bound, nonce

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.responses import JSONResponse

        if scope["type"] != "http" or scope["path"] != self.path or self.policy.mode == "bearer":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        kind, _, token = headers.get("authorization", "").partition(" ")
        error = None
        if kind.lower() == "dpop":
            jkt, error = self.check(headers.get("dpop"), scope["method"], token)
            if error is None and self.bound(token) != jkt:
                error = "the token is not bound to the proof's key"
        elif token and self.bound(token) is not None:
            error = "a DPoP-bound token sent as a bearer token"
        elif token and self.policy.mode == "required":
            error = "this resource takes DPoP-bound tokens only"
        if error is None:
            scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k.lower() != b"authorization"]
                     + ([(b"authorization", f"Bearer {token}".encode())] if token else [])}
            await self.app(scope, receive, self._challenges(send))
            return
        code = "use_dpop_nonce" if error == "use_dpop_nonce" else "invalid_token"
        extra = {"DPoP-Nonce": self.nonce() if callable(self.nonce) else self.nonce} if code == "use_dpop_nonce" else {}
        challenge = self.policy.own_challenge(f'error="{code}", resource_metadata="{self.metadata_url}"')
        await JSONResponse({"error": code, "error_description": error}, status_code=401, headers={
            "WWW-Authenticate": challenge, **extra})(scope, receive, send)

    def _challenges(self, send: Any) -> Any:
        """`send`, with the bearer gate's challenges rewritten as `policy` says."""

        async def rewritten(message: Any) -> None:
            if message["type"] == "http.response.start" and message.get("status") in (401, 403):
                message = {**message, "headers": [
                    (k, self.policy.challenge(v.decode("latin-1")).encode("latin-1")
                     if k.lower() == b"www-authenticate" else v) for k, v in message.get("headers", [])]}
            await send(message)

        return rewritten


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
        """(jkt, None) for a valid proof, else (None, error) (`verify_proof`), noted in the
        stats."""
        jkt, error, claims = verify_proof(proof, htm, htu, self.jtis, token=token, nonce=nonce)
        self.stats.dpop.append({"where": where, "ok": error is None, "error": error, "jti": claims.get("jti"),
                                "htm": claims.get("htm"), "htu": claims.get("htu"), "nonce": claims.get("nonce"),
                                "ath": claims.get("ath")})
        return jkt, error

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
