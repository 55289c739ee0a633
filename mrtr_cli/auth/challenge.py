"""`WWW-Authenticate` challenges (RFC 6750 section 3, RFC 9728 section 5.1).

Spec: 2026-07-28 basic/authorization "Scope Selection Strategy", "Scope Challenge Handling";
authorization-server-discovery "Protected Resource Metadata Discovery Requirements".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PARAM = re.compile(r'([A-Za-z0-9_\-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')


@dataclass
class Challenge:
    """The Bearer challenge of a 401/403 response.

    Attributes:
        status: the HTTP status (401 or 403).
        resource_metadata: the protected resource metadata URL, or None.
        scope: the scopes the operation needs (space separated as sent), or None.
        error: the `error` code (e.g. "insufficient_scope", "invalid_token"), or None.
        error_description: the server's text (untrusted), or None.
        bearer: the response carried a `WWW-Authenticate` Bearer or DPoP challenge (an
            OAuth one; False: no header, or only other schemes: the server did not ask for
            an OAuth sign-in).
        dpop: the challenge read was a DPoP one (RFC 9449 section 7.1).
    """

    status: int
    resource_metadata: str | None = None
    scope: str | None = None
    error: str | None = None
    error_description: str | None = None
    bearer: bool = False
    dpop: bool = False

    @property
    def insufficient_scope(self) -> bool:
        return self.status == 403 and self.error == "insufficient_scope"

    @property
    def scopes(self) -> list[str]:
        return (self.scope or "").split()


def parse_challenge(status: int, header: str | None) -> Challenge:
    """Parse the `WWW-Authenticate` header of a 401/403 response (the Bearer challenge's
    parameters, else the DPoP challenge's; parameters of other schemes are ignored when
    one of those is present)."""
    ch = Challenge(status)
    if not header:
        return ch
    text = header
    lower = header.lower()
    at = lower.find("bearer")
    scheme = "bearer"
    if at < 0:
        found = re.search(r"(?:^|,)\s*(dpop)(?:\s|$)", lower)
        at, scheme = (found.start(1) if found else -1), "dpop"
    if at >= 0:
        ch.bearer = True
        ch.dpop = scheme == "dpop"
        text = header[at + len(scheme):]
    params: dict[str, str] = {}
    pos = 0
    while True:
        m = _PARAM.search(text, pos)
        if m is None:
            break
        # A new scheme name before this parameter ends the Bearer challenge.
        between = text[pos:m.start()]
        if pos and re.search(r",\s*[A-Za-z][\w.-]*\s+$", between):
            break
        key = m.group(1).lower()
        value = m.group(2) if m.group(2) is not None else m.group(3)
        if m.group(2) is not None:
            value = re.sub(r"\\(.)", r"\1", value)
        params.setdefault(key, value)
        pos = m.end()
    ch.resource_metadata = params.get("resource_metadata")
    ch.scope = params.get("scope")
    ch.error = params.get("error")
    ch.error_description = params.get("error_description")
    return ch
