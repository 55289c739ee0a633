"""Interactive answers at a terminal: forms, URL consent and sampling replies.

Spec: client/elicitation (2026-07-28): show which server asks; offer decline and
cancel; let the person review and change form answers before sending; for URL
mode show the full URL, highlight its host, warn on suspicious URLs and never
open it without consent. client/sampling: a person can review the request and
their reply.

Prompts are drawn on stderr (stdout carries results only) with `questionary`;
headings with `rich`. Both are imported only when a person is actually asked.
Every string from the server is sanitised before it is shown.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from mrtr_cli.env import Environment
from mrtr_cli.errors import Declined
from mrtr_cli.render.sanitize import dumps_safe, sanitize
from mrtr_cli.responders.chain import ELICIT, SAMPLING, InputAsk
from mrtr_cli.schema.elicit import FormField, form_fields

_SKIP = object()


def url_warnings(url: str) -> list[str]:
    """Reasons to be careful with `url`: not https, an IP-literal or punycode host,
    credentials in the URL, or a URL that does not parse."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return ["the URL does not parse"]
    warnings = []
    if parts.scheme.lower() != "https":
        warnings.append(f"not https (scheme {parts.scheme or 'missing'!r})")
    try:
        ipaddress.ip_address(host.strip("[]"))
        warnings.append("the host is an IP address, not a name")
    except ValueError:
        pass
    if any(label.startswith("xn--") for label in host.split(".")) or any(ord(c) > 127 for c in host):
        warnings.append("the host uses punycode / non-ASCII characters (look-alike domains)")
    if parts.username or parts.password:
        warnings.append("the URL carries a user name or password before the host")
    if not host:
        warnings.append("the URL has no host")
    return warnings


