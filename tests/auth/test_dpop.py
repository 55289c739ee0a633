"""DPoP proofs, in process (mrtr_cli/auth/dpop.py, RFC 9449): the key pair, its stored
form and thumbprint, and each proof's header, claims and signature, verified here with
`cryptography` from the proof alone.
These are fast tests mutation testing runs (tests/README.md "Mutation testing").
"""

from __future__ import annotations

import base64
import hashlib
import json
import time

import pytest

pytest.importorskip("cryptography")
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from mrtr_cli.auth.dpop import ALG, ProofKey, ath, b64url, htu
from tests.auth_support import young_objects_around


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def decode(proof: str) -> tuple[dict, dict, bytes, bytes]:
    head, body, sig = proof.split(".")
    return json.loads(unb64(head)), json.loads(unb64(body)), unb64(sig), f"{head}.{body}".encode()


def verify(proof: str) -> tuple[dict, dict]:
    """The proof's header and claims once its ES256 signature checks out against the key
    in its own `jwk` header (RFC 9449 section 4.3)."""
    header, claims, sig, signed = decode(proof)
    assert len(sig) == 64
    jwk = header["jwk"]
    public = ec.EllipticCurvePublicNumbers(int.from_bytes(unb64(jwk["x"]), "big"),
                                           int.from_bytes(unb64(jwk["y"]), "big"),
                                           ec.SECP256R1()).public_key()
    der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
    public.verify(der, signed, ec.ECDSA(hashes.SHA256()))
    return header, claims


@pytest.mark.parametrize(("url", "want"), [
    ("https://mcp.example/mcp?session=1", "https://mcp.example/mcp"),
    ("https://mcp.example/mcp#frag", "https://mcp.example/mcp"),
    ("https://mcp.example/mcp?a=1#f?g", "https://mcp.example/mcp"),
    ("https://mcp.example/mcp#f?g", "https://mcp.example/mcp"),
    ("https://mcp.example/mcp", "https://mcp.example/mcp")])
def test_htu_has_no_query_and_no_fragment(url, want):
    assert htu(url) == want


def test_ath_is_the_base64url_sha256_of_the_token():
    want = base64.urlsafe_b64encode(hashlib.sha256(b"tok.en-1").digest()).rstrip(b"=").decode()
    assert ath("tok.en-1") == want and "=" not in want


def test_b64url_has_no_padding():
    assert b64url(b"\xff\xfe") == "__4"
    assert b64url(b"") == ""


def test_a_proof_is_signed_by_its_key_and_carries_the_request():
    key = ProofKey.generate()
    before = int(time.time())
    proof = key.proof("POST", "https://mcp.example/mcp?x=1#y", access_token="at-1", nonce="n-1")
    after = int(time.time())
    header, claims = verify(proof)
    assert header == {"typ": "dpop+jwt", "alg": "ES256", "jwk": key.public_jwk}
    assert set(claims) == {"jti", "htm", "htu", "iat", "ath", "nonce"}
    assert claims["htm"] == "POST" and claims["htu"] == "https://mcp.example/mcp"
    assert claims["ath"] == ath("at-1") and claims["nonce"] == "n-1"
    assert before <= claims["iat"] <= after and isinstance(claims["iat"], int)
    assert len(claims["jti"]) >= 32


def test_a_proof_without_token_or_nonce_has_neither_claim():
    key = ProofKey.generate()
    _, claims = verify(key.proof("GET", "https://as.example/token"))
    assert set(claims) == {"jti", "htm", "htu", "iat"}


def test_every_proof_has_a_new_jti_and_a_valid_signature():
    key = ProofKey.generate()
    proofs = [key.proof("POST", "https://mcp.example/mcp") for _ in range(3)]
    assert len({decode(p)[1]["jti"] for p in proofs}) == 3
    for p in proofs:
        verify(p)


def test_a_tampered_proof_does_not_verify():
    key = ProofKey.generate()
    head, body, sig = key.proof("POST", "https://mcp.example/mcp").split(".")
    other = b64url(json.dumps({"htm": "GET"}).encode())
    with pytest.raises(InvalidSignature):
        verify(f"{head}.{other}.{sig}")


