"""Form elicitation schemas: field models, text coercion and validation.

Spec: client/elicitation (2026-07-28), `ElicitRequestFormParams.requestedSchema`:
a flat object whose properties are `PrimitiveSchemaDefinition`s: string (minLength,
maxLength, format email|uri|date|date-time), number/integer (minimum, maximum),
boolean, single-select enum (plain `enum`, titled `oneOf` const/title, legacy
`enumNames`), multi-select array (plain `items.enum`, titled `items.anyOf`,
minItems, maxItems), each with optional title, description and default.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mrtr_cli.jsonfile import json_type

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.credentials import Place

TRUE_WORDS = {"true", "yes", "y", "1", "on"}
FALSE_WORDS = {"false", "no", "n", "0", "off"}

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s]+")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_DATETIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
                       r"[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})")

#: How many of a choice field's allowed values a message names (`FormField.choices_text`).
CHOICES_NAMED = 20
#: A choice field with more allowed values than this is asked as typed text (its value or
#: title), not as a list to move through: a list of a server's 200,000 values took seconds
#: to draw at every key and hundreds of megabytes.
CHOICES_LISTED = 1000


def check_format(fmt: str, value: str) -> str | None:
    """Why `value` does not match string `format` `fmt` (email, uri, date, date-time), or None."""
    if fmt == "email" and not _EMAIL.fullmatch(value):
        return "is not an email address"
    if fmt == "uri" and not _URI.fullmatch(value):
        return "is not an absolute URI (scheme:...)"
    if fmt == "date":
        if not _DATE.fullmatch(value):
            return "is not a date (YYYY-MM-DD)"
        try:
            _dt.date.fromisoformat(value)
        except ValueError:
            return "is not a valid calendar date"
    if fmt == "date-time":
        if not _DATETIME.fullmatch(value):
            return "is not a date-time (RFC 3339, e.g. 2026-07-28T09:30:00Z)"
        offset = "+00:00" if value[-1] in "Zz" else value[-6:]
        try:  # the calendar date, the time and the offset; in a form Python 3.10 also parses (no "t", no ".5")
            _dt.datetime.fromisoformat(f"{value[:10]}T{value[11:19]}{offset}")
        except ValueError:
            return "is not a valid date-time"
    return None


FORMAT_HINTS = {"email": "email address", "uri": "URI, e.g. https://...", "date": "YYYY-MM-DD",
                "date-time": "date-time, e.g. 2026-07-28T09:30:00Z"}


def _num(value: Any) -> str:
    """A number of the schema (`minimum`, `minLength`, ...) as a message or hint shows it
    (`schema.messages.number`: a long integer as its first digits and its length)."""
    from mrtr_cli.schema.messages import number  # noqa: PLC0415 - only for messages and hints

    return number(value)


def _choice(text: str) -> str:
    """A choice (an `enum` or `const` value, as text) as a message names it: an integer's
    digits by `_num` (a long one as its first digits and its length)."""
    return _num(int(text)) if _LONG_INTEGER.fullmatch(text) else text


_LONG_INTEGER = re.compile(r"-?[0-9]{16,4300}")


def _short(value: Any, limit: int = 40) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _num(value)
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def explain(reason: str, expected: str | None) -> str:
    """`reason` completed with what the field expects, unless it already says so.

    A type error ("expected an integer, got string "x"") is rewritten to name the full
    expectation: `got string "x", expected an integer >= 18 and <= 130`.
    """
    if not expected or "one of:" in reason or expected in reason:
        return reason
    if reason.startswith("expected ") and ", got " in reason:
        return f"got {reason.split(', got ', 1)[1]}, expected {expected}"
    return f"{reason} (expected {expected})"


def _article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


_FORMAT_CHECKER: Any = None


def property_validator(prop_schema: dict[str, Any]) -> Any:
    """A `jsonschema` Draft 2020-12 validator for one property, enforcing the
    elicitation formats (email, uri, date, date-time) with this module's checks, its
    `pattern` matched with a bound on the work (schema/patterns.py)."""
    global _FORMAT_CHECKER  # noqa: PLW0603 - one format checker for the process, built on first use
    from jsonschema import Draft202012Validator, FormatChecker  # noqa: PLC0415 - lazy: startup time

    if _FORMAT_CHECKER is None:
        checker = FormatChecker(formats=())
        for fmt in ("email", "uri", "date", "date-time"):
            checker.checks(fmt)(lambda value, _fmt=fmt: not isinstance(value, str) or check_format(_fmt, value) is None)
        _FORMAT_CHECKER = checker
    from mrtr_cli.schema.patterns import bounded_validator  # noqa: PLC0415 - lazy: startup time

    return bounded_validator(Draft202012Validator, prop_schema, format_checker=_FORMAT_CHECKER)


#: What a field's answer must be when it breaks one of its bounds ({} is the bound).
_BOUND_MESSAGES = {"minimum": "must be >= {}", "maximum": "must be <= {}",
                   "minLength": "must be at least {} characters", "maxLength": "must be at most {} characters",
                   "minItems": "choose at least {}", "maxItems": "choose at most {}"}


@dataclass
class FormField:
    """One property of a `requestedSchema`.

    Attributes:
        name: the property name (the key in `content`).
        schema: the property's schema as sent.
        required: listed in the schema's `required`.
        kind: "string", "number", "integer", "boolean", "enum" (single select) or
            "multi" (multi select).
        options: for enum/multi, `(const, title)` pairs in the server's order.
        form: the whole `requestedSchema` the field is a property of (None: the field's
            schema alone), against which its secret mark is found (`secret`, `masked`).
    """

    name: str
    schema: dict[str, Any]
    required: bool
    kind: str
    options: list[tuple[str, str]] = field(default_factory=list)
    form: Any = None

    @property
    def title(self) -> str:
        return str(self.schema.get("title") or self.name)

    @property
    def description(self) -> str | None:
        d = self.schema.get("description")
        return str(d) if d else None

    @property
    def default(self) -> Any:
        return self.schema.get("default")

    @property
    def has_default(self) -> bool:
        return "default" in self.schema

    def _place(self) -> Place:
        """The field's `credentials.Place` within its form, as `credentials.secret_properties`
        finds it for the files mrtr writes (the same rule, the same schemas)."""
        from mrtr_cli.credentials import Place  # noqa: PLC0415 - lazy for start-up time

        return Place.of(self.form).member(self.name) if isinstance(self.form, dict) else Place.of(self.schema)

    @property
    def secret(self) -> bool:
        """Whether the value is a secret (`credentials.is_secret_field`: `format: password`,
        `writeOnly: true` on a subschema that could apply to it, or a name such as
        `password`, `token`, `api_key`)."""
        from mrtr_cli.credentials import is_secret_field  # noqa: PLC0415 - lazy for start-up time

        return is_secret_field(self.name, self._place())

    @property
    def masked(self) -> bool:
        """Whether the value is typed masked and shown as `***` at the terminal: the server's
        schema says it is a secret (`credentials.secret_schema`: `format: password`,
        `writeOnly: true`, on a subschema that could apply to it). A name alone (`secret`)
        does not mask: a field named `pin` or `api_key` is typed in the open; it is still
        left out of the files mrtr writes."""
        from mrtr_cli.credentials import secret_schema  # noqa: PLC0415 - lazy for start-up time

        return secret_schema(self._place())

    def choices_text(self) -> str:
        """The allowed values, each with its title when it differs: "S (Small), M (Medium)";
        past `CHOICES_NAMED` of them, the first ones and how many more (a message names a
        server's list of any length in one short line)."""
        named = [_choice(c) if c == t else f"{_choice(c)} ({_choice(t)})" for c, t in self.options[:CHOICES_NAMED]]
        more = len(self.options) - len(named)
        return ", ".join(named) + (f", and {more} more" if more else "")

    def expected(self) -> str:
        """A short description of what this field accepts, for error messages and templates."""
        s = self.schema
        if self.kind in ("enum", "multi"):
            base = (f"one of: {self.choices_text()}" if self.kind == "enum"
                    else f"a list of: {self.choices_text()}")
            extra = []
            if self.kind == "multi":
                if "minItems" in s:
                    extra.append(f"at least {_num(s['minItems'])}")
                if "maxItems" in s:
                    extra.append(f"at most {_num(s['maxItems'])}")
            return base + (f" ({', '.join(extra)})" if extra else "")
        if self.kind in ("number", "integer"):
            bounds = []
            if "minimum" in s:
                bounds.append(f">= {_num(s['minimum'])}")
            if "maximum" in s:
                bounds.append(f"<= {_num(s['maximum'])}")
            return f"{'an integer' if self.kind == 'integer' else 'a number'}" + (
                f" {' and '.join(bounds)}" if bounds else ""
            )
        if self.kind == "boolean":
            return "a boolean (true/false)"
        parts = ["a string"]
        if s.get("format"):
            parts.append(f"in {s['format']} format")
        if "minLength" in s:
            parts.append(f"of at least {_num(s['minLength'])} characters")
        if "maxLength" in s:
            parts.append(f"of at most {_num(s['maxLength'])} characters")
        return " ".join(parts)

    def hint(self) -> str:
        """A short reminder of the constraints, shown beside a prompt: "integer 18..130",
        "YYYY-MM-DD", "choose 1 to 2". Empty when there is nothing to say."""
        s = self.schema
        if self.kind in ("number", "integer"):
            low, high = s.get("minimum"), s.get("maximum")
            rng = ""
            if low is not None and high is not None:
                rng = f" {_num(low)}..{_num(high)}"
            elif low is not None:
                rng = f" >= {_num(low)}"
            elif high is not None:
                rng = f" <= {_num(high)}"
            return self.kind + rng
        if self.kind == "multi":
            low, high = s.get("minItems"), s.get("maxItems")
            if low is not None and high is not None:
                return f"choose {_num(low)} to {_num(high)}" if low != high else f"choose {_num(low)}"
            if low is not None:
                return f"choose at least {_num(low)}"
            if high is not None:
                return f"choose at most {_num(high)}"
            return ""
        if self.kind == "string":
            parts = []
            fmt = s.get("format")
            if fmt:
                parts.append(FORMAT_HINTS.get(str(fmt), str(fmt)))
            low, high = s.get("minLength"), s.get("maxLength")
            if low is not None and high is not None:
                parts.append(f"{_num(low)}-{_num(high)} characters")
            elif low is not None:
                parts.append(f"at least {_num(low)} characters")
            elif high is not None:
                parts.append(f"at most {_num(high)} characters")
            return ", ".join(parts)
        return ""

    def display(self, value: Any) -> str:
        """`value` as a person reads it: titles for choices, yes/no for booleans, plain text
        for strings. Not sanitised: callers showing it on a terminal sanitise it."""
        titles = dict(self.options)
        if self.kind == "enum" and isinstance(value, str):
            return titles.get(value, value)
        if self.kind == "multi" and isinstance(value, list):
            return ", ".join(titles.get(v, str(v)) for v in value) if value else "(none)"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, str):
            return value
        return json.dumps(value, ensure_ascii=False)

    def normalize(self, value: Any) -> Any:
        """`value` as it should be sent: an integral float for an integer field becomes an int
        (`3.0` -> `3`); everything else is returned unchanged."""
        if self.kind == "integer" and isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    def check(self, value: Any) -> str | None:
        """Why `value` is not acceptable for this field, or None when it is.

        The property schema is checked with `jsonschema` (Draft 2020-12, with the
        four elicitation string formats enforced); the first error becomes a short
        human reason.

        Raises:
            SlowPattern: the field's `pattern` took too long to match `value` (exit 4:
                the server's schema cannot be used; schema/patterns.py).
        """
        if self.kind == "multi" and isinstance(value, list) and len(set(map(str, value))) != len(value):
            return "lists a value more than once"
        from mrtr_cli.schema.quickcheck import plainly_valid  # noqa: PLC0415 - lazy for start-up time

        fmt = self.schema.get("format")
        if plainly_valid(value, self.schema) and not (
                fmt in FORMAT_HINTS and isinstance(value, str) and check_format(fmt, value) is not None):
            return None  # plainly fine: no need to import jsonschema (docs/performance.md)
        from mrtr_cli.schema.patterns import SlowPattern  # noqa: PLC0415 - lazy for start-up time

        try:
            for error in property_validator(self.schema).iter_errors(value):
                return self._reason(error, value)
        except SlowPattern as exc:
            raise exc.at(f"field {json.dumps(self.name)}") from None
        return None

    def _reason(self, error: Any, value: Any) -> str:
        """One `jsonschema` error as a short reason. A secret field's reason never quotes
        the value (`secret`): it says what was wrong with its type or shape. A quoted value is
        cut short (schema/messages.py)."""
        from mrtr_cli.schema.messages import error_message, quoted  # noqa: PLC0415 - only on an error path

        kind = error.validator
        if kind == "type":
            want = error.validator_value
            want = " or ".join(want) if isinstance(want, list) else want
            shown = "" if self.secret else f" {_short(error.instance)}"
            return f"expected {_article(str(want))}, got {json_type(error.instance)}{shown}"
        if self.secret:
            return self._secret_reason(error)
        if kind == "const" and not self.options:  # a const alone names no choices
            return f"{quoted(error.instance)} is not the one value allowed: {quoted(error.validator_value)}"
        if kind in ("enum", "oneOf", "anyOf", "const"):
            wrong = error.instance
            by_title = [c for c, t in self.options if isinstance(wrong, str) and t.casefold() == wrong.casefold()
                        and c != wrong]
            if by_title:
                return (f"{quoted(wrong)} is a title: send its value {quoted(by_title[0])} "
                        f"(one of: {self.choices_text()})")
            return f"{quoted(wrong)} is not one of: {self.choices_text()}"
        if kind in _BOUND_MESSAGES:
            return _BOUND_MESSAGES[kind].format(_num(error.validator_value))
        if kind == "format":
            return (check_format(str(error.validator_value), str(error.instance))
                    or f"is not a valid {error.validator_value}")
        return error_message(error)

    def _secret_reason(self, error: Any) -> str:
        """A reason for a secret field's value that is not its type (that is `_reason`'s),
        without the value: what it is, and which rule it fails."""
        from mrtr_cli.render.sanitize import quote_value  # noqa: PLC0415 - only on an error path
        from mrtr_cli.schema.messages import PATTERN_CHARS  # noqa: PLC0415 - only on an error path

        kind = error.validator
        if kind in ("enum", "oneOf", "anyOf", "const"):
            return f"is not one of: {self.choices_text()}" if self.options else "is not an allowed value"
        if kind in _BOUND_MESSAGES:
            return _BOUND_MESSAGES[kind].format(_num(error.validator_value))
        if kind == "format":
            return f"is not a valid {error.validator_value}"
        if kind == "pattern":
            return f"does not match the pattern {quote_value(error.validator_value, limit=PATTERN_CHARS)}"
        where = "".join(f"[{part}]" for part in error.relative_path)
        return f"{json_type(error.instance)}{' at ' + where if where else ''} fails the schema's {kind!r} rule"

    def coerce(self, text: str) -> Any:
        """Turn typed text (a terminal answer or `-a FIELD=VALUE`) into this field's type.

        Enum choices may be given by const or (case-insensitively) by title. A
        multi-select accepts comma-separated choices.

        Raises:
            ValueError: with a one-line reason when the text cannot be this type.
        """
        text = text.strip() if self.kind != "string" else text
        if self.kind == "boolean":
            low = text.lower()
            if low in TRUE_WORDS:
                return True
            if low in FALSE_WORDS:
                return False
            raise ValueError(f"expected a boolean (true/false), got {self._quoted(text)}")
        if self.kind == "integer":
            if not _INTEGER.fullmatch(text):
                raise ValueError(f"expected an integer, got {self._quoted(text)}")
            return int(text)
        if self.kind == "number":
            if _INTEGER.fullmatch(text):
                return int(text)
            if not _NUMBER.fullmatch(text):
                raise ValueError(f"expected a number, got {self._quoted(text)}")
            value = float(text)
            if value in (float("inf"), float("-inf")):
                raise ValueError(f"the number {self._quoted(text)} is out of range (beyond what a 64-bit float holds)")
            return value
        if self.kind == "enum":
            return self._choice(text)
        if self.kind == "multi":
            if text == "":
                return []
            try:
                return [self._choice(text)]
            except ValueError:
                return [self._choice(part.strip()) for part in text.split(",") if part.strip()]
        return text

    def _quoted(self, text: str) -> str:
        """Typed `text` as a reason quotes it, cut short; never a secret field's (`secret`)."""
        from mrtr_cli.schema.messages import quoted  # noqa: PLC0415 - only on an error path

        return "text (not shown: a secret)" if self.secret else quoted(text)

    def _choice(self, text: str) -> str:
        for const, _title in self.options:
            if text == const:
                return const
        for const, title in self.options:
            if text.casefold() == title.casefold():
                return const
        raise ValueError(f"{self._quoted(text)} is not one of: {self.choices_text()}")


