"""The values a schema message quotes (a person's value, a server's pattern or enum), cut short.

Spec: none (presentation of JSON Schema 2020-12 validation errors). docs/design.md,
"Patterns from a server"; render/sanitize.py cuts the text.

jsonschema writes the instance and the schema's value whole into a message (`%r`): a
100 KB answer, or a server's 10,000-character pattern, would make a 100 KB line on
stderr. Every message of `schema/` that quotes such a value quotes it through `quoted`,
and one of jsonschema's own messages goes through `error_message`. A number of a schema
(`minimum`, `maxLength`, an `enum` or `const` value, a `default`), or of an answer, is shown
by `number` (`render.sanitize.short_number`: an integer of more than 15 digits as its first
digits and its length, docs/limits.md), never its 4000 digits.
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.render.sanitize import NUMBER_DIGITS, QUOTE_CHARS, one_line, quote_text, quote_value, short_number

#: Characters of a server's pattern a message shows (quotes included).
PATTERN_CHARS = 64
#: The most characters of one jsonschema message, once its quoted values are cut.
MESSAGE_CHARS = 3 * QUOTE_CHARS


def number(value: object) -> str:
    """A schema's number (or one of its numeric keywords: `minimum`, `minLength`, ...) as a
    message shows it: an integer of more than `NUMBER_DIGITS` digits as its first digits
    and its length (`100000…(4000 digits)`), a float as `:g`; anything else (a server may
    send `"minimum": "x"`) as `quoted` shows it."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return short_number(value)
    return quoted(value)


def quoted(value: object, limit: int = QUOTE_CHARS) -> str:
    """`value` as a message quotes it: a string in single quotes, as jsonschema's messages
    do (`'abc'`), a number by `number`, anything else as its JSON; controls made visible,
    cut to `limit` characters."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return short_number(value)
    if isinstance(value, list) and any(_long_integer(v) for v in value):  # an enum: each item as it is shown
        return one_line("[" + ", ".join(quoted(v, limit) for v in value[:limit // 8]) + "]", limit)
    return quote_text(value, limit=limit) if isinstance(value, str) else quote_value(value, limit=limit)


def _long_integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and len(str(abs(value))) > NUMBER_DIGITS


def error_message(error: Any) -> str:
    """A `jsonschema` `ValidationError`'s message on one line, its values as JSON.

    jsonschema writes the instance and the schema's values it quotes as Python `repr`s
    (`{'a': True, 'b': None} is not valid under any of the given schemas`, `1 is not one of
    ['a', 'b']`): each is written back as `quoted` shows it (JSON, `{"a": true, "b": null}`;
    a string in single quotes; a long integer by `number`), cut and with controls made
    visible; then the whole is cut to `MESSAGE_CHARS`. Every jsonschema message mrtr shows
    goes through here (`schema/arguments.py`, `schema/elicit.py`)."""
    message = str(error.message)
    kept = ""
    if error.validator is None and message.startswith("False schema"):  # the schema `false`
        kept, message = "False schema", message[len("False schema"):]
    shown: dict[str, str] = {}
    for value in _quoted_values(error):
        if isinstance(value, bool) or value is None or isinstance(value, str | list | dict | tuple) \
                or (isinstance(value, int) and len(str(abs(value))) > NUMBER_DIGITS):
            text = repr(value)
            if text in message and text not in shown:
                shown[text] = quoted(list(value) if isinstance(value, tuple) else value)
    if shown:
        import re  # noqa: PLC0415 - only on an error path

        # One pass, the longest first: a value is never rewritten inside another's JSON; a
        # word (True, None) only where it stands alone.
        alternatives = sorted(shown, key=len, reverse=True)
        pattern = "|".join(rf"(?<![\w'\"]){re.escape(t)}(?![\w'\"])" if t.isidentifier() else re.escape(t)
                           for t in alternatives)
        message = re.sub(pattern, lambda m: shown[m.group(0)], message)
    return one_line(kept + message, MESSAGE_CHARS)


def _quoted_values(error: Any) -> list[object]:
    """The values jsonschema may have quoted in `error`'s message: the instance, the schema's
    value for the rule (and each of its items: `oneOf`'s subschemas, `required`'s names),
    and an array's items past those the schema lists (`items: false`'s "extra: [...]")."""
    values: list[object] = [error.instance, error.validator_value]
    if isinstance(error.validator_value, list):
        values += error.validator_value[:100]
    if isinstance(error.instance, list) and isinstance(error.schema, dict):
        listed = error.schema.get("prefixItems", error.schema.get("items"))
        if isinstance(listed, list):
            values.append(error.instance[len(listed):])
    if isinstance(error.instance, dict):
        values += list(error.instance)[:100]  # a property's name (`dependentRequired`)
    return values


def quoted_list(values: list[Any], shown: int = 5) -> str:
    """The first `shown` of `values`, each `quoted`, then how many more there are."""
    more = len(values) - shown
    return ", ".join(quoted(v) for v in values[:shown]) + (f" and {more} more" if more > 0 else "")
