"""Choosing the protocol era of a server, and opening the matching session.

Spec: 2026-07-28 `basic/versioning` ("Backward Compatibility with Initialization-Based
Versions"), `basic/transports/stdio` and `streamable-http` ("Backward Compatibility").

`--protocol auto` (the default) probes with `server/discover` carrying the modern
`_meta` envelope, on both transports (on HTTP it is "the modern request" whose 400
body is inspected; it has no side effects, so the era is known before any
era-ambiguous call is sent):

- a `DiscoverResult`, or a recognised modern error (`-32020`, `-32021`, `-32022`),
  means modern; a version is picked from `supportedVersions` / `data.supported`
  (when those list only handshake versions, the server is spoken to as legacy);
- any other error, an HTTP 4xx without a modern body, anything unrecognised, or no
  answer within the probe timeout means legacy: `initialize` follows. The fallback
  is never keyed to one error code. On stdio the probe timeout counts from when the
  server has read the probe from its stdin (`Transport.unread_input`): a server that
  has not begun reading is still starting, and is waited for (`STARTING_LIMIT`, within
  --timeout) without any verdict. No answer is only a guess: a server the era cache
  knows to be modern gets `KNOWN_MODERN_PROBE_TIMEOUT` (a slow start is no evidence),
  and a `server/discover` answer that comes late, with or before the `initialize`
  answer, wins (the session is modern). `--timeout` running out during the probe is
  a timeout (exit 7) saying which request waited, never a legacy verdict.

If that `initialize` then fails in a way only a modern server would (`-32601`, a
modern error, versions listed in `data.supported`, or a late `DiscoverResult` from a
slow-starting server), the session is modern after all.

The era found is cached per server in the state directory (`eras.json`, keyed by a
hash of the stdio command or the URL: no secrets). A server known to be legacy is
sent `initialize` at once, so a silent legacy server costs the probe timeout only
once; when that cached guess fails, or a request in it gets a modern-only error
(`EraChanged`: the command runs again), the cache entry is dropped and the server is
probed again. A verdict from silence is a guess: it is said on stderr and cached only
for a stdio server given the full default probe time, for `SILENT_TTL` seconds. A
modern verdict (or a working `--protocol 2026-07-28`) is recorded but the probe still
runs (it costs one round trip, and skipping it could send a call to a server that
changed era). `MRTR_NO_CACHE` turns the cache off.

`--protocol 2026-07-28` pins modern (no probe); `--protocol 2025-11-25` (or any older
handshake version) pins the handshake, offering that version.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mrtr_cli.digest import sha256_hex
from mrtr_cli.env import Environment
from mrtr_cli.errors import (AuthError, EraChanged, JsonRpcError, MrtrError, ProtocolError, TimeoutExpired,
                             TransportError, UsageError)
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.headers import request_headers
from mrtr_cli.protocol.jsonrpc import make_request
from mrtr_cli.protocol.legacy import LATEST_LEGACY, LEGACY_VERSIONS, LegacySession, ServerRequestHandler
from mrtr_cli.protocol.modern import (
    HEADER_MISMATCH,
    LATEST_MODERN,
    META,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    MODERN_VERSIONS,
    UNSUPPORTED_PROTOCOL_VERSION,
    client_info,
)
from mrtr_cli.protocol.session import Session
from mrtr_cli.protocol.waiting import timeout_error
from mrtr_cli.render.sanitize import sanitize
from mrtr_cli.render.trace import Tracer
from mrtr_cli.transport.base import Message, Transport
from mrtr_cli.transport.future import Future

#: JSON-RPC error codes that only a modern (2026-07-28+) server sends.
MODERN_ERRORS = frozenset({HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION})
METHOD_NOT_FOUND = -32601
DEFAULT_PROBE_TIMEOUT = 2.0
#: Seconds the probe waits for a server the era cache knows to be modern (within
#: --timeout): a slow start (npx, docker run) is no evidence of the legacy era.
KNOWN_MODERN_PROBE_TIMEOUT = 60.0
#: Seconds the probe waits for a stdio server to begin reading its stdin before the
#: probe timeout starts counting (within --timeout): a server still starting is no
#: evidence of either era. Beyond this, the probe timeout counts anyway.
STARTING_LIMIT = 120.0
#: Seconds between two looks at whether a starting stdio server has read the probe.
READ_POLL = 0.02
CACHE_FILE = "eras.json"
#: Seconds a legacy guess from a silent probe stays cached (a verdict the server gave stays).
SILENT_TTL = 3600


def parse_protocol(value: str | None) -> tuple[str, str | None]:
    """`--protocol` as `(era, version)`: `("auto", None)`, `("modern", "2026-07-28")`
    or `("legacy", "2025-06-18")`.

    Raises:
        UsageError: not `auto` and not a version this client speaks.
    """
    if value in (None, "", "auto"):
        return "auto", None
    if value in MODERN_VERSIONS:
        return "modern", value
    if value in LEGACY_VERSIONS:
        return "legacy", value
    choices = ", ".join(("auto", *reversed(MODERN_VERSIONS), *LEGACY_VERSIONS))
    raise UsageError(f"--protocol {value}: expected one of {choices}")


@dataclass
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


def _common(versions: Any) -> tuple[str | None, str | None]:
    """(newest modern, newest legacy) version in `versions` that this client speaks."""
    if not isinstance(versions, list):
        return None, None
    modern = next((v for v in reversed(MODERN_VERSIONS) if v in versions), None)
    legacy = next((v for v in LEGACY_VERSIONS if v in versions), None)
    return modern, legacy


def _from_versions(versions: Any, discover: dict[str, Any] | None, what: str) -> Verdict:
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
        message = sanitize(str(error.get("message", "")), single_line=True)[:120]
        return Verdict("legacy", None, None, f"server/discover answered {code} {message}".rstrip())
    result = response.get("result")
    if isinstance(result, dict) and isinstance(result.get("supportedVersions"), list) \
            and isinstance(result.get("capabilities"), dict):
        return _from_versions(result["supportedVersions"], result, "server/discover answered")
    return Verdict("legacy", None, None, "server/discover answered something that is not a DiscoverResult")


def probe(transport: Transport, tracer: Tracer, *, timeout: float, deadline: Deadline,
          capabilities: dict[str, Any] | None = None) -> tuple[Verdict, Future[Message] | None]:
    """Send `server/discover` with the modern envelope (declaring `capabilities`: what the
    run declares on a call, protocol/capabilities.py) and classify what comes back.

    Returns:
        (verdict, late): `late` is the still-pending probe on stdio when it timed out,
        so a slow-starting modern server's answer can still be recognised.

    Raises:
        AuthError: HTTP 401/403 (never a reason to fall back).
        TransportError: the server cannot be started or reached.
        ProtocolError: a modern server that speaks no version in common.
    """
    from mrtr_cli.transport.http import BrokenStream, HttpStatusError  # noqa: PLC0415

    params = {"_meta": {META + "protocolVersion": LATEST_MODERN, META + "clientCapabilities": capabilities or {},
                        META + "clientInfo": client_info()}}
    msg = make_request("server/discover", params)
    tracer.message("send", msg)
    fut = transport.request(msg, request_headers("server/discover", params, LATEST_MODERN))
    # The probe timeout counts from when the server has read the probe: one that has not
    # begun reading its stdin is still starting, and its silence says nothing yet.
    read_after = _wait_until_read(fut, transport, deadline)
    if read_after is not None:
        tracer.note(f"era probe: the server read server/discover {read_after:.2f}s after it was sent "
                    "(the probe timeout counts from then)")
    left = deadline.remaining()
    limit = timeout if left is None else max(min(timeout, left), 0.0)
    cut_by_deadline = left is not None and left <= timeout  # --timeout, not the probe timeout, ends the wait
    try:
        response = _probe_result(fut, limit, transport)
    except TimeoutError:
        if cut_by_deadline or deadline.expired():  # --timeout ran out during the probe: no evidence of any era
            if transport.cancel_by_close:
                transport.abort(msg["id"])
            raise _probe_timeout_error(transport, deadline) from None
        silence = Verdict("legacy", None, None, f"server/discover: no answer within {limit:g}s", silent=True)
        if transport.cancel_by_close:
            transport.abort(msg["id"])
            return silence, None
        return silence, fut
    except AuthError:
        raise
    except HttpStatusError as exc:
        if exc.status >= 500:
            _add_hint(exc, "if this server speaks an older protocol, try --protocol 2025-11-25")
            raise
        return Verdict("legacy", None, None, f"server/discover: HTTP {exc.status} without a modern error"), None
    except BrokenStream as exc:
        return Verdict("legacy", None, None, f"server/discover: {exc.message}"), None
    except ProtocolError as exc:
        return Verdict("legacy", None, None, f"server/discover: {exc.message}"), None
    except TransportError as exc:
        if not exc.hint and transport.unread_input() == 0:
            # Only a server that read the probe and then failed may have failed on it (an
            # older server that does not know server/discover); one that died before reading
            # it, or a connection that never opened, says nothing about its protocol.
            exc.hint = "if this server speaks an older protocol, try --protocol 2025-11-25"
        raise
    tracer.message("recv", response)
    return classify_response(response), None


def _probe_timeout_error(transport: Transport, deadline: Deadline) -> TimeoutExpired:
    """The exit-7 error of a probe that `--timeout` cut short: the server did not answer
    `server/discover` in time, which says nothing about its era (never a legacy verdict)."""
    allowed = deadline.bound_seconds()
    return timeout_error(transport, deadline, "server/discover",
                         text="the server did not answer server/discover (the era probe) within --timeout"
                              + ("" if allowed is None else f" ({allowed:.3g}s)"))


def _wait_until_read(fut: Future[Message], transport: Transport,
                     deadline: Deadline) -> float | None:
    """Wait while a stdio server has not read the probe from its stdin (it is still
    starting: importing, installing, pulling an image), at most `STARTING_LIMIT` seconds
    and within `deadline`.

    Returns:
        the seconds waited, or None where the transport cannot tell (HTTP, a system
        without FIONREAD): the probe timeout then counts from the send.
    """
    if transport.unread_input() is None:
        return None
    start = time.monotonic()
    while not fut.done() and transport.alive():
        if not transport.unread_input():
            break
        left = deadline.remaining()
        if (left is not None and left <= 0) or time.monotonic() - start >= STARTING_LIMIT:
            break
        try:
            fut.exception(timeout=READ_POLL if left is None else min(READ_POLL, left))
        except Exception:  # noqa: BLE001 - only waiting (TimeoutError: not yet); the caller reads the result
            pass
    return time.monotonic() - start


def _probe_result(fut: Future[Message], limit: float, transport: Transport) -> Message:
    """The probe's response within `limit` seconds, not counting the time a person spends
    signing in for it (a 401 answered by OAuth on the request's thread): the retried
    probe then gets `limit` again.

    Raises:
        TimeoutError: no answer in time.
    """
    while True:
        try:
            return fut.result(timeout=limit)
        except TimeoutError:
            if not transport.wait_sign_in():
                raise


# ---------------------------------------------------------------------- era cache
def server_key(*, url: str | None = None, command: list[str] | None = None, cwd: str | None = None) -> str:
    """The era-cache key of a server: a hash of its URL, or of its stdio command line and
    working directory (never stored in the clear: a URL or argv may hold a token)."""
    text = f"url\0{url}" if url else "stdio\0" + "\0".join(command or []) + f"\0{cwd or ''}"
    return sha256_hex(text.encode("utf-8"))[:32]


class EraCache:
    """`eras.json` in the state directory: `{"servers": {key: {era, protocolVersion, checkedAt[, source]}}}`
    (`checkedAt`: when the entry last changed, in Unix seconds; `source: "timeout"`: a
    legacy guess made because the probe got no answer, which expires after
    `SILENT_TTL` seconds, since a slow modern server looks the same).

    Reads and writes are best effort: a missing or broken file is an empty cache, and
    a failed write is ignored (the next run probes again).
    """

    def __init__(self, path: str | None = None):
        if path is None:
            from mrtr_cli.state import state_dir  # noqa: PLC0415

            path = os.path.join(state_dir(), CACHE_FILE)
        self.path = path

    def _load(self) -> dict[str, Any]:
        try:
            with open(self.path, encoding="utf-8") as fh:
                doc = json.load(fh)
        except (OSError, ValueError):
            return {}
        servers = doc.get("servers") if isinstance(doc, dict) else None
        return servers if isinstance(servers, dict) else {}

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached entry for `key`, or None (also for a guess from silence older than
        `SILENT_TTL`)."""
        entry = self._load().get(key)
        if not isinstance(entry, dict):
            return None
        if entry.get("source") == "timeout":
            checked = entry.get("checkedAt")
            if not isinstance(checked, (int, float)) or not 0 <= time.time() - checked < SILENT_TTL:
                return None
        return entry

    def put(self, key: str, era: str, version: str | None, *, silent: bool = False) -> None:
        """Record the era (and version) found for `key` (nothing is written when the cache
        already says so: most runs find what the last one found). `silent`: a guess from a
        probe that got no answer (kept `SILENT_TTL` seconds)."""
        known = self.get(key)
        if known is not None and known.get("era") == era and known.get("protocolVersion") == version \
                and (known.get("source") == "timeout") == silent:
            return
        entry: dict[str, Any] = {"era": era, "protocolVersion": version, "checkedAt": int(time.time())}
        if silent:
            entry["source"] = "timeout"
        self._store(key, entry)

    def forget(self, key: str) -> None:
        """Drop `key` (its cached guess failed)."""
        self._store(key, None)

    def _store(self, key: str, entry: dict[str, Any] | None) -> None:
        servers = self._load()
        if entry is None:
            if servers.pop(key, None) is None:
                return
        else:
            servers[key] = entry
        try:
            directory = os.path.dirname(self.path)
            os.makedirs(directory, exist_ok=True)
            import tempfile  # noqa: PLC0415 - only when the cache changes (startup time)

            fd, tmp = tempfile.mkstemp(prefix=".eras-", dir=directory)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"servers": servers}, fh, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError:
            pass


