"""Token endpoint requests: the authorization code exchange, refresh (RFC 6749 section 6),
the client credentials grant of the OAuth client credentials extension (ext-auth
oauth-client-credentials; RFC 6749 section 4.4), client authentication
(`client_secret_basic`, `client_secret_post`, `private_key_jwt` per RFC 7523 section 2.2,
`none`), and revocation (RFC 7009).

Every token request carries `resource` (RFC 8707; 2026-07-28 basic/authorization
"Resource Parameter Implementation").
"""

from __future__ import annotations

import base64
import time
import uuid
from typing import Any
from urllib.parse import quote, quote_plus

from mrtr_cli.auth.replies import fetch
from mrtr_cli.auth.values import checked_token, lifetime
from mrtr_cli.errors import AuthError, TimeoutExpired
from mrtr_cli.render.sanitize import one_line

JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

#: Form parameters of token and revocation requests whose values are credentials: each is
#: registered as a secret before the request is sent, so that a server that echoes the
#: request in an error is redacted (`secret_values`).
SECRET_PARAMS = ("code", "code_verifier", "refresh_token", "client_secret", "client_assertion", "assertion",
                 "subject_token", "actor_token", "token", "device_code", "password")


def secret_values(data: dict[str, str]) -> list[str]:
    """The credential values of a token or revocation form (`SECRET_PARAMS`), in every
    encoding a server might echo them in (as sent, percent- and form-encoded)."""
    out: list[str] = []
    for name in SECRET_PARAMS:
        value = data.get(name)
        if isinstance(value, str) and value:
            out += [value, quote(value, safe=""), quote_plus(value)]
    return out


class TokenError(AuthError):
    """The token endpoint refused (`error` holds its code, e.g. "invalid_grant";
    `dpop_nonce` the `DPoP-Nonce` header of the refusal, RFC 9449 section 8)."""

    def __init__(self, message: str, error: str | None = None, dpop_nonce: str | None = None):
        super().__init__(message)
        self.error = error
        self.dpop_nonce = dpop_nonce


def client_auth(client: dict[str, Any], data: dict[str, str], headers: dict[str, str], *,
                audience: str, private_key: str | None = None, signing_alg: str | None = None) -> list[str]:
    """Authenticate the client on a token request as its `token_endpoint_auth_method` says.

    Args:
        client: {"client_id", "client_secret"?, "token_endpoint_auth_method"?}.
        data, headers: the form and headers, changed in place.
        audience: the authorization server's issuer (the `aud` of a private_key_jwt
            assertion, as RFC 7523bis requires).

    Returns:
        Every form in which a credential went into the request (the secret itself, its
        percent- and form-encoded forms, the Basic credential, a client assertion): the
        caller registers each as a secret (`Environment.add_secret`), so that a server
        echoing the request in an error is redacted.

    Raises:
        AuthError: a method that needs a secret or key that is missing, or one mrtr
            does not apply.
    """
    method = (client.get("token_endpoint_auth_method")
              or ("client_secret_basic" if client.get("client_secret") else "none"))
    cid = client["client_id"]
    secret = client.get("client_secret")
    data["client_id"] = cid
    sent: list[str] = []
    if secret:
        sent += [secret, quote(secret, safe=""), quote_plus(secret)]
    if method == "client_secret_basic":
        if not secret:
            raise AuthError(f"the client {cid} authenticates with client_secret_basic but has no secret")
        pair = f"{quote(cid, safe='')}:{quote(secret, safe='')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
        sent.append(headers["Authorization"][len("Basic "):])
    elif method == "client_secret_post":
        if not secret:
            raise AuthError(f"the client {cid} authenticates with client_secret_post but has no secret")
        data["client_secret"] = secret
    elif method == "private_key_jwt":
        if not private_key:
            raise AuthError(f"the client {cid} authenticates with private_key_jwt but no key was given",
                            hint="give --private-key-file PEM (or MRTR_PRIVATE_KEY_FILE)")
        data["client_assertion_type"] = JWT_BEARER
        data["client_assertion"] = sign_assertion(cid, audience, private_key, signing_alg)
        sent.append(data["client_assertion"])
    elif method != "none":
        raise AuthError(f"the client {cid} uses token_endpoint_auth_method {method!r}, which mrtr does not apply")
    return sent


def sign_assertion(client_id: str, audience: str, pem: str, alg: str | None = None, lifetime: int = 300) -> str:
    """A JWT client assertion (RFC 7523 section 3): iss = sub = client id, aud = the
    authorization server's issuer, a 5-minute lifetime and a unique jti. Signed with
    PyJWT (imported only here).

    Raises:
        AuthError: the key cannot be read or does not fit the algorithm.
    """
    try:
        import jwt  # noqa: PLC0415 - the private_key_jwt flow only
        from cryptography.hazmat.primitives.serialization import load_pem_private_key  # noqa: PLC0415 - lazy for start-up time
    except ImportError:  # pragma: no cover - a runtime dependency
        raise AuthError("private_key_jwt needs PyJWT and cryptography (pip install 'mrtr[jwt]')") from None
    try:
        key = load_pem_private_key(pem.encode("utf-8"), password=None)
    except (ValueError, TypeError) as exc:
        raise AuthError(f"the private key is not a readable unencrypted PEM key ({type(exc).__name__})") from None
    if alg is None:
        from cryptography.hazmat.primitives.asymmetric import ec, ed25519  # noqa: PLC0415 - lazy for start-up time

        if isinstance(key, ec.EllipticCurvePrivateKey):
            alg = {256: "ES256", 384: "ES384", 521: "ES512"}.get(key.curve.key_size, "ES256")
        elif isinstance(key, ed25519.Ed25519PrivateKey):
            alg = "EdDSA"
        else:
            alg = "RS256"
    now = int(time.time())
    claims = {"iss": client_id, "sub": client_id, "aud": audience, "iat": now, "exp": now + lifetime,
              "jti": str(uuid.uuid4())}
    try:
        # Any key the PEM held: one PyJWT cannot sign with is refused below, as a mismatch.
        return jwt.encode(claims, key, algorithm=alg)  # type: ignore[arg-type]  # PyJWT's stubs list fewer key types than it signs with
    except Exception as exc:  # noqa: BLE001 - PyJWT raises several kinds for a key/alg mismatch
        raise AuthError(f"cannot sign the client assertion with {alg}: {exc}") from None


