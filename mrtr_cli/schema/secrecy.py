"""The secret values of a tool's arguments by its `inputSchema`, with `patternProperties`
matched by the bounded engine (schema/patterns.py).

The rule is mrtr_cli/credentials.py (`Place`)'s (a value is a secret when any subschema that could
apply to it says `writeOnly: true` or `format: "password"`, through `$ref`s, combinators,
`patternProperties`, `additionalProperties`, nested members and items) and
credentials.py's (or when a name says so). Below the schema layer no regular expression
engine is at hand, so there every pattern counts as matching; here a name is matched as
the validator matches it, and a pattern that cannot be matched (not ECMA-262, too slow,
the run's time out) still counts as matching: the rule errs on the side of masking.
"""

from __future__ import annotations

from collections.abc import Mapping

from mrtr_cli.credentials import Place
from mrtr_cli.errors import MrtrError


def name_matches(pattern: str, name: str) -> bool:
    """Whether `patternProperties` pattern `pattern` matches member name `name`
    (`credentials.Matcher`); True when it cannot be told."""
    from mrtr_cli.schema.patterns import PatternError, search  # noqa: PLC0415 - only for a schema with patterns

    try:
        return search(pattern, name)
    except (PatternError, MrtrError):
        return True


def place_of(schema: object) -> Place:
    """The root place of schema document `schema` (a tool's `inputSchema`, a form's
    `requestedSchema`), its `patternProperties` matched by `name_matches`."""
    return Place.of(schema, name_matches)


def place_at(schema: object, path: list[str]) -> Place:
    """The place of dotted `path` (`["address", "city"]`) within schema document `schema`."""
    place = place_of(schema)
    for part in path:
        place = place.member(part)
    return place


def secret_arguments(arguments: Mapping[str, object], schema: object) -> list[str]:
    """The members of a call's `arguments` that are or hold a secret under the tool's
    `inputSchema` `schema` (`credentials.secret_members`), and the `properties` that could
    (`credentials.secret_properties`), each once, in that order."""
    from mrtr_cli.credentials import secret_members, secret_properties  # noqa: PLC0415 - lazy for start-up time

    found = secret_members(arguments, schema, name_matches) + secret_properties(schema, name_matches)
    return list(dict.fromkeys(found))