# ---------------------------------------------------------------------- sessions
@dataclass
class SessionSettings:
    """How to open a session.

    Attributes:
        protocol: `--protocol`: "auto", a modern version, or a handshake version.
        probe_timeout: seconds to wait for the `server/discover` probe.
        probe_timeout_given: the user chose `probe_timeout` (`--probe-timeout`): it holds
            even for a server the cache knows to be modern.
        log_level: `--log-level`.
        capabilities: what this run can answer (declared per request when modern, in
            `initialize` when legacy).
        target: the public target description (pending-style documents).
        cache_key: the era-cache key (`server_key`), or None to use no cache.
        responder: builds the server-request answerer (legacy sessions only; it is told
            the capabilities declared in `initialize`).
        on_log: called with the params of each `notifications/message`.
        rejoin: a legacy HTTP session to rejoin instead of initializing one
            (`LegacySession.rejoin`), or None.
        observer: `--strict`'s checker (protocol/strict.py), set on the session before it
            sends anything, or None.
    """

    protocol: str = "auto"
    probe_timeout: float = DEFAULT_PROBE_TIMEOUT
    probe_timeout_given: bool = False
    log_level: str | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)
    target: dict[str, Any] = field(default_factory=dict)
    cache_key: str | None = None
    responder: Callable[[], ServerRequestHandler] | None = None
    on_log: Callable[[dict[str, Any]], None] | None = None
    rejoin: dict[str, Any] | None = None
    observer: Any = None