def test_the_stored_key_is_the_same_key():
    key = ProofKey.generate()
    text = key.stored()
    assert json.loads(text).keys() == {"kty", "crv", "x", "y", "d"}
    assert text == json.dumps(json.loads(text), sort_keys=True)
    again = ProofKey.from_stored(text)
    assert again is not None
    assert again.public_jwk == key.public_jwk and again.thumbprint() == key.thumbprint()
    header, _ = verify(again.proof("POST", "https://x.example/"))
    assert header["jwk"] == key.public_jwk


def test_the_key_is_p256_with_32_byte_coordinates():
    key = ProofKey.generate()
    stored = json.loads(key.stored())
    assert stored["kty"] == "EC" and stored["crv"] == "P-256"
    assert all(len(unb64(stored[k])) == 32 for k in ("x", "y", "d"))
    assert key.public_jwk == {"crv": "P-256", "kty": "EC", "x": stored["x"], "y": stored["y"]}
    assert list(key.public_jwk) == ["crv", "kty", "x", "y"]
    assert ProofKey.generate().stored() != key.stored()


def test_the_thumbprint_is_rfc_7638s():
    key = ProofKey.generate()
    jwk = key.public_jwk
    canonical = '{"crv":"P-256","kty":"EC","x":"%s","y":"%s"}' % (jwk["x"], jwk["y"])
    digest = hashlib.sha256(canonical.encode()).digest()
    assert key.thumbprint() == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def test_the_keys_own_fields_are_kept_and_others_dropped():
    key = ProofKey.generate()
    jwk = {**json.loads(key.stored()), "kid": "extra", "use": "sig"}
    assert json.loads(ProofKey(jwk).stored()).keys() == {"kty", "crv", "x", "y", "d"}


@pytest.mark.parametrize("text", [None, 5, "", "not json", "[]", '{"kty": "RSA"}',
                                  '{"kty":"EC","crv":"P-384","x":"a","y":"b","d":"c"}',
                                  '{"kty":"EC","crv":"P-256","x":"a","y":"b"}',
                                  '{"kty":"EC","crv":"P-256","x":"a","y":1,"d":"c"}',
                                  '{"crv":"P-256","x":"a","y":"b","d":"c"}'])
def test_anything_else_is_no_stored_key(text):
    assert ProofKey.from_stored(text) is None


@pytest.mark.parametrize("jwk", [[], "x", {"kty": "EC", "crv": "P-256", "x": "a", "y": "b", "d": 1}])
def test_a_non_key_is_refused(jwk):
    with pytest.raises(ValueError, match="not an EC P-256 private JWK"):
        ProofKey(jwk)


def test_the_algorithm_is_es256():
    assert ALG == "ES256"


def test_htu_cuts_at_the_first_hash_and_the_first_question_mark():
    assert htu("https://mcp.example/p#a#b") == "https://mcp.example/p"
    assert htu("https://mcp.example/p?a?b") == "https://mcp.example/p"
    assert htu("https://mcp.example/p?a#b?c") == "https://mcp.example/p"


def test_b64url_keeps_every_character_of_the_encoding():
    assert b64url(b"\x00\x00\x17") == "AAAX"  # an encoding may end in X
    assert b64url(b"\xfb\xff") == "-_8"


def test_the_proofs_parts_are_compact_json_and_the_jti_holds_24_random_bytes():
    key = ProofKey.generate()
    head, body, _ = key.proof("POST", "https://mcp.example/mcp", access_token="t", nonce="n").split(".")
    for part in (head, body):
        raw = unb64(part).decode()
        assert raw == json.dumps(json.loads(raw), separators=(",", ":")), raw
    jti = json.loads(unb64(body))["jti"]
    assert len(unb64(jti)) == 24 and len(jti) == 32


def test_a_stored_key_whose_numbers_carry_leading_zero_bytes_is_the_same_key():
    key = ProofKey.generate()
    stored = json.loads(key.stored())
    for zeros in range(1, 6):  # every length of the base64url text, each with its own padding
        padded = {**stored, "d": b64url(b"\x00" * zeros + unb64(stored["d"]))}
        again = ProofKey(padded)
        header, _ = verify(again.proof("GET", "https://mcp.example/"))
        assert header["jwk"] == key.public_jwk


