"""Whether a sign-in's tokens are DPoP-bound or bearer tokens, in process
(mrtr_cli/auth/endpoint/binding.py): what the resource's metadata and challenge say, the user's
setting, and the authorization server's algorithms.
These are fast tests mutation testing runs (tests/README.md "Mutation testing").
"""

from __future__ import annotations

import pytest

from mrtr_cli.auth.challenge import parse_challenge
from mrtr_cli.auth.endpoint import binding
from mrtr_cli.auth.endpoint.binding import FORCED_OFF, FORCED_ON, ResourceDpop, choose, resource_dpop
from mrtr_cli.errors import AuthError

BEARER = parse_challenge(401, 'Bearer resource_metadata="https://mcp.example/m"')
DPOP_ONLY = parse_challenge(401, 'DPoP algs="ES256 PS256"')
BOTH = parse_challenge(401, 'Bearer realm="x", DPoP algs="ES256"')
NONE = parse_challenge(401, None)


def test_a_resource_that_says_nothing_of_dpop():
    assert resource_dpop(None, NONE) == ResourceDpop()
    assert resource_dpop({}, BEARER) == ResourceDpop(False, False, (), "")
    assert resource_dpop({"dpop_bound_access_tokens_required": "true"}, BEARER) == ResourceDpop()
    assert resource_dpop({"dpop_signing_alg_values_supported": []}, BEARER) == ResourceDpop()
    assert resource_dpop({"dpop_signing_alg_values_supported": [1, None]}, BEARER) == ResourceDpop()
    assert resource_dpop({"dpop_signing_alg_values_supported": "ES256"}, BEARER) == ResourceDpop()


def test_metadata_that_requires_dpop():
    got = resource_dpop({"dpop_bound_access_tokens_required": True, "dpop_signing_alg_values_supported": ["ES256", 5]},
                        DPOP_ONLY)
    assert got == ResourceDpop(True, True, (("ES256",), ("ES256", "PS256")),
                               "its protected resource metadata sets dpop_bound_access_tokens_required")


def test_a_challenge_that_names_dpop_and_not_bearer_requires_it():
    assert resource_dpop(None, DPOP_ONLY) == ResourceDpop(True, True, (("ES256", "PS256"),),
                                                          "its challenge names DPoP and not Bearer")
    answered = parse_challenge(401, 'DPoP error="invalid_token"')
    answered.answered_dpop = True
    assert resource_dpop(None, answered) == ResourceDpop(False, True, (), "its challenge names DPoP")


def test_metadata_that_lists_algorithms_offers_dpop():
    assert resource_dpop({"dpop_signing_alg_values_supported": ["ES256"]}, BEARER) == ResourceDpop(
        False, True, (("ES256",),), "its protected resource metadata lists dpop_signing_alg_values_supported")
    assert resource_dpop({"dpop_signing_alg_values_supported": ["ES256"]}, BOTH).why == \
        "its protected resource metadata lists dpop_signing_alg_values_supported"


def test_a_challenge_that_names_dpop_beside_bearer_offers_it():
    assert resource_dpop({}, BOTH) == ResourceDpop(False, True, (("ES256",),), "its challenge names DPoP")
    no_algs = parse_challenge(401, "Bearer, DPoP")
    assert resource_dpop({}, no_algs) == ResourceDpop(False, True, (), "its challenge names DPoP")


def test_signs_with():
    assert ResourceDpop().signs_with("ES256")
    assert ResourceDpop(algs=(("ES256", "PS256"), ("ES256",))).signs_with("ES256")
    assert not ResourceDpop(algs=(("ES256",), ("PS256",))).signs_with("ES256")
    assert not ResourceDpop(algs=(("PS256",),)).signs_with("ES256")


OFFERED = ResourceDpop(False, True, (("ES256",),), "its challenge names DPoP")
REQUIRED = ResourceDpop(True, True, (), "its challenge names DPoP and not Bearer")