class _Opener:
    """Builds and opens the session for one transport (see the module docstring)."""

    def __init__(self, transport: Transport, env: Environment, tracer: Tracer, settings: SessionSettings,
                 deadline: Deadline):
        self.transport = transport
        self.env = env
        self.tracer = tracer
        self.settings = settings
        self.deadline = deadline
        self.key = settings.cache_key
        self.cache = EraCache() if self.key and os.environ.get("MRTR_NO_CACHE", "") in ("", "0") else None

    def modern(self, version: str | None) -> Session:
        session = Session(self.transport, self.env, self.tracer, protocol_version=version or LATEST_MODERN,
                          log_level=self.settings.log_level)
        session.on_log = self.settings.on_log
        session.capabilities = dict(self.settings.capabilities)
        session.observer = self.settings.observer
        return session

    def legacy(self, version: str | None) -> LegacySession:
        responder = self.settings.responder() if self.settings.responder is not None else None
        session = LegacySession(self.transport, self.env, self.tracer, protocol_version=version or LATEST_LEGACY,
                                log_level=self.settings.log_level, capabilities=self.settings.capabilities,
                                responder=responder, target=self.settings.target)
        session.on_log = self.settings.on_log
        session.rejoin = self.settings.rejoin
        session.observer = self.settings.observer
        return session

    def open(self) -> Session:
        era, version = parse_protocol(self.settings.protocol)
        if era != "auto":
            session: Session = self.modern(version) if era == "modern" else self.legacy(version)
            try:
                session.open(self.deadline)
            except TransportError as exc:
                if _server_error(exc):
                    other = "2025-11-25" if era == "modern" else "2026-07-28 (or --protocol auto)"
                    _add_hint(exc, f"if this server speaks another protocol version, try --protocol {other}")
                raise
            self.tracer.note(f"speaking MCP {session.protocol_version} ({session.era}, --protocol {version})")
            if era == "modern" and self.cache is not None and self.key:
                # A modern server proved itself; a pinned handshake proves nothing (dual-era
                # servers accept initialize too), so it leaves the cache alone.
                self.cache.put(self.key, "modern", session.protocol_version)
            return session
        self.transport.start(lambda msg: self.tracer.message("recv", msg))
        return self._from_cache() or self._probe_and_open()

    def _from_cache(self) -> Session | None:
        """A server known to be legacy gets `initialize` at once; None when unknown, modern,
        or when that guess fails (the entry is then dropped)."""
        known = self.cache.get(self.key) if self.cache is not None and self.key else None
        if not known or known.get("era") != "legacy":
            return None
        session = self.legacy(known.get("protocolVersion"))
        session.adopt_transport()
        try:
            session.initialize(self.deadline)
        except (ProtocolError, TransportError) as exc:
            if not _refused(exc):
                raise
            self.tracer.note(f"the cached era (legacy) failed ({exc.message}); probing again")
            getattr(self.transport, "session_headers", {}).clear()
            if self.cache is not None and self.key:
                self.cache.forget(self.key)
            return None
        self.tracer.note(f"speaking MCP {session.protocol_version} (legacy, known from the era cache)")
        session.on_error = self._doubt_cached_legacy
        return session

    def _doubt_cached_legacy(self, err: JsonRpcError) -> None:
        """A session opened as legacy from the cache got a modern-only error: the server
        changed era. Drop the entry and raise `EraChanged` (the command then runs again)."""
        if err.code not in MODERN_ERRORS:
            return
        if self.cache is not None and self.key:
            self.cache.forget(self.key)
        raise EraChanged(f"the server answered {err.code} ({sanitize(err.message, single_line=True)[:120]}), "
                         "which only a 2026-07-28 server sends, to a request in the cached era (legacy)",
                         code=err.code, data=err.data,
                         hint="the era cache entry is dropped: run the command again (it probes the server)")

    def _probe_and_open(self) -> Session:
        known = self.cache.get(self.key) if self.cache is not None and self.key else None
        timeout = self.settings.probe_timeout
        if known and known.get("era") == "modern" and not self.settings.probe_timeout_given:
            # A server known to be modern that is slow to answer is starting, not legacy.
            timeout = max(timeout, KNOWN_MODERN_PROBE_TIMEOUT)
        from mrtr_cli.protocol.capabilities import declared_for  # noqa: PLC0415

        verdict, late = probe(self.transport, self.tracer, timeout=timeout, deadline=self.deadline,
                              capabilities=declared_for(self.settings.capabilities, "server/discover"))
        self.tracer.note(f"era probe: {verdict.reason} -> {verdict.era}")
        if verdict.era == "modern":
            return self._remember(self._adopt_modern(verdict.version, verdict.discover))
        legacy = self.legacy(verdict.version)
        legacy.adopt_transport()
        try:
            legacy.initialize(self.deadline)
        except (ProtocolError, TransportError) as exc:
            if _server_error(exc):
                _add_hint(exc, f"{verdict.reason}, so mrtr sent initialize; if this server speaks 2026-07-28, "
                               "try --protocol 2026-07-28")
            if not _refused(exc):
                raise
            modern = _modern_after_all(exc, late, guess=verdict.version is None)
            if modern is None:
                exc.hint = exc.hint or (f"{verdict.reason}; initialize failed too. Pin the era with "
                                        "--protocol 2026-07-28 or --protocol 2025-11-25")
                raise
            self.tracer.note(f"initialize failed ({exc.message}): the server is modern after all")
            return self._remember(self._adopt_modern(modern.version, modern.discover))
        finally:
            if late is not None and not late.done():
                late.cancel()
        if verdict.silent:
            return self._silent_legacy(legacy, verdict, late)
        return self._remember(legacy)

    def _silent_legacy(self, legacy: LegacySession, verdict: Verdict,
                       late: Future[Message] | None) -> Session:
        """A legacy session chosen because the probe got no answer: a guess (a slow modern
        server that also accepts `initialize` looks the same). It is said on stderr, and
        cached only for a stdio server that had the full default probe time, and then only
        for `SILENT_TTL` seconds; never when the late probe answer says modern."""
        modern = _late_modern(late)
        if modern is not None:  # it was starting: its late server/discover answer wins
            self.tracer.note("the probe's late answer says modern: speaking 2026-07-28 after all")
            return self._remember(self._adopt_modern(modern.version, modern.discover))
        if not self.transport.cancel_by_close and self.settings.probe_timeout >= DEFAULT_PROBE_TIMEOUT \
                and self.cache is not None and self.key:
            self.cache.put(self.key, "legacy", legacy.protocol_version, silent=True)
        self.env.err(f"mrtr: note: {verdict.reason}: speaking MCP {legacy.protocol_version} (legacy) "
                     "this time; for a 2026-07-28 server raise --probe-timeout or pass --protocol 2026-07-28")
        self.tracer.note(f"speaking MCP {legacy.protocol_version} (legacy)")
        return legacy

    def _adopt_modern(self, version: str | None, discover: dict[str, Any] | None) -> Session:
        session = self.modern(version)
        session.adopt_transport()
        session.discover_result = discover
        if discover is not None:
            session._note_server_info(discover)  # noqa: SLF001 - same class family
        return session

    def _remember(self, session: Session) -> Session:
        if self.cache is not None and self.key:
            self.cache.put(self.key, session.era, session.protocol_version)
        self.tracer.note(f"speaking MCP {session.protocol_version} ({session.era})")
        return session


