"""The application layer: from parsed options to a finished run.

Data flows one way (DESIGN.md section 6): options -> target -> session (transport
+ era) -> engine <-> responders -> result -> render. The CLI parses, calls one of
the `App` methods, and maps errors to exit codes; nothing here knows about click.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from mrtr_cli.config.target import Target, check_header, check_header_values, check_url, parse_header, parse_stdio, url_secrets
from mrtr_cli.engine import DEFAULT_MAX_ROUNDS
from mrtr_cli.env import Environment
from mrtr_cli.errors import ExitStatus, InputRequired, Interrupted, JsonRpcError, UsageError
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.render.trace import Tracer
from mrtr_cli.responders.answers import AnswerStore, load_answer_file, parse_flag

if TYPE_CHECKING:  # pragma: no cover - the rest loads while a stdio server boots (App.spawn_early)
    from mrtr_cli.engine.mrtr import AnswerRecorder, EngineOutcome
    from mrtr_cli.protocol.session import Session
    from mrtr_cli.responders.chain import ResponderChain


@dataclass
class RunOptions:
    """Everything the command line (or environment) said about this run."""

    url: str | None = None
    stdio: str | None = None
    server: str | None = None
    config: str | None = None
    headers: list[str] = field(default_factory=list)
    bearer_token_env: str | None = None
    # OAuth (issue 13): a pre-registered client.
    client_id: str | None = None
    client_secret_env: str | None = None
    client_secret_file: str | None = None
    json_mode: bool = False
    verbosity: int = 0
    quiet: bool = False
    trace: str | None = None
    no_input: bool = False
    timeout: float | None = None
    max_timeout: float | None = None
    protocol: str = "auto"
    log_level: str | None = None
    answers: list[str] = field(default_factory=list)
    answer_flags: list[str] = field(default_factory=list)
    save_answers: str | None = None
    no_validate: bool = False
    saved_target_source: str | None = None  # the target came from this pending document (config/trust.py)
    max_rounds: int = DEFAULT_MAX_ROUNDS
    open_urls: bool = False
    # Sampling and roots sources (issue 6).
    roots: list[str] = field(default_factory=list)
    sampling_command: str | None = None
    sampling_tools: bool = False
    sampling_timeout: float | None = None
    expand_env: bool = False
    # Tasks (issue 4): print the task and exit once one exists; Ctrl-C cancels it.
    detach: bool = False
    cancel_on_interrupt: bool = False
    # Protocol era (issue 5).
    probe_timeout: float | None = None
    # The limit on one message from a server (transport/limits.py), as given.
    max_message_size: str | None = None
    # 2025-11-25 tasks (issue 5): run an `optional` tool as a task; the `task.ttl` to ask for.
    task: bool = False
    task_ttl: float | None = None
    # --strict (issue 15): check every server message against the schema and the protocol rules.
    strict: bool = False


def outcome_status(method: str, outcome: EngineOutcome) -> int:
    """The exit code of a finished request: 0, 1 when a tool result has `isError: true`,
    6 after a decline or cancel (DESIGN.md section 2), both by `errors.winning_status`
    (1 wins); a detached task is 0."""
    if outcome.extra.get("detached"):
        return int(ExitStatus.SUCCESS)
    from mrtr_cli.errors import winning_status  # noqa: PLC0415

    return winning_status(*(
        [ExitStatus.TOOL_ERROR] if method == "tools/call" and outcome.result.get("isError") is True else []),
        *([ExitStatus.DECLINED] if outcome.declined else []))


def check_writable(path: str, option: str) -> None:
    """Raise UsageError now if `path` could not be written later (a directory, a missing or
    read-only folder), so that nothing typed is lost at the end of a run."""
    full = os.path.abspath(os.path.expanduser(path))
    folder = os.path.dirname(full)
    if os.path.isdir(full):
        raise UsageError(f"{option} {path}: is a directory")
    if not os.path.isdir(folder):
        raise UsageError(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(full if os.path.exists(full) else folder, os.W_OK):
        raise UsageError(f"{option} {path}: not writable")


class App:
    """One run of `mrtr`.

    Args:
        opts: the parsed options.
        env: the run's environment (streams, terminal facts, secrets).
    """

    def __init__(self, opts: RunOptions, env: Environment):
        self.opts = opts
        self.env = env
        self._trace_file: IO[str] | None = None
        self._stdin_text: str | None = None
        self._deadline: Deadline | None = None
        self._sources: tuple[tuple[AnswerStore, Any], tuple[Any, str, Any]] | None = None
        self.tracer = Tracer(env, opts.verbosity)
        #: Roots a server config supplies (issue 7): (entries, source label, base directory
        #: for relative paths). Used when neither --root nor an answer file gives roots.
        self.config_roots: tuple[list[Any], str, str | None] | None = None
        self._target: Target | None = None
        self._catalog: Any = None
        # One answer store, responder chain and recorder per run (issue 5: an older
        # server's own requests are answered by the same chain as MRTR input requests).
        self._store: AnswerStore | None = None
        self._chain: ResponderChain | None = None
        self._recorder: AnswerRecorder | None = None
        #: A stdio transport launched by `spawn_early`, for the next `session()` of that target.
        self._early: tuple[Target, Any] | None = None
        #: A 2025-11-25 HTTP session left open for a task, to rejoin (tasks/runner.py).
        self.rejoin_session: dict[str, Any] | None = None
        #: Stop a stdio server without grace periods at the end (shell completion).
        self.end_server_at_once = False
        #: The OAuth hook of each HTTP server of this run (`authorizer`).
        self._authorizers: dict[str | None, Any] = {}
        #: Whether a person may be asked to sign in (None: when `env.can_prompt()`); `mrtr
        #: batch` decides it before it turns prompting off for its lines.
        self.sign_in_allowed: bool | None = None

    # ------------------------------------------------------------------ inputs
    def read_stdin(self) -> str:
        """All of stdin (read once; later calls get the same text)."""
        if self._stdin_text is None:
            from mrtr_cli.userfiles import decode_text, read_stdin_bytes  # noqa: PLC0415

            self.env.stdin_consumed = True
            data = read_stdin_bytes(self.env.stdin, what="input", deadline=self.deadline())
            self._stdin_text = decode_text(data, what="stdin", path="(-)")
        return self._stdin_text

    def read_file(self, path: str) -> str:
        """The text of `path` (`-` is stdin).

        Raises:
            UsageError: the file cannot be read.
        """
        if path == "-":
            return self.read_stdin()
        from mrtr_cli.userfiles import read_user_text  # noqa: PLC0415

        try:
            return read_user_text(path, what="file")
        except FileNotFoundError:
            raise UsageError(f"cannot read file {path}: no such file") from None

    def target(self) -> Target:
        """The target from `--url` / `--stdio` / `-s NAME` (or MRTR_URL / MRTR_STDIO / MRTR_SERVER).

        Header values given as `env:VAR` or `file:PATH` are read here; every header
        value, token and config `env`/`headers` value is registered as a secret.

        Raises:
            UsageError: none or more than one target given, a bad header, an unknown server.
        """
        if self._target is not None:
            return self._target
        o = self.opts
        given = [x for x in (o.url, o.stdio, o.server) if x]
        if not given:
            o.url = os.environ.get("MRTR_URL") or None
            o.stdio = os.environ.get("MRTR_STDIO") or None
            o.server = os.environ.get("MRTR_SERVER") or None
            given = [x for x in (o.url, o.stdio, o.server) if x]
        if not given:
            raise UsageError("no server given: use --url URL, --stdio \"CMD ARGS\" or -s NAME")
        if len(given) > 1:
            raise UsageError("give exactly one of --url, --stdio and -s/--server")
        headers = self._command_line_headers()
        if o.server:
            from mrtr_cli.config.servers import resolve_server  # noqa: PLC0415

            target = resolve_server(o.server, o.config, expand_env=o.expand_env, add_secret=self.env.add_secret,
                                    warn=self._note)
            target.headers.update(headers)  # the command line wins over the config file
            if target.roots is not None:
                self.config_roots = target.roots
        elif o.url:
            target = Target(url=check_url(o.url, "--url"), headers=headers)
            for secret in url_secrets(o.url):
                self.env.add_secret(secret)
        else:
            target = Target(command=parse_stdio(o.stdio or ""))
        if target.url:
            check_header_values(target.headers, "server " + target.server + ": header" if target.server else "-H")
        self._trust(target)
        self._target = target
        return target

    def _trust(self, target: Target) -> None:
        """A target from a pending document must be known here (or approved: config/trust.py);
        a target the user gave (or approved) is remembered, so that a document naming it can
        reach it again."""
        from mrtr_cli.config.trust import check_saved_target, command_identity, remember  # noqa: PLC0415

        o = self.opts
        if o.saved_target_source and not check_saved_target(
                target.command, target.cwd, target.url, credentials=bool(o.headers or o.bearer_token_env),
                env=self.env, source=o.saved_target_source):
            return  # reached on a document's word alone: not known by that
        if target.command:
            remember("stdio", command_identity(target.command, target.cwd))
        elif target.url:
            remember("url", target.url)

    def _command_line_headers(self) -> dict[str, str]:
        """`-H` headers (values may be `env:VAR` / `file:PATH`) and `--bearer-token-env`."""
        from mrtr_cli.config.values import is_secret_name, resolve_header_value  # noqa: PLC0415

        o = self.opts
        headers: dict[str, str] = {}
        for text in o.headers:
            name, value = parse_header(text)
            written = value
            value, secret = resolve_header_value(value, allowed=True, where=f"-H {name}", read_file=self.read_file)
            if is_secret_name(name):
                self.env.add_secret(value)
                self.env.add_secret(value.split(" ", 1)[-1])  # the credential after an auth scheme
            if secret:
                self.env.add_secret(secret)
            source = written.strip().rsplit(" ", 1)[-1] if secret else ""
            check_header(name, value, f"-H {name}" + (f" ({source})" if source else ""))
            headers[name] = value
        if o.bearer_token_env:
            token = os.environ.get(o.bearer_token_env)
            if not token:
                raise UsageError(f"--bearer-token-env {o.bearer_token_env}: that environment variable is empty or unset")
            self.env.add_secret(token)
            check_header("Authorization", f"Bearer {token}", f"--bearer-token-env {o.bearer_token_env}")
            headers["Authorization"] = f"Bearer {token}"
        return headers

    def _note(self, text: str) -> None:
        if not self.opts.quiet:
            self.env.err(text)

    def answer_store(self) -> AnswerStore:
        """Load `--answers` files and `-a` flags (once per run; later calls get the same store).

        Raises:
            UsageError: an unreadable or malformed file or flag.
        """
        if self._store is not None:
            return self._store
        files = []
        for path in self.opts.answers:
            stdin_text = self.read_stdin() if path == "-" else None
            files.append(load_answer_file(path, stdin_text))
        flags = [parse_flag(text) for text in self.opts.answer_flags]
        self._store = AnswerStore(files, flags)
        self.input_sources(self._store)  # roots and sampling options are checked before anything is sent
        return self._store

    def chain(self, store: AnswerStore | None = None) -> ResponderChain:
        """The responder chain for this run: prepared answers, roots, a sampling command,
        then the terminal. One per run: MRTR input requests and, for older servers,
        server-initiated requests share it.

        Raises:
            UsageError: see `input_sources` (already raised by `answer_store`).
        """
        if self._chain is not None:
            return self._chain
        store = store or self.answer_store()

        def terminal() -> Any:
            from mrtr_cli.responders.terminal import TerminalResponder  # noqa: PLC0415 - lazy

            return TerminalResponder(self.env, open_urls=self.opts.open_urls)

        from mrtr_cli.responders.chain import ResponderChain  # noqa: PLC0415

        roots, roots_source, sampler = self.input_sources(store)
        if sampler is not None:
            sampler.deadline = self.deadline()
        self._chain = ResponderChain(self.env, store, terminal_factory=terminal, roots=roots,
                                     roots_source=roots_source, sampler=sampler,
                                     sampling_tools=bool(self.opts.sampling_tools))
        self._chain.deadline = self.deadline()  # paused while a person answers
        return self._chain

    def recorder(self) -> AnswerRecorder | None:
        """The `--save-answers` recorder of this run, or None."""
        if self._recorder is None and self.opts.save_answers:
            from mrtr_cli.engine.mrtr import AnswerRecorder  # noqa: PLC0415

            self._recorder = AnswerRecorder()
        return self._recorder

    def input_sources(self, store: AnswerStore) -> tuple[list[dict[str, Any]] | None, str, Any]:
        """Roots, their source label and the `--sampling-command` runner for `store`
        (computed once per store and `config_roots`).

        Raises:
            UsageError: a root that does not exist, a bad --sampling-command, or
                --sampling-tools / --sampling-timeout without a sampling source.
        """
        key = (store, self.config_roots)
        if self._sources is not None and self._sources[0][0] is store and self._sources[0][1] is self.config_roots:
            return self._sources[1]
        roots, roots_source = self.roots(store)
        sampler = None
        o = self.opts
        if o.sampling_command:
            from mrtr_cli.responders.sampling import DEFAULT_SAMPLING_TIMEOUT, CommandSampler  # noqa: PLC0415

            sampler = CommandSampler(o.sampling_command, self.env, timeout=o.sampling_timeout or DEFAULT_SAMPLING_TIMEOUT)
        elif o.sampling_timeout is not None:
            raise UsageError("--sampling-timeout applies to --sampling-command, which was not given")
        from mrtr_cli.responders.shapes import looks_like_sampling_result  # noqa: PLC0415

        if o.sampling_tools and sampler is None and not store.has_exact_of_shape(looks_like_sampling_result):
            raise UsageError("--sampling-tools needs a sampling source that can use tools",
                             hint="give --sampling-command CMD, or sampling answers in --answers")
        sources = (roots, roots_source, sampler)
        self._sources = (key, sources)
        return sources

    def roots(self, store: AnswerStore) -> tuple[list[dict[str, Any]] | None, str]:
        """The roots this run exposes (client/roots) and where they came from: `--root`
        flags, else the last answer file with a `roots` member, else the server config.
        Every path is resolved to an absolute `file://` URI and must exist.

        Raises:
            UsageError: a root that does not exist or a malformed roots entry.
        """
        if not (self.opts.roots or store.roots() is not None or self.config_roots is not None):
            return None, ""
        from mrtr_cli.responders.roots import parse_root_flags, resolve_root_entries  # noqa: PLC0415

        if self.opts.roots:
            return parse_root_flags(self.opts.roots), "--root"
        from_file = store.roots()
        if from_file is not None:
            entries, label = from_file
            path = label.rsplit(": roots", 1)[0]
            base = os.path.dirname(os.path.abspath(path)) if path != "-" else None
            return resolve_root_entries(entries, label, base), label
        assert self.config_roots is not None
        entries, label, base = self.config_roots
        return resolve_root_entries(entries, label, base), label

    def deadline(self) -> Deadline:
        """The run's overall time bound (`--timeout`, extended by progress up to `--max-timeout`),
        created on first use and shared by every request, sampling command and poll."""
        if self._deadline is None:
            self._deadline = Deadline(self.opts.timeout, self.opts.max_timeout)
        return self._deadline

    def session_deadline(self) -> Deadline:
        """The time bound for opening a session (starting a stdio server, the era probe,
        `initialize`): the run's own `deadline()`."""
        return self.deadline()

    # ------------------------------------------------------------------ session
    @contextlib.contextmanager
    def session(self, target: Target | None = None) -> Iterator[Session]:
        """Open a session to the target in the right protocol era (`--protocol`, probing
        when auto: protocol/era.py); always closes it.

        Progress notifications are shown on stderr (not with `-q`), log notifications
        printed there. After a Ctrl-C the server is shut down; a second Ctrl-C kills it
        and exits 130 at once.
        """
        from mrtr_cli.protocol.era import SessionSettings, open_session, server_key  # noqa: PLC0415
        from mrtr_cli.render.logs import LogPrinter  # noqa: PLC0415

        target = target or self.target()
        probe_timeout = self._session_options()
        early, self._early = self._early, None
        transport = None
        if early is not None:
            if early[0] is target:
                transport = early[1]
            else:
                early[1].kill()  # launched for another target: not this session's
        if self.opts.trace:
            try:  # a session opened again in this run (a batch restarting its server) appends
                mode = "w" if self._trace_file is None else "a"
                from mrtr_cli.userfiles import open_user_output  # noqa: PLC0415

                self._trace_file = open_user_output(self.opts.trace, mode)
            except OSError as exc:
                if transport is not None:
                    transport.kill()
                raise UsageError(f"--trace {self.opts.trace}: {exc.strerror or exc}") from None
            self.tracer.trace_file = self._trace_file
        settings = SessionSettings(
            protocol=self.opts.protocol, probe_timeout=probe_timeout,
            probe_timeout_given=self.opts.probe_timeout is not None, log_level=self.opts.log_level,
            capabilities=self.chain().capabilities(), target=target.public(),
            cache_key=server_key(url=target.url, command=target.command, cwd=target.cwd),
            responder=self._server_request_responder, on_log=LogPrinter(self.env, self.opts.log_level),
            rejoin=self.rejoin_session,
            observer=self.strict_checker(),
        )
        transport = transport or target.make_transport(self.env, self.tracer,
                                                       self.authorizer(target) if target.url else None)
        if self.end_server_at_once:
            transport.end_at_once()
        session: Session | None = None
        display = None
        try:
            session = open_session(transport, self.env, self.tracer, settings, deadline=self.session_deadline())
            if settings.observer is not None and session.era == "modern" and session.discover_result is not None:
                settings.observer.version = session.protocol_version  # the era probe's server/discover
                settings.observer.discover(session.discover_result, session.capabilities_for("server/discover"))
            if not self.env.quiet:
                from mrtr_cli.render.progress import ProgressDisplay  # noqa: PLC0415

                display = session.progress = ProgressDisplay(self.env)
            if target.url and session.era == "modern":
                # Streamable HTTP (2026-07-28): every tools/call mirrors x-mcp-header arguments into headers.
                session.param_headers = self.catalog(session)
            yield session
        except (KeyboardInterrupt, Interrupted):
            from mrtr_cli.protocol.interrupts import arm_hard_exit  # noqa: PLC0415

            arm_hard_exit(transport.kill)
            raise
        finally:
            if display is not None:
                display.close()
            try:
                if session is not None:
                    session.close()
            except KeyboardInterrupt:
                transport.kill()
                os._exit(int(ExitStatus.INTERRUPTED))
            if self._trace_file is not None:
                try:
                    self._trace_file.close()
                except OSError as exc:  # its last lines could not be written (exit 2)
                    from mrtr_cli.errors import WriteFailed  # noqa: PLC0415

                    self.env.write_failure = self.env.write_failure or WriteFailed(
                        f"cannot write --trace {self.opts.trace}: {exc.strerror or exc}")

    def strict_checker(self) -> Any:
        """`--strict`: the run's `protocol.strict.StrictChecker` (one per run, also on
        `env.strict` for the exit code), or None without the option."""
        if not self.opts.strict:
            return None
        if self.env.strict is None:
            from mrtr_cli.protocol.strict import StrictChecker  # noqa: PLC0415 - only with --strict

            self.env.strict = StrictChecker(self.env)
        return self.env.strict

    def authorizer(self, target: Target) -> Any:
        """The OAuth hook of an HTTP target (config/oauth_target.py), or None (stdio, or the
        user sends an Authorization header of their own)."""
        from mrtr_cli.config.oauth_target import make_authorizer  # noqa: PLC0415

        if target.url not in self._authorizers:  # one per server for the run (a batch may reopen its session)
            self._authorizers[target.url] = make_authorizer(self, target)
        return self._authorizers[target.url]

    def spawn_early(self, target: Target) -> None:
        """Launch a stdio server now, so that it boots while `mrtr` finishes loading; the next
        `session(target)` adopts it (docs/performance.md). If an option the session checks is
        bad, the server is stopped again and the usage error raised; a server that cannot be
        launched is reported when the session opens. Nothing happens for HTTP."""
        if target.command and self._early is None:
            transport = target.make_transport(self.env, self.tracer)
            transport.spawn()
            try:
                self._session_options()
            except UsageError:
                transport.kill()
                raise
            self._early = (target, transport)

    def _session_options(self) -> float:
        """Check `--protocol`, `--log-level`, `--max-message-size` and `--probe-timeout`
        (setting the message size limit); returns the probe timeout.

        Raises:
            UsageError: a bad value.
        """
        from mrtr_cli.protocol.era import DEFAULT_PROBE_TIMEOUT, parse_protocol  # noqa: PLC0415
        from mrtr_cli.render.logs import LOG_LEVELS  # noqa: PLC0415

        parse_protocol(self.opts.protocol)
        if self.opts.log_level:
            self.opts.log_level = self.opts.log_level.lower()
            if self.opts.log_level not in LOG_LEVELS:
                raise UsageError(f"--log-level {self.opts.log_level}: expected one of {', '.join(LOG_LEVELS)}")
        from mrtr_cli.transport.limits import check_message_size_option  # noqa: PLC0415

        check_message_size_option(self.opts.max_message_size)
        probe_timeout = self.opts.probe_timeout if self.opts.probe_timeout is not None else DEFAULT_PROBE_TIMEOUT
        if probe_timeout <= 0:
            raise UsageError(f"--probe-timeout {probe_timeout:g}: expected a positive number of seconds")
        return probe_timeout

    def _server_request_responder(self) -> Any:
        """Answers an older server's own requests with this run's responder chain."""
        from mrtr_cli.responders.server_requests import ServerRequestResponder  # noqa: PLC0415

        return ServerRequestResponder(self.chain(), capabilities={}, recorder=self.recorder())

    # ------------------------------------------------------------------ commands
    def run_mrtr(self, method: str, params: dict[str, Any], *, session: Session, chain: ResponderChain,
                 target: Target, resume_from: dict[str, Any] | None = None,
                 answered: dict[str, Any] | None = None, sent: dict[str, Any] | None = None) -> int:
        """Drive one MRTR-capable request, print its result, return the exit code."""
        try:
            outcome = self.drive(method, params, session=session, chain=chain, target=target,
                                 resume_from=resume_from, answered=answered, sent=sent)
        except InputRequired:
            chain.report_unused()
            raise
        chain.report_unused()
        return self.finish(method, outcome)

    def drive(self, method: str, params: dict[str, Any], *, session: Session, chain: ResponderChain,
              target: Target, deadline: Deadline | None = None, resume_from: dict[str, Any] | None = None,
              answered: dict[str, Any] | None = None, sent: dict[str, Any] | None = None) -> EngineOutcome:
        """Drive one MRTR-capable request (and the task it may become) to its outcome,
        printing nothing of the result: `run_mrtr` for one command, `mrtr batch` per line.

        Args:
            deadline: bounds this request (default: the run's `deadline()`).
            resume_from, answered, sent: a resumed call (`MrtrEngine.run`); `sent` also seeds
                the `--save-answers` recorder, so the saved file replays the whole call.

        Raises:
            MrtrError: as `MrtrEngine.run` and the task driver raise (InputRequired with
                the pending document, JsonRpcError, TransportError, TimeoutExpired, ...).
        """
        recorder = self.recorder()
        if recorder is not None and sent:
            recorder.seed(sent)
        deadline = deadline or self.deadline()
        on_task = None
        if method == "tools/call":  # the tasks extension is always declared on tools/call

            def on_task(create_result: dict[str, Any], capabilities: dict[str, Any]) -> EngineOutcome:
                runner = self.task_runner(session, chain, target, tool=params.get("name"), params=params,
                                          recorder=recorder, deadline=deadline)
                return runner.on_task(create_result, capabilities)

        from mrtr_cli.engine.mrtr import MrtrEngine  # noqa: PLC0415

        engine = MrtrEngine(session, chain, target=target.public(), max_rounds=self.opts.max_rounds,
                            deadline=deadline, recorder=recorder, on_task=on_task)
        try:
            return engine.run(method, params, resume_from=resume_from, answered=answered, sent=sent)
        finally:
            if recorder is not None and (recorder.responses or recorder.in_order):
                self._save_answers(recorder)

    def task_runner(self, session: Session, chain: ResponderChain, target: Target, **kw: Any) -> Any:
        """The `tasks.runner.TaskRunner` for a call that became a task (keywords as its own)."""
        from mrtr_cli.tasks.runner import TaskRunner  # noqa: PLC0415 - only once a task exists

        return TaskRunner(self, session, chain, target, **kw)

    def finish(self, method: str, outcome: EngineOutcome) -> int:
        """Print the final result and choose the exit code (1 for isError, 6 after a decline)."""
        from mrtr_cli.render.output import note_tool_error, print_result  # noqa: PLC0415

        code = outcome_status(method, outcome)
        if not outcome.extra.get("detached"):  # `--detach`: the task was printed, the result comes later
            print_result(self.env, method, outcome.result, json_mode=self.opts.json_mode)
            note_tool_error(self.env, method, outcome.result, code)
        return code

    def _save_answers(self, recorder: AnswerRecorder) -> None:
        path = self.opts.save_answers
        assert path is not None
        try:
            from mrtr_cli.jsonfile import dumps_utf8  # noqa: PLC0415

            from mrtr_cli.userfiles import open_user_output  # noqa: PLC0415

            with open_user_output(path) as fh:
                fh.write(dumps_utf8(recorder.document(), indent=2) + "\n")
        except OSError as exc:  # the file asked for is lost: the run ends with exit 2 (cli.main.run)
            from mrtr_cli.errors import WriteFailed  # noqa: PLC0415

            self.env.write_failure = self.env.write_failure or WriteFailed(
                f"cannot write --save-answers {path}: {exc.strerror or exc}")

    # ------------------------------------------------------------------ one request
    def request_params(self, session: Session, command: str, subject: str, items: list[Any] | None = None,
                       base: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """The method and params of `call TOOL`, `prompt NAME` or `read URI` (also a line of
        `mrtr batch`): tool arguments typed by the tool's `inputSchema` and validated
        (`tool_arguments`) and, on a 2025-11-25 server, the `task` member (`task_field`);
        prompt arguments as given (strings), checked against `prompts/list` unless
        `--no-validate` (`protocol.catalog.check_prompt_request`); a resource's URI, or a
        resource template's expanded with `items` (`protocol.templates.expand`).

        Args:
            command: "call", "prompt" or "read".
            subject: the tool or prompt name, or the resource URI.
            items: parsed `key=value` items (`schema.arguments.parse_item`).
            base: an arguments object (`--args`, or a batch line's `arguments`).

        Raises:
            UsageError: as `tool_arguments` and `schema.arguments.build_arguments` raise (exit 2).
        """
        if command == "read":
            if items:  # `read TEMPLATE NAME=VALUE...`: the variables of a resource template
                from mrtr_cli.protocol.templates import expand, is_template  # noqa: PLC0415
                from mrtr_cli.schema.arguments import build_arguments  # noqa: PLC0415
                from mrtr_cli.schema.prompt_arguments import require_strings  # noqa: PLC0415

                if not is_template(subject):
                    raise UsageError(f"{subject} is not a URI template, so NAME=VALUE items have nothing to fill",
                                     hint="give a template with {variables}, e.g. 'repo://{owner}/{name}'")
                subject = expand(subject, require_strings(build_arguments(items, None, None), "template variable"))
            return "resources/read", {"uri": subject}
        if command == "call":
            params = {"name": subject, "arguments": self.tool_arguments(session, subject, items or [], base)}
            task = self.task_field(session, subject)  # 2025-11-25 task augmentation
            if task is not None:
                params["task"] = task
            return "tools/call", params
        from mrtr_cli.schema.arguments import build_arguments  # noqa: PLC0415

        params: dict[str, Any] = {"name": subject}
        from mrtr_cli.schema.prompt_arguments import require_strings  # noqa: PLC0415

        arguments = require_strings(build_arguments(items or [], base, None), "prompt argument")
        if not self.opts.no_validate:  # checked against prompts/list as tool arguments are against tools/list
            from mrtr_cli.protocol.catalog import check_prompt_request  # noqa: PLC0415

            check_prompt_request(session, self.list_cache(), subject, arguments or {}, deadline=self.deadline())
        if arguments:
            params["arguments"] = arguments
        return "prompts/get", params

    # ------------------------------------------------------------------ tools
    def task_field(self, session: Session, name: str) -> dict[str, Any] | None:
        """The `task` member of `tools/call NAME` on a 2025-11-25 server (tasks/legacy.py:
        `required` tools always, `optional` ones with `--task`), or None.

        Raises:
            UsageError: `--task` for a server or tool that cannot run tasks, a bad `--task-ttl`.
        """
        if session.era == "modern":
            if self.opts.task:
                self._note("mrtr: note: --task changes nothing on a 2026-07-28 server: the server decides "
                           "when a call becomes a task")
            return None
        from mrtr_cli.tasks.legacy import task_augmentation  # noqa: PLC0415 - older servers only
        try:
            tool = self.catalog(session).find(name)
        except JsonRpcError:
            tool = None  # no tool list: only --task can say the tool runs as a task
        return task_augmentation(session, name, tool, requested=self.opts.task, ttl_seconds=self.opts.task_ttl)

    def list_cache(self) -> Any:
        """The list cache of this run's server (`protocol.listcache.ListCache`), or None
        when `MRTR_NO_CACHE` is set; keyed by the authorization context and by the
        capabilities this run declares on each list (`declared`)."""
        from mrtr_cli.protocol.listcache import ListCache  # noqa: PLC0415
        from mrtr_cli.state import state_dir  # noqa: PLC0415

        if os.environ.get("MRTR_NO_CACHE", "") not in ("", "0"):
            return None
        target = self.target()
        authorizer = self._authorizers.get(target.url) if target.url else None
        if authorizer is None:
            return ListCache(os.path.join(state_dir(), "cache"), target.cache_identity(), target.auth_context(),
                             declared=self.declared)

        def context() -> Any:  # the sign-in in use is part of it (asked when a key is needed)
            base, signed_in = target.auth_context(), authorizer.identity()
            return base if signed_in is None else {**(base or {}), "oauth": signed_in}

        return ListCache(os.path.join(state_dir(), "cache"), target.cache_identity(), context, declared=self.declared)

    def declared(self, method: str) -> dict[str, Any]:
        """The `clientCapabilities` this run declares on `method` (protocol/capabilities.py):
        a discovery or list request declares what the matching call would.

        Raises:
            UsageError: as `chain` raises (a bad --root or --sampling-command).
        """
        from mrtr_cli.protocol.capabilities import declared_for  # noqa: PLC0415

        return declared_for(self.chain().capabilities(), method)

    def catalog(self, session: Session) -> Any:
        """The server's tools for this run (`protocol.catalog.ToolCatalog`, one per session)."""
        from mrtr_cli.protocol.catalog import ToolCatalog  # noqa: PLC0415

        if self._catalog is None or self._catalog.session is not session:
            self._catalog = ToolCatalog(session, self.list_cache(), exclude_invalid=bool(self.target().url),
                                        deadline=self.deadline)
        return self._catalog

    def tool_arguments(self, session: Session, name: str, items: list[Any], base: dict[str, Any] | None) -> dict[str, Any]:
        """The `arguments` of `tools/call` NAME: items typed by the tool's `inputSchema`
        and validated against it (schema/arguments.py). The tool list comes from the
        cache when fresh; a cached schema that rejects the arguments is re-fetched once.

        Raises:
            UsageError: unknown tool ("did you mean"), an item that cannot be typed, or
                arguments that fail the schema (exit 2; nothing is sent).
        """
        from mrtr_cli.schema.arguments import build_arguments, validate_arguments  # noqa: PLC0415

        catalog = self.catalog(session)
        try:
            tool = catalog.find(name)
        except JsonRpcError as err:
            self.tracer.note(f"tools/list failed ({err.message}); arguments stay untyped and unchecked")
            return build_arguments(items, base, None)

        def typed(tool: dict[str, Any] | None) -> dict[str, Any]:
            if self.opts.no_validate:  # `call --no-validate`: each item typed where the schema allows, sent regardless
                return build_arguments(items, base, tool.get("inputSchema") if tool else None, lenient=True)
            if tool is None:
                raise catalog.unknown(name)
            arguments = build_arguments(items, base, tool.get("inputSchema"))
            validate_arguments(arguments, tool.get("inputSchema"), name)
            return arguments

        try:
            return typed(tool)
        except UsageError:
            if not catalog.from_cache:
                raise
        self.tracer.note("the cached tool list rejects these arguments; fetching it again")
        catalog.load(refresh=True)
        return typed(catalog.find(name))