def _options(prop: dict[str, Any]) -> tuple[str, list[tuple[str, str]]] | None:
    """(kind, options) for an enum-like property, or None."""
    if prop.get("type") == "array":
        items = raw_items if isinstance(raw_items := prop.get("items"), dict) else {}
        if isinstance(items.get("anyOf"), list):
            return "multi", [(str(o.get("const")), str(o.get("title") or o.get("const"))) for o in items["anyOf"]
                             if isinstance(o, dict)]
        if isinstance(items.get("enum"), list):
            return "multi", [(str(v), str(v)) for v in items["enum"]]
        return "multi", []
    if isinstance(prop.get("oneOf"), list):
        return "enum", [(str(o.get("const")), str(o.get("title") or o.get("const"))) for o in prop["oneOf"]
                        if isinstance(o, dict)]
    if isinstance(prop.get("enum"), list):
        values = [str(v) for v in prop["enum"]]
        names = prop.get("enumNames")
        if isinstance(names, list) and len(names) == len(values):
            return "enum", [(v, str(n)) for v, n in zip(values, names, strict=True)]
        return "enum", [(v, v) for v in values]
    return None


def form_fields(requested_schema: Any) -> list[FormField]:
    """The fields of a `requestedSchema`, in the server's order.

    Raises:
        ValueError: the schema is not an object schema with a `properties` map, or a field's
            `pattern` is no regular expression (an answer could not be checked against it).
    """
    if not isinstance(requested_schema, dict):
        raise ValueError("requestedSchema is not an object")
    props = requested_schema.get("properties")
    if props is None:
        props = {}
    if not isinstance(props, dict):
        raise ValueError("requestedSchema.properties is not an object")
    required = requested_schema.get("required") or []
    fields = []
    for name, prop in props.items():
        if not isinstance(prop, dict):
            prop = {}
        pattern = prop.get("pattern")
        if isinstance(pattern, str):
            from mrtr_cli.schema.patterns import PatternError, SlowPattern, compiled  # noqa: PLC0415 - only for a pattern

            try:
                compiled(pattern)
            except SlowPattern as exc:
                raise exc.at(f"field {json.dumps(str(name))}") from None
            except PatternError as exc:
                problem = f"its pattern is {exc.what} ({exc})"
                raise ValueError(f"field {json.dumps(str(name))}: {problem}") from None
        enum = _options(prop)
        if enum is not None:
            kind, options = enum
        else:
            kind = {"boolean": "boolean", "integer": "integer", "number": "number"}.get(str(prop.get("type")), "string")
            options = []
        fields.append(FormField(str(name), prop, name in required, kind, options, requested_schema))
    return fields


