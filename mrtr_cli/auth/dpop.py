"""DPoP proofs (RFC 9449; the MCP DPoP profile): the key pair a DPoP-bound token is bound
to, and the proof JWT sent with each token request (section 5) and each request to the
MCP server (section 7: `Authorization: DPoP <token>` and `DPoP: <proof>` with `ath`).

The key is ES256 (P-256), kept as a private JWK (JSON text, a secret) beside the tokens it
is bound to (`tokens.dpop_key` in the token store). The proof is signed with
`cryptography` (the `mrtr[jwt]` extra), imported on first use only: this module is read on
every call with a DPoP-bound token, so it stays small, and a bearer call never imports it.
Its own imports are what a bearer call loads already: no `hashlib` (OpenSSL's, for two
SHA-256 digests: `digest.py` has CPython's), no `secrets` (which loads `random` and `hmac`,
for 24 random bytes: `os.urandom`, which is what `secrets` reads), no `base64` (`binascii`).
"""

from __future__ import annotations

import binascii
import gc
import json
import os
import time
from typing import Any

from mrtr_cli.digest import sha256_digest
from mrtr_cli.errors import AuthError

#: The JWS algorithm of mrtr's proofs (RFC 9449 section 4.2; RFC 7518 section 3.4).
ALG = "ES256"
_SIZE = 32  # bytes of a P-256 coordinate and of each half of an ES256 signature
_URLSAFE = bytes.maketrans(b"+/", b"-_")
_STANDARD = str.maketrans("-_", "+/")


def b64url(data: bytes) -> str:
    """Base64url without padding (RFC 7515 section 2)."""
    return binascii.b2a_base64(data, newline=False).rstrip(b"=").translate(_URLSAFE).decode("ascii")


def _b64url_int(text: str) -> int:
    """The big-endian integer in base64url `text` (padding optional), decoded as
    `base64.urlsafe_b64decode` decodes it (characters outside the alphabet skipped).

    Raises:
        binascii.Error: incorrect padding.
    """
    padded = (text + "=" * (-len(text) % 4)).translate(_STANDARD).encode("ascii")
    return int.from_bytes(binascii.a2b_base64(padded), "big")


def htu(url: str) -> str:
    """The `htu` of a request to `url`: the URL without query and fragment (section 4.2)."""
    return url.split("#", 1)[0].split("?", 1)[0]


def ath(access_token: str) -> str:
    """The `ath` claim: base64url(SHA-256(ASCII access token)) (section 4.2)."""
    return b64url(sha256_digest(access_token.encode("ascii")))


_kept = [False]  # whether what importing `cryptography` loaded is out of the collector's sight


def _crypto() -> Any:
    """`cryptography`'s `hashes` and `ec` modules and `decode_dss_signature`, imported on
    first use. After the first import every object tracked so far goes to the garbage
    collector's permanent generation (`gc.freeze`): until its first collection the
    youngest generation holds everything loaded since start (about 47,000 objects for one
    call), and the few thousand `cryptography` adds tip a DPoP-bound call over the entry
    point's threshold (cli/entry.py), into a collection of all of them that costs about
    as much CPU as the import (docs/performance.md). What the call creates later is
    collected as before.

    Raises:
        AuthError: `cryptography` is not installed.
    """
    try:
        from cryptography.hazmat.primitives import hashes  # noqa: PLC0415 - DPoP paths only
        from cryptography.hazmat.primitives.asymmetric import ec  # noqa: PLC0415 - lazy for start-up time
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature  # noqa: PLC0415 - lazy for start-up time
    except ImportError:  # pragma: no cover - an optional dependency
        raise AuthError("DPoP needs the cryptography package (pip install 'mrtr[jwt]')") from None
    if not _kept[0]:
        _kept[0] = True
        gc.freeze()
    return hashes, ec, decode_dss_signature


