"""URL elicitation: the server asks a person to visit a URL (2026-07-28 client/elicitation, URL mode).

Declared when a person can consent (a terminal, or a pending document they will act on;
never on a batch line). `mrtr` never opens a URL without consent: at the terminal the
person sees it (host highlighted, warnings) and chooses; a pending document names it for
them to open. The answer is `{"action": "accept"}` once they are done there, without content:
an answer's empty `content` is left out, any other content refused (exit 2). It is given in
an answer file (`inputResponses.KEY`), or as `-a KEY=accept` (`decline`, `cancel`): a URL
request has no fields, so a flag named by its key is its answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrtr_cli.env import LinkLine
from mrtr_cli.errors import UsageError
from mrtr_cli.protocol.capabilities.kinds import ELICITATION_URL
from mrtr_cli.render.sanitize import quote_value, sanitize
from mrtr_cli.responders.kinds.base import AnswerSources, Kind, Prepared
from mrtr_cli.responders.kinds.elicitation_form import drop_null_fields
from mrtr_cli.responders.shapes import ACTIONS, elicit_action_problems

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import ElicitResult
    from mrtr_cli.responders.ask import InputAsk, Person


class ElicitationUrl(Kind):
    """`elicitation/create` in URL mode."""

    spec = ELICITATION_URL

    def declaration(self, sources: AnswerSources) -> dict[str, Any] | None:
        """`{}` unless the run says nobody can consent (`url_consent` False)."""
        return {} if (sources.url_consent if sources.url_consent is not None else True) else None

    def check_request(self, ask: InputAsk) -> str | None:
        """`params.url` must be a string of at most `responders.urls.MAX_URL_CHARS` characters
        (`length_refusal`: it is shown whole), without a user name or password before its host
        (`credentials_refusal`: a phishing device, and shown masked it could not be opened as
        shown)."""
        from mrtr_cli.jsonfile import json_type  # noqa: PLC0415 - start-up time

        url = ask.params.get("url")
        if isinstance(url, str):
            from mrtr_cli.responders.urls import credentials_refusal, length_refusal  # noqa: PLC0415 - lazy for start-up time

            return length_refusal(url) or credentials_refusal(url)
        got = json_type(url) if "url" in ask.params else "none"
        return f"a URL-mode elicitation needs params.url as a string, got {got}"

    def shaped(self, ask: InputAsk, value: Any, source: str, sources: AnswerSources) -> tuple[Any, str]:
        """`null` fields dropped (an answer file may keep a template's content), then an accept's
        empty `content` left out: a URL-mode ElicitResult carries none (2026-07-28
        client/elicitation, "Response Actions": content is omitted for URL mode)."""
        value = drop_null_fields(value)
        if isinstance(value, dict) and value.get("action") == "accept" and value.get("content") == {}:
            value = {k: v for k, v in value.items() if k != "content"}
        return value, source

    def answer_problems(self, value: object, params: dict[str, Any]) -> list[str]:
        """An ElicitResult without content (responders/shapes.py); a content's fields are named."""
        problems = elicit_action_problems(value)
        if problems is not None:
            return problems
        content = value.get("content") if isinstance(value, dict) else None
        if content is None:
            return []
        names = content if isinstance(content, dict) else {}
        given = ", ".join("content." + sanitize(str(name), single_line=True) for name in names) or "content"
        return [f"a URL-mode answer has no content ({given} given): use {{\"action\": \"accept\"}}"]

    def from_sources(self, ask: InputAsk, sources: AnswerSources) -> Prepared:
        """`-a KEY=accept` (or `decline`, `cancel`; KEY the request's key): the answer, given
        once the person has been at the URL (the last such flag wins; each is marked used).

        Raises:
            UsageError: the flag's value is not one of those actions (exit 2).
        """
        store = sources.store
        flags = [(index, flag) for index, flag in enumerate(store.flags) if flag.name == ask.key]
        if not flags:
            return Prepared()
        store.used_flags.update(index for index, _ in flags)
        flag = flags[-1][1]
        if flag.raw not in ACTIONS:
            raise UsageError(f"-a {sanitize(flag.named, single_line=True)}: input {quote_value(ask.key)} is a "
                             "URL-mode request (it has no fields): its answer is "
                             f"{', '.join(ACTIONS[:-1])} or {ACTIONS[-1]}",
                             data={"key": ask.key})
        return Prepared({"action": flag.raw}, f"-a {sanitize(ask.key, single_line=True)}={flag.raw}", once=True)

    def template(self, params: dict[str, Any], prefill: dict[str, Any] | None) -> object:
        """`{"action": "accept"}`: given once the person has been there."""
        return {"action": "accept"}

    def template_help(self, params: dict[str, Any]) -> dict[str, object] | None:
        """The URL, and what to do with it."""
        return {"url": str(params.get("url")), "note": "open this URL yourself; when you are done there, "
                                                        "resume with {\"action\": \"accept\"}"}

    def pending_notes(self, key: str, params: dict[str, Any]) -> list[str]:
        """The URL to open (sanitised; a `LinkLine`: shown whole, its `?token=` too), the host a
        browser would visit and the URL's warnings."""
        from mrtr_cli.responders.urls import host_line, url_warnings  # noqa: PLC0415 - lazy for start-up time

        url = str(params.get("url"))
        shown = sanitize(url, single_line=True)  # the person's own link, to open: whole (`LinkLine`)
        return [LinkLine(f"  input {quote_value(key)} asks you to open this URL yourself: {shown}", shown),
                f"    a browser would go to host: {sanitize(host_line(url), single_line=True)}",
                *(f"    warning: {sanitize(w, single_line=True)}" for w in url_warnings(url))]

    def question(self, person: Person, ask: InputAsk, prefill: dict[str, Any]) -> ElicitResult:
        """The URL shown, opened only with consent."""
        return person.consent_to_url(ask)

    def unanswered(self) -> dict[str, Any] | None:
        """`cancel` (2025-11-25 client/elicitation)."""
        return {"action": "cancel"}

    def answered_note(self, server_name: str, params: dict[str, Any], response: Any, source: str) -> str | None:
        """For an accept: which URL the server asked the person to visit, and where the consent came from."""
        if response.get("action") != "accept" or source == "terminal":
            return None
        return (f"mrtr: {sanitize(server_name, single_line=True)} asked you to visit "
                f"{sanitize(str(params.get('url')), single_line=True)} (accepted from "
                f"{sanitize(source, single_line=True)})")
