"""The application layer: one run of `mrtr`, composed from the packages that do the work.

Data flows one way (docs/design.md, "Layers"): options -> target -> session (transport + era)
-> engine <-> responders -> result -> render. A command (cli/) builds an `App` from its
options and reads top to bottom, e.g. `mrtr call`:

    store = app.answer_store()                    # responders/sources.py
    target = app.target()                         # config/resolve.py, config/trust.py
    app.spawn_early(target)                       # transport/stdio/early.py
    with app.session(target) as session:          # protocol/opening.py
        method, params = request_params(app, session, "call", name, items)   # protocol/requests.py
        return run_request(app, method, params, session=session,             # engine/run.py
                           chain=app.chain(store), target=target)

`App` holds the options, the environment and what a run builds once and shares (the
target, the answer store, the responder chain, the recorder, the deadline, the tool
catalog, the OAuth hooks); every job body lives in its package. The packages see the run
as `runcontext.RunContext` and never import this module. Nothing here knows about click.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from mrtr_cli.config.target import ConfigRoots, Target
from mrtr_cli.env import Environment
from mrtr_cli.protocol.deadline import Deadline
from mrtr_cli.render.trace import Tracer
from mrtr_cli.responders.answers import AnswerStore
from mrtr_cli.runcontext import RunOptions
from mrtr_cli.userfiles import UserInput

if TYPE_CHECKING:  # pragma: no cover - the rest loads while a stdio server boots (App.spawn_early)
    from mrtr_cli.auth.client import OAuthClient
    from mrtr_cli.auth.dpop import ProofKey
    from mrtr_cli.engine.mrtr import AnswerRecorder, EngineOutcome, TaskHandler
    from mrtr_cli.protocol.checks.strict import StrictChecker
    from mrtr_cli.protocol.lists.cache import ListCache
    from mrtr_cli.protocol.lists.catalog import ToolCatalog
    from mrtr_cli.protocol.opening import TraceFile
    from mrtr_cli.protocol.run import RejoinSession
    from mrtr_cli.protocol.session import Session
    from mrtr_cli.responders.chain import ResponderChain
    from mrtr_cli.responders.server_requests import ServerRequestResponder
    from mrtr_cli.responders.sources import InputSources
    from mrtr_cli.transport.http.authhook import Authorizer
    from mrtr_cli.transport.stdio.transport import StdioTransport

__all__ = ["App", "RunOptions"]


def oauth_client(*args: Any, **kwargs: Any) -> OAuthClient:
    """An `auth.client.OAuthClient` (its arguments): the sign-in package is imported only
    when the OAuth hook (transport/http/authhook.py) first needs a client. What it loads
    then goes to the garbage collector's permanent generation (`gc.freeze`, as after the
    DPoP proof module's import of `cryptography`: auth/dpop.py `_crypto`), so that it does
    not tip the call over the collection threshold (cli/entry.py) into a collection of
    everything loaded."""
    from mrtr_cli.auth.client import OAuthClient  # noqa: PLC0415 - start-up time: the first 401, or a token to refresh

    gc.freeze()  # the sign-in package lives to the end of the process
    return OAuthClient(*args, **kwargs)


def proof_key(stored: object) -> ProofKey | None:
    """The DPoP key of a DPoP-bound token from its stored form (`auth.dpop.ProofKey.from_stored`),
    or None when it is not a usable key."""
    from mrtr_cli.auth.dpop import ProofKey  # noqa: PLC0415 - start-up time: DPoP-bound tokens only

    return ProofKey.from_stored(stored)


_PATTERNS = "mrtr_cli.schema.patterns"


def bounding_patterns(deadline: Deadline) -> Deadline:
    """`deadline`, made the bound of every later match of a server's pattern in this thread
    as well (schema/patterns.py `bound_by`: CPU work on a schema ends with `--timeout` too).
    An unbounded deadline replaces an earlier line's bound; before any pattern module is
    loaded there is none to replace."""
    if deadline.timeout is not None or _PATTERNS in sys.modules:
        from mrtr_cli.schema.patterns import bound_by  # noqa: PLC0415 - only with --timeout (start-up time)

        bound_by(deadline)
    return deadline


class App:
    """One run of `mrtr` (implements `runcontext.RunContext`).

    Args:
        opts: the parsed options.
        env: the run's environment (streams, terminal facts, secrets).

    Attributes:
        config_roots: roots a server config supplies: (entries, source label, base
            directory for relative paths); used when neither --root nor an answer file gives roots.
        rejoin_session: a 2025-11-25 HTTP session left open for a task, to rejoin
            (`tasks.runner.use_record_protocol` finds it), or None.
        end_server_at_once: stop a stdio server without grace periods at the end (shell completion).
        sign_in_allowed: whether a person may be asked to sign in (None: when `env.can_prompt()`);
            `mrtr batch` decides it before it turns prompting off for its lines.
        live_tasks: tasks that batch lines wait for (task id -> `mrtr task wait` command).
    """

    #: `mrtr batch` (batch/runner.py): a task is reported in the line's record.
    batch = False

    def __init__(self, opts: RunOptions, env: Environment):
        self.opts = opts
        self.env = env
        self.tracer = Tracer(env, opts.verbosity)
        self.files = UserInput(env, self.deadline)
        self.config_roots: ConfigRoots | None = None
        self.rejoin_session: RejoinSession | None = None
        self.end_server_at_once = False
        self.sign_in_allowed: bool | None = None
        self.live_tasks: dict[str, str] = {}
        self._deadline: Deadline | None = None
        self._target: Target | None = None
        # One answer store, responder chain and recorder per run (an older server's own
        # requests are answered by the same chain as MRTR input requests).
        self._store: AnswerStore | None = None
        self._sources: tuple[tuple[AnswerStore, ConfigRoots | None], InputSources] | None = None
        self._chain: ResponderChain | None = None
        self._typed_before: dict[str, dict[str, Any]] | None = None
        self._recorder: AnswerRecorder | None = None
        self._catalog: ToolCatalog | None = None
        self._trace: TraceFile | None = None
        self._early: tuple[Target, StdioTransport] | None = None  # a stdio transport launched by `spawn_early`
        self._authorizers: dict[str | None, Authorizer | None] = {}  # the OAuth hook of each HTTP server of this run

    # ------------------------------------------------------------------ inputs
    def read_stdin(self) -> str:
        """All of stdin (read once; `userfiles.UserInput.stdin`)."""
        return self.files.stdin()

    def read_file(self, path: str, what: str = "file") -> str:
        """The text of `path` (`-` is stdin; `userfiles.UserInput.read_file`); `what` names it
        in messages (e.g. the option). Raises UsageError."""
        return self.files.read_file(path, what)

    def note(self, text: str) -> None:
        """A note on stderr (not with `-q`)."""
        if not self.opts.quiet:
            self.env.err(text)

    # ------------------------------------------------------------------ target
    def target(self) -> Target:
        """The run's target (`config.resolve.resolve_target`, once per run). Raises UsageError."""
        if self._target is None:
            from mrtr_cli.config.resolve import resolve_target  # noqa: PLC0415 - lazy for start-up time

            target = resolve_target(self.opts, self.env, read_file=self.read_file, warn=self.note,
                                    confirm=self.confirm)
            if target.roots is not None:
                self.config_roots = target.roots
            self._target = target
        return self._target

    def confirm(self, question: str) -> bool:
        """Ask the person a yes/no question at the terminal (`responders.terminal`, default
        no), e.g. whether to reach a saved target (config/trust.py). Raises KeyboardInterrupt."""
        from mrtr_cli.responders.terminal import TerminalResponder  # noqa: PLC0415 - start-up time (questionary)

        return TerminalResponder(self.env).confirm(question)

    def ask_secret(self, label: str) -> str:
        """Ask the person for a secret text at the terminal, typed masked (`responders.terminal`
        `secret_text`), e.g. a tool argument a pending document withheld. Raises
        KeyboardInterrupt (Ctrl-C) or EOFError (Ctrl-D)."""
        from mrtr_cli.responders.terminal import TerminalResponder  # noqa: PLC0415 - start-up time (questionary)

        return TerminalResponder(self.env).secret_text(label)

    def authorizer(self, target: Target) -> Authorizer | None:
        """The OAuth hook of an HTTP target (`config.oauth_target.make_authorizer`, one per
        server for the run: a batch may reopen its session), or None."""
        if target.url not in self._authorizers:
            from mrtr_cli.config.oauth_target import make_authorizer  # noqa: PLC0415 - start-up time: HTTP targets only

            self._authorizers[target.url] = make_authorizer(self, target, oauth_client=oauth_client,
                                                            proof_key=proof_key)
        return self._authorizers[target.url]

    # ------------------------------------------------------------------ answers
    def answer_store(self) -> AnswerStore:
        """The `--answers` files and `-a` flags (`responders.sources.load_answer_store`, once per
        run); roots and sampling options are checked here too, before anything is sent.
        Raises UsageError."""
        if self._store is None:
            from mrtr_cli.responders.sources import load_answer_store  # noqa: PLC0415 - lazy for start-up time

            self._store = load_answer_store(self.opts, self.read_stdin)
            self.sources(self._store)
        return self._store

    def sources(self, store: AnswerStore) -> InputSources:
        """Roots, their label and the sampling command for `store` (`responders.sources.input_sources`,
        once per store and `config_roots`). Raises UsageError."""
        key = (store, self.config_roots)
        if self._sources is None or self._sources[0][0] is not store or self._sources[0][1] is not self.config_roots:
            from mrtr_cli.responders.sources import input_sources  # noqa: PLC0415 - lazy for start-up time

            self._sources = (key, input_sources(self.opts, self.env, store, self.config_roots))
        return self._sources[1]

    def prefill_forms(self, typed_before: dict[str, dict[str, Any]]) -> None:
        """Form fields typed on an earlier run (a pending document's, by input key), for the
        chain to show pre-filled: given to it when it is built, so before the session opens."""
        assert self._chain is None, "the chain is built: its pre-filled fields come too late"
        self._typed_before = typed_before

    def chain(self, store: AnswerStore | None = None) -> ResponderChain:
        """The run's responder chain (`responders.sources.build_chain`, once per run)."""
        if self._chain is None:
            from mrtr_cli.responders.sources import build_chain  # noqa: PLC0415 - lazy for start-up time

            store = store or self.answer_store()
            self._chain = build_chain(self.opts, self.env, store, self.sources(store), self.deadline(),
                                      typed_before=self._typed_before)
        return self._chain

    def recorder(self) -> AnswerRecorder | None:
        """The `--save-answers` recorder of this run (`engine.mrtr.AnswerRecorder`), or None."""
        if self._recorder is None and self.opts.save_answers:
            from mrtr_cli.engine.mrtr import AnswerRecorder  # noqa: PLC0415 - lazy for start-up time

            self._recorder = AnswerRecorder()
        return self._recorder

    def server_request_responder(self) -> ServerRequestResponder:
        """What answers an older server's own requests (elicitation, sampling, roots):
        a `responders.server_requests.ServerRequestResponder` on the run's chain and
        recorder, building pending documents with `engine.pending.legacy_pending`."""
        from mrtr_cli.engine.pending import legacy_pending  # noqa: PLC0415 - start-up time: legacy sessions only
        from mrtr_cli.responders.server_requests import ServerRequestResponder  # noqa: PLC0415 - the same

        return ServerRequestResponder(self.chain(), capabilities={}, recorder=self.recorder(), pending=legacy_pending)

    # ------------------------------------------------------------------ tasks
    def task_field(self, session: Session, name: str, catalog: ToolCatalog) -> dict[str, Any] | None:
        """The `task` member of `tools/call NAME` on a 2025-11-25 server (`tasks.field.task_field`,
        with `--task` and `--task-ttl`), or None. Raises UsageError."""
        from mrtr_cli.tasks.field import task_field  # noqa: PLC0415 - start-up time

        return task_field(session, name, catalog, requested=self.opts.task, ttl=self.opts.task_ttl, note=self.note)

    def task_handler(self, session: Session, chain: ResponderChain, target: Target, params: dict[str, Any], *,
                     recorder: AnswerRecorder | None, sent: AnswerRecorder, deadline: Deadline) -> TaskHandler:
        """The engine's task hook for one `tools/call` (`MrtrEngine`'s `on_task`): a
        `tasks.runner.TaskRunner` drives the task the call became to its outcome, knowing
        the answers `sent` in the call's rounds before it became one."""
        def on_task(create_result: dict[str, Any], capabilities: dict[str, Any]) -> EngineOutcome:
            from mrtr_cli.tasks.runner import TaskRunner  # noqa: PLC0415 - start-up time: only once a task exists

            runner = TaskRunner(self, session, chain, target, tool=params.get("name"), params=params,
                                recorder=recorder, earlier=sent.document()["inputResponses"],
                                deadline=deadline, batch=self.batch)
            return runner.on_task(create_result, capabilities)

        return on_task

    # ------------------------------------------------------------------ time
    def deadline(self) -> Deadline:
        """The run's overall time bound (`--timeout`, extended by progress up to `--max-timeout`),
        created on first use and shared by every request, sampling command and poll."""
        if self._deadline is None:
            self._deadline = bounding_patterns(Deadline(self.opts.timeout, self.opts.max_timeout))
        return self._deadline

    def session_deadline(self) -> Deadline:
        """The time bound for opening a session: `opts.open_timeout` when set (`mrtr ping`),
        else the run's own `deadline()`."""
        if self.opts.open_timeout is not None:
            return Deadline(self.opts.open_timeout, bound="the time mrtr ping allows for opening a session")
        return self.deadline()

    # ------------------------------------------------------------------ session
    def spawn_early(self, target: Target) -> None:
        """Launch a stdio server now (`transport.stdio.early.spawn_early`); the next `session(target)`
        adopts it. Raises UsageError for a bad session option (the server is stopped)."""
        if target.command and self._early is None:
            from mrtr_cli.protocol.opening import check_session_options  # noqa: PLC0415 - lazy for start-up time
            from mrtr_cli.transport.stdio.early import spawn_early  # noqa: PLC0415 - lazy for start-up time

            transport = spawn_early(target, self.env, self.tracer, lambda: check_session_options(self.opts))
            if transport is not None:
                self._early = (target, transport)

    @contextlib.contextmanager
    def session(self, target: Target | None = None) -> Iterator[Session]:
        """A session to `target` (default: the run's), opened and closed by
        `protocol.opening.open_run_session`, adopting the transport of `spawn_early`."""
        from mrtr_cli.protocol.opening import open_run_session  # noqa: PLC0415 - lazy for start-up time

        target = target or self.target()
        early, self._early = self._early, None
        if early is not None and early[0] is not target:
            early[1].kill()  # launched for another target: not this session's
            early = None
        with open_run_session(self, target, early[1] if early is not None else None) as session:
            yield session

    def trace_file(self) -> TraceFile:
        """The run's `--trace` file (`protocol.opening.TraceFile`, one per run: a session
        opened again appends to it)."""
        if self._trace is None:
            from mrtr_cli.protocol.opening import TraceFile  # noqa: PLC0415 - lazy for start-up time

            self._trace = TraceFile()
        return self._trace

    def strict_checker(self) -> StrictChecker | None:
        """`--strict`: the run's `protocol.checks.strict.StrictChecker`, or None
        (`protocol.checks.strict.run_checker`; its module is loaded only with `--strict`)."""
        if not self.opts.strict:
            return None
        from mrtr_cli.protocol.checks.strict import run_checker  # noqa: PLC0415 - lazy for start-up time

        return run_checker(self.opts.strict, self.env)

    # ------------------------------------------------------------------ lists
    def list_cache(self) -> ListCache | None:
        """The list cache of this run's server (`protocol.lists.cache.cache_for`), or None with `MRTR_NO_CACHE`."""
        from mrtr_cli.protocol.lists.cache import cache_for  # noqa: PLC0415 - lazy for start-up time

        target = self.target()
        return cache_for(target, self._authorizers.get(target.url) if target.url else None, self.declared)

    def declared(self, method: str) -> dict[str, Any]:
        """The `clientCapabilities` this run declares on `method` (`protocol.capabilities.declared.declared_for`:
        a discovery or list request declares what the matching call would). Raises UsageError."""
        from mrtr_cli.protocol.capabilities.declared import declared_for  # noqa: PLC0415 - lazy for start-up time

        return declared_for(self.chain().capabilities(), method)

    def catalog(self, session: Session) -> ToolCatalog:
        """The server's tools for this run (`protocol.lists.catalog.ToolCatalog`, one per session)."""
        if self._catalog is None or self._catalog.session is not session:
            from mrtr_cli.protocol.lists.catalog import ToolCatalog  # noqa: PLC0415 - lazy for start-up time

            self._catalog = ToolCatalog(session, self.list_cache(), exclude_invalid=bool(self.target().url),
                                        deadline=self.deadline)
        return self._catalog