def test_a_non_key_is_named_exactly():
    with pytest.raises(ValueError) as caught:
        ProofKey({"kty": "RSA"})
    assert str(caught.value) == "not an EC P-256 private JWK"


def test_without_cryptography_dpop_is_one_clear_error(monkeypatch):
    import sys

    from mrtr_cli.auth import dpop
    from mrtr_cli.errors import AuthError

    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives.asymmetric.utils", None)
    with pytest.raises(AuthError) as caught:
        dpop._crypto()
    assert caught.value.message == "DPoP needs the cryptography package (pip install 'mrtr[jwt]')"


class PlainEcdsaOnly:
    """A real P-256 key that takes only cryptography's own `ec.ECDSA` (as a version of
    cryptography that refuses the quick signer would)."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.refused = 0

    def sign(self, data, algorithm):
        if type(algorithm) is not ec.ECDSA:
            self.refused += 1
            raise TypeError("not ECDSA")
        return self.key.sign(data, algorithm)


def test_a_cryptography_that_refuses_the_quick_signer_still_gets_a_valid_signature():
    from mrtr_cli.auth.dpop import _sign

    key = PlainEcdsaOnly()
    der = _sign(key, b"signed input")
    assert key.refused == 1
    key.key.public_key().verify(der, b"signed input", ec.ECDSA(hashes.SHA256()))


def test_the_quick_signer_signs_with_sha256():
    from mrtr_cli.auth.dpop import _sign

    key = ec.generate_private_key(ec.SECP256R1())
    der = _sign(key, b"signed input")
    key.public_key().verify(der, b"signed input", ec.ECDSA(hashes.SHA256()))
    with pytest.raises(InvalidSignature):
        key.public_key().verify(der, b"signed input", ec.ECDSA(hashes.SHA384()))


def test_a_proof_is_made_without_cryptographys_openssl_backend_module(tmp_path):
    # `ec.ECDSA(...)` imports it only to check deterministic signing, unused by mrtr: about
    # a third of a DPoP call's cost (docs/performance.md). Checked in a fresh interpreter.
    import subprocess
    import sys

    from tests.conftest import ROOT
    from tests.support import SAFETY

    code = ("import sys\nfrom mrtr_cli.auth.dpop import ProofKey\nk = ProofKey.generate()\n"
            "k.proof('POST', 'https://mcp.example/mcp', access_token='t')\n"
            "print('cryptography.hazmat.backends.openssl.backend' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=SAFETY)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


class Recording:
    """A real P-256 key that records each signature asked of it (the algorithm object)."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.asked: list = []

    def sign(self, data, algorithm):
        self.asked.append(algorithm)
        return self.key.sign(data, algorithm)


def test_the_quick_signer_is_used_and_signs_once():
    # The quick signer (no backend check) answers the two properties cryptography reads:
    # SHA-256, randomized. A broken one would fall back to ec.ECDSA at its full cost.
    from mrtr_cli.auth.dpop import _sign

    key = Recording()
    der = _sign(key, b"signed input")
    assert len(key.asked) == 1
    [algorithm] = key.asked
    assert isinstance(algorithm, ec.ECDSA) and type(algorithm) is not ec.ECDSA
    assert isinstance(algorithm.algorithm, hashes.SHA256)
    assert algorithm.deterministic_signing is False
    key.key.public_key().verify(der, b"signed input", ec.ECDSA(hashes.SHA256()))


def test_what_the_first_proof_loads_leaves_the_youngest_generation_empty():
    # Loading cryptography for the first proof adds thousands of long-lived objects; counted
    # in the youngest generation, they tip a call over the threshold into a collection of
    # everything loaded (docs/performance.md). They are moved out of the collector's sight.
    stored = ProofKey.generate().stored()
    code = ("from mrtr_cli.auth.dpop import ProofKey\nkey = ProofKey.from_stored(sys.argv[1])\n"
            "before = gc.get_count()[0]\nkey.proof('POST', 'https://mcp.example/mcp', access_token='t')\n"
            "print(before, gc.get_count()[0])")
    before, after = young_objects_around(code, stored)
    assert after < before, (before, after)
    assert after < 1000, after
