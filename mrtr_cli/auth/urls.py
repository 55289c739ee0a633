"""The one check of every URL an MCP or authorization server hands mrtr (the challenge's
`resource_metadata`, protected resource metadata `resource` and `authorization_servers`,
authorization server metadata `issuer` and endpoints) before mrtr uses it.

Spec: RFC 9728 sections 2-3 and RFC 8414 section 2 (these members are URLs); 2026-07-28
basic/authorization/security-considerations (metadata is untrusted input).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from mrtr_cli.errors import AuthError
from mrtr_cli.render.sanitize import sanitize


def checked_url(value: Any, member: str) -> str:
    """`value` if it is an absolute http(s) URL that parses (host, port, no control
    characters or spaces); `member` names where it came from (e.g. "the protected
    resource metadata's authorization_servers").

    Raises:
        AuthError: (exit 8) one line naming `member` and the (sanitized) value.
    """
    if isinstance(value, str) and _parses(value):
        return value
    shown = sanitize(str(value), single_line=True)[:200]
    raise AuthError(f"{member} is not a valid http(s) URL: {shown!r}; nothing was sent there")


def _parses(value: str) -> bool:
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in value) or not value.isprintable():
        return False
    import httpx  # noqa: PLC0415

    try:
        p = urlsplit(value)
        p.port  # noqa: B018 - raises ValueError on a bad port
        httpx.URL(value)
    except (ValueError, TypeError, httpx.InvalidURL):
        return False
    return p.scheme in ("http", "https") and bool(p.hostname)