def token_request(http: Any, endpoint: str, data: dict[str, str], headers: dict[str, str],
                  previous: dict[str, Any] | None = None, requested_scope: str | None = None,
                  redact: Any = None, dpop: bool = False) -> dict[str, Any]:
    """POST a token request; the stored token set it yields. `redact` (str -> str) is
    applied to the server's error text before it is cut for a message. `dpop`: the
    request carries a DPoP proof (`headers["DPoP"]`), so a `token_type` of DPoP is
    accepted (RFC 9449 section 5); without one only Bearer tokens are.

    Returns:
        {"access_token", "token_type", "refresh_token"?, "scope"?, "expires_at"?, "obtained_at"}:
        an omitted `scope` is the requested one, an omitted `refresh_token` the previous one.

    Raises:
        TimeoutExpired: no answer within the request's bound (exit 7).
        TokenError: an error response (its `error` code; `error_description` shown
            sanitized; its `DPoP-Nonce`), an answer without an access token, or a token
            type other than Bearer (and DPoP when `dpop`).
        AuthError: a reply over the limits on what a server sends (auth/replies.py); an
            access or refresh token that cannot be sent safely (`values.checked_token`:
            nothing is stored, nothing of it shown).
    """
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    headers = {"Accept": "application/json", **headers}
    try:
        reply = fetch(http, "POST", endpoint, "the token endpoint", data=data, headers=headers)
    except httpx2.TimeoutException:
        raise TimeoutExpired(f"the token endpoint {endpoint} did not answer in time") from None
    except httpx2.HTTPError as exc:
        from mrtr_cli.transport.http.env import through_proxy  # noqa: PLC0415 - lazy for start-up time

        raise TokenError(f"cannot reach the token endpoint {endpoint}{through_proxy(endpoint)}: "
                         f"{type(exc).__name__}") from None
    body = reply.document
    if reply.status == 200 and body is None:
        raise TokenError(f"the token endpoint {one_line(endpoint, 200)} answered HTTP 200 "
                         "without a JSON object")
    if reply.status != 200 or body is None:
        raise TokenError(f"the token endpoint refused (HTTP {reply.status}{reply.error_detail(redact)})",
                         reply.error_code, reply.dpop_nonce)
    if "access_token" not in body:
        raise TokenError(f"the token endpoint answered HTTP 200 without an access_token{reply.error_detail(redact)}",
                         reply.error_code)
    kind = body.get("token_type", "Bearer")
    if isinstance(kind, str) and kind.lower() == "dpop" and not dpop:
        raise TokenError("the token endpoint issued a DPoP-bound token, which mrtr did not ask for (it sent no "
                         "DPoP proof); refused")
    if not isinstance(kind, str) or kind.lower() not in ("bearer", "dpop"):
        raise TokenError(f"the token endpoint issued a {one_line(kind, 40)} token; "
                         "mrtr sends Bearer and DPoP tokens only")
    access = checked_token(body["access_token"], "the token response's access_token", bearer=True)
    tokens: dict[str, Any] = {"access_token": access, "token_type": "DPoP" if kind.lower() == "dpop" else "Bearer",
                              "obtained_at": time.time()}
    kept = (previous or {}).get("refresh_token")
    if body.get("refresh_token") not in (None, ""):
        tokens["refresh_token"] = checked_token(body["refresh_token"], "the token response's refresh_token",
                                                bearer=False)
    elif isinstance(kept, str):
        tokens["refresh_token"] = kept
    scope = body.get("scope") if isinstance(body.get("scope"), str) else requested_scope
    if scope is None and previous:
        scope = previous.get("scope")
    if scope is not None:
        tokens["scope"] = scope
    seconds = lifetime(body.get("expires_in"))  # nonsense (huge, negative, not a number): unknown
    if seconds is not None:
        tokens["expires_at"] = tokens["obtained_at"] + seconds
    return tokens


def revoke(http: Any, endpoint: str, token: str, hint: str, client: dict[str, Any], audience: str,
           private_key: str | None = None) -> bool:
    """Revoke `token` at `endpoint` (RFC 7009); True when the server said 200 (its body is
    not read)."""
    import httpx2  # noqa: PLC0415 - lazy for start-up time

    data = {"token": token, "token_type_hint": hint}
    headers: dict[str, str] = {}
    try:
        client_auth(client, data, headers, audience=audience, private_key=private_key)
        reply = fetch(http, "POST", endpoint, "the revocation endpoint", read=(), data=data, headers=headers)
    except (httpx2.HTTPError, AuthError):
        return False
    return reply.status == 200
