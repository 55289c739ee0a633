"""Every regular expression from a server (or a file) is compiled and matched here, with a bound on the work.

Spec: JSON Schema 2020-12 validation 6.3.3 (`pattern`) and core 10.3.2.2
(`patternProperties`), as used by a tool's `inputSchema` (server/tools) and a form's
`requestedSchema` (client/elicitation). docs/design.md, "Patterns from a server".

A backtracking engine can take exponential time on a pattern such as `^(a|a)*$`, so a
server's pattern is matched with the `regex` package (imported only when a schema has a
pattern), whose `timeout` stops a match after `MATCH_SECONDS` of CPU time: the match
raises `SlowPattern` (exit 4, the server's schema cannot be used). A match also ends
with the run's `--timeout` (`bound_by`; exit 7), however many patterns a schema has,
and gets no more CPU time than is left of it. A pattern is ECMA-262's
(JSON Schema core 6.4): `compiled` rewrites it in the syntax of `regex` with ECMA-262's
meaning (schema/ecma.py: `$` is the end of the text, `\\d` is `[0-9]`, `\\k<name>` a
backreference) before compiling it.

`bounded_validator(cls, schema)` is a jsonschema validator whose `pattern`,
`patternProperties` and `additionalProperties` keywords match through this module
(`jsonschema.validators.extend`); its `unevaluatedProperties` is not checked when the
schema has a `patternProperties` anywhere (jsonschema matches those itself, with `re`,
unbounded): the server judges it.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol

from mrtr_cli.errors import ProtocolError, TimeoutExpired
from mrtr_cli.limits import describe_seconds
from mrtr_cli.schema.ecma import translate
from mrtr_cli.schema.ecma_syntax import Bounds, Flaw, read

if TYPE_CHECKING:  # pragma: no cover
    import regex

#: CPU seconds one match of a server's pattern may take (a pattern's usual match takes
#: microseconds; CPU time, so a loaded machine does not make a good pattern fail).
MATCH_SECONDS = 0.25
#: Characters of a pattern a message shows (quotes included).
_SHOWN_CHARS = 64


class RunBound(Protocol):
    """The run's `--timeout` as this module reads it (protocol/deadline.py `Deadline`)."""

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None when unbounded."""

    def describe(self) -> str:
        """" after 2s" for a timeout message ("" when unbounded)."""


class _Unbounded:
    def remaining(self) -> float | None:
        return None

    def describe(self) -> str:
        return ""


#: The bound of the run or line in progress in this thread (`bound_by`): a match never
#: outlasts it. A context variable: each batch worker and shell line has its own.
_run: ContextVar[RunBound | None] = ContextVar("mrtr_pattern_bound", default=None)
_UNBOUNDED = _Unbounded()


def bound_by(run: RunBound) -> None:
    """Bound every later match in this thread by `run` as well (the application layer's
    `--timeout` deadline of the run or line; an unbounded one lifts an earlier line's bound):
    a match gets at most the time left of it, and once it has run out a match raises
    `TimeoutExpired` (exit 7), so that no number of patterns outlasts `--timeout`."""
    _run.set(run)


class PatternError(ValueError):
    """A pattern that is no regular expression, or one mrtr cannot match (the message is
    the reason).

    Attributes:
        pattern: the pattern as the server sent it.
        reason: the compiler's reason (`missing )`).
        unsupported: it is an ECMA-262 regular expression, with a property `regex` has not.
    """

    def __init__(self, pattern: str, reason: str, unsupported: bool = False):
        super().__init__(reason)
        self.pattern = pattern
        self.reason = reason
        self.unsupported = unsupported

    @property
    def what(self) -> str:
        """What the pattern is, as a message says it: "no regular expression", or "an
        ECMA-262 regular expression mrtr cannot match"."""
        return "an ECMA-262 regular expression mrtr cannot match" if self.unsupported else "no regular expression"


class SlowPattern(ProtocolError):
    """A server's pattern took over `MATCH_SECONDS` of CPU time to match one value, or is
    too large to compile within bounds (`too_large`): exit 4, its schema cannot be used.

    Attributes:
        pattern: the pattern as the server sent it.
        too_large: why it is too large to compile (`_too_large`), or None for a slow match.
    """

    def __init__(self, pattern: str, where: str | None = None, too_large: str | None = None):
        what = (f"is too large to compile ({too_large})" if too_large
                else f"took too long to match (over {describe_seconds(MATCH_SECONDS)})")
        super().__init__(f"{where + ': ' if where else ''}the server's pattern {_quoted(pattern)} {what}; "
                         "its schema cannot be used",
                         hint=("ask the server's authors for a smaller pattern" if too_large
                               else "a pattern that backtracks without end; ask the server's authors to fix it"))
        self.pattern = pattern
        self.too_large = too_large

    def at(self, where: str) -> SlowPattern:
        """The same error, its message naming `where` (a form field, a tool's schema)."""
        return SlowPattern(self.pattern, where, self.too_large)


class BadPattern(ProtocolError):
    """A server's pattern that is no regular expression, in a schema that mrtr checks
    against (exit 4, its schema cannot be used: as a form field's, docs/design.md).

    Attributes:
        pattern: the pattern as the server sent it.
    """

    def __init__(self, error: PatternError, where: str, hint: str):
        super().__init__(f"{where}: the server's pattern {_quoted(error.pattern)} is {error.what} "
                         f"({error.reason}); its schema cannot be used", hint=hint)
        self.pattern = error.pattern


#: The most characters a server's pattern may have (compiling is linear in it, but not free:
#: two million characters take seconds).
MAX_PATTERN_CHARS = 10_000
#: The most nodes `regex` may build of a pattern once its counted repeats (`{n}`, `{n,m}`)
#: are multiplied out, as `regex` expands them when compiling, copying the repeated atom's
#: whole translation each time: `((a{1000}){1000}){1000}` or a class of 1,000 property
#: escapes `{12000}` would take gigabytes and seconds, before any match and its timeout
#: begins. Each atom weighs what `regex` builds of its translation (`ecma_syntax.Bounds`: a
#: class one node and one per member); measured, the worst pattern at this bound compiles
#: in under 0.1 s CPU and about 80 MB (docs/limits.md).
MAX_EXPANDED = 100_000
#: How deep a pattern's groups may nest: `regex` compiles them recursively (about 2.5 frames
#: a level, so 400 levels exhaust Python's default recursion limit); a level more for a
#: group schema/ecma.py writes around an atom (`(?(1)\1)`) is within the margin.
MAX_DEPTH = 100
#: The most characters a pattern may have once written in the syntax of `regex`
#: (schema/ecma.py `translate`: `\\s` is a class of 75 characters), as `regex` compiles it
#: in about 3 microseconds a character.
MAX_WRITTEN_CHARS = 100_000


def _flaw(pattern: str) -> Flaw | None:
    """The first reason `pattern` cannot be compiled, or None: over `MAX_PATTERN_CHARS`
    characters; else, in one reading by ECMA-262's grammar (`ecma_syntax.read`), syntax it
    has not, a property `regex` has not, a backreference mrtr cannot match as ECMA-262 does,
    or over `MAX_EXPANDED` nodes once its counted repeats are multiplied out (so no class or
    escape hides a repeat from the count), or groups nested over `MAX_DEPTH` deep."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return Flaw("size", f"over {MAX_PATTERN_CHARS:,} characters")
    return read(pattern, Bounds(MAX_EXPANDED, MAX_DEPTH))


def _too_large(pattern: str) -> str | None:
    """Why `pattern` is too large to compile within bounds (`_flaw`), or None."""
    flaw = _flaw(pattern)
    return flaw.reason if flaw and flaw.kind == "size" else None


@functools.lru_cache(maxsize=256)
def compiled(pattern: str) -> regex.Pattern[str]:
    """`pattern` compiled (cached: a schema's patterns are compiled once).

    Raises:
        PatternError: it is no regular expression: not ECMA-262's (`ecma_syntax.read`:
            Python's `(?i)` is refused), or one `regex` cannot compile or has not the
            property of (`unsupported`).
        SlowPattern: it is too large to compile within bounds (`_too_large`), or compiling
            it ran out of memory.
    """
    flaw = _flaw(pattern)
    if flaw and flaw.kind == "size":
        raise SlowPattern(pattern, too_large=flaw.reason)
    if flaw:
        raise PatternError(pattern, flaw.reason, unsupported=flaw.kind == "unsupported")
    written = translate(pattern)
    if len(written) > MAX_WRITTEN_CHARS:
        raise SlowPattern(pattern, too_large=f"over {MAX_WRITTEN_CHARS:,} characters in the syntax of `regex`")
    import regex  # noqa: PLC0415 - only when a schema has a pattern (start-up time)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # `regex`'s FutureWarning on `[[` (a set in a later version)
            return regex.compile(written)
    except MemoryError:  # what the size bound missed: the documented exit 4, never exit 70
        raise SlowPattern(pattern, too_large="compiling it ran out of memory") from None
    except RecursionError:  # what the depth bound missed: never Python's words as the reason
        raise SlowPattern(pattern, too_large="its groups nest too deep for the `regex` package") from None
    except (regex.error, OverflowError, ValueError) as exc:
        raise PatternError(pattern, getattr(exc, "msg", None) or str(exc)) from None


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` matches somewhere in `text` (JSON Schema's `pattern`: not anchored).

    Raises:
        PatternError: `pattern` is no regular expression.
        SlowPattern: the match took over `MATCH_SECONDS` of CPU time.
        TimeoutExpired: the run's bound (`bound_by`) ran out before or during the match.
    """
    left = (_run.get() or _UNBOUNDED).remaining()
    if left is not None and left <= 0:
        raise _timed_out(pattern)
    limit = MATCH_SECONDS if left is None else min(MATCH_SECONDS, left)
    try:
        return compiled(pattern).search(text, timeout=limit) is not None
    except TimeoutError:
        raise (SlowPattern(pattern) if limit >= MATCH_SECONDS else _timed_out(pattern)) from None


def _timed_out(pattern: str) -> TimeoutExpired:
    bound = (_run.get() or _UNBOUNDED).describe()
    return TimeoutExpired(f"timed out{bound} matching the server's pattern {_quoted(pattern)}")


def _quoted(pattern: str) -> str:
    """A server's pattern as a message shows it: quoted, escaped, cut to `_SHOWN_CHARS`."""
    from mrtr_cli.render.sanitize import quote_value  # noqa: PLC0415 - only on an error

    return quote_value(pattern, limit=_SHOWN_CHARS)


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError  # noqa: PLC0415 - loaded with jsonschema

    if validator.is_type(instance, "string") and isinstance(pattern, str) and not search(pattern, instance):
        from mrtr_cli.schema.messages import PATTERN_CHARS, quoted  # noqa: PLC0415 - only on an error

        yield ValidationError(f"{quoted(instance)} does not match {quoted(pattern, PATTERN_CHARS)}")


def _pattern_properties(validator: Any, pattern_properties: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object") or not isinstance(pattern_properties, Mapping):
        return
    for pattern, subschema in pattern_properties.items():
        for key, value in instance.items():
            if search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(original: Any) -> Any:
    """`additionalProperties`: jsonschema's own when the schema has no `patternProperties`;
    else the members no property names and no pattern matches, found here."""

    def check(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
        patterns = schema.get("patternProperties")
        if not patterns or not isinstance(patterns, Mapping) or not validator.is_type(instance, "object"):
            yield from original(validator, extra, instance, schema)
            return
        from jsonschema.exceptions import ValidationError  # noqa: PLC0415 - loaded with jsonschema

        named = schema.get("properties", {})
        extras = [key for key in instance if key not in named and not any(search(p, key) for p in patterns)]
        if validator.is_type(extra, "object"):
            for key in extras:
                yield from validator.descend(instance[key], extra, path=key)
        elif not extra and extras:
            from mrtr_cli.schema.messages import PATTERN_CHARS, quoted, quoted_list  # noqa: PLC0415 - only on an error

            verb = "does" if len(extras) == 1 else "do"
            shown = ", ".join(quoted(p, PATTERN_CHARS) for p in sorted(patterns)[:5])
            yield ValidationError(f"{quoted_list(sorted(extras))} {verb} not match any of the regexes: "
                                  f"{shown}{' ...' if len(patterns) > 5 else ''}")
    return check


def _unchecked(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """A keyword left to the server (`unevaluatedProperties` beside a `patternProperties`)."""
    return iter(())


def has_pattern_properties(schema: Any) -> bool:
    """Whether `patternProperties` is a member of `schema` or of any object within it."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            if "patternProperties" in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def check_schema(cls: Any, schema: Any) -> None:
    """Check `schema` against the metaschema of jsonschema validator class `cls`, as
    `cls.check_schema` does, with its patterns (the metaschema's `format: regex`: each
    `pattern` and each key of a `patternProperties`) compiled by `compiled`, as ECMA-262's
    (jsonschema's own check compiles them with `re`, which refuses `\\k<name>` and `\\p{L}`).

    Raises:
        jsonschema.exceptions.SchemaError: the schema is not valid under its metaschema.
        PatternError: a pattern of it is no regular expression.
        SlowPattern: a pattern of it is too large to compile within bounds.
    """
    cls.check_schema(schema, format_checker=_schema_format_checker(cls))


def _compiles(pattern: object) -> bool:
    """The metaschema's `regex` format: true, or `PatternError` / `SlowPattern` raised (not
    a format failure: the caller tells the server's bad pattern from an invalid schema)."""
    return not isinstance(pattern, str) or compiled(pattern) is not None


@functools.cache
def _schema_format_checker(cls: Any) -> Any:
    """The format checker of `cls`'s metaschema's validator, its `regex` format `_compiles`."""
    from jsonschema import FormatChecker, validators  # noqa: PLC0415 - lazy: start-up time

    meta = validators.validator_for(cls.META_SCHEMA, default=cls)
    checker = FormatChecker(formats=())
    checker.checkers = {**meta.FORMAT_CHECKER.checkers}
    checker.checks("regex")(_compiles)
    return checker


def bounded_validator(cls: Any, schema: Any, **kwargs: Any) -> Any:
    """A validator of jsonschema class `cls` for `schema` (`kwargs` as the class takes them),
    with its pattern keywords matched here; `unevaluatedProperties` unchecked when `schema`
    has a `patternProperties` anywhere (jsonschema would match those itself, unbounded)."""
    return _bounded(cls, has_pattern_properties(schema))(schema, **kwargs)


@functools.cache
def _bounded(cls: Any, skip_unevaluated: bool) -> Any:
    """`cls` with this module's keywords (made once per class and choice)."""
    from jsonschema import validators  # noqa: PLC0415 - lazy: start-up time

    own: dict[str, Any] = {"pattern": _pattern, "patternProperties": _pattern_properties}
    if "additionalProperties" in cls.VALIDATORS:
        own["additionalProperties"] = _additional_properties(cls.VALIDATORS["additionalProperties"])
    if skip_unevaluated and "unevaluatedProperties" in cls.VALIDATORS:
        own["unevaluatedProperties"] = _unchecked
    return validators.extend(cls, own)  # type: ignore[no-untyped-call]  # untyped in jsonschema's stubs
