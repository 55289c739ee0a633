"""Form elicitation: a flat form the server wants filled (2026-07-28 client/elicitation, form mode).

Declared always: an answer may come from `-a` flags, `fields` in answer files, the
terminal, or later from `mrtr resume` with a pending document. A stored answer has its
`null` fields dropped and `-a FIELD=VALUE` flags laid over it field by field; without one,
the flags and `fields` answer by property name (docs/answers.md). Its template entry is
an accept answer with a `null` per field, with field help in `_fields`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrtr_cli.errors import UsageError
from mrtr_cli.protocol.capabilities.kinds import ELICITATION_FORM
from mrtr_cli.render.sanitize import quote_value, sanitize
from mrtr_cli.responders.kinds.base import AnswerSources, Kind, Prepared
from mrtr_cli.responders.shapes import elicit_action_problems

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import ElicitResult
    from mrtr_cli.responders.answers import AnswerStore, FlagAnswer
    from mrtr_cli.responders.ask import InputAsk, Person
    from mrtr_cli.schema.elicit import FormField


class ElicitationForm(Kind):
    """`elicitation/create` in form mode (the mode of a request that names none)."""

    spec = ELICITATION_FORM

    def declaration(self, sources: AnswerSources) -> dict[str, Any] | None:
        """Always `{}`: a form can always be answered, now or on resume."""
        return {}

    def check_request(self, ask: InputAsk) -> str | None:
        """A `requestedSchema` that is no flat form (schema/elicit.py `form_fields`)."""
        from mrtr_cli.schema.elicit import form_fields  # noqa: PLC0415 - start-up time

        try:
            form_fields(ask.params.get("requestedSchema"))
        except ValueError as exc:
            return str(exc)
        return None

    def shaped(self, ask: InputAsk, value: Any, source: str, sources: AnswerSources) -> tuple[Any, str]:
        """`null` fields dropped; `-a` flags (before files) override field by field."""
        value = drop_null_fields(value)
        overlay, flag_sources = flag_overlay(ask, sources.store)
        if overlay:
            accepted = isinstance(value, dict) and value.get("action") == "accept"
            content = value.get("content") if accepted and isinstance(value.get("content"), dict) else {}
            value = {"action": "accept", "content": {**content, **overlay}}
            source = ", ".join([source, *flag_sources])
        return value, source

    def answer_problems(self, value: object, params: dict[str, Any]) -> list[str]:
        """An ElicitResult whose accepted content fits the form (responders/shapes.py)."""
        from mrtr_cli.schema.elicit import validate_content  # noqa: PLC0415 - start-up time

        problems = elicit_action_problems(value)
        if problems is not None:
            return problems
        content = value.get("content") if isinstance(value, dict) else None
        return [p.describe() for p in validate_content(params.get("requestedSchema") or {},
                                                       {} if content is None else content)]

    def normalized(self, value: Any, params: dict[str, Any]) -> Any:
        """Integral floats sent as integers for integer fields."""
        from mrtr_cli.schema.elicit import form_fields  # noqa: PLC0415 - start-up time

        content = value.get("content") if isinstance(value, dict) else None
        if not isinstance(content, dict):
            return value
        by_name = {f.name: f for f in form_fields(params.get("requestedSchema"))}
        fixed = {k: by_name[k].normalize(v) if k in by_name else v for k, v in content.items()}
        return {**value, "content": fixed}

    def from_sources(self, ask: InputAsk, sources: AnswerSources) -> Prepared:
        """An accept answer built from `-a` flags and `fields` by property name, given once.

        Fields given neither way take the schema's default (as a pre-filled form would
        send them). The answer is complete only when every required field has a value;
        otherwise what was found is the pre-fill for the terminal or the template.
        """
        from mrtr_cli.schema.elicit import explain, form_fields  # noqa: PLC0415 - start-up time

        store = sources.store
        fields = form_fields(ask.params.get("requestedSchema"))
        given, found_in = flag_overlay(ask, store)
        for f in fields:
            if f.name in given:
                continue
            found = store.field_value(f.name)
            if found is None or found[0] is None:
                continue  # a null field means "not answered here"
            value, source = found
            reason = f.check(value)
            if reason:
                raise UsageError(f"{source} (input request {quote_value(ask.key)}): {explain(reason, f.expected())}",
                                 data={"key": ask.key, "field": f.name})
            given[f.name] = f.normalize(value)
            found_in.append(source)
        if not given:
            return Prepared()
        content = {f.name: given.get(f.name, f.default)
                   for f in fields if f.name in given or (f.has_default and f.check(f.default) is None)}
        if all(f.name in content for f in fields if f.required):
            return Prepared({"action": "accept", "content": content}, ", ".join(found_in), once=True)
        return Prepared(prefill=given)

    def template(self, params: dict[str, Any], prefill: dict[str, Any] | None) -> object:
        """An accept answer with each field `null` (its default, or what was found, when there is one)."""
        from mrtr_cli.schema.elicit import form_fields  # noqa: PLC0415 - start-up time

        try:
            fields = form_fields(params.get("requestedSchema"))
        except ValueError:
            fields = []
        content = {f.name: (prefill or {}).get(f.name, f.default if f.has_default else None) for f in fields}
        return {"action": "accept", "content": content}

    def field_names(self, params: dict[str, Any]) -> set[str]:
        """The form's field names (an unreadable form has none)."""
        from mrtr_cli.schema.elicit import form_fields  # noqa: PLC0415 - start-up time

        try:
            return {f.name for f in form_fields(params.get("requestedSchema"))}
        except ValueError:  # refused by check_request before it gets here
            return set()

    def template_help(self, params: dict[str, Any]) -> dict[str, object] | None:
        """Each field's help (`field_help`)."""
        return field_help(params.get("requestedSchema"))

    def question(self, person: Person, ask: InputAsk, prefill: dict[str, Any]) -> ElicitResult:
        """The form, filled field by field and reviewed."""
        return person.fill_form(ask, prefill)

    def unanswered(self) -> dict[str, Any] | None:
        """`cancel` (2025-11-25 client/elicitation)."""
        return {"action": "cancel"}


