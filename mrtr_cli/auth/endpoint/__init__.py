"""The token endpoint (2026-07-28 basic/authorization; RFC 6749, RFC 9449): its grants
and revocation (`grants`), one token request made safely (`requests`:
`TokenRequests`, with a DPoP proof from auth/dpop.py when the token is to be bound), and
whether a sign-in's tokens are DPoP-bound or bearer tokens (`binding`).
"""

from mrtr_cli.auth.endpoint.requests import TokenRequests

__all__ = ["TokenRequests"]