def pick(want, resource, as_algs, note=None):
    return choose(want, resource, as_algs, label="server x", issuer="https://as.example", note=note)


@pytest.mark.parametrize(("resource", "as_algs", "dpop"), [
    (ResourceDpop(), ["ES256"], False),            # says nothing: bearer, whatever the server offers
    (OFFERED, ["ES256"], True),                    # offered, and the server lists ES256
    (OFFERED, ["ES256", "PS256"], True),
    (OFFERED, None, False),                        # the server does not list DPoP
    (OFFERED, "ES256", False),                     # not a list: unknown
    (OFFERED, [5], False),
    (OFFERED, ["PS256"], False),                   # no algorithm in common
    (ResourceDpop(False, True, (("PS256",),), "x"), ["ES256"], False),
    (REQUIRED, None, True),                        # required: nothing else can work there
    (REQUIRED, ["ES256"], True)])
def test_without_a_setting(resource, as_algs, dpop):
    assert pick(None, resource, as_algs) is dpop


def test_dpop_turned_off():
    assert pick(False, OFFERED, ["ES256"]) is False
    assert pick(False, ResourceDpop(), None) is False
    with pytest.raises(AuthError) as caught:
        pick(False, REQUIRED, ["ES256"])
    assert caught.value.message == (f"server x takes DPoP-bound tokens only (its challenge names DPoP and not Bearer), "
                                    f"and DPoP is turned off ({FORCED_OFF})")
    assert caught.value.hint == "leave that setting out: mrtr then signs in with DPoP"


def test_dpop_turned_on():
    assert pick(True, ResourceDpop(), None) is True
    assert pick(True, ResourceDpop(), ["ES256"]) is True
    assert pick(True, OFFERED, "junk") is True


def test_dpop_turned_on_for_a_resource_that_takes_other_algorithms():
    resource = ResourceDpop(False, True, (("PS256", "EdDSA"), ("PS256",)), "x")
    with pytest.raises(AuthError) as caught:
        pick(True, resource, ["ES256"])
    assert caught.value.message == "server x takes DPoP proofs signed with EdDSA PS256 only; mrtr signs them with ES256"
    assert caught.value.hint == f"leave out {FORCED_ON} for bearer tokens"
    required = ResourceDpop(True, True, (("PS256",),), "x")
    with pytest.raises(AuthError) as caught:
        pick(None, required, ["ES256"])
    assert caught.value.hint is None


def test_dpop_turned_on_at_a_server_that_takes_other_algorithms():
    with pytest.raises(AuthError) as caught:
        pick(True, OFFERED, ["PS256", "EdDSA"])
    assert caught.value.message == ("the authorization server https://as.example takes DPoP proofs signed with "
                                    "PS256 EdDSA only; mrtr signs them with ES256")
    assert caught.value.hint == f"leave out {FORCED_ON} for bearer tokens"
    with pytest.raises(AuthError) as caught:
        pick(None, REQUIRED, ["PS256"])
    assert caught.value.hint is None


def test_an_offer_without_cryptography_gets_bearer_tokens_and_a_note(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec  # the package is not there, as the import system sees it
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "cryptography" else real(name, *a))
    notes: list[str] = []
    assert binding._can_sign() is False
    assert pick(None, OFFERED, ["ES256"], notes.append) is False
    assert notes == ["mrtr: oauth: the server takes DPoP; without the cryptography package (pip install 'mrtr[jwt]') "
                     "mrtr asks for bearer tokens"]
    assert pick(None, OFFERED, ["ES256"]) is False  # without a note to show


def test_cryptography_is_found_here():
    assert binding._can_sign() is True


def test_the_settings_named_in_messages():
    assert FORCED_ON == "--dpop, MRTR_OAUTH_DPOP=1 or the config's \"dpop\": true"
    assert FORCED_OFF == "--no-dpop, MRTR_OAUTH_DPOP=0 or the config's \"dpop\": false"