def field_help(requested_schema: object) -> dict[str, object]:
    """Per-field help for a form: `{field: {type, required, title?, description?, enum?, default?, ...}}`."""
    from mrtr_cli.schema.elicit import form_fields  # noqa: PLC0415 - start-up time

    out: dict[str, object] = {}
    try:
        fields = form_fields(requested_schema)
    except ValueError:
        return out
    for f in fields:
        info: dict[str, Any] = {"type": {"enum": "string", "multi": "array"}.get(f.kind, f.kind),
                                "required": f.required}
        if f.options:
            info["enum"] = [c for c, _ in f.options]
            if any(c != t for c, t in f.options):
                info["titles"] = {c: t for c, t in f.options}
        for key in ("title", "description", "format", "minimum", "maximum", "minLength", "maxLength",
                    "minItems", "maxItems", "default"):
            if key in f.schema:
                info[key] = f.schema[key]
        out[f.name] = info
    return out


def drop_null_fields(value: object) -> Any:
    """An accept answer with `null` fields (as in a filled-in template) leaves those fields out."""
    if isinstance(value, dict) and isinstance(value.get("content"), dict):
        content = {k: v for k, v in value["content"].items() if v is not None}
        return {**value, "content": content}
    return value


def flag_overlay(ask: InputAsk, store: AnswerStore) -> tuple[dict[str, Any], list[str]]:
    """The form values `-a` flags give for `ask` (typed and checked), and the flags used.

    Raises:
        UsageError: a flag's value does not fit its field.
    """
    from mrtr_cli.schema.elicit import form_fields  # noqa: PLC0415 - start-up time

    values: dict[str, Any] = {}
    found_in: list[str] = []
    for f in form_fields(ask.params.get("requestedSchema")):
        flags = store.flags_for(ask.key, f.name)
        if flags:
            values[f.name] = _flag_value(ask, f, flags, store)
            found_in.extend("-a " + _shown(f, flag) for _, flag in flags)
    return values, found_in


def _shown(f: FormField, flag: FlagAnswer) -> str:
    """How a message about field `f`'s value names the `-a` flag that gave it: as written,
    or without its value when the field is a secret (`FormField.secret`)."""
    return flag.named if f.secret else flag.text


def _flag_value(ask: InputAsk, f: FormField, flags: list[tuple[int, Any]], store: AnswerStore) -> Any:
    """The value the `-a` `flags` (index, flag) give field `f`: the last one, or all of them
    for a multi-select; each flag is marked used."""
    from mrtr_cli.schema.elicit import explain  # noqa: PLC0415 - start-up time

    values = []
    for index, flag in flags:
        store.used_flags.add(index)
        if flag.is_json:
            values.append(flag.raw)
            continue
        try:
            values.append(f.coerce(flag.raw))
        except ValueError as exc:
            raise UsageError(f"-a {sanitize(_shown(f, flag), single_line=True)} (input request {quote_value(ask.key)}, "
                             f"field {quote_value(f.name)}): "
                             f"{explain(str(exc), f.expected())}", data={"key": ask.key, "field": f.name}) from None
    if f.kind == "multi":
        value: Any = [item for v in values for item in (v if isinstance(v, list) else [v])]
    else:
        value = values[-1]
    reason = f.check(value)
    if reason:
        raise UsageError(f"-a {sanitize(_shown(f, flags[-1][1]), single_line=True)} (input request "
                         f"{quote_value(ask.key)}, field {quote_value(f.name)}): "
                         f"{explain(reason, f.expected())}", data={"key": ask.key, "field": f.name})
    return f.normalize(value)
