"""Whether a sign-in's tokens are DPoP-bound (RFC 9449) or bearer tokens, decided by the
resource that will take them: its protected resource metadata (RFC 9728 section 2,
`dpop_bound_access_tokens_required`, `dpop_signing_alg_values_supported`) and its
challenge (RFC 9449 section 7.1: `WWW-Authenticate: DPoP algs="..."` beside or instead
of `Bearer`), with the authorization server's `dpop_signing_alg_values_supported`
(RFC 9449 section 5.1) and the user's setting (`--dpop` / `--no-dpop`,
`MRTR_OAUTH_DPOP`, the config's `dpop`).

A resource that says nothing of DPoP gets bearer tokens, as the MCP SDK's client sends:
an authorization server offering DPoP does not make its resources take it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.auth.challenge import Challenge
from mrtr_cli.auth.dpop import ALG
from mrtr_cli.auth.urls import shown
from mrtr_cli.errors import AuthError

#: The settings that turn DPoP on or off, for messages.
FORCED_ON = "--dpop, MRTR_OAUTH_DPOP=1 or the config's \"dpop\": true"
FORCED_OFF = "--no-dpop, MRTR_OAUTH_DPOP=0 or the config's \"dpop\": false"


@dataclass(frozen=True)
class ResourceDpop:
    """What a protected resource says about DPoP-bound tokens.

    Attributes:
        required: it takes DPoP-bound tokens only (its metadata's
            `dpop_bound_access_tokens_required` is true, or its challenge to a request
            without a DPoP-bound token names DPoP and not Bearer).
        offered: it takes DPoP-bound tokens (required, or its metadata lists
            `dpop_signing_alg_values_supported`, or its challenge names DPoP).
        algs: each list of proof algorithms it names (the metadata's, the challenge's
            `algs`); empty: it names none.
        why: what said so, for messages ("its protected resource metadata sets
            dpop_bound_access_tokens_required"); "" when it says nothing.
    """

    required: bool = False
    offered: bool = False
    algs: tuple[tuple[str, ...], ...] = field(default=())
    why: str = ""

    def signs_with(self, alg: str) -> bool:
        """`alg` is in every list of algorithms the resource names (True when it names none)."""
        return all(alg in listed for listed in self.algs)


def _strings(value: object) -> tuple[str, ...] | None:
    """The strings of a JSON list, or None when `value` is no list with one."""
    if not isinstance(value, list):
        return None
    found = tuple(v for v in value if isinstance(v, str))
    return found or None


def resource_dpop(metadata: dict[str, Any] | None, ch: Challenge) -> ResourceDpop:
    """What the resource says about DPoP: its protected resource metadata document (None:
    it has none, a 2025-03-26 server) and the challenge of its 401/403."""
    metadata = metadata or {}
    listed = _strings(metadata.get("dpop_signing_alg_values_supported"))
    algs = tuple(a for a in (listed, tuple(ch.dpop_algs) if ch.dpop_algs else None) if a)
    if metadata.get("dpop_bound_access_tokens_required") is True:
        return ResourceDpop(True, True, algs, "its protected resource metadata sets dpop_bound_access_tokens_required")
    if ch.requires_dpop:
        return ResourceDpop(True, True, algs, "its challenge names DPoP and not Bearer")
    if listed:
        return ResourceDpop(False, True, algs,
                            "its protected resource metadata lists dpop_signing_alg_values_supported")
    if ch.offers_dpop:
        return ResourceDpop(False, True, algs, "its challenge names DPoP")
    return ResourceDpop()


def choose(want: bool | None, resource: ResourceDpop, as_algs: object, *, label: str, issuer: str | None,
           note: Callable[[str], None] | None = None) -> bool:
    """True for DPoP-bound tokens, False for bearer tokens.

    Args:
        want: the user's setting: True always (`--dpop`), False never (`--no-dpop`),
            None: when the resource takes DPoP.
        resource: what the resource says (`resource_dpop`).
        as_algs: the authorization server's `dpop_signing_alg_values_supported` as its
            metadata has it (None or anything else: not listed, or unknown).
        label: how messages name the MCP server; `issuer`: the authorization server.
        note: shows a `-v` note (why an offered DPoP is not used), or None.

    Without a setting: a resource that requires DPoP gets it (also from an authorization
    server that does not list it: nothing else can work there); a resource that offers it
    gets it when the authorization server lists DPoP with an algorithm both take, and
    mrtr can sign proofs (`cryptography`); anything else gets bearer tokens.

    Raises:
        AuthError: the resource requires DPoP and the setting refuses it, or no proof
            algorithm mrtr signs with (ES256) is one both the resource and the
            authorization server take while DPoP is required or asked for.
    """
    server_algs = _strings(as_algs)
    as_signs = server_algs is None or ALG in server_algs
    if want is False:
        if resource.required:
            raise AuthError(f"{label} takes DPoP-bound tokens only ({resource.why}), and DPoP is turned off "
                            f"({FORCED_OFF})", hint="leave that setting out: mrtr then signs in with DPoP")
        return False
    if want is None and not resource.required:
        if not resource.offered or server_algs is None or not as_signs or not resource.signs_with(ALG):
            return False
        if not _can_sign():
            if note is not None:
                note("mrtr: oauth: the server takes DPoP; without the cryptography package "
                     "(pip install 'mrtr[jwt]') mrtr asks for bearer tokens")
            return False
        return True
    if not resource.signs_with(ALG):
        named = " ".join(sorted({a for listed in resource.algs for a in listed}))
        raise AuthError(f"{label} takes DPoP proofs signed with {shown(named)} only; mrtr signs them with {ALG}",
                        hint=None if resource.required else f"leave out {FORCED_ON} for bearer tokens")
    if not as_signs:
        raise AuthError(f"the authorization server {shown(issuer)} takes DPoP proofs signed with "
                        f"{shown(' '.join(server_algs or ()))} only; mrtr signs them with {ALG}",
                        hint=None if resource.required else f"leave out {FORCED_ON} for bearer tokens")
    return True


def _can_sign() -> bool:
    """The `cryptography` package is there to sign proofs (the `jwt` extra)."""
    import importlib.util  # noqa: PLC0415 - lazy for start-up time

    return importlib.util.find_spec("cryptography") is not None
