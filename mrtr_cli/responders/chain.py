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
from mrtr_cli.render.sanitize import quote_value, sanitize
from mrtr_cli.responders.answers import AnswerStore
from mrtr_cli.responders.ask import ELICIT, INPUT_METHODS, ROOTS, SAMPLING, InputAsk, Person
from mrtr_cli.responders.shapes import (
    elicit_result_problems,
    looks_like_roots_result,
    looks_like_sampling_result,
    roots_result_problems,
    sampling_result_problems,
)

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.protocol.deadline import Deadline

__all__ = ["ELICIT", "INPUT_METHODS", "ROOTS", "SAMPLING", "InputAsk", "PromptInterrupted", "ResponderChain",
           "RoundOutcome"]

class PromptInterrupted(KeyboardInterrupt):
    """Ctrl-C at a prompt. `responses` holds the answers already given in that round
    (key -> InputResponse), and `prefill` the fields typed into the form that was being
    filled (key -> {field: value}), so a pending document can keep them."""

    def __init__(self, responses: dict[str, Any], prefill: dict[str, dict[str, Any]] | None = None):
        super().__init__()
        self.responses = responses
        self.prefill = prefill or {}


@dataclass
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
        self._asked: set[str] = set()  # the input keys asked on this run

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
        caps: dict[str, Any] = {"elicitation": {"form": {}}}
        if self.url_consent if self.url_consent is not None else True:
            caps["elicitation"]["url"] = {}
        if self.sampler is not None or self.interactive or self.store.has_exact_of_shape(looks_like_sampling_result):
            caps["sampling"] = {"tools": {}} if self.sampling_tools else {}
        if (self.roots is not None or self.store.roots() is not None
                or self.store.has_exact_of_shape(looks_like_roots_result)):
            caps["roots"] = {}
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
        outcome = RoundOutcome()
        left: list[InputAsk] = []
        for ask in asks:
            before = (given_once or {}).get(ask.key)
            if before is not None:
                self._rejected(ask, before, outcome)
                left.append(ask)
                continue
            answer = self._prepared(ask, outcome, task_id=task_id)
            if answer is not None:
                outcome.responses[ask.key] = answer
            else:
                left.append(ask)
        if left and self.interactive:
            if self._before_prompt is not None:
                self._before_prompt()
            terminal = self._get_terminal()
            for i, ask in enumerate(left, 1):
                ask.index, ask.total = i, len(left)
                terminal.partial = {}
                try:
                    with self.deadline.paused() if self.deadline is not None else contextlib.nullcontext():
                        answer = terminal.ask(ask, {**self.typed_before.get(ask.key, {}),
                                                    **outcome.prefill.get(ask.key, {})})
                except (KeyboardInterrupt, EOFError):  # Ctrl-C, or Ctrl-D at a prompt
                    kept = self._kept_fields(asks, outcome, {ask.key: terminal.partial})
                    raise PromptInterrupted(dict(outcome.responses), kept) from None
                if answer is not None:
                    outcome.responses[ask.key] = answer
                    outcome.sources[ask.key] = "the terminal"
            left = [a for a in left if a.key not in outcome.responses]
        outcome.missing = [a.key for a in left]
        outcome.prefill = self._kept_fields(left, outcome)
        self._asked.update(a.key for a in asks)
        if outcome.missing:
            self._check_key_flags(asks)
        if any(isinstance(r, dict) and r.get("action") in ("decline", "cancel") for r in outcome.responses.values()):
            self.declined = True
        if self.env.verbosity:
            for key, source in outcome.sources.items():
                self.env.err(f"mrtr: input {quote_value(key)} answered from {source}")
        return outcome

    def _check_key_flags(self, asks: list[InputAsk]) -> None:
        """The run stops for input at this round: a `-a KEY.FIELD` flag whose KEY names no
        question asked on this run (and which no form field of the round is named) was
        meant for a question that never came, most likely a mistyped key.

        Raises:
            UsageError: for the first such flag, naming its key and the keys of this round (exit 2).
        """
        from mrtr_cli.render.sanitize import quote_text  # noqa: PLC0415 - start-up time
        from mrtr_cli.schema.elicit import form_fields  # noqa: PLC0415 - start-up time

        fields = {f.name for a in asks if a.method == ELICIT and a.mode == "form"
                  for f in form_fields(a.params.get("requestedSchema"))}
        for index, flag in enumerate(self.store.flags):
            if index in self.store.used_flags or "." not in flag.name or flag.name in fields \
                    or any(flag.name.startswith(key + ".") for key in self._asked):
                continue
            key = flag.name.rsplit(".", 1)[0]
            raise UsageError(f"-a {sanitize(flag.text, single_line=True)}: no question has the key {quote_text(key)} "
                             f"(asked: {', '.join(quote_value(a.key) for a in asks)})", data={"key": key})

    def _kept_fields(self, asks: list[InputAsk], outcome: RoundOutcome,
                     typing: dict[str, dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
        """The form fields to keep for each of `asks` not answered yet (for a pending document's
        template, or the terminal of a later run), by input key: those typed on an earlier run
        (`typed_before`), overlaid by those found in flags and files (`outcome.prefill`), then by
        `typing` (the form being filled when Ctrl-C came). The person's typing is never lost."""
        kept: dict[str, dict[str, Any]] = {}
        for ask in asks:
            if ask.key in outcome.responses:
                continue
            fields = {**self.typed_before.get(ask.key, {}), **outcome.prefill.get(ask.key, {}),
                      **(typing or {}).get(ask.key, {})}
            if fields:
                kept[ask.key] = fields
        return kept

    def check_given(self, input_requests: object, given: dict[str, Any], source: str) -> None:
        """Check answers given on an earlier run (a pending document's `answered`: key ->
        InputResponse) against the requests of `input_requests`, as a prepared answer is
        checked (docs/design.md, "Answer files"); `source` names them ("FILE, answered").

        Raises:
            UsageError: an answer does not fit its request ("SOURCE.KEY, PROBLEM"), or no
                request has its key.
            ProtocolError: a malformed input request.
        """
        asks = {ask.key: ask for ask in self._parse(input_requests, "", "", None)}
        for key, value in given.items():
            ask = asks.get(str(key))
            if ask is None:
                raise UsageError(f"{source}.{key}: no input request of the round has this key",
                                 data={"key": key})
            self._check_exact(ask, value, f"{source}.{key}")

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
    ) -> list[InputAsk]:
        from mrtr_cli.schema.elicit import form_fields, json_type  # noqa: PLC0415 - start-up time

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
            if method == ELICIT and ask.mode == "url" and not isinstance(params.get("url"), str):
                raise ProtocolError(f"input request {quote_value(key)}: a URL-mode elicitation needs params.url "
                                    "as a string, "
                                    f"got {json_type(params.get('url')) if 'url' in params else 'none'}")
            if method == ELICIT and ask.mode == "form":
                try:
                    form_fields(params.get("requestedSchema"))
                except ValueError as exc:
                    raise ProtocolError(f"input request {quote_value(key)}: {exc}") from None
            asks.append(ask)
        return asks

    @staticmethod
    def _check_declared(ask: InputAsk, caps: dict[str, Any]) -> None:
        from mrtr_cli.protocol.capabilities.declared import capability_hints, declares, needed_capability  # noqa: PLC0415 - lazy for start-up time

        need = needed_capability(ask.method, ask.params)  # client/sampling: tools only with sampling.tools
        if need is not None and not declares(caps, need):
            raise ProtocolError(
                f"the server sent input request {quote_value(ask.key)} ({ask.method}, {need}) although this run "
                f"did not declare that capability", hint="; ".join(capability_hints([need])) or None,
            )

    # ------------------------------------------------------------------ prepared answers
    def _prepared(self, ask: InputAsk, outcome: RoundOutcome, *, task_id: str | None = None) -> Any:
        """An answer from flags/files/configured sources, or None."""
        exact = self.store.exact(ask.key)
        if exact is None and task_id and task_keyed(ask.key, task_id):
            exact = self.store.next_in_order(ask.key)
        if exact is not None:
            value, source = exact
            return self._stored_answer(ask, value, source, outcome)
        if ask.method == ELICIT and ask.mode == "form":
            answer = self._form_from_fields(ask, outcome)
            if answer is not None:
                outcome.once[ask.key] = (outcome.sources[ask.key], answer)
            return answer
        if ask.method == ROOTS:
            return self._configured_roots(ask, outcome)
        if ask.method == SAMPLING and self.sampler is not None:
            result = self.sampler(ask.params)
            outcome.sources[ask.key] = "--sampling-command"
            return result
        return None

    def _stored_answer(self, ask: InputAsk, value: Any, source: str, outcome: RoundOutcome) -> Any:
        """The answer store's answer for `ask` (from `source`), shaped and checked: null
        fields and root names dropped, a form's `-a` flags laid over it field by field."""
        form = ask.method == ELICIT and ask.mode == "form"
        if ask.method == ELICIT:
            value = _drop_null_fields(value)
        if form:
            # -a flags come before files: they override field by field.
            overlay, flag_sources = self._flag_overlay(ask)
            if overlay:
                accepted = isinstance(value, dict) and value.get("action") == "accept"
                content = value.get("content") if accepted and isinstance(value.get("content"), dict) else {}
                value = {"action": "accept", "content": {**content, **overlay}}
                source = ", ".join([source, *flag_sources])
        if ask.method == ROOTS:
            value = _drop_null_root_names(value)
        self._check_exact(ask, value, source)
        if form:
            value = _normalized(value, ask.params)
        outcome.sources[ask.key] = source
        if not self.store.is_list(ask.key):
            outcome.once[ask.key] = (source, value)
        return value

    def _configured_roots(self, ask: InputAsk, outcome: RoundOutcome) -> Any:
        """`roots/list`'s answer from `--root` flags, else an answer file's roots; None: neither."""
        roots = self.roots
        source = self.roots_source
        if roots is None:
            from_file = self.store.roots()
            if from_file is not None:
                roots, source = from_file
                self._check_exact(ask, {"roots": roots}, source)
        if roots is None:
            return None
        outcome.sources[ask.key] = source
        return {"roots": [dict(r) for r in roots]}

    def _check_exact(self, ask: InputAsk, value: object, source: str) -> None:
        if ask.method == ELICIT:
            problems = elicit_result_problems(value, ask.params)
        elif ask.method == SAMPLING:
            problems = sampling_result_problems(value, ask.params)
        else:
            problems = roots_result_problems(value)
        if problems:
            hint = "also: " + "; ".join(problems[1:]) if len(problems) > 1 else None
            raise UsageError(f"{source}, {problems[0]}", data={"key": ask.key, "problems": problems}, hint=hint)

    def _form_from_fields(self, ask: InputAsk, outcome: RoundOutcome) -> Any:
        """An accept answer built from `-a` flags and `fields` by property name.

        Fields given neither way take the schema's default (as a pre-filled form would
        send them). The answer is complete only when every required field has a value;
        otherwise what was found becomes the pre-fill for the terminal or the template.
        """
        from mrtr_cli.schema.elicit import explain, form_fields  # noqa: PLC0415 - start-up time

        fields = form_fields(ask.params.get("requestedSchema"))
        given, sources = self._flag_overlay(ask)
        for f in fields:
            if f.name in given:
                continue
            found = self.store.field_value(f.name)
            if found is None or found[0] is None:
                continue  # a null field means "not answered here"
            value, source = found
            reason = f.check(value)
            if reason:
                raise UsageError(f"{source} (input request {quote_value(ask.key)}): {explain(reason, f.expected())}",
                                 data={"key": ask.key, "field": f.name})
            given[f.name] = f.normalize(value)
            sources.append(source)
        if not given:
            return None
        content = {f.name: given.get(f.name, f.default)
                   for f in fields if f.name in given or (f.has_default and f.check(f.default) is None)}
        if all(f.name in content for f in fields if f.required):
            outcome.sources[ask.key] = ", ".join(sources)
            return {"action": "accept", "content": content}
        outcome.prefill[ask.key] = given
        return None

    def _flag_overlay(self, ask: InputAsk) -> tuple[dict[str, Any], list[str]]:
        """The form values `-a` flags give for `ask` (typed and checked), and the flags used."""
        from mrtr_cli.schema.elicit import form_fields  # noqa: PLC0415 - start-up time

        values: dict[str, Any] = {}
        sources: list[str] = []
        for f in form_fields(ask.params.get("requestedSchema")):
            flags = self.store.flags_for(ask.key, f.name)
            if flags:
                values[f.name] = self._flag_value(ask, f, flags)
                sources.extend("-a " + flag.text for _, flag in flags)
        return values, sources

    def _flag_value(self, ask: InputAsk, f: Any, flags: list[tuple[int, Any]]) -> Any:
        from mrtr_cli.schema.elicit import explain  # noqa: PLC0415 - start-up time

        values = []
        for index, flag in flags:
            self.store.used_flags.add(index)
            if flag.is_json:
                values.append(flag.raw)
                continue
            try:
                values.append(f.coerce(flag.raw))
            except ValueError as exc:
                raise UsageError(f"-a {sanitize(flag.text, single_line=True)} (input request {quote_value(ask.key)}, "
                                 f"field {quote_value(f.name)}): "
                                 f"{explain(str(exc), f.expected())}", data={"key": ask.key, "field": f.name}) from None
        if f.kind == "multi":
            value: Any = [item for v in values for item in (v if isinstance(v, list) else [v])]
        else:
            value = values[-1]
        reason = f.check(value)
        if reason:
            raise UsageError(f"-a {sanitize(flags[-1][1].text, single_line=True)} (input request "
                             f"{quote_value(ask.key)}, field {quote_value(f.name)}): "
                             f"{explain(reason, f.expected())}", data={"key": ask.key, "field": f.name})
        return f.normalize(value)

    # ------------------------------------------------------------------ reporting
    def report_unused(self) -> None:
        """Note on stderr each `-a` flag no input request used (a typo, or a question the
        server did not ask on this run). Silent with `-q`."""
        if not self.env.quiet:
            for note in self.store.unused_flag_notes():
                self.env.err(note)


def _drop_null_fields(value: object) -> Any:
    """An accept answer with `null` fields (as in a filled-in template) leaves those fields out."""
    if isinstance(value, dict) and isinstance(value.get("content"), dict):
        content = {k: v for k, v in value["content"].items() if v is not None}
        return {**value, "content": content}
    return value


def _drop_null_root_names(value: object) -> Any:
    """A roots answer with `"name": null` (as in a filled-in template) leaves the name out."""
    if isinstance(value, dict) and isinstance(value.get("roots"), list):
        roots = [{k: v for k, v in r.items() if not (k == "name" and v is None)} if isinstance(r, dict) else r
                 for r in value["roots"]]
        return {**value, "roots": roots}
    return value


def _normalized(value: Any, params: dict[str, Any]) -> Any:
    """A valid form answer with integral floats sent as integers for integer fields."""
    from mrtr_cli.schema.elicit import form_fields  # noqa: PLC0415 - start-up time

    content = value.get("content") if isinstance(value, dict) else None
    if not isinstance(content, dict):
        return value
    by_name = {f.name: f for f in form_fields(params.get("requestedSchema"))}
    fixed = {k: by_name[k].normalize(v) if k in by_name else v for k, v in content.items()}
    return {**value, "content": fixed}


def task_keyed(key: str, task_id: str) -> bool:
    """True when input-request `key` holds the id of the task asking (`<taskId>:<hash>`),
    so the same question has another key on every run (answer files use `inOrder`)."""
    return bool(task_id) and task_id in key
