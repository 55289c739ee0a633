"""The shell's session and what every line shares (docs/shell.md).

`ShellHost` opens the session once (protocol/opening.py, through the `SessionApp`: the
`mrtr ... shell` line's options), keeps it open between lines, and starts a stdio server
again when the one it started has died (said once, then again when it starts). Each
line's command builds its run through the host (`line_options`, `line_app`: cli/build.py
asks `env.line_host`): the line's own options on top of the shell line's, and a
`LineApp` over the host's session, target, lists, tool catalog and OAuth hook.

Lists are kept in memory (shell/listings.py) while a change would be announced
(shell/watch.py). A line that stopped for input (exit 5) leaves its pending document with
the host, for a bare `resume`.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from mrtr_cli.batch.manylines import ManyLinesApp
from mrtr_cli.env import Environment
from mrtr_cli.errors import TransportError, UnreadWords, name_like
from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line, sanitize
from mrtr_cli.runcontext import RunOptions
from mrtr_cli.shell.lineapp import LineApp
from mrtr_cli.shell.listings import ShellLists
from mrtr_cli.shell.objects import member
from mrtr_cli.shell.watch import END_WAIT, ListWatcher
from mrtr_cli.transport.base import server_alive

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.config.target import Target
    from mrtr_cli.protocol.lists.catalog import ToolCatalog
    from mrtr_cli.protocol.session import Session
    from mrtr_cli.shell.grammar import CommandSpec

#: Options naming the server: the shell has one (RunOptions fields).
TARGET_OPTIONS = ("url", "stdio", "server", "config", "expand_env")
#: Options that set up the session or the process, given once on the `mrtr ... shell` line.
SESSION_OPTIONS = ("headers", "public_headers", "bearer_token_env", "client_id", "client_secret_env",
                   "client_secret_file", "trace", "protocol", "probe_timeout", "log_level", "max_message_size",
                   "strict")
#: The RunOptions fields, and those holding a list (a repeatable option's values).
_OPTION_FIELDS = frozenset(field.name for field in dataclasses.fields(RunOptions))
_LIST_OPTIONS = tuple(name for name, value in vars(RunOptions()).items() if isinstance(value, list))
#: Seconds between looks at a stdio server while a person sits at the prompt.
WATCH_SERVER_EVERY = 0.25
#: Seconds completion waits for a list it does not have yet (Tab never hangs).
NAMES_WAIT = 3.0
#: Most answers to `completion/complete` a shell keeps (the oldest goes first).
SUGGESTIONS_KEPT = 512
#: The list methods fetched in the background at a terminal, so that Tab answers at once.
PREFETCHED = ("prompts/list", "resources/list", "resources/templates/list")


def answer_flags(doc: Mapping[str, object]) -> tuple[list[str], str]:
    """The `-a` flags that answer what pending document `doc` leaves unanswered, as a hint
    inside the shell writes them, and the words that follow them: `-a FIELD=VALUE ...` with
    ` (fields: ...)` for a form's fields, `-a KEY=accept` for a URL-mode request (its
    answer once the person has been at its URL, which has no fields: docs/answers.md, "URL
    mode"), as words for render/invocation.py `command_line`; ([], "") when no flag answers
    them (roots, a sampling)."""
    from mrtr_cli.protocol.capabilities.kinds import ELICITATION_URL, input_kind  # noqa: PLC0415 - lazy
    from mrtr_cli.shell.completion import answer_fields  # noqa: PLC0415 - lazy for start-up time

    raw = doc.get("inputRequests")
    requests: dict[str, Any] = raw if isinstance(raw, dict) else {}
    missing = doc.get("missing")
    keys = [str(key) for key in (missing if isinstance(missing, list) else [])]
    urls = [key for key in keys if input_kind(member(requests, key).get("method"),
                                              member(member(requests, key), "params")) is ELICITATION_URL]
    fields = sorted(answer_fields(requests, [key for key in keys if key not in urls]))
    flags = (["-a", "FIELD=VALUE", "..."] if fields else []) + [word for key in urls
                                                                 for word in ("-a", f"{key}=accept")]
    said = ([f"fields: {', '.join(sanitize(f, single_line=True) for f in fields)}"] if fields else []) + (
        ["accept once you have been at the URL; or decline, cancel"] if urls else [])
    return flags, f" ({'; '.join(said)})" if said else ""


class SessionApp(ManyLinesApp):
    """The shell's own run (the `mrtr ... shell` line's options): it opens the session and
    keeps what every line shares, the lists in memory and the tool catalog while its list
    is valid (`catalog`). `covered(kind)` says whether a change of that list would reach
    the shell (set by the host from its `ListWatcher`)."""

    def __init__(self, opts: RunOptions, env: Environment):
        super().__init__(opts, env)
        self.covered: Callable[[str], bool] = lambda kind: False
        self._lists: ShellLists | None = None
        #: What the running line declares (its responder chain's capabilities), on a session
        #: whose every request declares (2026-07-28); None between lines (the shell's own).
        self.line_capabilities: dict[str, Any] | None = None
        self._catalog_declared: dict[str, Any] | None = None

    def declared(self, method: str) -> dict[str, Any]:
        """The `clientCapabilities` a request `method` declares now: the running line's (a
        line's `--sampling-command`, `--root` go with each of its requests, its lists too),
        else the shell's. The list caches are keyed by it: a server may list differently
        to a client declaring differently."""
        if self.line_capabilities is None:
            return super().declared(method)
        from mrtr_cli.protocol.capabilities.declared import declared_for  # noqa: PLC0415 - lazy for start-up time

        return declared_for(self.line_capabilities, method)

    def list_cache(self) -> ShellLists:
        """The shell's list cache: memory over the state directory's (shell/listings.py),
        both keyed by what the lists' requests declared."""
        if self._lists is None:
            self._lists = ShellLists(super().list_cache(), lambda kind: self.covered(kind), self.declared)
        return self._lists

    def catalog(self, session: Session) -> ToolCatalog:
        """The tool catalog of `session`, kept while the tool list it loaded is valid (a
        change notification, or `ttlMs` passing, makes the next line load it again). A list
        an earlier line loaded counts as cached: a tool it does not know is looked up again
        before the tool is called unknown (a change notification may come after the reply
        of the call that made the change: over HTTP they travel on different streams)."""
        catalog = self._catalog
        declared = self.declared("tools/list")
        kept = self.list_cache().kept("tools/list")
        if catalog is not None and catalog.session is session and self._catalog_declared == declared and (
                not catalog.pages or (kept is not None and kept.fresh())):
            if catalog.pages:
                catalog.from_cache = True
            return catalog
        self._catalog = None
        self._catalog_declared = declared  # the list a line declaring otherwise sees is another
        return super().catalog(session)


