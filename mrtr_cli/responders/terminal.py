"""Interactive answers at a terminal: forms, URL consent and sampling replies.

Spec: client/elicitation (2026-07-28): show which server asks; offer decline and
cancel; let the person review and change form answers before sending; for URL
mode show the full URL, highlight its host, warn on suspicious URLs and never
open it without consent. client/sampling: a person can review the request and
their reply.

Prompts are drawn on stderr (stdout carries results only) with `questionary`;
headings with `rich` (always as `Text`, so server text is never read as markup).
Both are imported only when a person is actually asked. Every string from the
server is sanitised before it is shown.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, cast

from mrtr_cli.credentials import REDACTED
from mrtr_cli.env import Environment
from mrtr_cli.errors import Declined
from mrtr_cli.render.color import console as styled_console
from mrtr_cli.render.ids import short_id
from mrtr_cli.render.sanitize import dumps_safe, quote_value, sanitize
from mrtr_cli.responders.above import Relay
from mrtr_cli.responders.ask import InputAsk
from mrtr_cli.responders.stopping import signals_end
from mrtr_cli.responders.urls import host_line, open_in_browser, openable, split_for_display, url_warnings
from mrtr_cli.schema.elicit import CHOICES_LISTED, FormField, form_fields

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import CreateMessageResult, ElicitResult

_SKIP = object()
#: At most this many reads of keys left unread when a question ends (each up to 1,024 bytes).
_MAX_DROPPED_READS = 64
SEND, EDIT, DECLINE, CANCEL = "Send", "Edit", "Decline (refuse to answer)", "Cancel (dismiss)"
KEEP = "Keep (on to the next request)"
OPEN, OPEN_AGAIN, DONE = "Open it in my browser", "Open it again", "I have finished there (continue)"
ALL_FIELDS, BACK = "(all of them, in order)", "(back to the review)"


@dataclass(frozen=True)
class _Stopped:
    """A text field stopped by Ctrl-C or Ctrl-D (`error`, raised again by the caller), and
    the `text` the field held then, Entered or not."""

    error: KeyboardInterrupt | EOFError
    text: str


def _one_line(text: object) -> str:
    return sanitize(str(text), single_line=True)


class TerminalResponder:
    """Asks a person at the terminal.

    Args:
        env: the run's environment; prompts use its stdin and stderr.
        open_urls: consent given up front (`--open-urls`) to open URL-mode links.
    """

    def __init__(self, env: Environment, *, open_urls: bool = False):
        self.env = env
        self.open_urls = open_urls
        #: The fields answered so far in the form being filled (kept if Ctrl-C stops it).
        self.partial: dict[str, Any] = {}
        #: The fields of that form left empty (a pre-filled value removed).
        self.cleared: set[str] = set()
        from prompt_toolkit.input import create_input  # noqa: PLC0415 - lazy
        from prompt_toolkit.output import create_output  # noqa: PLC0415 - lazy for start-up time

        # The questions are drawn on the terminal itself, never through a relay (responders/above.py).
        terminal = env.stderr.stream if isinstance(env.stderr, Relay) else env.stderr
        # The run's streams are text streams (TextIO at run time); `Environment` types them as IO[str].
        self._keys = create_input(env.prompt_input() or env.stdin)  # type: ignore[arg-type]  # TextIO at run time (above)
        self._pt = {"input": self._keys,
                    "output": create_output(stdout=terminal)}  # type: ignore[arg-type]  # TextIO at run time (above)
        self.console = styled_console(env, env.stderr, soft_wrap=True)

    # ------------------------------------------------------------------ every request
    def heading(self, ask: InputAsk) -> None:
        """Show who asks (`[2 of 3]` in a round of several), for what, and the request's message;
        each kind's question follows (responders/kinds/)."""
        from rich.text import Text  # noqa: PLC0415 - lazy for start-up time

        count = f"[{ask.index} of {ask.total}] " if ask.total > 1 else ""
        line = Text()
        line.append(f"\n{count}", style="bold")
        line.append(_one_line(ask.server_name), style="bold cyan")
        line.append(f" asks ({_one_line(ask.origin)}, input {_one_line(short_id(ask.key))}):")
        self.console.print(line)
        message = ask.params.get("message")
        if message:
            self.console.print(Text("  " + sanitize(str(message)).replace("\n", "\n  ")))

    def say(self, text: str) -> None:
        """Show `text` (mrtr's own words, never the server's) on stderr."""
        self.console.print(text)

    def confirm(self, question: str) -> bool:
        """Ask a yes/no question (default no); keys typed before it shows never answer it
        (`_choose`). Raises KeyboardInterrupt on Ctrl-C."""
        with self._keys.raw_mode():  # keys typed at the terminal's line mode are read, and dropped, too
            return bool(self._choose(self._q().confirm(question, default=False, **self._pt)))

    def secret_text(self, label: str) -> str:
        """Ask for a secret text (a tool argument a pending document withheld), typed masked
        (`*` per character: the value is never echoed) and asked again while empty.
        Raises KeyboardInterrupt (Ctrl-C) or EOFError (Ctrl-D)."""
        with self._typed_ahead():
            text = self._ask_until_valid(_one_line(label), "", lambda typed: bool(typed) or "required: type a value",
                                         secret=True)
        if isinstance(text, _Stopped):
            raise text.error
        return text

    @contextlib.contextmanager
    def _typed_ahead(self) -> Iterator[None]:
        """The terminal kept in raw mode across the prompts of one question (each field, a
        refusal and the field asked again, the review), so that keys typed while one prompt
        ends and the next starts reach the next prompt as typed. In the terminal's line mode
        between two prompts, Backspace and Ctrl-U would edit a line no prompt reads, Enter
        would arrive as Ctrl-J and every key would be echoed wherever the cursor is; Ctrl-C
        typed there reaches the next prompt, which stops as at a prompt. When the question
        ends, the keys that arrived with its last answer and that no prompt took are
        dropped (`_drop_left_over`)."""
        try:
            with self._keys.raw_mode():
                yield
        finally:
            self._drop_left_over()

    def _drop_left_over(self) -> None:
        """Drop the keys no prompt of the question took (`_drop_keys`). They arrived with the
        last answer (lines pasted without bracketed paste are keys typed at once: Enter
        answers a field, and the lines after it are not the form's); typed on, they would be
        the shell's next command, or the login shell's after `mrtr call`. One notice says
        so; keys typed after the question are left alone."""
        from prompt_toolkit.keys import Keys  # noqa: PLC0415 - lazy for start-up time

        if any(key != Keys.CPRResponse for key in self._drop_keys()):  # a cursor query's answer is no key
            self.say("  (what was typed after the form's last answer was dropped: it is not run as a command)")

    def _drop_keys(self) -> list[Any]:
        """Drop the keys typed so far that no prompt took: those prompt_toolkit holds for the
        next prompt on this terminal (its typeahead) and those unread on the terminal.
        Returns the dropped keys (prompt_toolkit `Keys` members and typed characters)."""
        from prompt_toolkit.input.typeahead import get_typeahead  # noqa: PLC0415 - lazy for start-up time

        left = list(get_typeahead(self._keys))
        for _ in range(_MAX_DROPPED_READS):  # each read takes what is there (at most 1,024 bytes), never waits
            keys = self._keys.read_keys()
            if not keys:
                break
            left += keys
        left += self._keys.flush_keys()
        return [k.key for k in left]

    def _choose(self, question: Any) -> Any:
        """The answer to a choice (a select, checkbox or yes/no `question`), given by keys
        typed once it shows: Enter or `y` typed before (ahead of a form's review, with a
        field's answer, while the call ran) is no consent to what the person has not seen
        (2026-07-28 client/elicitation: the person reviews before sending). Those keys are
        dropped with a one-line notice; a Ctrl-C among them stops the question as at its
        prompt (KeyboardInterrupt). A text field takes keys typed ahead (`_typed_ahead`)."""
        from prompt_toolkit.keys import Keys  # noqa: PLC0415 - lazy for start-up time

        dropped = self._drop_keys()
        if Keys.ControlC in dropped:  # Ctrl-C typed ahead stops the question, as at its prompt
            raise KeyboardInterrupt
        if any(key != Keys.CPRResponse for key in dropped):  # a terminal's answer to a cursor query is no key
            self.say("  (keys typed before this question showed were dropped: answer it now)")
        return self._ask(question)

    def _ask(self, question: Any) -> Any:
        """The answer to a questionary `question` (Ctrl-C, SIGINT, SIGTERM, SIGHUP raise
        KeyboardInterrupt once the question is gone: responders/stopping.py).
        While it is asked, what the run writes to stderr (a log the server sends during the
        call, a list change the shell announces) goes above the question's line, which is
        drawn again below it with what was typed (responders/above.py): the shell's relay, or
        one over the run's stderr for the time of the question."""
        env = self.env
        before = env.stderr
        relay = before if isinstance(before, Relay) else Relay(before)
        env.stderr = cast(IO[str], relay)
        try:
            # The question's own run (questionary's `unsafe_ask` without a SIGINT of prompt_toolkit's):
            # a stop signal ends it through its application (responders/stopping.py).
            with relay.over(question.application), signals_end(question.application):
                return question.application.run(handle_sigint=False)
        finally:
            env.stderr = before

    def _q(self) -> Any:
        import questionary  # noqa: PLC0415 - lazy

        return questionary

    # ------------------------------------------------------------------ forms
    def fill_form(self, ask: InputAsk, prefill: dict[str, Any]) -> ElicitResult:
        """Fill the form field by field, then review: send, edit, decline or cancel.
        `prefill`: form values found in flags/files, shown as the starting answers.
        Raises KeyboardInterrupt (Ctrl-C)."""
        with self._typed_ahead():
            return self._filled(ask, prefill)

    def _filled(self, ask: InputAsk, prefill: dict[str, Any]) -> ElicitResult:
        """`fill_form`'s prompts, in one stretch of raw mode."""
        fields = form_fields(ask.params.get("requestedSchema"))
        current: dict[str, Any] = {f.name: f.default for f in fields if f.has_default and f.check(f.default) is None}
        current.update(prefill)
        answers: dict[str, Any] = {}
        self.partial = answers
        for f in fields:
            self._fill(f, current.get(f.name), answers)
        last = ask.index >= ask.total  # earlier requests of a round are sent with the last one
        question = "Send these answers?" if last else f"Keep these answers? (all {ask.total} are sent together)"
        send = SEND if last else KEEP
        while True:
            self._show_review(ask, fields, answers)
            choices = [send, EDIT, DECLINE, CANCEL] if fields else [send, DECLINE, CANCEL]
            choice = self._choose(self._q().select(question, choices=choices, **self._pt))
            if choice == send:
                return {"action": "accept", "content": {f.name: answers[f.name] for f in fields if f.name in answers}}
            if choice == DECLINE:
                return {"action": "decline"}
            if choice == CANCEL:
                return {"action": "cancel"}
            for f in self._fields_to_edit(fields, answers):
                self._fill(f, answers.get(f.name), answers)

    def _fill(self, f: FormField, current: object, answers: dict[str, Any]) -> None:
        """Ask one field (starting from `current`) and store the answer, or drop it when left empty."""
        value = self._field(f, current)
        if value is _SKIP:
            answers.pop(f.name, None)
            self.cleared.add(f.name)
        else:
            answers[f.name] = value
            self.cleared.discard(f.name)

    def _fields_to_edit(self, fields: list[FormField], answers: dict[str, Any]) -> list[FormField]:
        """The fields the person wants to change (each is then asked with its answer pre-filled)."""
        if len(fields) == 1:
            return fields
        from questionary import Choice  # noqa: PLC0415 - lazy for start-up time

        choices = [Choice(f"{_one_line(f.title)}: {self._shown(f, answers)}", value=f.name) for f in fields]
        choices += [Choice(ALL_FIELDS, value=ALL_FIELDS), Choice(BACK, value=BACK)]
        picked = self._choose(self._q().select("Which answer do you want to change?", choices=choices, **self._pt))
        if picked == BACK:
            return []
        return fields if picked == ALL_FIELDS else [f for f in fields if f.name == picked]

    def _shown(self, f: FormField, answers: dict[str, Any]) -> str:
        """A field's answer as the review shows it: a masked one (`FormField.masked`) as `***`."""
        if f.name not in answers:
            return "(empty)"
        return REDACTED if f.masked else _one_line(f.display(answers[f.name]))

    def _show_review(self, ask: InputAsk, fields: list[FormField], answers: dict[str, Any]) -> None:
        from rich.text import Text  # noqa: PLC0415 - lazy for start-up time

        line = Text("  Review your answers for ")
        line.append(_one_line(ask.server_name), style="bold cyan")
        line.append(f" (input {_one_line(short_id(ask.key))}):")
        self.console.print(line)
        if not fields:
            self.console.print(Text("    (this form has no fields: sending it just says yes)"))
        width = max((len(_one_line(f.title)) for f in fields), default=0)
        for f in fields:
            row = Text(f"    {_one_line(f.title).ljust(width)}  ")
            row.append(self._shown(f, answers), style="bold" if f.name in answers else "dim")
            self.console.print(row)

    def _label(self, f: FormField) -> str:
        label = _one_line(f.title) + (" *" if f.required else "")
        hint = f.hint()
        if hint:
            label += f" [{_one_line(hint)}]"
        return label

    def _field(self, f: FormField, current: object) -> Any:
        """Ask one field; returns its typed value, or `_SKIP` for an optional field left empty."""
        from rich.text import Text  # noqa: PLC0415 - lazy for start-up time

        if f.description:
            self.console.print(Text("  " + sanitize(f.description).replace("\n", "\n  "), style="dim"))
        if f.kind == "enum" and f.options and len(f.options) <= CHOICES_LISTED:
            return self._enum(f, current)
        if f.kind == "enum" and f.options:
            self.console.print(Text(f"  ({len(f.options)} allowed values: type one, or its title)", style="dim"))
        if f.kind == "multi" and f.options:
            return self._multi(f, current)
        if f.kind == "boolean":
            return self._boolean(f, current)
        return self._text(f, current)

    def _enum(self, f: FormField, current: object) -> Any:
        from questionary import Choice  # noqa: PLC0415 - lazy for start-up time

        choices = [Choice(_one_line(title), value=const) for const, title in f.options]
        if not f.required:  # first, so that Enter on an optional field with no answer leaves it empty
            choices.insert(0, Choice("(leave empty)", value=_SKIP))
        default = current if current in [c for c, _ in f.options] else None
        return self._choose(self._q().select(self._label(f), choices=choices, default=default, **self._pt))

    def _multi(self, f: FormField, current: object) -> Any:
        from questionary import Choice  # noqa: PLC0415 - lazy for start-up time

        chosen = current if isinstance(current, list) else []
        choices = [Choice(_one_line(title), value=const, checked=const in chosen) for const, title in f.options]

        def check(selected: list[str]) -> bool | str:
            if not selected and not f.required:
                return True
            return f.check(list(selected)) or True

        while True:
            selected = self._choose(self._q().checkbox(self._label(f), choices=choices, **self._pt))
            verdict = check(selected)
            if verdict is True:
                break
            self._refused(verdict)
            choices = [Choice(c.title, value=c.value, checked=c.value in selected) for c in choices]
        if not selected and not f.required:
            return _SKIP
        return list(selected)

    def _boolean(self, f: FormField, current: object) -> Any:
        from questionary import Choice  # noqa: PLC0415 - lazy for start-up time

        if f.required or isinstance(current, bool):
            return self._choose(self._q().confirm(self._label(f), default=current is True, **self._pt))
        # Optional with no default: "(leave empty)" first, as in the other choice lists, so that
        # Enter agrees to nothing.
        choices = [Choice("(leave empty)", value=_SKIP), Choice("yes", value=True), Choice("no", value=False)]
        return self._choose(self._q().select(self._label(f), choices=choices, default=choices[0], **self._pt))

    def _text(self, f: FormField, current: object) -> Any:
        """A typed text answer, re-asked with the reason until it is valid for `f`."""

        def check(text: str) -> bool | str:
            if text == "":
                return "required: type a value" if f.required else True
            try:
                value = f.coerce(text)
            except ValueError as exc:
                return str(exc)
            return f.check(value) or True

        raw = "" if current is None else current if isinstance(current, str) else f.display(current)
        # The buffer shows an inert copy of a server default; accepting it unchanged sends the default itself.
        shown = _one_line(raw)
        text = self._ask_until_valid(self._label(f), shown, check, secret=f.masked)
        if isinstance(text, _Stopped):
            self._keep_unentered(f, shown, text.text)
            raise text.error
        if text == "" and not f.required:
            return _SKIP
        if text == shown and shown != raw and f.check(raw) is None:
            return raw
        return f.coerce(text)

    def _keep_unentered(self, f: FormField, shown: str, text: str) -> None:
        """Ctrl-C (or Ctrl-D) at text field `f`, which started as `shown`: the `text` typed into
        it but not Entered goes with the fields typed so far (`partial`), to pre-fill the
        field when the call is resumed, never sent unseen: its value when it is a valid one,
        else the text as typed. Nothing when the field holds what it started with or nothing.
        A secret's text (`FormField.secret`) goes as typed, as an Entered secret does, for
        the files mrtr writes to leave it out and say so (engine/withheld.py), never pre-filled."""
        if text in ("", shown):
            return
        self.cleared.discard(f.name)
        if f.secret:
            self.partial[f.name] = text
            return
        try:
            value = f.coerce(text)
        except ValueError:
            value = text
        self.partial[f.name] = value if f.check(value) is None else text

    def _ask_until_valid(self, label: str, default: str, check: Any, *, secret: bool = False) -> str | _Stopped:
        """Ask a text field until `check(text)` is True; a refused value is shown with its
        reason on the line right above the field, which is asked again with that value
        filled in (questionary's own validation shows the reason in a bottom toolbar, far
        from the field on a tall terminal). A `secret` field is typed masked (`*` per
        character), as a password prompt is.

        Returns:
            the valid text; or, when Ctrl-C or Ctrl-D stops the field, `_Stopped` with that
            error (for the caller to raise) and the text the field held.
        """
        ask = self._q().password if secret else self._q().text
        while True:
            question = ask(label, default=default, key_bindings=self._one_line_paste(), **self._pt)
            try:
                text: str = self._ask(question)
            except (KeyboardInterrupt, EOFError) as exc:  # what the field holds, Entered or not
                return _Stopped(exc, question.application.current_buffer.text)
            verdict = check(text)
            if verdict is True:
                return text
            if secret and text:  # the reason never shows what was typed into a secret field
                verdict = str(verdict).replace(text, REDACTED)
            self._refused(verdict)
            default = text

    def _one_line_paste(self) -> Any:
        """Key bindings of a one-line field: a bracketed paste puts its first line with text
        into the field (never a newline, never an answer: Enter is the person's), and says in
        one line above the field how many more lines were left out (responders/paste.py)."""
        from prompt_toolkit.key_binding import KeyBindings  # noqa: PLC0415 - lazy for start-up time
        from prompt_toolkit.keys import Keys  # noqa: PLC0415 - lazy for start-up time

        from mrtr_cli.responders.paste import left_out_notice, one_line  # noqa: PLC0415 - lazy

        keys = KeyBindings()

        @keys.add(Keys.BracketedPaste)
        def _pasted(event: Any) -> None:
            kept, left_out = one_line(event.data)
            event.current_buffer.insert_text(kept)
            if left_out:  # above the field while it asks (`_ask`'s relay)
                self.env.stderr.write(f"  {left_out_notice(left_out)}\n")

        return keys

    def _refused(self, reason: object) -> None:
        """The reason a value was refused, on stderr just above the field asked again."""
        from rich.text import Text  # noqa: PLC0415 - lazy for start-up time

        line = Text("  ")
        line.append("✗ " + _one_line(reason), style="bold red")
        self.console.print(line)

    # ------------------------------------------------------------------ URL mode
    def consent_to_url(self, ask: InputAsk) -> ElicitResult:
        """Show the URL (host highlighted, warnings), open it only with consent, and answer
        accept once the person says they are done there (or decline / cancel).
        Raises KeyboardInterrupt (Ctrl-C)."""
        with self._typed_ahead():
            return self._consented(ask)

    def _consented(self, ask: InputAsk) -> ElicitResult:
        """`consent_to_url`'s prompts, in one stretch of raw mode."""
        from rich.text import Text  # noqa: PLC0415 - lazy for start-up time

        url = ask.params["url"]  # a string: the chain refuses any other request (exit 4)
        shown = Text("  URL:  ")
        parts = split_for_display(url)
        if parts is None:  # read differently by a browser: shown whole, the browser's host below
            shown.append(_one_line(url))
        else:
            shown.append(_one_line(parts.before_host))
            shown.append(_one_line(parts.host), style="bold reverse")
            shown.append(_one_line(parts.after_host))
        # the person's own link, to open: shown whole, `?token=` and all (docs/design.md)
        styled_console(self.env, self.env.stderr, link=True, soft_wrap=True).print(shown)
        # the host a browser visits (WHATWG URL standard, mrtr_cli/render/weburl.py), never a guess
        self.console.print(Text("  host: ").append(_one_line(host_line(url)), style="bold"))
        warnings = url_warnings(url)
        for warning in warnings:
            self.console.print(Text(f"  warning: {_one_line(warning)}", style="bold yellow"))
        can_open = openable(url)
        opened = False
        if self.open_urls and can_open and not warnings:  # consent up front covers no suspicious URL
            opened = self._open(url)
        elif self.open_urls and can_open:
            self.console.print(Text("  (not opened although --open-urls was given: see the warnings)", style="dim"))
        while True:
            choices = [DONE, DECLINE, CANCEL]
            if can_open:
                choices.insert(1 if opened else 0, OPEN_AGAIN if opened else OPEN)
            choice = self._choose(self._q().select("What now?", choices=choices, **self._pt))
            if choice in (OPEN, OPEN_AGAIN):
                opened = self._open(url) or opened
                continue
            if choice == DONE:
                return {"action": "accept"}
            return {"action": "decline" if choice == DECLINE else "cancel"}

    def _open(self, url: str) -> bool:
        ok = open_in_browser(url)
        if ok:
            self.console.print("  opened in your browser; come back here when you are done")
        else:
            self.console.print("  could not open a browser here; open the URL yourself, then continue")
        return ok

    # ------------------------------------------------------------------ sampling
    def reply_as_model(self, ask: InputAsk) -> CreateMessageResult:
        """client/sampling: show the request (system prompt, messages, model preferences,
        maxTokens, ...), let the person type a reply as the assistant and review it.
        The reply is sent with `model: "human"`. Declining stops the call (exit 6): MRTR
        has no decline answer for sampling, so nothing is retried.

        Raises:
            Declined: the person refused the request.
            KeyboardInterrupt: Ctrl-C.
        """
        with self._typed_ahead():
            return self._replied(ask)

    def _replied(self, ask: InputAsk) -> CreateMessageResult:
        """`reply_as_model`'s prompts, in one stretch of raw mode."""
        from mrtr_cli.responders.sampling import describe_request  # noqa: PLC0415 - lazy for start-up time

        self.console.print("  The server asks for a model reply (sampling). You answer as the assistant.",
                           markup=False)
        for line in describe_request(ask.params):
            self.console.print("  " + line.replace("\n", "\n  "), markup=False)
        max_tokens = ask.params.get("maxTokens")
        q = self._q()
        reply = ""
        while True:
            typed = self._ask_until_valid("Your reply (as the assistant):", reply,
                                          lambda t: True if t.strip() else "type a reply, or Ctrl-C to stop")
            if isinstance(typed, _Stopped):
                raise typed.error
            reply = typed
            tokens = max(1, (len(reply) + 3) // 4)
            self.console.print(f"  Review: {dumps_safe(reply)}", markup=False)
            self.console.print(f"    model: human, about {tokens} tokens (maxTokens {max_tokens})", markup=False)
            if isinstance(max_tokens, int) and tokens > max_tokens:
                self.console.print(f"    warning: this reply is probably longer than maxTokens ({max_tokens})",
                                   style="bold yellow", markup=False)
            choice = self._choose(q.select("Send this reply?", choices=["Send", "Edit", "Decline (stop the call)"],
                                        **self._pt))
            if choice == "Send":
                return {"role": "assistant", "content": {"type": "text", "text": reply}, "model": "human",
                        "stopReason": "endTurn"}
            if choice.startswith("Decline"):
                raise Declined(f"you declined the sampling request {quote_value(ask.key)}; the call was not retried")
