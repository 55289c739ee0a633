"""Checks of the values an authorization server issues, before mrtr stores or uses them:
tokens (they go into an `Authorization` header or a form, and into the token store),
client ids (they go into URLs, forms and `mrtr auth status`), and numbers (lifetimes
and expiry times). An authorization server is untrusted input like any MCP server: a
value that cannot be used safely is refused (`AuthError`, exit 8) naming the member, and
nothing of it is stored or printed; a number that makes no sense is taken as unknown.

Spec: RFC 6750 section 2.1 (the `b64token` characters of a bearer token), RFC 6749
appendix A (VSCHAR for refresh tokens and client ids), section 5.1 (`expires_in`);
RFC 7591 section 3.2.1 (`client_secret_expires_at`).
"""

from __future__ import annotations

import math

from mrtr_cli.errors import AuthError
from mrtr_cli.transport.http.tokenfile import B64TOKEN as _B64TOKEN
from mrtr_cli.transport.http.tokenfile import MAX_TOKEN_CHARS
from mrtr_cli.transport.http.tokenfile import MAX_UNIX_TIME as MAX_EPOCH
from mrtr_cli.transport.http.tokenfile import VSCHAR as _VSCHAR

#: The longest client id or client secret accepted (characters).
MAX_CLIENT_ID_CHARS = 2048

#: The longest lifetime believed (`expires_in`, seconds): ten years. More is "unknown".
MAX_LIFETIME = 10 * 365 * 86400



def checked_token(value: object, member: str, *, bearer: bool) -> str:
    """`value` if it is a token mrtr can send: a non-empty string of at most
    `MAX_TOKEN_CHARS`, in `b64token` characters for a token sent as `Bearer` (RFC 6750
    section 2.1), else printable ASCII (VSCHAR, RFC 6749 appendix A).

    Args:
        member: where it came from, e.g. "the token response's access_token".
        bearer: the token goes into an `Authorization` header.

    Raises:
        AuthError: (exit 8) naming `member` and the rule; the value is never shown.
    """
    if not isinstance(value, str) or not value:
        raise AuthError(f"{member} is not a non-empty string; nothing was stored")
    if len(value) > MAX_TOKEN_CHARS:
        raise AuthError(f"{member} is {len(value):,} characters long, over the limit of {MAX_TOKEN_CHARS:,}; "
                        "nothing was stored")
    pattern, rule = (_B64TOKEN, "the characters RFC 6750 allows in a bearer token") if bearer else \
        (_VSCHAR, "printable ASCII (RFC 6749)")
    if not pattern.fullmatch(value):
        raise AuthError(f"{member} has characters outside {rule}; it cannot be sent safely, and nothing "
                        "was stored")
    return value


def checked_client_id(value: object, member: str) -> str:
    """`value` if it is a usable client id: a non-empty string of printable ASCII (RFC 6749
    appendix A.1, VSCHAR) of at most `MAX_CLIENT_ID_CHARS`.

    Raises:
        AuthError: (exit 8) naming `member`.
    """
    if not isinstance(value, str) or not value:
        raise AuthError(f"{member} is not a non-empty string; refused")
    if len(value) > MAX_CLIENT_ID_CHARS or not _VSCHAR.fullmatch(value):
        raise AuthError(f"{member} is not printable ASCII of at most {MAX_CLIENT_ID_CHARS} characters; refused")
    return value


def lifetime(value: object) -> float | None:
    """A lifetime in seconds (`expires_in`: a JSON number or a string of digits) if it is
    finite, above 0 and at most `MAX_LIFETIME`; None (unknown) for anything else."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 12:
        value = int(value)
    return _bounded(value, MAX_LIFETIME)


def epoch(value: object) -> float | None:
    """A point in time (Unix seconds) if it is a finite number above 0 and before the year
    10000; None for anything else (0 in `client_secret_expires_at` means "never")."""
    return _bounded(value, MAX_EPOCH)


def _bounded(value: object, most: float) -> float | None:
    """`value` as a float if it is a finite JSON number (not a boolean) above 0 and at most
    `most`; None otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if not 0 < value <= most:
        return None
    return float(value)
