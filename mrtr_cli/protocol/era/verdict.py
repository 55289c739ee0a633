"""What a server's answers say about its protocol era: the `server/discover` probe's
response, a late probe answer, a failed `initialize`.

Spec: 2026-07-28 `basic/versioning` ("Backward Compatibility with Initialization-Based
Versions"). A `DiscoverResult`, or a recognised modern error (`-32020`, `-32021`,
`-32022`), means modern, at a version picked from `supportedVersions` /
`data.supported` (when those list only handshake versions, the server is spoken to as
legacy); any other error or answer means legacy. The fallback is never keyed to one
error code. An `initialize` that fails as only a modern server would (`-32601` when the
probe named no versions, a modern error, versions listed in `data.supported`, or a late
`DiscoverResult` from a slow-starting server) means modern after all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mrtr_cli.errors import JsonRpcError, ProtocolError
from mrtr_cli.protocol.legacy_versions import LEGACY_VERSIONS
from mrtr_cli.protocol.modern import (
    HEADER_MISMATCH,
    LATEST_MODERN,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    MODERN_VERSIONS,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from mrtr_cli.render.sanitize import one_line
from mrtr_cli.transport.base import Message
from mrtr_cli.transport.future import Future

#: JSON-RPC error codes that only a modern (2026-07-28+) server sends.
MODERN_ERRORS = frozenset({HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION})
METHOD_NOT_FOUND = -32601


@dataclass(eq=False, repr=False)
class Verdict:
    """The outcome of an era probe.

    Attributes:
        era: "modern" or "legacy".
        version: the version to speak (or offer), or None for the newest.
        discover: the DiscoverResult, when the server sent one.
        reason: what the probe saw, for `-v` and error hints.
        silent: the verdict comes from no answer within the probe timeout (a guess: a
            slow modern server looks the same), not from anything the server said.
    """

    era: str
    version: str | None = None
    discover: dict[str, Any] | None = None
    reason: str = ""
    silent: bool = False


def _common(versions: object) -> tuple[str | None, str | None]:
    """(newest modern, newest legacy) version in `versions` that this client speaks."""
    if not isinstance(versions, list):
        return None, None
    modern = next((v for v in reversed(MODERN_VERSIONS) if v in versions), None)
    legacy = next((v for v in LEGACY_VERSIONS if v in versions), None)
    return modern, legacy


def _from_versions(versions: object, discover: dict[str, Any] | None, what: str) -> Verdict:
    modern, legacy = _common(versions)
    if modern:
        return Verdict("modern", modern, discover, what)
    if legacy:
        return Verdict("legacy", legacy, None, f"{what}, listing only handshake versions")
    shown = ", ".join(str(v) for v in versions) if isinstance(versions, list) else "(none)"
    raise ProtocolError(f"the server supports protocol versions {shown}; mrtr speaks none of them",
                        hint="mrtr speaks " + ", ".join((*MODERN_VERSIONS, *LEGACY_VERSIONS)))


def classify_response(response: Message) -> Verdict:
    """The era a `server/discover` response reveals (2026-07-28 basic/versioning).

    Raises:
        ProtocolError: a modern answer listing only versions this client does not speak.
    """
    error = response.get("error")
    if isinstance(error, dict):
        code = error.get("code")
        data = error.get("data")
        if code in MODERN_ERRORS:
            if code == UNSUPPORTED_PROTOCOL_VERSION:
                return _from_versions((data or {}).get("supported") if isinstance(data, dict) else None, None,
                                      "server/discover answered -32022")
            return Verdict("modern", LATEST_MODERN, None, f"server/discover answered {code}")
        message = one_line(error.get("message", ""), 120)
        return Verdict("legacy", None, None, f"server/discover answered {code} {message}".rstrip())
    result = response.get("result")
    if isinstance(result, dict) and isinstance(result.get("supportedVersions"), list) \
            and isinstance(result.get("capabilities"), dict):
        return _from_versions(result["supportedVersions"], result, "server/discover answered")
    return Verdict("legacy", None, None, "server/discover answered something that is not a DiscoverResult")


def late_modern(late: Future[Message] | None) -> Verdict | None:
    """The modern verdict of a probe answer that came after the probe timeout, else None."""
    if late is None or not late.done() or late.cancelled() or late.exception() is not None:
        return None
    try:
        verdict = classify_response(late.result())
    except ProtocolError:
        return None
    return verdict if verdict.era == "modern" else None


def modern_after_all(exc: Exception, late: Future[Message] | None, *,
                      guess: bool) -> Verdict | None:
    """A modern verdict from a failed `initialize` (or a late probe answer), else None.
    With `guess` (the probe named no versions), `-32601` for `initialize` counts as modern."""
    verdict = late_modern(late)
    if verdict is not None:
        return verdict
    if isinstance(exc, JsonRpcError):
        modern, _ = _common((exc.data or {}).get("supported") if isinstance(exc.data, dict) else None)
        if modern:
            return Verdict("modern", modern, None, "initialize error lists a modern version")
        if exc.code in MODERN_ERRORS or (guess and exc.code == METHOD_NOT_FOUND):
            return Verdict("modern", LATEST_MODERN, None, f"initialize answered {exc.code}")
    return None

