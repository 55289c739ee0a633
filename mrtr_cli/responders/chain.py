"""The responder chain: one place that answers every input request.

MRTR `inputRequests` (2026-07-28 basic/patterns/mrtr), task input requests and,
for older servers, server-initiated requests all come here. For each request the
chain tries, in order (docs/design.md, "Answer files"): `-a` flags, answer files, other
configured sources (roots, a sampling command), then the terminal when a person
is there. Whatever is left is reported as missing, and the caller turns that into
a pending document (exit 5).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mrtr_cli.env import Environment
from mrtr_cli.errors import ProtocolError, UsageError
from mrtr_cli.protocol.capabilities.kinds import INPUT_METHODS, request_mode
from mrtr_cli.render.sanitize import quote_value, sanitize
from mrtr_cli.responders.answers import AnswerStore
from mrtr_cli.responders.ask import InputAsk, Person
from mrtr_cli.responders.kinds import KINDS, Kind, check_answer, kind_of
from mrtr_cli.responders.kinds.base import refuse_lone_surrogate

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.protocol.deadline import Deadline

__all__ = ["InputAsk", "PromptInterrupted", "ResponderChain", "RoundOutcome"]

class PromptInterrupted(KeyboardInterrupt):
    """Ctrl-C at a prompt. `responses` holds the answers already given in that round
    (key -> InputResponse), and `prefill` the fields typed into the form that was being
    filled (key -> {field: value}), so a pending document can keep them."""

    def __init__(self, responses: dict[str, Any], prefill: dict[str, dict[str, Any]] | None = None):
        super().__init__()
        self.responses = responses
        self.prefill = prefill or {}


@dataclass(eq=False, repr=False)
class RoundOutcome:
    """What the chain could answer in one round.

    Attributes:
        responses: key -> InputResponse, ready to send.
        missing: keys nobody could answer.
        prefill: key -> partial form content found in flags/files; once the round is
            answered, the fields kept for each key still missing (typed on an earlier run,
            overlaid by those found: `_kept_fields`), for templates.
        sources: key -> where the answer came from (for `-v`).
        once: key -> (source, answer) for answers given once (a `-a` flag, `fields`, an
            `inputResponses` value that is not a list): used in this round, never again.
        rejected: key -> {"source", "message"} for keys asked again after such an answer
            was sent (the server's `message` as sent); they are asked at the terminal or missing.
    """

    responses: dict[str, Any] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    prefill: dict[str, dict[str, Any]] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    once: dict[str, tuple[str, Any]] = field(default_factory=dict)
    rejected: dict[str, dict[str, str]] = field(default_factory=dict)


class ResponderChain:
    """Answers input requests from flags, files, configured sources and the terminal.

    Args:
        env: the run's environment (decides whether a person can be asked).
        store: prepared answers (`-a` flags and `--answers` files).
        roots: resolved roots (`--root`, an answer file's or a server config's `roots`),
            as Root objects `{uri, name?}`; None when none were given.
        roots_source: where `roots` came from, for `-v` (default "--root").
        sampler: a callable answering `sampling/createMessage` params with a
            CreateMessageResult (e.g. `--sampling-command`), or None.
        sampling_tools: the sampling sources support tool use (`sampling.tools`).
        terminal_factory: builds the interactive responder on first use (lazy import).
        url_consent: a person can consent to URL elicitation on this run.
        typed_before: form fields typed earlier (a pending document's `answersTemplate`, by
            input key): shown pre-filled at the terminal, never sent unless the person sends them.
        deadline: the run's `--timeout` bound, paused while a person answers at the terminal.
    """

    def __init__(
        self,
        env: Environment,
        store: AnswerStore | None = None,
        *,
        roots: list[dict[str, Any]] | None = None,
        roots_source: str = "--root",
        sampler: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        sampling_tools: bool = False,
        terminal_factory: Callable[[], Person] | None = None,
        url_consent: bool | None = None,
        typed_before: dict[str, dict[str, Any]] | None = None,
        deadline: Deadline | None = None,
    ):
        self.env = env
        self.store = store or AnswerStore()
        self.roots = roots
        self.roots_source = roots_source or "--root"
        self.sampler = sampler
        self.sampling_tools = sampling_tools
        self._terminal_factory = terminal_factory
        self._terminal: Person | None = None
        self.url_consent = url_consent
        #: Some answer given by this chain declined or cancelled (exit 6), whether it went
        #: into an MRTR retry or answered an older server's own request.
        self.declined = False
        self.typed_before = typed_before or {}
        self.deadline = deadline
        #: Called before the terminal is used for a prompt (`prompting_after`).
        self._before_prompt: Callable[[], None] | None = None

    @property
    def secret_fields(self) -> dict[str, set[str]]:
        """Input key -> the names of its form's secret fields (`credentials.is_secret_field`),
        for every request this chain has seen: the run's secret places (`Environment.places`),
        whose values every message written shows as `***`, files mrtr writes leave out
        (engine/withheld.py), and every value given for them is a secret of the run."""
        return self.env.places.forms

    # ------------------------------------------------------------------ capabilities
    @property
    def interactive(self) -> bool:
        """A person can be asked on this run."""
        return self._terminal_factory is not None and self.env.can_prompt()

    def capabilities(self) -> dict[str, Any]:
        """The `ClientCapabilities` this run can honour (2026-07-28 basic/index).

        Form elicitation is always declared: an answer may come from flags, files, the
        terminal, or later from `mrtr resume` with a pending document. URL mode is declared
        when a person can consent (a terminal, or a pending document they will act on).
        Sampling only with a sampling source (a command, a terminal, or sampling answers in a
        file); roots only when roots are given (flags, config, or roots in a file).
        """
        caps: dict[str, Any] = {}
        for kind in KINDS:
            declared = kind.declaration(self)
            if declared is None:
                continue
            member, _, sub = kind.spec.capability.partition(".")
            if sub:
                caps.setdefault(member, {})[sub] = declared
            else:
                caps[member] = declared
        return caps

    @contextlib.contextmanager
    def prompting_after(self, step_aside: Callable[[], None]) -> Iterator[None]:
        """Within this block, `step_aside` is called before the terminal is used for a
        prompt (a waiting display steps aside); the one set before is restored after it."""
        earlier, self._before_prompt = self._before_prompt, step_aside
        try:
            yield
        finally:
            self._before_prompt = earlier

    # ------------------------------------------------------------------ answering
    def answer_round(
        self,
        input_requests: object,
        *,
        server_name: str,
        origin: str,
        capabilities: dict[str, Any] | None = None,
        task_id: str | None = None,
        given_once: dict[str, tuple[str, Any]] | None = None,
    ) -> RoundOutcome:
        """Answer every request of one round.

        An answer given once is used once: a key in `given_once` (answered in an earlier
        round of this call from a `-a` flag, `fields` or a non-list `inputResponses` value)
        that the server asks again was rejected. Its prepared answer is not sent again: the
        server's message is shown and a person is asked (the form filled with the rejected
        value), or, with nobody to ask, the key is missing and `rejected` says why.

        Args:
            input_requests: the server's `inputRequests` map.
            server_name, origin: shown to the person with each request.
            capabilities: what was declared on the request (to reject undeclared asks).
            task_id: the task asking, if any: a key that holds it (`<taskId>:<hash>`) and
                has no `inputResponses` entry takes the next `inOrder` answer.
            given_once: key -> (source, answer) of one-off answers sent earlier in this call.

        Raises:
            ProtocolError: a malformed input request, or one for a capability not declared.
            UsageError: a prepared answer (flag or file) is invalid for its request.
            PromptInterrupted: the person pressed Ctrl-C (or Ctrl-D) at a prompt (a KeyboardInterrupt
                carrying the answers given earlier in the round).
        """
        asks = self._parse(input_requests, server_name, origin, capabilities)
        self._check_field_flags(asks)
        outcome = RoundOutcome()
        left: list[tuple[Kind, InputAsk]] = []
        for kind, ask in asks:
            before = (given_once or {}).get(ask.key)
            if before is not None:
                self._rejected(ask, before, outcome)
                left.append((kind, ask))
                continue
            answer = self._prepared(kind, ask, outcome, task_id=task_id)
            if answer is not None:
                outcome.responses[ask.key] = answer
            else:
                left.append((kind, ask))
        if left and self.interactive:
            if self._before_prompt is not None:
                self._before_prompt()
            terminal = self._get_terminal()
            for i, (kind, ask) in enumerate(left, 1):
                ask.index, ask.total = i, len(left)
                terminal.partial, terminal.cleared = {}, set()
                try:
                    with self.deadline.paused() if self.deadline is not None else contextlib.nullcontext():
                        terminal.heading(ask)
                        answer = kind.question(terminal, ask, {**self.typed_before.get(ask.key, {}),
                                                               **outcome.prefill.get(ask.key, {})})
                except (KeyboardInterrupt, EOFError):  # Ctrl-C, or Ctrl-D at a prompt
                    kept = self._kept_fields([a for _, a in asks], outcome, {ask.key: terminal.partial},
                                             {ask.key: terminal.cleared})
                    raise PromptInterrupted(dict(outcome.responses), kept) from None
                if answer is not None:
                    self._hide_secrets(ask.key, answer)
                    outcome.responses[ask.key] = answer
                    outcome.sources[ask.key] = "the terminal"
            left = [(k, a) for k, a in left if a.key not in outcome.responses]
        outcome.missing = [a.key for _, a in left]
        outcome.prefill = self._kept_fields([a for _, a in left], outcome)
        for key, answer in outcome.responses.items():  # typed ones too: never sent without a UTF-8 form
            refuse_lone_surrogate(answer, f"the answer to {quote_value(key)}", key)
        if any(isinstance(r, dict) and r.get("action") in ("decline", "cancel") for r in outcome.responses.values()):
            self.declined = True
        if self.env.verbosity:
            for key, source in outcome.sources.items():
                self.env.err(f"mrtr: input {quote_value(key)} answered from {source}")
        return outcome

    def _check_field_flags(self, asks: list[tuple[Kind, InputAsk]]) -> None:
        """Before anything of the round is answered or sent: a `-a KEY.FIELD` flag whose KEY
        is a question of this round whose form has no field FIELD fits nothing (a mistyped
        field, or a field of another question), unless its whole name is a field of the
        round (a field name with a dot) or another reading of it (a key with a dot) names a
        field. A flag for a key not asked in this round is left for a later round (or the
        end-of-run note).

        The refused flag counts as used: its verdict is this error, never also an
        end-of-run note that it was not used.

        Raises:
            UsageError: for the first such flag, naming KEY, FIELD and the question's fields (exit 2).
        """
        dotted = [(index, flag) for index, flag in enumerate(self.store.flags) if "." in flag.name]
        if not dotted:
            return
        fields = {a.key: kind.field_names(a.params) for kind, a in asks}
        every_field = {name for names in fields.values() for name in names}
        for index, flag in dotted:
            readings = [(key, flag.name[len(key) + 1:]) for key in fields if flag.name.startswith(key + ".")]
            if not readings or flag.name in every_field or any(name in fields[key] for key, name in readings):
                continue
            key, name = readings[0]
            has = ", ".join(quote_value(f) for f in sorted(fields[key]))
            self.store.used_flags.add(index)
            raise UsageError(f"-a {sanitize(flag.named, single_line=True)}: question {quote_value(key)} has no field "
                             f"{quote_value(name)} ({f'its fields: {has}' if has else 'it has no fields'})",
                             data={"key": key, "field": name, "fields": sorted(fields[key])})

    def _kept_fields(self, asks: list[InputAsk], outcome: RoundOutcome,
                     typing: dict[str, dict[str, Any]] | None = None,
                     cleared: dict[str, set[str]] | None = None) -> dict[str, dict[str, Any]]:
        """The form fields to keep for each of `asks` not answered yet (for a pending document's
        template, or the terminal of a later run), by input key: those typed on an earlier run
        (`typed_before`), overlaid by those found in flags and files (`outcome.prefill`), then by
        `typing` (the form being filled when Ctrl-C came), less the fields the person `cleared`
        in it. The person's typing is never lost, nor a value they removed brought back."""
        kept: dict[str, dict[str, Any]] = {}
        for ask in asks:
            if ask.key in outcome.responses:
                continue
            fields = {**self.typed_before.get(ask.key, {}), **outcome.prefill.get(ask.key, {}),
                      **(typing or {}).get(ask.key, {})}
            for name in (cleared or {}).get(ask.key, ()):
                fields.pop(name, None)
            if fields:
                kept[ask.key] = fields
        return kept

    def check_given(self, input_requests: object, given: dict[str, Any], source: str, *,
                    declared: tuple[dict[str, Any], str] | None = None) -> dict[str, Any]:
        """Answers given on an earlier run (a pending document's `answered`: key ->
        InputResponse) for the requests of `input_requests`, as a prepared answer is taken
        (docs/design.md, "Answer files"): shaped by its kind (`null` fields left out, a
        form's `-a` flags laid over it), checked and normalized; `source` names them
        ("FILE, answered"). An answer whose secret field the document left out (`null`) and
        no `-a` flag gives again is not taken: its request is asked again, the fields it
        gives filled in (`typed_before`; docs/answers.md, "Secrets").

        Returns:
            key -> the InputResponse to send.

        `declared`: (the run's client capabilities, the document's name): each request not
        answered in `given` must need only a capability the run declares, else it is the
        document's request this run cannot answer (exit 2 naming the document and how to
        declare it), not the server's.

        Raises:
            UsageError: an answer does not fit its request ("SOURCE.KEY, PROBLEM"), no
                request has its key, or a request needs a capability not declared.
            ProtocolError: a malformed input request.
        """
        asks = {ask.key: (kind, ask) for kind, ask in self._parse(input_requests, "", "", None)}
        if declared is not None:  # the requests still to answer (an answered one is sent as it is)
            for _, ask in (found for key, found in asks.items() if key not in map(str, given)):
                self._check_declared(ask, declared[0], document=declared[1])
        checked: dict[str, Any] = {}
        for key, value in given.items():
            found = asks.get(str(key))
            if found is None:
                raise UsageError(f"{source}.{key}: no input request of the round has this key",
                                 data={"key": key})
            kept = self._withheld(found[1], value)
            if kept is not None:  # asked again, the rest of the answer filled in
                self.typed_before[str(key)] = {**self.typed_before.get(str(key), {}), **kept}
                continue
            checked[str(key)], _ = self._taken(*found, value, f"{source}.{key}")
        return checked

    def _withheld(self, ask: InputAsk, value: object) -> dict[str, Any] | None:
        """For an answer given on an earlier run whose secret fields a pending document left
        out (`null`, engine/withheld.py) and no `-a` flag gives again: the fields it does
        give (the form is asked again with them filled in, or pends again); else None."""
        names = self.secret_fields.get(ask.key)
        content = value.get("content") if isinstance(value, dict) and value.get("action") == "accept" else None
        if not names or not isinstance(content, dict):
            return None
        if not any(name in content and content[name] is None and not self.store.flags_for(ask.key, name)
                   for name in names):
            return None
        return {name: field for name, field in content.items() if field is not None}

    def _rejected(self, ask: InputAsk, before: tuple[str, Any], outcome: RoundOutcome) -> None:
        """Note that `ask` came back after the one-off answer `before` (source, answer) was
        sent: say so with the server's message, and pre-fill its form with what was sent."""
        source, answer = before
        message = ask.params.get("message")
        outcome.rejected[ask.key] = {"source": source, "message": message if isinstance(message, str) else ""}
        content = answer.get("content") if isinstance(answer, dict) else None
        if isinstance(content, dict):
            outcome.prefill[ask.key] = dict(content)
        said = f": {message}" if isinstance(message, str) and message else ""
        if self.interactive:  # else the exit-5 message says it
            self.env.err(sanitize(f"mrtr: the server asks for {quote_value(ask.key)} again after the answer from "
                                  f"{source} was sent{said}"))

    def _get_terminal(self) -> Person:
        if self._terminal is None:
            assert self._terminal_factory is not None
            self._terminal = self._terminal_factory()
        return self._terminal

    def _parse(
        self, input_requests: object, server_name: str, origin: str, capabilities: dict[str, Any] | None
    ) -> list[tuple[Kind, InputAsk]]:
        """Each request of the round with its kind, checked: a known method, a declared
        capability, a request its kind can answer. Raises ProtocolError."""
        if not isinstance(input_requests, dict):
            raise ProtocolError("the server's inputRequests is not an object")
        asks = []
        for key, req in input_requests.items():
            if not isinstance(req, dict) or not isinstance(req.get("method"), str):
                raise ProtocolError(f"input request {quote_value(key)} is not a {{method, params}} object")
            method = req["method"]
            if method not in INPUT_METHODS:
                raise ProtocolError(f"input request {quote_value(key)} has an unknown method {quote_value(method)}")
            params = raw_params if isinstance(raw_params := req.get("params"), dict) else {}
            ask = InputAsk(str(key), method, params, server_name, origin)
            if capabilities is not None:
                self._check_declared(ask, capabilities)
            kind = kind_of(method, params)
            if kind is None:  # a mode nobody declares: refused above when capabilities are given
                raise ProtocolError(f"input request {quote_value(key)} has an unknown mode "
                                    f"{quote_value(str(request_mode(params)))}")
            problem = kind.check_request(ask)
            if problem is not None:
                raise ProtocolError(f"input request {quote_value(key)}: {problem}")
            self._note_secrets(ask)
            asks.append((kind, ask))
        return asks

    def _note_secrets(self, ask: InputAsk) -> None:
        """Note the secret fields of `ask`'s form (`secret_fields`), and register every value
        the flags and files give for them with the run's redaction (`Environment.add_secret`),
        before any is checked or shown: they never reach a trace, `-v` or an error message."""
        names = self.env.places.note_form(ask.key, ask.params.get("requestedSchema"))
        for name in names:
            for value in self.store.given_values(ask.key, name):
                self._hide(value)

    def _hide_secrets(self, key: str, answer: object) -> None:
        """Register the values of the secret fields of `answer` (an InputResponse for `key`)
        with the run's redaction."""
        names = self.secret_fields.get(key)
        content = answer.get("content") if isinstance(answer, dict) else None
        if names and isinstance(content, dict):
            for name in names:
                self._hide(content.get(name))

    def _hide(self, value: object) -> None:
        """Register one secret value (text or a number, as written) with the run's redaction."""
        if isinstance(value, str):
            self.env.add_secret(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            self.env.add_secret(str(value))

    @staticmethod
    def _check_declared(ask: InputAsk, caps: dict[str, Any], *, document: str | None = None) -> None:
        """Refuse `ask` when it needs a client capability `caps` does not declare: the
        server's fault (ProtocolError, exit 4), or with `document` (a pending document's
        request, `mrtr resume`) the document's, which this run cannot answer (UsageError,
        exit 2, with the options that declare it)."""
        from mrtr_cli.protocol.capabilities.declared import capability_hints, declares, needed_capability  # noqa: PLC0415 - lazy for start-up time

        need = needed_capability(ask.method, ask.params)  # client/sampling: tools only with sampling.tools
        if need is not None and not declares(caps, need) and document is not None:
            raise UsageError(
                f"{document}: the pending document's input request {quote_value(ask.key)} ({ask.method}) needs the "
                f"{need} capability, which this run does not declare",
                hint="; ".join(capability_hints([need])) or None, data={"key": ask.key, "capability": need})
        if need is not None and not declares(caps, need):
            raise ProtocolError(
                f"the server sent input request {quote_value(ask.key)} ({ask.method}, {need}) although this run "
                f"did not declare that capability", hint="; ".join(capability_hints([need])) or None,
            )

    # ------------------------------------------------------------------ prepared answers
    def _prepared(self, kind: Kind, ask: InputAsk, outcome: RoundOutcome, *, task_id: str | None = None) -> Any:
        """An answer from flags/files/configured sources, or None."""
        exact = self.store.exact(ask.key)
        if exact is None and task_id and task_keyed(ask.key, task_id):
            exact = self.store.next_in_order(ask.key)
        if exact is not None:
            value, source = exact
            return self._stored_answer(kind, ask, value, source, outcome)
        prepared = kind.from_sources(ask, self)
        if prepared.prefill:
            outcome.prefill[ask.key] = prepared.prefill
        if prepared.answer is None:
            return None
        outcome.sources[ask.key] = prepared.source
        if prepared.once:
            outcome.once[ask.key] = (prepared.source, prepared.answer)
        return prepared.answer

    def _stored_answer(self, kind: Kind, ask: InputAsk, value: Any, source: str, outcome: RoundOutcome) -> Any:
        """The answer store's answer for `ask` (from `source`), shaped by its kind (null
        fields and root names dropped, a form's `-a` flags laid over it), checked and
        normalized."""
        value, source = self._taken(kind, ask, value, source)
        outcome.sources[ask.key] = source
        if not self.store.is_list(ask.key):
            outcome.once[ask.key] = (source, value)
        return value

    def _taken(self, kind: Kind, ask: InputAsk, value: Any, source: str) -> tuple[Any, str]:
        """A prepared answer for `ask` as it is sent: shaped by its kind (null fields and root
        names dropped, a form's `-a` flags laid over it), checked, normalized; with its source
        (the flags used added). Raises UsageError: it does not fit `ask`."""
        value, source = kind.shaped(ask, value, source, self)
        self._hide_secrets(ask.key, value)
        check_answer(kind, ask, value, source)
        return kind.normalized(value, ask.params), source

    # ------------------------------------------------------------------ reporting
    def report_unused(self, *, stopped: bool = False) -> None:
        """Note on stderr each `-a` flag no input request used (silent with `-q`): on a run
        that reached its end, a typo or a question the server did not ask; on a run that
        `stopped` for input, one a later round may still ask (docs/answers.md, "Answer files")."""
        if not self.env.quiet:
            why = (lambda flag: f"the run stopped for input before any {flag.awaits} came") if stopped else None
            for note in self.store.unused_flag_notes(stopped=why):
                self.env.err(note)


def task_keyed(key: str, task_id: str) -> bool:
    """True when input-request `key` holds the id of the task asking (`<taskId>:<hash>`),
    so the same question has another key on every run (answer files use `inOrder`)."""
    return bool(task_id) and task_id in key
