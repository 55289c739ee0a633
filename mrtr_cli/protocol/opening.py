"""Opening the run's session: the options a session needs checked (`--protocol`,
`--log-level`, `--max-message-size`, `--probe-timeout`), the transport (adopting a stdio
server launched early, transport/stdio/early.py), the era (protocol/era/opener.py: probing when
`--protocol auto`), and what every session of a run carries: the declared capabilities,
the responder for an older server's own requests, log and progress display, `--trace`,
`--strict`, and the x-mcp-header mirror of tool arguments over Streamable HTTP.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Protocol

from mrtr_cli.errors import ExitStatus, Interrupted, UsageError, WriteFailed, refused
from mrtr_cli.protocol.run import ProtocolRun
from mrtr_cli.runcontext import RunContext, RunOptions
from mrtr_cli.transport.base import kill_server

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.config.target import Target
    from mrtr_cli.protocol.legacy import ServerRequestHandler
    from mrtr_cli.protocol.session import Session
    from mrtr_cli.transport.base import Transport


class TraceFile:
    """The `--trace FILE` of one run: the first session of the run (or `run_trace`) opens it
    for writing, each later one (a session opened again, a batch restarting its server)
    appends, and each closes it when it ends.

    Attributes:
        file: the file last opened, or None before the first (closed once its session is).
    """

    def __init__(self) -> None:
        self.file: IO[str] | None = None

    def open(self, run: RunContext, transport: Transport | None) -> None:
        """Open `run.opts.trace` and hand it to the run's tracer.

        Raises:
            UsageError: it cannot be opened (exit 2); `transport`, when given, is killed.
        """
        assert run.opts.trace is not None  # called only with --trace
        try:
            from mrtr_cli.userfiles import open_user_output  # noqa: PLC0415 - lazy for start-up time

            self.file = open_user_output(run.opts.trace, "w" if self.file is None else "a")
        except OSError as exc:
            kill_server(transport)
            raise UsageError(f"--trace {run.opts.trace}: {exc.strerror or exc}") from None
        run.tracer.trace_file = self.file

    def close(self, run: RunContext) -> None:
        """Close the file; its last lines that cannot be written end the run with exit 2
        (`Environment.write_failure`)."""
        if self.file is None:
            return
        try:
            self.file.close()
        except OSError as exc:
            run.env.write_failure = run.env.write_failure or WriteFailed(
                f"cannot write --trace {run.opts.trace}: {exc.strerror or exc}")


class TracedRun(RunContext, Protocol):
    """A run that may write `--trace` (implemented by `mrtr_cli.app.App`)."""

    def trace_file(self) -> TraceFile:
        """The run's `--trace` file (one per run)."""


class OpeningRun(ProtocolRun, TracedRun, Protocol):
    """The run that opens a session (`open_run_session`; implemented by `mrtr_cli.app.App`)."""

    def server_request_responder(self) -> ServerRequestHandler:
        """What answers an older server's own requests (protocol/legacy.py), built fresh
        per session."""


def check_session_options(opts: RunOptions) -> float:
    """Check `--protocol`, `--log-level` (lower-cased in `opts`), `--max-message-size`
    (setting the message size limit, transport/limits.py) and `--probe-timeout`; returns
    the probe timeout in seconds.

    Raises:
        UsageError: a bad value (exit 2).
    """
    from mrtr_cli.protocol.era.opener import DEFAULT_PROBE_TIMEOUT, parse_protocol  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.live.logs import LOG_LEVELS  # noqa: PLC0415 - lazy for start-up time

    parse_protocol(opts.protocol)
    if opts.log_level:
        typed, opts.log_level = opts.log_level, opts.log_level.lower()
        if opts.log_level not in LOG_LEVELS:
            raise refused(f"--log-level {{0}}: expected one of {', '.join(LOG_LEVELS)}", typed)
    from mrtr_cli.transport.limits import check_message_size_option  # noqa: PLC0415 - lazy for start-up time

    check_message_size_option(opts.max_message_size)
    probe_timeout = opts.probe_timeout if opts.probe_timeout is not None else DEFAULT_PROBE_TIMEOUT
    if probe_timeout <= 0:
        raise UsageError(f"--probe-timeout {probe_timeout:g}: expected a positive number of seconds")
    return probe_timeout