def _add_hint(exc: MrtrError, line: str) -> None:
    """Add `line` to the error's hint (after what is there, e.g. the response body)."""
    exc.hint = f"{exc.hint}\n{line}" if exc.hint else line


def _server_error(exc: Exception) -> bool:
    """An HTTP 5xx: the server broke on the request (maybe on a message of the wrong era)."""
    status = getattr(exc, "status", None)
    return isinstance(status, int) and status >= 500


def _refused(exc: Exception) -> bool:
    """A failed `initialize` that tells something about the era: a JSON-RPC or protocol
    error, or an HTTP 4xx (not a server that is down or unreachable)."""
    status = getattr(exc, "status", None)
    return isinstance(exc, ProtocolError) or (isinstance(status, int) and 400 <= status < 500)


def _late_modern(late: Future[Message] | None) -> Verdict | None:
    """The modern verdict of a probe answer that came after the probe timeout, else None."""
    if late is None or not late.done() or late.cancelled() or late.exception() is not None:
        return None
    try:
        verdict = classify_response(late.result())
    except ProtocolError:
        return None
    return verdict if verdict.era == "modern" else None


def _modern_after_all(exc: Exception, late: Future[Message] | None, *,
                      guess: bool) -> Verdict | None:
    """A modern verdict from a failed `initialize` (or a late probe answer), else None.
    With `guess` (the probe named no versions), `-32601` for `initialize` counts as modern."""
    verdict = _late_modern(late)
    if verdict is not None:
        return verdict
    if isinstance(exc, JsonRpcError):
        modern, _ = _common((exc.data or {}).get("supported") if isinstance(exc.data, dict) else None)
        if modern:
            return Verdict("modern", modern, None, "initialize error lists a modern version")
        if exc.code in MODERN_ERRORS or (guess and exc.code == METHOD_NOT_FOUND):
            return Verdict("modern", LATEST_MODERN, None, f"initialize answered {exc.code}")
    return None


def open_session(transport: Transport, env: Environment, tracer: Tracer, settings: SessionSettings, *,
                 deadline: Deadline | None = None) -> Session:
    """Open the right session for `settings.protocol` on `transport` (see the module
    docstring). The transport is closed again if opening fails.

    Raises:
        UsageError: a bad `--protocol`.
        TransportError, AuthError, ProtocolError, JsonRpcError, TimeoutExpired.
    """
    opener = _Opener(transport, env, tracer, settings, deadline or Deadline.unbounded())
    try:
        return opener.open()
    except BaseException:
        try:
            transport.close()
        except Exception:  # noqa: BLE001
            pass
        raise
