"""The application layer: from parsed options to a finished run.

Data flows one way (DESIGN.md section 6): options -> target -> session (transport
+ era) -> engine <-> responders -> result -> render. The CLI parses, calls one of
the `App` methods, and maps errors to exit codes; nothing here knows about click.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from mrtr_cli.config.target import Target, parse_header, parse_stdio
from mrtr_cli.engine.mrtr import DEFAULT_MAX_ROUNDS, AnswerRecorder, EngineOutcome, MrtrEngine
from mrtr_cli.env import Environment
from mrtr_cli.errors import ExitStatus, JsonRpcError, UsageError
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.protocol.session import Session
from mrtr_cli.render.output import print_result
from mrtr_cli.render.sanitize import sanitize
from mrtr_cli.render.trace import Tracer
from mrtr_cli.responders.answers import AnswerStore, load_answer_file, parse_flag
from mrtr_cli.responders.chain import ResponderChain

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


@dataclass
class RunOptions:
    """Everything the command line (or environment) said about this run."""

    url: str | None = None
    stdio: str | None = None
    server: str | None = None
    config: str | None = None
    headers: list[str] = field(default_factory=list)
    bearer_token_env: str | None = None
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
    max_rounds: int = DEFAULT_MAX_ROUNDS
    open_urls: bool = False
    probe_timeout: float | None = None


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
        self.tracer = Tracer(env, opts.verbosity)
        self._store: AnswerStore | None = None
        self._chain: ResponderChain | None = None
        self._recorder: AnswerRecorder | None = None

    # ------------------------------------------------------------------ inputs
    def read_stdin(self) -> str:
        """All of stdin (read once; later calls get the same text)."""
        if self._stdin_text is None:
            self._stdin_text = self.env.stdin.read()
            self.env.stdin_consumed = True
        return self._stdin_text

    def read_file(self, path: str) -> str:
        """The text of `path` (`-` is stdin).

        Raises:
            UsageError: the file cannot be read.
        """
        if path == "-":
            return self.read_stdin()
        try:
            with open(os.path.expanduser(path), encoding="utf-8") as fh:
                return fh.read()
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None

    def target(self) -> Target:
        """The target from `--url` / `--stdio` (or MRTR_URL / MRTR_STDIO).

        Raises:
            UsageError: none or more than one target given, or a bad header.
        """
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
        if o.server:
            raise UsageError(f"-s {o.server}: named servers from config files are not supported yet; "
                             "use --url or --stdio")
        headers: dict[str, str] = {}
        for text in o.headers:
            name, value = parse_header(text)
            headers[name] = value
            self.env.add_secret(value)
        if o.bearer_token_env:
            token = os.environ.get(o.bearer_token_env)
            if not token:
                raise UsageError(f"--bearer-token-env {o.bearer_token_env}: that environment variable is empty or unset")
            headers["Authorization"] = f"Bearer {token}"
            self.env.add_secret(token)
        if o.url:
            if not o.url.startswith(("http://", "https://")):
                raise UsageError(f"--url {o.url!r}: expected an http:// or https:// URL")
            return Target(url=o.url, headers=headers)
        return Target(command=parse_stdio(o.stdio or ""))

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
        return self._store

    def chain(self, store: AnswerStore | None = None) -> ResponderChain:
        """The responder chain for this run (one per run: MRTR input requests and, for
        older servers, server-initiated requests share it)."""
        if self._chain is not None:
            return self._chain

        def terminal() -> Any:
            from mrtr_cli.responders.terminal import TerminalResponder  # noqa: PLC0415 - lazy

            return TerminalResponder(self.env, open_urls=self.opts.open_urls)

        self._chain = ResponderChain(self.env, store or self.answer_store(), terminal_factory=terminal)
        return self._chain

    def recorder(self) -> AnswerRecorder | None:
        """The `--save-answers` recorder of this run, or None."""
        if self._recorder is None and self.opts.save_answers:
            self._recorder = AnswerRecorder()
        return self._recorder

    def deadline(self) -> Deadline:
        return Deadline(self.opts.timeout, self.opts.max_timeout)

    # ------------------------------------------------------------------ session
    @contextlib.contextmanager
    def session(self, target: Target | None = None) -> Iterator[Session]:
        """Open a session to the target in the right protocol era (`--protocol`, probing
        when auto); always closes it (Ctrl-C during close exits at once)."""
        from mrtr_cli.protocol.era import (  # noqa: PLC0415
            DEFAULT_PROBE_TIMEOUT,
            SessionSettings,
            open_session,
            parse_protocol,
            server_key,
        )

        target = target or self.target()
        parse_protocol(self.opts.protocol)
        if self.opts.log_level and self.opts.log_level not in LOG_LEVELS:
            raise UsageError(f"--log-level {self.opts.log_level}: expected one of {', '.join(LOG_LEVELS)}")
        probe_timeout = self.opts.probe_timeout if self.opts.probe_timeout is not None else DEFAULT_PROBE_TIMEOUT
        if probe_timeout <= 0:
            raise UsageError(f"--probe-timeout {probe_timeout:g}: expected a positive number of seconds")
        if self.opts.trace:
            try:
                self._trace_file = open(self.opts.trace, "w", encoding="utf-8")  # noqa: SIM115
            except OSError as exc:
                raise UsageError(f"--trace {self.opts.trace}: {exc.strerror or exc}") from None
            self.tracer.trace_file = self._trace_file
        settings = SessionSettings(
            protocol=self.opts.protocol, probe_timeout=probe_timeout, log_level=self.opts.log_level,
            capabilities=self.chain().capabilities(), target=target.public(),
            cache_key=server_key(url=target.url, command=target.command, cwd=target.cwd),
            responder=self._server_request_responder, on_log=self._print_log,
        )
        transport = target.make_transport(self.env, self.tracer)
        session: Session | None = None
        try:
            session = open_session(transport, self.env, self.tracer, settings, deadline=self.deadline())
            yield session
        finally:
            try:
                if session is not None:
                    session.close()
            except KeyboardInterrupt:
                os._exit(int(ExitStatus.INTERRUPTED))
            if self._trace_file is not None:
                self._trace_file.close()

    def _server_request_responder(self) -> Any:
        """Answers an older server's own requests with this run's responder chain."""
        from mrtr_cli.responders.server_requests import ServerRequestResponder  # noqa: PLC0415

        return ServerRequestResponder(self.chain(), capabilities={}, recorder=self.recorder())

    def _print_log(self, params: dict[str, Any]) -> None:
        level = sanitize(str(params.get("level", "info")), single_line=True)
        logger = params.get("logger")
        data = params.get("data")
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        where = f" {sanitize(str(logger), single_line=True)}" if logger else ""
        self.env.err(f"[server {level}{where}] {sanitize(text)}")

    # ------------------------------------------------------------------ commands
    def run_mrtr(self, method: str, params: dict[str, Any], *, session: Session, chain: ResponderChain,
                 target: Target, resume_from: dict[str, Any] | None = None,
                 answered: dict[str, Any] | None = None) -> int:
        """Drive one MRTR-capable request, print its result, return the exit code."""
        recorder = self.recorder()
        engine = MrtrEngine(session, chain, target=target.public(), max_rounds=self.opts.max_rounds,
                            deadline=self.deadline(), recorder=recorder)
        try:
            outcome = engine.run(method, params, resume_from=resume_from, answered=answered)
        finally:
            if recorder is not None and recorder.responses:
                self._save_answers(recorder)
        return self.finish(method, outcome)

    def finish(self, method: str, outcome: EngineOutcome) -> int:
        """Print the final result and choose the exit code (1 for isError, 6 after a decline)."""
        print_result(self.env, method, outcome.result, json_mode=self.opts.json_mode)
        if method == "tools/call" and outcome.result.get("isError") is True:
            return int(ExitStatus.TOOL_ERROR)
        if outcome.declined:
            return int(ExitStatus.DECLINED)
        return int(ExitStatus.SUCCESS)

    def _save_answers(self, recorder: AnswerRecorder) -> None:
        path = self.opts.save_answers
        assert path is not None
        try:
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(recorder.document(), fh, ensure_ascii=False, indent=2)
                fh.write("\n")
        except OSError as exc:
            self.env.err(f"mrtr: warning: cannot write --save-answers {path}: {exc.strerror or exc}")

    def tool_input_schema(self, session: Session, name: str) -> Any:
        """The `inputSchema` of tool `name` from `tools/list` (all pages).

        Raises:
            UsageError: the server lists tools but not this one (with a "did you mean").
        """
        from mrtr_cli.protocol.listing import list_all  # noqa: PLC0415

        try:
            tools, _ = list_all(session, "tools/list", deadline=self.deadline())
        except JsonRpcError as err:
            self.tracer.note(f"tools/list failed ({err.message}); arguments stay untyped strings")
            return None
        for tool in tools:
            if isinstance(tool, dict) and tool.get("name") == name:
                return tool.get("inputSchema")
        import difflib  # noqa: PLC0415

        names = [str(t.get("name")) for t in tools if isinstance(t, dict)]
        close = difflib.get_close_matches(name, names, n=3)
        hint = f"did you mean: {', '.join(close)}?" if close else (
            f"the server's tools: {', '.join(names[:20])}" if names else "the server lists no tools")
        raise UsageError(f"unknown tool {name!r}", hint=sanitize(hint, single_line=True))

