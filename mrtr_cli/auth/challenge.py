"""`WWW-Authenticate` challenges (RFC 6750 section 3, RFC 9728 section 5.1, RFC 9449
section 7.1).

Spec: 2026-07-28 basic/authorization "Scope Selection Strategy", "Scope Challenge Handling";
authorization-server-discovery "Protected Resource Metadata Discovery Requirements".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: An auth-scheme or auth-param name (RFC 9110 section 5.6.2 `token`).
_TOKEN = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+")
_EQUALS = re.compile(r"\s*=\s*")
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"?')
_BARE = re.compile(r'[^\s,"]*')
#: A token68 (RFC 9110 section 11.2, `Basic dXNlcg==`) with what ends it: the end or a comma.
_TOKEN68 = re.compile(r"[A-Za-z0-9._~+/-]+=*[ \t]*(?:,|$)")


@dataclass
class Challenge:
    """The OAuth challenge of a 401/403 response.

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
        schemes: every auth-scheme the header names, lower-cased, in order (e.g.
            ("bearer", "dpop") for `Bearer ..., DPoP algs="ES256"`).
        dpop_algs: the DPoP challenge's `algs` (RFC 9449 section 7.1: the JWS algorithms
            the resource takes for proofs), or None when it names none.
        answered_dpop: the request this answers carried a DPoP-bound token (set by the
            caller): a resource answers such a request in the DPoP scheme, so a challenge
            naming DPoP alone then says nothing about bearer tokens.
    """

    status: int
    resource_metadata: str | None = None
    scope: str | None = None
    error: str | None = None
    error_description: str | None = None
    bearer: bool = False
    dpop: bool = False
    schemes: tuple[str, ...] = field(default=())
    dpop_algs: list[str] | None = None
    answered_dpop: bool = False

    @property
    def insufficient_scope(self) -> bool:
        return self.status == 403 and self.error == "insufficient_scope"

    @property
    def scopes(self) -> list[str]:
        return (self.scope or "").split()

    @property
    def offers_dpop(self) -> bool:
        """The resource names the DPoP scheme: it takes DPoP-bound tokens (RFC 9449 section 7.1)."""
        return "dpop" in self.schemes

    @property
    def refuses_dpop(self) -> bool:
        """The resource asks for bearer tokens and names no DPoP (RFC 9449 section 7.1: a
        resource that takes DPoP says so in its challenges)."""
        return "bearer" in self.schemes and "dpop" not in self.schemes

    @property
    def requires_dpop(self) -> bool:
        """The resource names DPoP and not Bearer, answering a request that carried no
        DPoP-bound token: it takes DPoP-bound tokens only."""
        return self.offers_dpop and "bearer" not in self.schemes and not self.answered_dpop


def challenges(header: str) -> list[tuple[str | None, dict[str, str]]]:
    """The challenges of a `WWW-Authenticate` value (RFC 9110 section 11.6.1), in order:
    (scheme lower-cased, {param name lower-cased: value unquoted}); parameters before any
    scheme go to a first entry with scheme None. A token68 (`Basic dXNlcg==`) is skipped,
    and so is text that is neither a scheme nor a parameter; a quoted string is never
    read as a scheme."""
    out: list[tuple[str | None, dict[str, str]]] = []
    current: dict[str, str] | None = None
    token68_slot = False  # just after a scheme's name, where its token68 may stand
    pos, end = 0, len(header)
    while pos < end:
        if header[pos] in " \t,":
            token68_slot = token68_slot and header[pos] != ","
            pos += 1
            continue
        token68 = _TOKEN68.match(header, pos) if token68_slot else None
        token68_slot = False
        if token68 is not None:
            pos = token68.end()
            continue
        name = _TOKEN.match(header, pos)
        if name is None:  # a stray character; a quoted string is skipped whole
            quoted = _QUOTED.match(header, pos)
            pos = quoted.end() if quoted is not None and quoted.end() > pos else pos + 1
            continue
        equals = _EQUALS.match(header, name.end())
        if equals is None:
            current = {}
            out.append((name.group().lower(), current))
            pos, token68_slot = name.end(), True
            continue
        quoted = _QUOTED.match(header, equals.end())
        if quoted is not None:
            value, pos = re.sub(r"\\(.)", r"\1", quoted.group(1)), quoted.end()
        else:
            bare = _BARE.match(header, equals.end())
            value, pos = (bare.group(), bare.end()) if bare is not None else ("", equals.end())
        if current is None:
            current = {}
            out.append((None, current))
        current.setdefault(name.group().lower(), value)
    return out


def parse_challenge(status: int, header: str | None) -> Challenge:
    """Parse the `WWW-Authenticate` header of a 401/403 response: the Bearer challenge's
    parameters, else the DPoP challenge's (parameters of other schemes are ignored when
    one of those is present; without either, the first challenge's), every scheme named
    and the DPoP challenge's `algs`."""
    ch = Challenge(status)
    if not header:
        return ch
    found = challenges(header)
    ch.schemes = tuple(scheme for scheme, _ in found if scheme is not None)
    by_scheme: dict[str | None, dict[str, str]] = {}
    for scheme, params in found:
        by_scheme.setdefault(scheme, params)
    if "dpop" in by_scheme and "algs" in by_scheme["dpop"]:
        ch.dpop_algs = by_scheme["dpop"]["algs"].split()
    if "bearer" in by_scheme or "dpop" in by_scheme:
        ch.bearer = True
        ch.dpop = "bearer" not in by_scheme
        params = by_scheme["dpop" if ch.dpop else "bearer"]
    else:
        params = found[0][1] if found else {}
    ch.resource_metadata = params.get("resource_metadata")
    ch.scope = params.get("scope")
    ch.error = params.get("error")
    ch.error_description = params.get("error_description")
    return ch


#: What a server that asks for a bearer token but publishes no authorization metadata
#: takes: a token the user has.
TOKEN_OPTIONS_HINT = ("give the token with --bearer-token-env VAR (VAR holding it) "
                      "or -H 'Authorization: Bearer TOKEN'; or a header of its own: -H 'NAME: VALUE'")
