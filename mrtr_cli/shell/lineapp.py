"""The run of one shell line: an `App` with the line's own options, answer store, responder
chain, deadline and recorder, over the shell's session, lists and sign-in (shell/host.py).

Each command of the command line builds its `App` as it always does (cli/build.py
`make_app`); in the shell it gets a `LineApp` instead, whose `session()` is the shell's
open session (started again first when a stdio server died), never opened or closed per
line, and whose target, tool catalog, list cache and OAuth hook are the shell's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from mrtr_cli.app import App
from mrtr_cli.config.target import Target
from mrtr_cli.env import Environment
from mrtr_cli.errors import EraChanged, InputRequired, Interrupted, TransportError, UsageError
from mrtr_cli.runcontext import RunOptions
from mrtr_cli.userfiles import UserInput

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.protocol.lists.catalog import ToolCatalog
    from mrtr_cli.protocol.session import Session


class LineHost(Protocol):
    """What a line's run asks of the shell (shell/host.py `ShellHost`).

    Attributes:
        app: the shell's own run (its tracer, OAuth hook, lists, tool catalog, checker).
        target: the shell's one target.
    """

    target: Target

    @property
    def app(self) -> App:
        """The shell's own run (read only here: the shell's is a `SessionApp`)."""

    def current(self) -> Session:
        """The open session (a stdio server that stopped is started again first)."""

    def keep_pending(self, doc: Mapping[str, object]) -> None:
        """Keep the pending document of a line that stopped for input."""

    def failed(self, session: Session, exc: TransportError) -> None:
        """A line's request on `session` failed with `exc`."""

    def drop_session(self) -> None:
        """Close the session; the next line opens a new one."""

    def declaring(self, capabilities: dict[str, Any] | None) -> None:
        """The running line's requests declare `capabilities` (its lists are kept apart by
        it); None: the line ended, the shell's own declaration holds again."""


class LineInput(UserInput):
    """The user's files for one line: stdin is the shell's own input (the terminal, or the
    script's next lines), so `-` reads nothing from it; it is the pending document the shell
    kept for a bare `resume`, when the shell gave one."""

    def __init__(self, env: Environment, deadline: object, kept: str | None):
        super().__init__(env, deadline)
        self._kept = kept

    def stdin(self) -> str:
        """The kept pending document's text. Raises UsageError when there is none."""
        if self._kept is None:
            raise UsageError("inside the shell, stdin carries the shell's own commands: `-` reads nothing",
                             hint="give a file instead (--args @FILE, --answers FILE), or the value itself")
        return self._kept


class LineApp(App):
    """One line's run (implements `runcontext.RunContext`, as `App` does).

    Args:
        host: the shell (its session, target, lists, sign-in).
        opts: the line's options (the shell line's, with the line's own on top).
        env: the line's environment (the shell's streams and secrets).
        kept: the text `-` stands for (a kept pending document), or None.
    """

    def __init__(self, host: LineHost, opts: RunOptions, env: Environment, kept: str | None = None):
        super().__init__(opts, env)
        self.host = host
        self.tracer = host.app.tracer  # the session's: `-v` on a line turns it up for the line
        self.tracer.verbosity = opts.verbosity
        self.files = LineInput(env, self.deadline, kept)
        self.sign_in_allowed = host.app.sign_in_allowed
        self.config_roots = host.app.config_roots

    def target(self) -> Target:
        """The shell's target (resolved once when the shell started)."""
        return self.host.target

    def authorizer(self, target: Target) -> Any:
        """The shell's OAuth hook: a sign-in lasts for the shell's life."""
        return self.host.app.authorizer(target)

    def list_cache(self) -> Any:
        """The shell's list cache (shell/listings.py)."""
        return self.host.app.list_cache()

    def catalog(self, session: Session) -> ToolCatalog:
        """The shell's tool catalog, while its list is valid."""
        return self.host.app.catalog(session)

    def strict_checker(self) -> Any:
        """`--strict` (given to the shell): the shell's checker."""
        return self.host.app.strict_checker()

    def spawn_early(self, target: Target) -> None:
        """Nothing: the shell's server is running already."""

    def _not_declared(self, declared: Mapping[str, object], version: str) -> None:
        """A line's option that declares a capability (`--root`, `--sampling-command`,
        `--sampling-tools`) on a session that declared its capabilities once, when the shell
        started, without that one: the server was never told, so the line's option cannot
        reach it; one warning line says where to give it (docs/shell.md)."""
        from mrtr_cli.protocol.capabilities.declared import declares  # noqa: PLC0415 - lazy for start-up time

        opts = self.opts
        given = [(spelling, capability) for spelling, capability, value in (
            ("--root", "roots", opts.roots), ("--sampling-command", "sampling", opts.sampling_command),
            ("--sampling-tools", "sampling.tools", opts.sampling_tools)) if value]
        unheard = [(spelling, capability) for spelling, capability in given if not declares(declared, capability)]
        if not unheard or self.env.quiet:
            return
        options = " and ".join(spelling for spelling, _ in unheard)
        named = " ".join(spelling + (" PATH" if spelling == "--root" else " CMD" if spelling == "--sampling-command"
                                     else "") for spelling, _ in unheard)
        self.env.err(f"mrtr: warning: {options} on this line cannot reach this server: an MCP {version} server "
                     f"is told what the client answers once, when the shell starts; give "
                     f"{'it' if len(unheard) == 1 else 'them'} on the shell's own command line: mrtr {named} ... shell")

    @contextlib.contextmanager
    def session(self, target: Target | None = None) -> Iterator[Session]:
        """The shell's session (a stdio server that died is started again first), kept open
        after the line. What the line's failure says about the session is told to the shell:
        a server that died, a cached era that was wrong, a pending document to keep. On a
        session whose every request declares the client's capabilities (2026-07-28), the
        line's own (`--sampling-command`, `--root`, ...) go with each of its requests, the
        lists it asks for too (docs/shell.md)."""
        session = self.host.current()
        declared = session.declared_once()
        if declared is not None:
            self._not_declared(declared, session.protocol_version)
        shell_declares = session.capabilities
        if declared is None:  # each request declares (2026-07-28): this line's options, its lists' too
            session.capabilities = self.chain().capabilities()
            self.host.declaring(session.capabilities)
        try:
            with self._line_session(session) as line_session:
                yield line_session
        finally:
            session.capabilities = shell_declares
            self.host.declaring(None)

    @contextlib.contextmanager
    def _line_session(self, session: Session) -> Iterator[Session]:
        """`session` for the line: its answers given to an older server's requests, and
        what the line's failure says about the session told to the shell (`session`)."""
        responder = getattr(session, "responder", None)
        if responder is not None:  # an older server's own requests: this line's answers, keys and --save-answers
            responder.begin(self.chain(), self.recorder())
        if self.host.target.url and session.mirrors_param_headers:
            session.use_param_headers(self.catalog(session))
        try:
            yield session
        except InputRequired as exc:
            self.host.keep_pending(exc.pending)
            raise
        except Interrupted as exc:  # Ctrl-C at a form: the typed fields are kept for a bare `resume` too
            if exc.pending is not None:
                self.host.keep_pending(exc.pending)
            raise
        except TransportError as exc:
            self.host.failed(session, exc)
            raise
        except EraChanged:
            self.host.drop_session()
            raise
