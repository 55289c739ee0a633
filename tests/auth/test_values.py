"""The checks of what an authorization server issues, in process (mrtr_cli/auth/values.py):
tokens, client ids, lifetimes and expiry times, at and around each bound; and what they
decide for a registered client (auth/registration.py `expired`).
These are fast tests mutation testing runs (tests/README.md "Mutation testing").
"""

from __future__ import annotations

import math

import pytest

from mrtr_cli.auth import values
from mrtr_cli.auth.registration import expired
from mrtr_cli.auth.values import (
    MAX_CLIENT_ID_CHARS,
    MAX_LIFETIME,
    checked_client_id,
    checked_token,
    epoch,
    lifetime,
)
from mrtr_cli.errors import AuthError
from mrtr_cli.transport.http.tokenfile import MAX_TOKEN_CHARS, MAX_UNIX_TIME

MEMBER = "the token response's access_token"


def refusal(value, *, bearer: bool) -> str:
    with pytest.raises(AuthError) as caught:
        checked_token(value, MEMBER, bearer=bearer)
    return caught.value.message


# ---------------------------------------------------------------- tokens
@pytest.mark.parametrize("bearer", [True, False])
def test_a_token_at_the_length_limit_is_kept_and_one_character_more_is_refused(bearer):
    assert checked_token("a" * MAX_TOKEN_CHARS, MEMBER, bearer=bearer) == "a" * MAX_TOKEN_CHARS
    message = refusal("a" * (MAX_TOKEN_CHARS + 1), bearer=bearer)
    assert message == (f"{MEMBER} is {MAX_TOKEN_CHARS + 1:,} characters long, over the limit of "
                       f"{MAX_TOKEN_CHARS:,}; nothing was stored")


@pytest.mark.parametrize("value", [None, "", 7, ["t"], {"t": 1}, b"tok"])
def test_a_token_that_is_no_non_empty_string_is_refused(value):
    for bearer in (True, False):
        assert refusal(value, bearer=bearer) == f"{MEMBER} is not a non-empty string; nothing was stored"


def test_a_bearer_token_holds_only_the_characters_rfc_6750_allows():
    ok = "AZaz09-._~+/=="
    assert checked_token(ok, MEMBER, bearer=True) == ok
    for bad in ("a b", "a,b", "a\"b", "a\nb", "=a", "a=b", "tök"):
        assert refusal(bad, bearer=True) == (f"{MEMBER} has characters outside the characters RFC 6750 allows in a "
                                             "bearer token; it cannot be sent safely, and nothing was stored"), bad


def test_any_other_token_is_printable_ascii():
    assert checked_token("a b,\"c\"=d", MEMBER, bearer=False) == "a b,\"c\"=d"
    for bad in ("a\nb", "a\x7fb", "tök", "a\tb"):
        assert refusal(bad, bearer=False) == (f"{MEMBER} has characters outside printable ASCII (RFC 6749); it cannot "
                                              "be sent safely, and nothing was stored"), bad


# ---------------------------------------------------------------- client ids
def test_a_client_id_at_the_limit_is_kept_and_one_more_is_refused():
    assert checked_client_id("c" * MAX_CLIENT_ID_CHARS, "the client_id") == "c" * MAX_CLIENT_ID_CHARS
    with pytest.raises(AuthError) as caught:
        checked_client_id("c" * (MAX_CLIENT_ID_CHARS + 1), "the client_id")
    assert caught.value.message == ("the client_id is not printable ASCII of at most "
                                    f"{MAX_CLIENT_ID_CHARS} characters; refused")


@pytest.mark.parametrize("value", ["a\nb", "ö", "\x00"])
def test_a_client_id_outside_printable_ascii_is_refused(value):
    with pytest.raises(AuthError, match="not printable ASCII"):
        checked_client_id(value, "the client_id")


@pytest.mark.parametrize("value", [None, "", 5, ["c"]])
def test_a_client_id_that_is_no_non_empty_string_is_refused(value):
    with pytest.raises(AuthError) as caught:
        checked_client_id(value, "the client_id")
    assert caught.value.message == "the client_id is not a non-empty string; refused"


def test_a_client_id_with_spaces_is_printable_ascii():
    assert checked_client_id("my client", "the client_id") == "my client"


# ---------------------------------------------------------------- lifetimes and times
@pytest.mark.parametrize(("value", "seconds"), [
    (1, 1.0), (3600, 3600.0), (0.5, 0.5), ("3600", 3600.0), ("1", 1.0), (MAX_LIFETIME, float(MAX_LIFETIME)),
    (str(MAX_LIFETIME), float(MAX_LIFETIME)), ("000000000060", 60.0)])
def test_a_lifetime_is_a_positive_number_of_seconds_up_to_ten_years(value, seconds):
    got = lifetime(value)
    assert got == seconds and type(got) is float


@pytest.mark.parametrize("value", [
    0, -1, "0", MAX_LIFETIME + 1, str(MAX_LIFETIME + 1), math.inf, math.nan, -math.inf, True, False, None, "1.5", "-5",
    " 60", "٣", "1e3", "0000000000060", [60], {"s": 60}, "", "x"])
def test_any_other_lifetime_is_unknown(value):
    assert lifetime(value) is None


def test_ten_years_is_the_longest_lifetime():
    assert MAX_LIFETIME == 10 * 365 * 86400


@pytest.mark.parametrize(("value", "at"), [(1, 1.0), (1700000000, 1700000000.0), (1700000000.5, 1700000000.5),
                                           (MAX_UNIX_TIME, float(MAX_UNIX_TIME))])
def test_a_point_in_time_is_a_positive_number_before_the_year_10000(value, at):
    got = epoch(value)
    assert got == at and type(got) is float


@pytest.mark.parametrize("value", [0, 0.0, -1, MAX_UNIX_TIME + 1, math.inf, math.nan, True, "1700000000", None, [1]])
def test_any_other_point_in_time_is_unknown(value):
    assert epoch(value) is None


def test_a_client_secret_that_expires_at_0_never_expires():
    # RFC 7591 section 3.2.1: 0 means "never"; taken as a time, such a client would be
    # registered again on every run.
    assert not expired({"client_id": "c", "client_secret_expires_at": 0}, now=1.0)
    assert not expired({"client_id": "c", "client_secret_expires_at": 0})
    assert not expired({"client_id": "c"})


def test_a_client_secret_expires_at_its_time():
    client = {"client_id": "c", "client_secret_expires_at": 1000}
    assert not expired(client, now=999.0)
    assert expired(client, now=1000.0)
    assert expired(client, now=1001.0)
    assert expired({"client_id": "c", "client_secret_expires_at": 1})  # long past, by the real clock


def test_the_bounds_are_exclusive_of_0_and_inclusive_of_the_most():
    assert values._bounded(0, 10) is None
    assert values._bounded(10, 10) == 10.0
    assert values._bounded(10.000001, 10) is None
    assert values._bounded(1e-9, 10) == 1e-9
