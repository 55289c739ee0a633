"""Choosing the protocol era of a server, and opening the matching session.

Spec: 2026-07-28 `basic/versioning` ("Backward Compatibility with Initialization-Based
Versions"), `basic/transports/stdio` and `streamable-http` ("Backward Compatibility").

`--protocol auto` (the default) probes with `server/discover` (protocol/era/probe.py;
what an answer means: protocol/era/verdict.py): a modern verdict opens a `Session`
(protocol/session.py), a legacy one sends `initialize` (`LegacySession`,
protocol/legacy.py). No answer is only a guess: a server the era cache knows to be
modern gets `KNOWN_MODERN_PROBE_TIMEOUT` (a slow start is no evidence), and a
`server/discover` answer that comes late, with or before the `initialize` answer, wins
(the session is modern). If that `initialize` fails in a way only a modern server
would, the session is modern after all.

The era found is cached per server (protocol/era/cache.py). A server known to be legacy
is sent `initialize` at once; when that cached guess fails, or a request in it gets a
modern-only error (`EraChanged`: the command runs again), the cache entry is dropped
and the server is probed again. A verdict from silence is a guess: it is said on
stderr and cached only for a stdio server given the full default probe time. A modern
verdict (or a working `--protocol 2026-07-28`) is recorded but the probe still runs (it
costs one round trip, and skipping it could send a call to a server that changed era).

`--protocol 2026-07-28` pins modern (no probe); `--protocol 2025-11-25` (or any older
handshake version) pins the handshake, offering that version.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mrtr_cli.env import Environment
from mrtr_cli.errors import EraChanged, JsonRpcError, ProtocolError, TransportError, refused
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.era.cache import EraCache
from mrtr_cli.protocol.era.probe import add_hint, probe
from mrtr_cli.protocol.era.verdict import MODERN_ERRORS, Verdict, late_modern, modern_after_all
from mrtr_cli.protocol.legacy_versions import LATEST_LEGACY, LEGACY_VERSIONS
from mrtr_cli.protocol.modern import LATEST_MODERN, MODERN_VERSIONS
from mrtr_cli.protocol.routing import LogSink
from mrtr_cli.protocol.run import RejoinSession
from mrtr_cli.protocol.session import Session
from mrtr_cli.render.invocation import for_new_shell
from mrtr_cli.render.sanitize import one_line
from mrtr_cli.render.trace import Tracer
from mrtr_cli.transport.base import Message, Transport
from mrtr_cli.transport.future import Future

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.protocol.legacy import LegacySession, ServerRequestHandler

DEFAULT_PROBE_TIMEOUT = 2.0
#: Seconds the probe waits for a server the era cache knows to be modern (within
#: --timeout): a slow start (npx, docker run) is no evidence of the legacy era.
KNOWN_MODERN_PROBE_TIMEOUT = 60.0


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
    raise refused(f"--protocol {{0}}: expected one of {choices}", value)


@dataclass(eq=False, repr=False)
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
        observer: `--strict`'s checker (protocol/checks/strict.py), set on the session before it
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
    on_log: LogSink | None = None
    rejoin: RejoinSession | None = None
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
        self.cache = EraCache() if self.key and not env.settings.no_cache else None
        #: Requests the server sent before a session took the transport over (during the era
        #: probe): the session answers them when it does (`Session.adopt_transport`).
        self._early: list[Message] = []

    def modern(self, version: str | None, discover: dict[str, Any] | None = None) -> Session:
        return Session(self.transport, self.env, self.tracer, protocol_version=version or LATEST_MODERN,
                       log_level=self.settings.log_level, capabilities=self.settings.capabilities,
                       on_log=self.settings.on_log, observer=self.settings.observer, discover_result=discover)

    def legacy(self, version: str | None) -> LegacySession:
        from mrtr_cli.protocol.legacy import LegacySession  # noqa: PLC0415 - start-up time: only a legacy session needs it

        responder = self.settings.responder() if self.settings.responder is not None else None
        return LegacySession(self.transport, self.env, self.tracer, protocol_version=version or LATEST_LEGACY,
                             log_level=self.settings.log_level, capabilities=self.settings.capabilities,
                             responder=responder, target=self.settings.target, rejoin=self.settings.rejoin,
                             on_log=self.settings.on_log, observer=self.settings.observer)

    def open(self) -> Session:
        era, version = parse_protocol(self.settings.protocol)
        if era != "auto":
            session: Session = self.modern(version) if era == "modern" else self.legacy(version)
            try:
                session.open(self.deadline)
            except TransportError as exc:
                if _server_error(exc):
                    other = "2025-11-25" if era == "modern" else "2026-07-28 (or --protocol auto)"
                    add_hint(exc, f"if this server speaks another protocol version, try --protocol {other}")
                raise
            self.tracer.note(f"speaking MCP {session.protocol_version} ({session.era}, --protocol {version})")
            if era == "modern" and self.cache is not None and self.key:
                # A modern server proved itself; a pinned handshake proves nothing (dual-era
                # servers accept initialize too), so it leaves the cache alone.
                self.cache.put(self.key, "modern", session.protocol_version)
            return session
        self.transport.start(self._before_session)
        return self._from_cache() or self._probe_and_open()

    def _before_session(self, msg: Message) -> None:
        """A message the server sent on its own while no session has the transport: a
        request is kept for the session to answer (it is never left unanswered), anything
        else is only traced (a response to no request in flight as `Tracer.stray`)."""
        if "id" in msg and msg.get("method"):
            self._early.append(msg)
        elif "method" not in msg:  # a response to no request in flight
            self.tracer.stray(msg)
        else:
            self.tracer.message("recv", msg)

    def _from_cache(self) -> Session | None:
        """A server known to be legacy gets `initialize` at once; None when unknown, modern,
        or when that guess fails (the entry is then dropped)."""
        known = self.cache.get(self.key) if self.cache is not None and self.key else None
        if not known or known.get("era") != "legacy":
            return None
        session = self.legacy(known.get("protocolVersion"))
        session.adopt_transport(self._early)
        try:
            session.initialize(self.deadline)
        except (ProtocolError, TransportError) as exc:
            if not _refused(exc):
                raise
            self.tracer.note(f"the cached era (legacy) failed ({exc.message}); probing again")
            if (sessions := self.transport.sessions()) is not None:
                sessions.session_headers.clear()
            if self.cache is not None and self.key:
                self.cache.forget(self.key)
            return None
        self.tracer.note(f"speaking MCP {session.protocol_version} (legacy, known from the era cache)")
        session.watch_errors(self._doubt_cached_legacy)
        return session

    def _doubt_cached_legacy(self, err: JsonRpcError) -> None:
        """A session opened as legacy from the cache got a modern-only error: the server
        changed era. Drop the entry and raise `EraChanged` (the command then runs again)."""
        if err.code not in MODERN_ERRORS:
            return
        if self.cache is not None and self.key:
            self.cache.forget(self.key)
        raise EraChanged(f"the server answered {err.code} ({one_line(err.message, 120)}), "
                         "which only a 2026-07-28 server sends, to a request in the cached era (legacy)",
                         code=err.code, data=err.data,
                         hint="the era cache entry is dropped: run the command again (it probes the server)")

    def _probe_and_open(self) -> Session:
        known = self.cache.get(self.key) if self.cache is not None and self.key else None
        timeout = self.settings.probe_timeout
        if known and known.get("era") == "modern" and not self.settings.probe_timeout_given:
            # A server known to be modern that is slow to answer is starting, not legacy.
            timeout = max(timeout, KNOWN_MODERN_PROBE_TIMEOUT)
        from mrtr_cli.protocol.capabilities.declared import declared_for  # noqa: PLC0415 - lazy for start-up time

        verdict, late = probe(self.transport, self.tracer, timeout=timeout, deadline=self.deadline,
                              capabilities=declared_for(self.settings.capabilities, "server/discover"))
        self.tracer.note(f"era probe: {verdict.reason} -> {verdict.era}")
        if verdict.era == "modern":
            return self._remember(self._adopt_modern(verdict.version, verdict.discover))
        legacy = self.legacy(verdict.version)
        legacy.adopt_transport(self._early)
        try:
            legacy.initialize(self.deadline)
        except (ProtocolError, TransportError) as exc:
            if _server_error(exc):
                add_hint(exc, f"{verdict.reason}, so mrtr sent initialize; if this server speaks 2026-07-28, "
                               + for_new_shell("try --protocol 2026-07-28"))
            if not _refused(exc):
                raise
            modern = modern_after_all(exc, late, guess=verdict.version is None)
            if modern is None:
                exc.hint = exc.hint or (f"{verdict.reason}; initialize failed too. Pin the era with "
                                        + for_new_shell("--protocol 2026-07-28 or --protocol 2025-11-25"))
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
        for `eracache.SILENT_TTL` seconds; never when the late probe answer says modern."""
        modern = late_modern(late)
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
        session = self.modern(version, discover)
        session.adopt_transport(self._early)
        return session

    def _remember(self, session: Session) -> Session:
        if self.cache is not None and self.key:
            self.cache.put(self.key, session.era, session.protocol_version)
        self.tracer.note(f"speaking MCP {session.protocol_version} ({session.era})")
        return session


def _server_error(exc: Exception) -> bool:
    """An HTTP 5xx: the server broke on the request (maybe on a message of the wrong era)."""
    status = getattr(exc, "status", None)
    return isinstance(status, int) and status >= 500


def _refused(exc: Exception) -> bool:
    """A failed `initialize` that tells something about the era: a JSON-RPC or protocol
    error, or an HTTP 4xx (not a server that is down or unreachable)."""
    status = getattr(exc, "status", None)
    return isinstance(exc, ProtocolError) or (isinstance(status, int) and 400 <= status < 500)


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
        try:  # noqa: SIM105 - a catch of Exception stays marked for BLE001; suppress() would hide it
            transport.close()
        except Exception:  # noqa: BLE001 - the failure that got here is re-raised below
            pass
        raise