@contextlib.contextmanager
def run_trace(run: TracedRun) -> Iterator[None]:
    """`--trace FILE` open (and closed) around a run that opens no session, such as
    `mrtr auth login`: the tracer writes its sign-in's HTTP exchanges there.

    Raises:
        UsageError: the file cannot be opened (exit 2).
    """
    trace = run.trace_file()
    if run.opts.trace:
        trace.open(run, None)
    try:
        yield
    finally:
        trace.close(run)


@contextlib.contextmanager
def open_run_session(run: OpeningRun, target: Target, early: Transport | None = None) -> Iterator[Session]:
    """Open a session to `target` in the right protocol era (`--protocol`, probing when
    auto: protocol/era/opener.py) and always close it.

    Args:
        run: the run (options, environment, tracer, its chain, recorder, catalog, authorizer).
        early: a stdio transport already launched for `target` (transport/stdio/early.py), or None.

    Progress notifications are shown on stderr (not with `-q`), log notifications printed
    there. After a Ctrl-C the server is shut down; a second Ctrl-C kills it and exits 130 at once.

    Raises:
        UsageError: a bad session option or `--trace` file (exit 2).
        MrtrError: as `protocol.era.opener.open_session` raises (TransportError, ProtocolError, ...).
    """
    from mrtr_cli.protocol.era.cache import server_key  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.protocol.era.opener import SessionSettings, open_session  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.live.logs import LogPrinter  # noqa: PLC0415 - lazy for start-up time

    opts, env = run.opts, run.env

    try:
        probe_timeout = check_session_options(opts)
    except UsageError:
        kill_server(early)
        raise
    transport = early
    try:  # before --trace is opened: the secret files it reads are checked against it first (userfiles.RunFiles)
        authorizer = run.authorizer(target) if target.url else None
    except BaseException:
        kill_server(early)
        raise
    trace = run.trace_file()
    if opts.trace:
        trace.open(run, transport)
    settings = SessionSettings(
        protocol=opts.protocol, probe_timeout=probe_timeout,
        probe_timeout_given=opts.probe_timeout is not None, log_level=opts.log_level,
        capabilities=run.chain().capabilities(), target=target.public(),
        cache_key=server_key(url=target.url, command=target.command, cwd=target.cwd),
        responder=run.server_request_responder,  # an older server's own requests, answered by the run's chain
        on_log=LogPrinter(env, opts.log_level),
        rejoin=run.rejoin_session,
        observer=run.strict_checker() if opts.strict else None,  # protocol/checks/strict.py, only with --strict
    )
    transport = transport or target.make_transport(env, run.tracer, authorizer)
    process = transport.process()
    if run.end_server_at_once and process is not None:
        process.end_at_once()
    session: Session | None = None
    display = None
    try:
        session = open_session(transport, env, run.tracer, settings, deadline=run.session_deadline())
        # The era probe's server/discover (only a modern session has one).
        if settings.observer is not None and session.discover_result is not None:
            settings.observer.version = session.protocol_version
            settings.observer.discover(session.discover_result, session.capabilities_for("server/discover"))
        if not env.quiet:
            from mrtr_cli.render.live.progress import ProgressDisplay  # noqa: PLC0415 - lazy for start-up time

            display = ProgressDisplay(env)
            session.show_progress(display)
        if target.url and session.mirrors_param_headers:
            session.use_param_headers(run.catalog(session))
        yield session
    except (KeyboardInterrupt, Interrupted):
        from mrtr_cli.protocol.interrupts import arm_hard_exit  # noqa: PLC0415 - lazy for start-up time

        arm_hard_exit(lambda: kill_server(transport))
        raise
    finally:
        if display is not None:
            display.close()
        try:
            if session is not None:
                session.close()
        except KeyboardInterrupt:
            kill_server(transport)
            os._exit(int(ExitStatus.INTERRUPTED))
        trace.close(run)
