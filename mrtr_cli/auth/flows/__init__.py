"""The ways to a token, each a base class of `OAuthClient` (auth/client.py) or what one
of them runs: the authorization code flow (`code`: `CodeFlow`) with PKCE and the
browser (`pkce`), asking before a browser opens (`consent`) and the loopback redirect
listener (`loopback`); the sign-ins with nobody present (`unattended`) and grants on a
JWT someone else issued (`federation`); refreshing a stored token (`refresh`).
"""

from mrtr_cli.auth.flows.code import CodeFlow

__all__ = ["CodeFlow"]