@dataclass
class Problem:
    """One reason a form answer is not acceptable: `field` (None for the whole form) and `message`."""

    field: str | None
    message: str
    expected: str | None = None

    def describe(self) -> str:
        """One line: 'field "age": got string "x", expected an integer >= 18'."""
        from mrtr_cli.render.sanitize import quote_value  # noqa: PLC0415 - lazy for start-up time

        where = f"field {quote_value(self.field)}: " if self.field else ""
        return where + explain(self.message, self.expected)


def validate_content(requested_schema: Any, content: Any) -> list[Problem]:
    """Check an accept answer's `content` against `requestedSchema`.

    Returns every problem found (empty when valid): a missing required field, a
    value of the wrong type, out of range, not an allowed choice, a bad format.
    Fields the schema does not list are reported too: nothing the server did not
    ask for is sent.
    """
    fields = form_fields(requested_schema)
    if not isinstance(content, dict):
        return [Problem(None, f"content must be an object, got {json_type(content)}")]
    problems = []
    known = {f.name for f in fields}
    for f in fields:
        if f.name not in content:
            if f.required:
                problems.append(Problem(f.name, "is required but missing", f.expected()))
            continue
        reason = f.check(content[f.name])
        if reason:
            problems.append(Problem(f.name, reason, f.expected()))
    for extra in content:
        if extra not in known:
            problems.append(Problem(extra, "is not a field of this form",
                                    "one of: " + ", ".join(sorted(known)) if known else "no fields"))
    return problems