def _sign(key: Any, data: bytes) -> bytes:
    """An ECDSA P-256 SHA-256 signature (DER) of `data` with `key`.

    `ec.ECDSA(...)` imports cryptography's OpenSSL backend module only to check support
    for deterministic signing, unused here; that import is about a third of a DPoP call's
    cost. A subclass answering the two properties the signer reads (`algorithm`,
    `deterministic_signing`) skips it; should a version of cryptography not take it, the
    signature is made with `ec.ECDSA` itself."""
    hashes, ec, _ = _crypto()

    # `ec` is the module `_crypto` imported (typed Any there, to keep the import lazy).
    class _Sha256Ecdsa(ec.ECDSA):  # type: ignore[name-defined,misc]  # base class from a lazily imported module (Any)
        def __init__(self) -> None:  # no backend check: randomized (RFC 7518) ECDSA only
            pass

        algorithm = property(lambda self: hashes.SHA256())
        deterministic_signing = property(lambda self: False)

    try:
        return bytes(key.sign(data, _Sha256Ecdsa()))
    except Exception:  # noqa: BLE001 - the plain way, at its full cost
        return bytes(key.sign(data, ec.ECDSA(hashes.SHA256())))


class ProofKey:
    """An ES256 key pair for DPoP.

    Args:
        jwk: the private JWK {"kty": "EC", "crv": "P-256", "x", "y", "d"} (base64url).

    Raises:
        ValueError: `jwk` is not a P-256 private key.
    """

    def __init__(self, jwk: dict[str, Any]):
        if not (isinstance(jwk, dict) and jwk.get("kty") == "EC" and jwk.get("crv") == "P-256"
                and all(isinstance(jwk.get(k), str) for k in ("x", "y", "d"))):
            raise ValueError("not an EC P-256 private JWK")
        self._jwk = {k: jwk[k] for k in ("kty", "crv", "x", "y", "d")}
        self._key: Any = None
        self._header: str | None = None

    @classmethod
    def generate(cls) -> ProofKey:
        """A new random P-256 key pair."""
        _, ec, _ = _crypto()
        numbers = ec.generate_private_key(ec.SECP256R1()).private_numbers()
        pub = numbers.public_numbers

        def enc(n: int) -> str:
            return b64url(n.to_bytes(_SIZE, "big"))

        key = cls({"kty": "EC", "crv": "P-256", "x": enc(pub.x), "y": enc(pub.y), "d": enc(numbers.private_value)})
        return key

    @classmethod
    def from_stored(cls, text: object) -> ProofKey | None:
        """The key stored as `stored()` wrote it, or None when `text` is not one."""
        try:
            return cls(json.loads(text)) if isinstance(text, str) else None
        except ValueError:
            return None

    def stored(self) -> str:
        """The private JWK as JSON text, for the token store (a secret: never printed)."""
        return json.dumps(self._jwk, sort_keys=True)

    @property
    def public_jwk(self) -> dict[str, str]:
        """The public JWK (no `d`), as the proof's `jwk` header carries it."""
        return {k: self._jwk[k] for k in ("crv", "kty", "x", "y")}

    def thumbprint(self) -> str:
        """The JWK SHA-256 thumbprint (RFC 7638), the `jkt` a bound token's `cnf` names."""
        canonical = json.dumps(self.public_jwk, separators=(",", ":"), sort_keys=True)
        return b64url(sha256_digest(canonical.encode("ascii")))

    def proof(self, htm: str, url: str, *, access_token: str | None = None, nonce: str | None = None) -> str:
        """A DPoP proof JWT for one request (RFC 9449 section 4.2): header `typ` dpop+jwt,
        `alg` ES256 and the public `jwk`; claims `jti` (random, never reused), `htm`, `htu`
        (`url` without query and fragment), `iat` (now, Unix seconds), `ath` when an access
        token goes with it, `nonce` when the server supplied one."""
        _, ec, decode_dss_signature = _crypto()
        if self._key is None:
            self._key = ec.derive_private_key(_b64url_int(self._jwk["d"]), ec.SECP256R1())
            header = {"typ": "dpop+jwt", "alg": ALG, "jwk": self.public_jwk}
            self._header = b64url(json.dumps(header, separators=(",", ":")).encode("ascii"))
        claims: dict[str, Any] = {"jti": b64url(os.urandom(24)), "htm": htm, "htu": htu(url),
                                  "iat": int(time.time())}
        if access_token is not None:
            claims["ath"] = ath(access_token)
        if nonce is not None:
            claims["nonce"] = nonce
        signing_input = f"{self._header}.{b64url(json.dumps(claims, separators=(',', ':')).encode('utf-8'))}"
        der = _sign(self._key, signing_input.encode("ascii"))
        r, s = decode_dss_signature(der)
        return f"{signing_input}.{b64url(r.to_bytes(_SIZE, 'big') + s.to_bytes(_SIZE, 'big'))}"