#: Commands whose `NAME=VALUE` words are not a tool's arguments (a prompt's, a template's,
#: a completion's): `ShellHost._line_secret_field`.
_NOT_TOOL_ARGUMENTS = ("prompt", "read", "complete")


def _braced(text: str) -> str:
    """`text` as an `errors.UnreadWords` template that names no word (its braces doubled)."""
    return text.replace("{", "{{").replace("}", "}}")


class ShellHost:
    """The shell: its session, and the run of each line over it.

    Args:
        app: the shell's own run (`SessionApp`).
        spellings: RunOptions field -> how the option is written (`-H/--header`), for messages.
        interactive: a person types the lines (the server is watched at the prompt, lists
            are fetched ahead for completion); else a script.

    Attributes:
        target: the shell's one target.
        session: the open session, or None (not opened yet, or closed after a death).
        pending: the pending document of the last line that stopped for input (exit 5), or None.
        asked: tool, prompt or resource name -> the input requests it last left unanswered
            (their fields complete after `-a`).
        ran_hidden: the words of the line that ran last and the indices of those its error
            did not print (`hide`; empty when it printed them all).
        hidden: a failing line's text -> the indices of its words (as `history.line_words`
            splits it) its error did not print: the history and the first failing line hide
            them (the shell loop fills it after each line and empties it at each prompt).
    """

    def __init__(self, app: SessionApp, *, spellings: dict[str, str], interactive: bool):
        self.app = app
        self.env = app.env
        self.spellings = spellings
        self.interactive = interactive
        self.target: Target = app.target()
        self.session: Session | None = None
        self.watcher: ListWatcher | None = None
        self.pending: Mapping[str, object] | None = None
        self.asked: dict[str, dict[str, Any]] = {}
        self.closing = False
        self._context: Any = None
        self._stopped: str | None = None  # why the server stopped, until it is started again
        self._lock = threading.RLock()
        self._kept: str | None = None  # what `-` stands for on the line running (a bare resume)
        #: The command line's grammar (cli/commands/shell.py sets it): which word of a line
        #: names its tool. Without it no line's tool is known, and every argument is masked.
        self.grammar: Callable[[], dict[str, CommandSpec]] = dict
        self._busy = False  # a line is running
        # completion/complete answers of this session: (kind, ref, argument, value, context) -> values
        self._suggested: dict[tuple[str, str, str, str, tuple[tuple[str, str], ...]], list[str]] = {}
        self._asking = threading.Lock()  # held while completion waits for the server
        self.ran_hidden: tuple[tuple[str, ...], frozenset[int]] = ((), frozenset())
        self.hidden: dict[str, frozenset[int]] = {}

    def declaring(self, capabilities: dict[str, Any] | None) -> None:
        """The running line's requests declare `capabilities` (None: the line ended): the
        shell's lists are kept apart by it (`SessionApp.declared`)."""
        self.app.line_capabilities = capabilities

    # ------------------------------------------------------------------ the session
    def start(self) -> Session:
        """Open the session (the first time). Raises MrtrError: the shell cannot begin."""
        with self._lock:
            return self._open()

    def current(self) -> Session:
        """The open session for a line; a stdio server that stopped is started again first
        (and it is said). Raises MrtrError: it cannot be started now (the line fails)."""
        with self._lock:
            session = self.session
            if session is not None and server_alive(session.transport):
                if self.watcher is not None and self.watcher.broken:  # the subscription dropped: again
                    self._watch(session)
                return session
            if session is not None:
                self._note_stopped(session)
                self._close()
            if self._stopped is not None and not self.app.opts.quiet:
                self._say("starting the server again")
            return self._open()

    def _open(self) -> Session:
        context = self.app.session(self.target)
        session = context.__enter__()
        self._context, self.session = context, session
        self._suggested.clear()  # another session, maybe another server: asked again
        self._watch(session)
        self._stopped = None
        if self.interactive:
            self._in_background(self._prefetch, session)
            if session.transport.process() is not None:
                self._in_background(self._watch_server, session)
        return session

    def _watch(self, session: Session) -> None:
        """Watch `session` for list changes (a new subscription: shell/watch.py)."""
        if self.watcher is not None:
            self.watcher.stop()
        watcher = self.watcher = ListWatcher(session, self._changed, self._subscription_ended)
        self.app.covered = watcher.covers
        watcher.start()

    def drop_session(self) -> None:
        """Close the session; the next line opens a new one (a cached era that proved wrong)."""
        with self._lock:
            self._close()

    def close(self) -> None:
        """End the session and stop the server (its process group)."""
        self.closing = True
        with self._lock:
            self._close()

    def _close(self) -> None:
        context, self._context, session, self.session = self._context, None, self.session, None
        if session is not None:
            session.closing = True  # its listen stream, broken by the close, is not sent again
        if self.watcher is not None:
            self.watcher.stop()
        self.app.covered = lambda kind: False
        if context is not None:
            context.__exit__(None, None, None)
        if self.watcher is not None:
            self.watcher.join(END_WAIT)  # whatever its thread has to say is said before the shell ends

    # ------------------------------------------------------------------ a server that stops
    def failed(self, session: Session, exc: TransportError) -> None:
        """A line's request failed with `exc`: a server that died was said to be so by the
        line's own error; an HTTP session the server forgot is opened anew next time."""
        from mrtr_cli.transport.errors import SessionExpired  # noqa: PLC0415 - lazy for start-up time

        if session is self.session and not server_alive(session.transport) and self._stopped is None:
            self._stopped = exc.message
        if isinstance(exc, SessionExpired):
            self.drop_session()

    def check_server(self) -> None:
        """Between lines: say once that the server stopped, if it did."""
        with self._lock:
            session = self.session
            if session is not None and not server_alive(session.transport):
                self._note_stopped(session)

    def _note_stopped(self, session: Session) -> None:
        if self._stopped is not None:
            return
        process = session.transport.process()
        why = process.gone() if process is not None else None
        self._stopped = why.message if why is not None else "the server process is gone"
        self._say(f"the server stopped: {one_line(self._stopped, SERVER_TEXT_CHARS)}; the next command starts it again")

    def _watch_server(self, session: Session) -> None:
        """At a terminal: notice a stdio server that stops while nothing runs."""
        import time  # noqa: PLC0415 - lazy for start-up time

        while not self.closing and self.session is session and server_alive(session.transport):
            time.sleep(WATCH_SERVER_EVERY)
        if not self.closing and self.session is session and not self._busy:
            self.check_server()

    def _subscription_ended(self, exc: BaseException) -> None:
        if not self.closing:
            self.app.tracer.note(f"the list-change subscription ended ({exc}); lists are fetched as ttlMs says")

    # ------------------------------------------------------------------ lists
    def _changed(self, kind: str) -> None:
        """The server said its `kind` list changed: forget it, and say so, once until a list
        of that kind is fetched again (a server that repeats it floods no one)."""
        news = self.app.list_cache().changed(kind)
        if news and not self.app.opts.quiet:
            self._say(f"the server's {kind[:-1]} list changed")

    def _prefetch(self, session: Session) -> None:
        """At a terminal: the lists completion offers, fetched while the person types."""
        if not session.asks_in_results:  # an older server's own requests must meet the line's thread
            return
        from mrtr_cli.protocol.lists.catalog import cached_list  # noqa: PLC0415 - lazy for start-up time

        try:
            self.app.catalog(session).load()
            declared = (session.discover_result or {}).get("capabilities") or {}
            for method in PREFETCHED:
                if method.split("/")[0] in declared:
                    cached_list(session, method, self.app.list_cache(), deadline=self.app.deadline())
        except Exception as exc:  # noqa: BLE001 - completion does without; the line that needs a list says why
            self.app.tracer.note(f"fetching the lists for completion failed: {exc}")

    def names(self, method: str) -> list[dict[str, Any]]:
        """The items of list `method` for completion: kept, else fetched now within a few
        seconds; [] when it cannot be had (completion never fails loudly)."""
        from mrtr_cli.protocol.deadline import Deadline  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.protocol.lists.catalog import cached_list  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.protocol.lists.listing import LIST_MEMBER  # noqa: PLC0415 - lazy for start-up time

        session = self.session
        if session is None or self._busy:
            return []
        kept = self.app.list_cache().kept(method)
        try:
            if kept is not None:  # fresh or not: a name from the last list is better than none
                pages = kept.pages
            else:
                _, pages, _ = cached_list(session, method, self.app.list_cache(), deadline=Deadline(NAMES_WAIT))
        except Exception:  # noqa: BLE001
            return []
        member = LIST_MEMBER[method]
        items = [item for page in pages for item in (page.get(member) or []) if isinstance(item, dict)]
        if method == "tools/list" and self.target.url:
            from mrtr_cli.protocol.headers import invalid_x_mcp_header  # noqa: PLC0415 - lazy for start-up time

            items = [t for t in items if invalid_x_mcp_header(t.get("inputSchema")) is None]  # as calls see them
        return items

    def suggest(self, kind: str, ref: str, argument: str, value: str, context: dict[str, str]) -> list[str]:
        """The server's values for a prompt argument (`kind` "prompt", `ref` its name) or a
        resource template variable (`kind` "resource", `ref` the URI template), `value`
        typed so far and `context` the other arguments typed on the line
        (`completion/complete`, 2026-07-28 server/utilities/completion), as sent (the
        completer bounds and filters them).

        Asked only of a server that declares `completions`, never while a line runs or
        while an earlier question is unanswered (one request of the line being typed at a
        time), and waited for `MRTR_COMPLETE_TIMEOUT` seconds at most (the request is
        cancelled then). An answer is kept for the session, per (ref, argument, value typed,
        context). Anything that goes wrong gives [] (and a note at `-v`)."""
        from mrtr_cli.protocol.features.completions import offers_completions  # noqa: PLC0415 - lazy for start-up time

        session = self.session
        if session is None or self._busy or offers_completions(session) is not True:
            return []
        key = (kind, ref, argument, value, tuple(sorted(context.items())))
        kept = self._suggested.get(key)
        if kept is not None:
            return kept
        if not self._asking.acquire(blocking=False):
            self.app.tracer.note("completion: the server has not answered the last Tab yet; nothing asked")
            return []
        try:
            if self._busy or session is not self.session:
                return []
            values = self._ask(session, kind, ref, argument, value, context)
            if values is not None and session is self.session:  # kept by the thread holding `_asking` only
                if len(self._suggested) >= SUGGESTIONS_KEPT:
                    self._suggested.pop(next(iter(self._suggested)))
                self._suggested[key] = values
        finally:
            self._asking.release()
        return values or []

    def _ask(self, session: Session, kind: str, ref: str, argument: str, value: str,
             context: dict[str, str]) -> list[str] | None:
        """One `completion/complete` for `suggest`: the values, or None when it failed (said at `-v`)."""
        from mrtr_cli.errors import MrtrError, TimeoutExpired  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.protocol.deadline import Deadline  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.protocol.features.completions import (  # noqa: PLC0415 - lazy for start-up time
            complete_params,
            completion_values,
            request_completion,
        )

        wait = self.env.settings.complete_timeout()
        try:
            result = request_completion(session, complete_params(kind, ref, argument, value, context),
                                        deadline=Deadline(wait, bound="MRTR_COMPLETE_TIMEOUT", unattended=True))
            return completion_values(result)
        except TimeoutExpired:
            self.app.tracer.note(f"completion: the server did not answer within {wait:g} s (MRTR_COMPLETE_TIMEOUT);"
                                 " nothing offered")
        except MrtrError as exc:
            self.app.tracer.note(f"completion: {sanitize(exc.message, single_line=True)}")
        except Exception as exc:  # noqa: BLE001 - completion never fails loudly
            self.app.tracer.note(f"completion failed: {sanitize(str(exc), single_line=True)}")
        return None

    # ------------------------------------------------------------------ lines
    def line_env(self, number: int | None = None) -> Environment:
        """A fresh environment for one line: the shell's streams, secrets and secret places
        (the session's tracer writes every line's messages), colour and `MRTR_*` settings
        (read when asked, as the shell's are), and the shell's `--json` (so that an error
        in reading the line's own words is JSON too); `number`: the script line it is (its
        `--json` error names it), None at a terminal."""
        env = self.env
        return Environment(stdout=env.stdout, stderr=env.stderr, stdin=env.stdin, secrets=env.secrets,
                           places=env.places, color=env.color, json_mode=env.json_mode, line_host=self,
                           line_number=number, settings_given=env.settings)

    def begin_line(self, kept: Mapping[str, object] | None = None) -> None:
        """A line starts; `kept`: the pending document `-` stands for on it (a bare `resume`)."""
        self._busy = True
        self._kept = None if kept is None else json.dumps(kept, ensure_ascii=False)
        self.ran_hidden = ((), frozenset())
        authorizer = self.app.authorizer(self.target) if self.target.url else None
        if authorizer is not None:  # every line reads the token store before its request (auth login, logout)
            authorizer.read_again()

    def end_line(self) -> None:
        """The line ended."""
        self._busy = False
        self._kept = None
        self.app.tracer.verbosity = self.app.opts.verbosity

    def line_options(self, values: dict[str, Any]) -> RunOptions:
        """The options of one line: the shell line's, with those the line gives on top (a
        repeatable option adds to the shell line's). `values`: the line's parsed options,
        RunOptions field (or other option) -> value as click gives it (a repeated option's
        as a tuple); an option the line does not give is None, False, 0 or ().

        Raises:
            UsageError: the line names a target (the shell has one), or gives an option that
                sets up the session (it goes on the `mrtr ... shell` line).
        """
        given = [key for key, value in values.items() if value not in (None, (), 0, False)]
        for key in given:
            # The option's values are never read here, nor said: one not spelled as a name is
            # carried as an unread word (errors.UnreadWords), which the history and first
            # failing line hide (the message names no value: `place` only finds its word).
            value = values[key]
            unread = [v for v in (value if isinstance(value, tuple) else (value,))
                      if isinstance(v, str) and not name_like(v)]
            spelling = self.spellings.get(key, key)
            if key in TARGET_OPTIONS:
                raise UnreadWords(_braced(f"{spelling}: this shell has one server ({self.target.label})"), unread,
                                  hint="to reach another, leave the shell (exit) and start one for it")
            if key in SESSION_OPTIONS:
                raise UnreadWords(_braced(f"{spelling} sets up the session: give it on the shell's own command line"),
                                  unread, hint=f"mrtr {spelling.split('/')[-1]} ... shell")
        shell = self.app.opts
        merged = RunOptions.__new__(RunOptions)  # a shallow copy, as copy.copy makes it
        merged.__dict__.update(vars(shell))
        for key in _LIST_OPTIONS:
            setattr(merged, key, list(getattr(shell, key)))  # a line's repeated options never reach the shell's
        for key in given:
            if key not in _OPTION_FIELDS:
                continue
            mine = values[key]
            setattr(merged, key, [*getattr(shell, key), *mine] if isinstance(mine, tuple) else mine)
        merged.trace = None  # the session's --trace file is the shell's (opened once)
        return merged

    def line_app(self, opts: RunOptions, env: Environment) -> LineApp:
        """The `App` of one line (shell/lineapp.py)."""
        return LineApp(self, opts, env, self._kept)

    def keep_pending(self, doc: Mapping[str, object]) -> None:
        """A line stopped for input: keep its pending document for a bare `resume`."""
        self.pending = doc
        params = member(doc, "params")
        subject = params.get("name") if doc.get("method") != "resources/read" else params.get("uri")
        requests = doc.get("inputRequests")
        if isinstance(subject, str) and isinstance(requests, dict):
            self.asked[subject] = requests

    def pending_notes(self, doc: dict[str, Any], config_words: object = (), *,
                      hides: Callable[[str], bool] | None = None) -> list[str]:
        """What to do after exit 5 inside the shell (`cli.main.run` prints them; `hides` as
        for engine/pending.py `start_again_command`, by default the shell's `Environment.hides`)."""
        from mrtr_cli.engine.pending import (  # noqa: PLC0415 - lazy for start-up time
            start_again_command,
            url_notes,
            withheld_arguments_notes,
        )
        from mrtr_cli.render.invocation import command_line  # noqa: PLC0415 - lazy for start-up time

        lines = url_notes(doc)
        flags, named = answer_flags(doc)
        if doc.get("resumable") is False:
            lines.append("  this server cannot resume a call: start it again with the answers" + named + ", e.g.:")
            lines.append("  " + start_again_command(doc, target_words=False, options=flags,
                                                    hides=hides or self.env.hides))
        elif flags and (resume := command_line(["resume", *flags])):
            lines.append(f"  answer and go on here: {resume}{named}, or resume --answers FILE")
        else:  # roots, a sampling: no -a flag answers them
            lines.append("  answer and go on here: resume --answers FILE (its inputResponses, as the "
                         "answersTemplate has them)")
        return lines + withheld_arguments_notes(doc)

    def history_line(self, text: str) -> str | None:
        """Line `text` as the history file keeps it, None when it is not kept (shell/history.py
        `scrub`, by the secrets and secret fields the session knows now, and the words its
        error did not print: `hidden`)."""
        from mrtr_cli.shell.history import scrub  # noqa: PLC0415 - lazy for start-up time

        hidden = self.hidden.get(text, frozenset())
        return scrub(text, secrets=self.env.secrets, secret_field=self._line_secret_field(text),
                     action_field=self.action_field, unread=lambda words: self.unread_words(words) | hidden)

    def shown_line(self, text: str, hidden: frozenset[int] = frozenset()) -> str:
        """Line `text` as a message quotes it (the first failing line): masked as the history
        masks it, a line that cannot be split into words too (shell/history.py `shown`);
        `hidden`: the indices of its words its error did not print (`hidden`)."""
        from mrtr_cli.shell.history import shown  # noqa: PLC0415 - lazy for start-up time

        return shown(text, secrets=self.env.secrets, secret_field=self._line_secret_field(text),
                     action_field=self.action_field, unread=lambda words: self.unread_words(words) | hidden)

    def hide(self, words: list[str], places: frozenset[int]) -> None:
        """The line running (`words`, as run) failed with an error that did not print the
        words at `places` (their indices: errors.UnreadWords `place`, cli/main.py)."""
        self.ran_hidden = (tuple(words), places)

    def unread_words(self, words: list[str]) -> set[int]:
        """The indices of the words of a line its command cannot take (shell/grammar.py
        `unread_words`): the history and the first failing line show each as `***`."""
        from mrtr_cli.shell.grammar import unread_words  # noqa: PLC0415 - lazy for start-up time

        return unread_words(self.grammar(), words)

    def _line_secret_field(self, text: str) -> Callable[[str, str], bool]:
        """`secret_field` for the tool arguments of line `text`: by the schema of the tool the
        line names (`call TOOL`, `tools TOOL`: the first word after the command that is not
        an option or its value). A value the schema cannot prove no secret is one: every
        argument of a line whose tool is not in the tool list the shell has read (not read
        yet, an unknown tool, a line whose command is not known), or whose schema marks it
        (or a field above it) `format: password` or `writeOnly`, wherever a subschema that
        could apply to it carries the mark (schema/secrecy.py: `$ref`, `anyOf`,
        `patternProperties`, `additionalProperties`, ...). `prompt`, `read` and
        `complete` lines give no tool arguments: their fields are secret by name only, or by
        any listed tool's schema (`secret_field`)."""
        from mrtr_cli.schema.secrecy import place_at  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.shell.grammar import walk  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.shell.history import line_words  # noqa: PLC0415 - lazy for start-up time

        found = walk(self.grammar(), line_words(text))
        if found is not None and found.path[0].name in _NOT_TOOL_ARGUMENTS:
            return self.secret_field
        name = found.positionals[0] if found is not None and found.positionals else None
        kept = self.app.list_cache().kept("tools/list")
        tool = next((t for page in (kept.pages if kept is not None else []) for t in page.get("tools") or []
                     if isinstance(t, dict) and t.get("name") == name), None)
        if tool is None:
            return lambda where, field: where == "argument" or self.secret_field(where, field)
        schema = tool.get("inputSchema")

        def secret(where: str, field: str) -> bool:
            if where != "argument":
                return self.secret_field(where, field)
            return bool(field) and place_at(schema, field.split(".")).secret()

        return secret

    def secret_field(self, where: str, name: str) -> bool:
        """Whether field `name` of a typed line holds a secret by what the server said of it
        (shell/history.py): a tool argument ("argument") that a listed tool's schema marks
        `format: password` or `writeOnly` (schema/secrecy.py), or an answer ("answer", `FIELD` or `KEY.FIELD`)
        to such a form field (any form of the session: `Environment.places.forms`, or one
        of a call that stopped for input), or to a URL-mode request (its action word is shown:
        `action_field`)."""
        from mrtr_cli.protocol.capabilities.kinds import ELICITATION_URL, input_kind  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.schema.secrecy import place_at  # noqa: PLC0415 - lazy for start-up time

        if where == "argument":
            kept = self.app.list_cache().kept("tools/list")
            tools = [t for page in (kept.pages if kept is not None else []) for t in page.get("tools") or []
                     if isinstance(t, dict)]
            return bool(name) and any(place_at(tool.get("inputSchema"), name.split(".")).secret() for tool in tools)
        key, _, field = name.rpartition(".")
        if any(field in names and key in ("", form_key) for form_key, names in list(self.env.places.forms.items())):
            return True  # a field a form of this session marked secret (answered or not, on any line)
        seen = [self.pending.get("inputRequests") if self.pending is not None else None, *self.asked.values()]
        for requests in seen:
            for request_key, request in (requests.items() if isinstance(requests, dict) else ()):
                if key and request_key != key:
                    continue
                params = member(request, "params")
                method = request.get("method") if isinstance(request, dict) else None
                url_mode = input_kind(method, params) is ELICITATION_URL
                if url_mode and name in (request_key, f"{request_key}.{field}"):
                    return True
                if place_at(member(params, "requestedSchema"), [field]).secret():
                    return True
        return False

    def action_field(self, name: str) -> bool:
        """Whether `-a NAME=VALUE` answers a URL-mode request this session knows (NAME is its
        input key): its value is an action (`accept`, `decline`, `cancel`), which the history
        and messages show as typed (shell/history.py)."""
        from mrtr_cli.protocol.capabilities.kinds import ELICITATION_URL, input_kind  # noqa: PLC0415 - lazy for start-up time

        seen = [self.pending.get("inputRequests") if self.pending is not None else None, *self.asked.values()]
        return any(request_key == name and input_kind(request.get("method"), member(request, "params"))
                   is ELICITATION_URL
                   for requests in seen if isinstance(requests, dict)
                   for request_key, request in requests.items() if isinstance(request, dict))

    def server_label(self) -> str:
        """The server's name for the prompt: its `serverInfo` name (sanitised, at most 32
        characters), else the target's."""
        info = self.session.server_info if self.session is not None else None
        name = info.get("name") if isinstance(info, dict) else None
        text = name if isinstance(name, str) and name.strip() else self.target.label
        text = sanitize(text, single_line=True, drop_colours=True).strip() or "mrtr"
        return text if len(text) <= 32 else text[:31] + "…"

    @property
    def stopped(self) -> bool:
        """True while the server is known to have stopped (the next line starts it again)."""
        return self._stopped is not None

    # ------------------------------------------------------------------ helpers
    def _say(self, text: str) -> None:
        self.env.err(f"mrtr: shell: {text}")

    @staticmethod
    def _in_background(work: Callable[[Session], None], session: Session) -> None:
        threading.Thread(target=work, args=(session,), name=f"mrtr-shell-{work.__name__.strip('_')}",
                         daemon=True).start()