class TerminalResponder:
    """Asks a person at the terminal.

    Args:
        env: the run's environment; prompts use its stdin and stderr.
        open_urls: consent given up front (`--open-urls`) to open URL-mode links.
    """

    def __init__(self, env: Environment, *, open_urls: bool = False):
        self.env = env
        self.open_urls = open_urls
        from prompt_toolkit.input import create_input  # noqa: PLC0415 - lazy
        from prompt_toolkit.output import create_output  # noqa: PLC0415
        from rich.console import Console  # noqa: PLC0415

        self._pt = {"input": create_input(env.stdin), "output": create_output(stdout=env.stderr)}
        self.console = Console(file=env.stderr, highlight=False, soft_wrap=True)

    # ------------------------------------------------------------------ dispatch
    def ask(self, ask: InputAsk, prefill: dict[str, Any]) -> Any:
        """Ask for one input request; returns the InputResponse, or None if it cannot
        be answered here (e.g. `roots/list`).

        Raises:
            Declined: the person refused a sampling request (there is no decline answer).
            KeyboardInterrupt: Ctrl-C.
        """
        self._heading(ask)
        if ask.method == ELICIT:
            if ask.mode == "url":
                return self._url(ask)
            return self._form(ask, prefill)
        if ask.method == SAMPLING:
            return self._sampling(ask)
        self.console.print("  (this request can only be answered with --root or an answer file)")
        return None

    def _heading(self, ask: InputAsk) -> None:
        from rich.text import Text  # noqa: PLC0415

        count = f"[{ask.index} of {ask.total}] " if ask.total > 1 else ""
        line = Text()
        line.append(f"\n{count}", style="bold")
        line.append(sanitize(ask.server_name, single_line=True), style="bold cyan")
        line.append(f" asks ({sanitize(ask.origin, single_line=True)}, input {sanitize(ask.key, single_line=True)!s}):")
        self.console.print(line)
        message = ask.params.get("message")
        if message:
            self.console.print(Text("  " + sanitize(str(message)).replace("\n", "\n  ")))

    def _q(self) -> Any:
        import questionary  # noqa: PLC0415 - lazy

        return questionary

    # ------------------------------------------------------------------ forms
    def _form(self, ask: InputAsk, prefill: dict[str, Any]) -> dict[str, Any]:
        fields = form_fields(ask.params.get("requestedSchema"))
        current: dict[str, Any] = {f.name: f.default for f in fields if f.has_default}
        current.update(prefill)
        while True:
            answers: dict[str, Any] = {}
            for f in fields:
                value = self._field(f, current.get(f.name))
                if value is not _SKIP:
                    answers[f.name] = value
            self._show_review(fields, answers)
            choice = self._q().select(
                "Send these answers?",
                choices=["Send", "Edit", "Decline (refuse to answer)", "Cancel (dismiss)"],
                **self._pt,
            ).unsafe_ask()
            if choice == "Send":
                return {"action": "accept", "content": answers}
            if choice.startswith("Decline"):
                return {"action": "decline"}
            if choice.startswith("Cancel"):
                return {"action": "cancel"}
            current = answers

    def _show_review(self, fields: list[FormField], answers: dict[str, Any]) -> None:
        self.console.print("  Review:")
        for f in fields:
            shown = "(empty)" if f.name not in answers else dumps_safe(answers[f.name])
            self.console.print(f"    {sanitize(f.title, single_line=True)}: {shown}", markup=False)

    def _label(self, f: FormField) -> str:
        label = sanitize(f.title, single_line=True) + (" *" if f.required else "")
        if f.description:
            label += f"  ({sanitize(f.description, single_line=True)})"
        return label

    def _field(self, f: FormField, current: Any) -> Any:
        q = self._q()
        from questionary import Choice  # noqa: PLC0415

        label = self._label(f)
        if f.kind == "enum":
            choices = [Choice(sanitize(title, single_line=True), value=const) for const, title in f.options]
            if not f.required:
                choices.append(Choice("(leave empty)", value=_SKIP))
            default = current if current in [c for c, _ in f.options] else None
            return q.select(label, choices=choices, default=default, **self._pt).unsafe_ask()
        if f.kind == "multi":
            chosen = current if isinstance(current, list) else []
            choices = [
                Choice(sanitize(title, single_line=True), value=const, checked=const in chosen)
                for const, title in f.options
            ]

            def check_multi(selected: list[str]) -> bool | str:
                if not selected and not f.required:
                    return True
                return f.check(list(selected)) or True

            selected = q.checkbox(label, choices=choices, validate=check_multi, **self._pt).unsafe_ask()
            if not selected and not f.required:
                return _SKIP
            return list(selected)
        if f.kind == "boolean":
            if f.required or isinstance(current, bool):
                return q.confirm(label, default=bool(current) if isinstance(current, bool) else False,
                                 **self._pt).unsafe_ask()
            return q.select(label, choices=[Choice("yes", value=True), Choice("no", value=False),
                                            Choice("(leave empty)", value=_SKIP)], **self._pt).unsafe_ask()

        def check_text(text: str) -> bool | str:
            if text == "":
                return "required" if f.required else True
            try:
                value = f.coerce(text)
            except ValueError as exc:
                return str(exc)
            return f.check(value) or True

        default = "" if current is None else str(current)
        text = q.text(label, default=default, validate=check_text, **self._pt).unsafe_ask()
        if text == "" and not f.required:
            return _SKIP
        return f.coerce(text)

    # ------------------------------------------------------------------ URL mode
    def _url(self, ask: InputAsk) -> dict[str, Any]:
        from rich.text import Text  # noqa: PLC0415

        url = str(ask.params.get("url") or "")
        shown = Text("  URL: ")
        try:
            parts = urlsplit(url)
            host = parts.netloc
        except ValueError:
            host = ""
        safe_url = sanitize(url, single_line=True)
        safe_host = sanitize(host, single_line=True)
        start = safe_url.find(safe_host) if safe_host else -1
        if start >= 0:
            shown.append(safe_url[:start])
            shown.append(safe_url[start : start + len(safe_host)], style="bold reverse")
            shown.append(safe_url[start + len(safe_host) :])
        else:
            shown.append(safe_url)
        self.console.print(shown)
        if safe_host:
            self.console.print(Text("  host: ").append(safe_host, style="bold"))
        for warning in url_warnings(url):
            self.console.print(Text(f"  warning: {warning}", style="bold yellow"))
        q = self._q()
        opened = False
        if self.open_urls:
            opened = self._open(url)
        while True:
            choices = ["I have finished there (continue)", "Decline", "Cancel"]
            if not opened:
                choices.insert(0, "Open it in my browser")
            choice = q.select("What now?", choices=choices, **self._pt).unsafe_ask()
            if choice.startswith("Open"):
                opened = self._open(url)
                continue
            if choice.startswith("I have"):
                return {"action": "accept"}
            return {"action": "decline" if choice == "Decline" else "cancel"}

    def _open(self, url: str) -> bool:
        import webbrowser  # noqa: PLC0415

        try:
            ok = webbrowser.open(url)
        except Exception:  # noqa: BLE001
            ok = False
        if not ok:
            self.console.print("  could not open a browser here; open the URL yourself, then continue")
        return ok

    # ------------------------------------------------------------------ sampling
    def _sampling(self, ask: InputAsk) -> dict[str, Any]:
        """client/sampling: show the request (system prompt, messages, model preferences,
        maxTokens, ...), let the person type a reply as the assistant and review it.
        The reply is sent with `model: "human"`. Declining stops the call (exit 6): MRTR
        has no decline answer for sampling, so nothing is retried."""
        from mrtr_cli.responders.sampling import describe_request  # noqa: PLC0415

        self.console.print("  The server asks for a model reply (sampling). You answer as the assistant.",
                           markup=False)
        for line in describe_request(ask.params):
            self.console.print("  " + line.replace("\n", "\n  "), markup=False)
        max_tokens = ask.params.get("maxTokens")
        q = self._q()
        reply = ""
        while True:
            reply = q.text("Your reply (as the assistant):", default=reply,
                           validate=lambda t: True if t.strip() else "type a reply, or Ctrl-C to stop",
                           **self._pt).unsafe_ask()
            tokens = max(1, (len(reply) + 3) // 4)
            self.console.print(f"  Review: {dumps_safe(reply)}", markup=False)
            self.console.print(f"    model: human, about {tokens} tokens (maxTokens {max_tokens})", markup=False)
            if isinstance(max_tokens, int) and tokens > max_tokens:
                self.console.print(f"    warning: this reply is probably longer than maxTokens ({max_tokens})",
                                   style="bold yellow", markup=False)
            choice = q.select("Send this reply?", choices=["Send", "Edit", "Decline (stop the call)"],
                              **self._pt).unsafe_ask()
            if choice == "Send":
                return {"role": "assistant", "content": {"type": "text", "text": reply}, "model": "human",
                        "stopReason": "endTurn"}
            if choice.startswith("Decline"):
                raise Declined(f"you declined the sampling request {ask.key!r}; the call was not retried")
