"""Which names mark a credential (`is_secret_name`), which fields of a form or tool hold a
secret (`is_secret_field`, `secret_properties`), where those sit in the messages mrtr sends
and a message shown without them (`SecretPlaces`), and credentials in URLs: which parts
of a URL are secrets (`url_secrets`) and how a URL is shown without them (`public_url`,
and `redact_urls` for every URL in a diagnostic line).

A value is a secret by its place, not its text (docs/design.md, "Secrets"): the value of a
secret form field or tool argument is replaced by `REDACTED` wherever mrtr writes the
message (`SecretPlaces.masked`: `-v`, `--trace`), whatever its type (a number, an array)
and its length (a PIN of three digits too). The places are
`params.inputResponses.KEY.content.FIELD` (2026-07-28 basic/patterns/mrtr: a retry, a
task's `tasks/update` / `tasks/input_response`; a list of responses per key as well),
`result.content.FIELD` of the response to a server's own `elicitation/create` (2025-11-25
client/elicitation, by the request's id), and `params.arguments.NAME` of `tools/call`
(2026-07-28 server/tools). The forms are noted by the responder chain for every input
request it parses (also those a pending document seeds) and learnt from the server's
`elicitation/create` requests as they are traced; the tools by the call that types its
arguments by the tool's `inputSchema`. A field or argument whose schema is not known is a
secret by its name alone.

The password of `user:password@` (or the user alone, git-style `TOKEN@host`) and the
value of a query or path parameter whose name marks a credential (`api_key`, `token`:
`is_secret_name`) are shown as `***` whatever their length
(docs/configuration.md, "Named servers"). This module sits below `env` (Environment.redact).

Whether a schema marks a value secret (`Place`, `secret_schema`) follows the mark wherever
it stands on a subschema that could apply to the value: `$ref`, combinators, members and
items (the comment above `MAX_DEPTH` says which keywords, and the bounds).
"""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

#: (Pattern texts, compiled at their first use and kept by `re`'s own cache: a run that
#: does not use them does not compile them, docs/performance.md.)
#: The words of a name: a run of capitals not followed by a small letter (`API` of
#: `APIKey`), a word with at most one leading capital (`Key`, `token`), or digits. Anything
#: else (`_`, `-`, `.`, a space) separates words, and so do digits and a change of case.
_WORD = r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+"
#: What splits a name into parts that a compound does not cross (`access.key`, `private key`).
_PART = r"[.\s]+"
#: Words that mark a credential wherever they stand in a name (`user_password`, `X-Auth`,
#: `GITHUB_TOKEN`, `login.pin`), lower case; also the compounds below written as one word.
_SECRET_WORDS = frozenset({
    "auth", "authorization", "authentication", "bearer", "cookie", "cookies", "credential", "credentials",
    "creds", "jwt", "pass", "passcode", "passphrase", "passwd", "password", "passwords", "pin", "pwd",
    "secret", "secrets", "signature", "token", "tokens", "otp", "totp", "hotp", "cvv", "cvc", "ssn",
})
#: Pairs of words that mark a credential together, adjacent in one part of a name (`api_key`,
#: `apiKey`, `X-Api-Key`, `mfa_code`, `session_id`), and written as one word (`apikey`, `sessionid`).
_SECRET_COMPOUNDS = frozenset({
    ("api", "key"), ("access", "key"), ("private", "key"), ("secret", "key"), ("session", "id"),
    ("session", "key"), ("mfa", "code"), ("security", "code"), ("verification", "code"), ("auth", "code"),
})
#: Whole header, environment-variable and query-parameter names that mark a credential
#: there, not in a form: the short names a URL or header gives one (`key`, `sig`, OAuth's
#: `code`) and a cookie's `session`.
_SECRET_WHOLE_NAMES = frozenset({"key", "sig", "code", "session"})
#: The compounds written as one word (`apikey`, `sessionid`).
_SECRET_JOINED = frozenset(a + b for a, b in _SECRET_COMPOUNDS)


def _words(part: str) -> list[str]:
    """The words of one part of a name, lower case (`_WORD`)."""
    return [w.lower() for w in re.findall(_WORD, part)]


#: Names whose verdict `_names_a_credential` keeps: the same names come back at every call
#: of a tool (its arguments, noted and checked for each call of a shell or a batch) and every
#: form of a server, while splitting a name into words takes two pattern searches.
_KEPT_VERDICTS = 1024


@functools.lru_cache(maxsize=_KEPT_VERDICTS)
def _names_a_credential(name: str) -> bool:
    """Whether a word of `name` (`_SECRET_WORDS`) or two adjacent words of one of its parts
    (`_SECRET_COMPOUNDS`, also written as one word) mark a credential. A verdict depends on
    the name alone: the last `_KEPT_VERDICTS` are kept."""
    for part in re.split(_PART, name):
        words = _words(part)
        if any(w in _SECRET_WORDS or w in _SECRET_JOINED for w in words):
            return True
        if any(pair in _SECRET_COMPOUNDS for pair in zip(words, words[1:], strict=False)):
            return True
    return False


def is_secret_name(name: str) -> bool:
    """True when a header, variable or query parameter named `name` likely carries a
    credential (Authorization, Cookie, X-Api-Key, GITHUB_TOKEN, api_key, session_id, ...):
    its value is then never printed (`Environment.redact`). The rule is by words
    (`is_secret_field`'s), and the whole names `key`, `sig`, `code` and `session` too.
    Other values are left readable, so that common words (`true`, `json`) are not blanked
    out of traces."""
    return name.lower() in _SECRET_WHOLE_NAMES or _names_a_credential(name)


# ----- Whether a JSON Schema marks a value as a secret (docs/answers.md, "Secrets") -----
#
# docs/design.md, "Secrets by name"; docs/answers.md, "Secrets". A value is a secret by its
# schema when a subschema that could apply to it says `writeOnly: true` or
# `format: "password"` (JSON Schema 2020-12 validation 9.4 and 7.3: a value written, never
# shown). A server may put that mark on `properties.X` itself, or reach it through the
# keywords that apply more schemas to the same value or to its members, and each is followed:
#
# - in place (the value's own schema, JSON Schema core 10.2): a local `$ref` / `$dynamicRef`
#   (a JSON pointer `#/...`, an `#anchor`, or the `$id` of a subschema of the same document),
#   `allOf`, `anyOf`, `oneOf`, `if` / `then` / `else`, `dependentSchemas` (and draft 7's
#   schema-valued `dependencies`);
# - an object's member NAME (core 10.3.2): `properties.NAME`, each `patternProperties`
#   pattern that matches NAME (`Place.matches`: a pattern that cannot be matched counts as
#   matching), `additionalProperties` and `unevaluatedProperties` when NAME is not in
#   `properties`;
# - an array's item (core 10.3.1): `prefixItems`, `items` (also draft 4's list of schemas),
#   `additionalItems`, `unevaluatedItems`, `contains`.
#
# A value is a secret when ANY of them marks it, whichever branch of an `anyOf` the value
# would take: the rule errs on the side of masking. A `$ref` that cannot be resolved here (a
# remote document, a pointer to nothing) and a chain of schemas deeper than `MAX_DEPTH` mark
# the value secret too, since nothing proves it is not; a `$ref` cycle adds nothing and ends.
# `not` is not followed (a schema the value must not match says nothing of the value).
# The rule by a field's name is `is_secret_field`'s, which builds on this one.

#: How many schemas one chain of `$ref`s, combinators, members and items may cross.
MAX_DEPTH = 64
#: How many subschemas one place collects at most (a schema that fans out wider is a secret).
MAX_SCHEMAS = 4096

#: `(pattern, name) -> whether the pattern may match the name`: for `patternProperties`.
Matcher = Callable[[str, str], bool]

#: Keywords whose value is one schema applied in place.
_IN_PLACE_ONE = ("if", "then", "else")
#: Keywords whose value is a list of schemas applied in place.
_IN_PLACE_LIST = ("allOf", "anyOf", "oneOf")
#: Keywords whose value is a map of schemas applied in place (on an object holding the key).
_IN_PLACE_MAP = ("dependentSchemas", "dependencies")


def any_pattern(pattern: str, name: str) -> bool:
    """The `Matcher` that takes every pattern to match every name (where no bounded regular
    expression engine is at hand: the rule errs on the side of masking)."""
    return True


def marked(schema: object) -> bool:
    """Whether `schema` itself (no subschema) carries the secret mark: `writeOnly: true` or
    `format: "password"`."""
    return isinstance(schema, dict) and (schema.get("writeOnly") is True or schema.get("format") == "password")


class Place:
    """The subschemas that could apply to one value of an instance, within one schema document.

    Args:
        schemas: the schemas given for the value (before `$ref`s and combinators are followed).
        root: the whole schema document (a tool's `inputSchema`, a form's
            `requestedSchema`), against which local `$ref`s resolve.
        matches: how a `patternProperties` pattern is matched against a member's name.
        depth: schemas crossed to get here (bounded by `MAX_DEPTH`).
    """

    def __init__(self, schemas: Iterable[object], root: object, matches: Matcher = any_pattern,
                 depth: int = 0) -> None:
        self.root = root
        self.matches = matches
        self.depth = depth
        #: Something could not be followed (an unresolved `$ref`, too deep, too wide).
        self.unknown = depth > MAX_DEPTH
        self.schemas: list[dict[str, Any]] = [] if self.unknown else self._in_place(schemas)
        # What `member` and `holds_secret` found, kept: a place is read again for every call
        # of the same tool (a shell's lines, a batch's), and what it finds does not change.
        self._member_places: dict[str, Place] = {}
        self._holding: dict[Callable[[str], bool], bool] = {}

    @classmethod
    def of(cls, schema: object, matches: Matcher = any_pattern) -> Place:
        """The place of a whole document `schema` (its root value); the same `Place` for the
        same document object and matcher while it is kept (`_PLACES`: a tool's inputSchema,
        read again for each call of that tool)."""
        key = (id(schema), id(matches))
        kept = _PLACES.get(key)
        if kept is not None and kept[0] is schema and kept[1] is matches:
            return kept[2]
        place = cls([schema], schema, matches)
        if len(_PLACES) >= _PLACES_KEPT:
            _PLACES.clear()
        _PLACES[key] = (schema, matches, place)
        return place

    def _in_place(self, given: Iterable[object]) -> list[dict[str, Any]]:
        """`given` and every schema they apply in place, each once (by identity)."""
        out: list[dict[str, Any]] = []
        seen: set[int] = set()
        stack = [(schema, 0) for schema in given]
        while stack:
            schema, hops = stack.pop()
            if not isinstance(schema, dict) or id(schema) in seen:
                continue
            if hops + self.depth > MAX_DEPTH or len(out) >= MAX_SCHEMAS:
                self.unknown = True
                break
            seen.add(id(schema))
            out.append(schema)
            stack.extend((sub, hops + 1) for sub in self._applied(schema))
        return out

    def _applied(self, schema: dict[str, Any]) -> Iterator[object]:
        for key in ("$ref", "$dynamicRef"):
            ref = schema.get(key)
            if isinstance(ref, str):
                target = resolve(self.root, ref)
                if target is None:
                    self.unknown = True
                else:
                    yield target
        for key in _IN_PLACE_ONE:
            yield schema.get(key)
        for key in _IN_PLACE_LIST:
            yield from _listed(schema.get(key))
        for key in _IN_PLACE_MAP:
            found = schema.get(key)
            if isinstance(found, dict):
                yield from found.values()

    def secret(self) -> bool:
        """Whether the value is a secret by its schema: a subschema that could apply marks it
        (`marked`), or one could not be followed."""
        return self.unknown or any(marked(schema) for schema in self.schemas)

    def member(self, name: str) -> Place:
        """The place of member `name` of this value as an object (also of each item's member,
        for a dotted name that steps over an array, and of item `name` when it is an index)."""
        known = self._member_places.get(name)
        if known is None:
            known = self._member(name)
            if len(self._member_places) < _PLACES_KEPT * 4:  # (names come from the user: bounded)
                self._member_places[name] = known
        return known

    def _member(self, name: str) -> Place:
        found: list[object] = []
        for schema in self.schemas:
            found.extend(self._members(schema, name))
        items = self.item(int(name) if name.isdigit() else None)
        for schema in items.schemas:
            found.extend(self._members(schema, name))
        if name.isdigit():
            found.extend(items.schemas)
        place = Place(found, self.root, self.matches, self.depth + 1)
        place.unknown = place.unknown or items.unknown
        return place

    def _members(self, schema: dict[str, Any], name: str) -> list[object]:
        props = schema.get("properties")
        named = isinstance(props, dict) and name in props
        found: list[object] = [props[name]] if named and isinstance(props, dict) else []
        patterns = schema.get("patternProperties")
        if isinstance(patterns, dict):
            found.extend(sub for pattern, sub in patterns.items() if self.matches(str(pattern), name))
        if not named:
            found.extend(schema.get(key) for key in ("additionalProperties", "unevaluatedProperties"))
        return found

    def item(self, index: int | None) -> Place:
        """The place of item `index` of this value as an array (None: any item)."""
        found: list[object] = []
        for schema in self.schemas:
            prefix = schema.get("prefixItems")
            items = schema.get("items")
            tuple_items = prefix if isinstance(prefix, list) else items if isinstance(items, list) else None
            if tuple_items is not None and index is not None and index < len(tuple_items):
                found.append(tuple_items[index])
            else:
                found.extend(tuple_items or ())
                found.extend(schema.get(key) for key in ("additionalItems", "unevaluatedItems"))
                if not isinstance(items, list):
                    found.append(items)
            found.append(schema.get("contains"))
        return Place(found, self.root, self.matches, self.depth + 1)

    def holds_secret(self, secret_name: Callable[[str], bool] = lambda name: False) -> bool:
        """Whether this value is a secret or could hold one among its members or items, at any
        depth (`MAX_DEPTH`): the schema's side of a value not yet known. `secret_name`: a
        member named in `properties` that it is true of is a secret too (credentials.py's
        rule by name)."""
        known = self._holding.get(secret_name)
        if known is None:
            known = self._holding[secret_name] = self._holds_secret(secret_name)
        return known

    def _holds_secret(self, secret_name: Callable[[str], bool]) -> bool:
        seen: set[int] = set()
        stack: list[Place] = [self]
        while stack:
            place = stack.pop()
            if place.secret():
                return True
            fresh = [s for s in place.schemas if id(s) not in seen]
            if not fresh:
                continue
            seen.update(id(s) for s in fresh)
            below: list[object] = []
            for schema in fresh:
                props = schema.get("properties")
                if isinstance(props, dict) and any(secret_name(str(key)) for key in props):
                    return True
                below.extend(props.values() if isinstance(props, dict) else ())
                patterns = schema.get("patternProperties")
                below.extend(patterns.values() if isinstance(patterns, dict) else ())
                below.extend(schema.get(key) for key in ("additionalProperties", "unevaluatedProperties"))
            stack.append(Place(below, self.root, self.matches, place.depth + 1))
            stack.append(Place(fresh, self.root, self.matches, place.depth).item(None))
        return False


#: The places of the documents read last (`Place.of`), by the identity of the document and the
#: matcher: (document, matcher, place). Cleared when `_PLACES_KEPT` are kept.
_PLACES: dict[tuple[int, int], tuple[object, Matcher, Place]] = {}
_PLACES_KEPT = 64


def _listed(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def resolve(root: object, ref: str) -> object:
    """The subschema of document `root` that local `ref` names (`#`, `#/json/pointer`,
    `#anchor`, or a subschema's `$id`), None when it names nothing here."""
    if ref in ("", "#"):
        return root
    if ref.startswith("#/"):
        from urllib.parse import unquote  # noqa: PLC0415 - lazy for start-up time

        node = root
        for raw in ref[2:].split("/"):
            part = unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return node
    anchor = ref[1:] if ref.startswith("#") else None
    for schema in _subschemas(root):
        if anchor is not None and anchor in (schema.get("$anchor"), schema.get("$dynamicAnchor")):
            return schema
        if anchor is None and schema.get("$id") == ref:
            return schema
    return None


def _subschemas(root: object) -> Iterator[dict[str, Any]]:
    """Every object within document `root`, at most `MAX_SCHEMAS` of them."""
    stack = [root]
    count = 0
    while stack and count < MAX_SCHEMAS:
        node = stack.pop()
        if isinstance(node, dict):
            count += 1
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def secret_schema(schema: object, matches: Matcher = any_pattern) -> bool:
    """Whether a property schema marks its value as a secret: `format: "password"` or
    `writeOnly: true` (JSON Schema's annotations for a value that is written, never shown) on
    it or on a subschema that could apply to the value (`credentials.Place.secret`: `$ref`,
    `allOf`/`anyOf`/`oneOf`, `if`/`then`/`else`, ...). `schema` may be a `Place` already."""
    return _place(schema, matches).secret()


def _place(schema: object, matches: Matcher = any_pattern) -> Place:
    """`schema` (a whole schema document, or a `Place` within one) as a `Place`."""
    return schema if isinstance(schema, Place) else Place.of(schema, matches)


def is_secret_field(name: str, schema: object) -> bool:
    """The one rule for a field of a form (a `requestedSchema` property, 2026-07-28
    client/elicitation) or a tool argument (an `inputSchema` property): its value is a secret
    when its schema says so (`secret_schema`: `schema` is the property's schema, or its
    `Place` within the whole schema) or its name does, by its words: the
    name is split into words (camelCase, snake_case, kebab-case, dots, digits:
    `newPassword` is new, password) and a word is a credential's (`_SECRET_WORDS`:
    `password`, `pin`, `otp`, `cvv`, `token`, `auth`, ...) or two adjacent words are
    (`_SECRET_COMPOUNDS`: `api_key`, `mfaCode`, `session_id`, ...). A word only holding one
    is not (`author`, `session_title`, `passenger`). The short names a URL gives a
    credential (`key`, `sig`, `code`) do not make a field secret: a form's `code` is as often
    a country, promotion or error code, and a server marks a secret one `writeOnly`.
    Such a value is never written to a pending document, `--save-answers` file or the shell's
    history, and is `***` in diagnostics and traces."""
    return secret_schema(schema) or _names_a_credential(name)


#: How deep `secret_within` looks into nested objects and arrays.
_NESTED_DEPTH = 32


def secret_within(name: str, place: object, value: object, depth: int = 0) -> Iterator[object]:
    """The secret values in member `name` = `value` of a tool's arguments at `place` (its
    `credentials.Place` within the tool's `inputSchema`, or its property schema alone): the
    whole value when it is a secret field (`is_secret_field`), else those of its members,
    nested at most 32 deep (an object's by their names and the schemas that apply to each
    member, an array's items by the schemas that apply to each item)."""
    where = _place(place)
    if is_secret_field(name, where):
        yield value
        return
    if depth >= _NESTED_DEPTH:
        return
    if isinstance(value, dict):
        for key, member in value.items():
            yield from secret_within(str(key), where.member(str(key)), member, depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from secret_within("", where.item(index), item, depth + 1)


def holds_secret(name: str, place: object, value: object) -> bool:
    """Whether member `name` = `value` (at `place`, as `secret_within` takes it) is or holds
    a secret anywhere within it (`secret_within`)."""
    return next(iter(secret_within(name, place, value)), _NONE) is not _NONE


def holds_secret_schema(name: str, place: object) -> bool:
    """Whether property `name` (at `place`, as `secret_within` takes it) is a secret field or
    could hold one among its members or items, by their schemas or the names its nested
    `properties` give (`credentials.Place.holds_secret`): the schema's side of `holds_secret`."""
    return _names_a_credential(name) or _place(place).holds_secret(_names_a_credential)


_NONE = object()


def secret_members(values: Mapping[str, object], schema: object, matches: Matcher = any_pattern) -> list[str]:
    """The members of `values` (a tool's `arguments`) that are or hold a secret under
    `schema` (its `inputSchema`: `holds_secret` at each member's place, `patternProperties`
    matched by `matches`; by names alone where no schema applies)."""
    root = Place.of(schema, matches)
    return [key for key in values if holds_secret(str(key), root.member(str(key)), values[key])]


def secret_values(values: Mapping[str, object], schema: object, matches: Matcher = any_pattern) -> Iterator[object]:
    """Every secret value within `values` (a tool's `arguments`) under `schema` (its
    `inputSchema`): `secret_within` of each member."""
    root = Place.of(schema, matches)
    for key, value in values.items():
        yield from secret_within(str(key), root.member(str(key)), value)


def secret_texts(value: object) -> Iterator[str]:
    """The texts by which a secret `value` (any JSON) could be shown: each string within it
    and each number's JSON text (`Environment.add_secret` registers them; it ignores the
    shortest)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            yield json.dumps(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def secret_properties(schema: object, matches: Matcher = any_pattern) -> list[str]:
    """The names of the properties of an object schema (a form's `requestedSchema`, a tool's
    `inputSchema`) that are or could hold secrets (by name, or by the schemas that apply to
    the member: `credentials.Place.holds_secret`, a nested member counts), in the schema's
    order; [] for anything else. (A form's fields are its `properties`, by the spec.)"""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return []
    root = Place.of(schema, matches)
    return [str(name) for name in properties
            if holds_secret_schema(str(name), root.member(str(name)))]


#: `name=value` in the path (`;name=value`, ending at `;`, `/`, `?` or `#`) and in the query
#: and fragment (`?name=value&...`, `#name=value&...`, ending at `&` or `#`), as written.
_PATH_PARAM = r"(?<=;)([^=;/?#]+)=([^;/?#]*)"
_QUERY_PARAM = r"(?<=[?&#])([^=&#]+)=([^&#]*)"
#: scheme://userinfo@ : the user information, as written, up to the last `@` before the
#: path (a password may hold `@`, as the HTTP client reads it).
_USERINFO = r"^([a-zA-Z][a-zA-Z0-9+.-]*://)([^/?#]*)@"
#: The same as a browser reads http(s) (mrtr_cli/render/weburl.py), where a backslash ends the
#: authority: `https://evil.example\@good.com/` has no user information (a browser visits
#: evil.example), so `public_url` hides nothing of it. A user's own URL with a backslash in
#: its password still has that password hidden: `url_secrets` (the HTTP client's reading)
#: finds it, and the run's redaction replaces it wherever it shows.
_SHOWN_USERINFO = r"^([a-zA-Z][a-zA-Z0-9+.-]*://)([^/?#\\]*)@"


def url_secrets(url: str) -> list[str]:
    """The credentials in a URL, each as written and decoded (`%2B`, `+`): the password of
    `user:password@` (or the user alone, git-style `TOKEN@host`), and the values of query
    or path parameters with credential names (`?api_key=...`, `;token=`: `is_secret_name`)."""
    from urllib.parse import unquote, unquote_plus  # noqa: PLC0415 - lazy for start-up time

    found: list[str] = []
    userinfo = re.match(_USERINFO, url)
    if userinfo:
        user, colon, password = userinfo.group(2).partition(":")
        raw = password if colon else user
        found += [raw, unquote(raw)]
    path, query = _split_query(url)
    for name, value in re.findall(_PATH_PARAM, path) + re.findall(_QUERY_PARAM, query):
        if value and is_secret_name(unquote_plus(name)):
            found += [value, unquote_plus(value), unquote(value)]
    return list(dict.fromkeys(v for v in found if v))


def _split_query(url: str) -> tuple[str, str]:
    """`url` cut where its query or fragment begins: (scheme, authority and path; the rest)."""
    cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    return url[:cut], url[cut:]


#: What stands for a credential removed from a URL, or a secret value from a message.
REDACTED = "***"


class SecretPlaces:
    """The secret places known to one run (shared by its threads).

    Attributes:
        forms: input key -> the names of its form's secret fields (the responder chain's
            `secret_fields`: files mrtr writes leave their values out, engine/withheld.py).
        tools: tool name -> the names of its secret arguments.
    """

    def __init__(self) -> None:
        self.forms: dict[str, set[str]] = {}
        self.tools: dict[str, set[str]] = {}
        #: request id (its repr: 1 and "1" stay apart) of a server's `elicitation/create` -> its secret field names.
        self._requests: dict[str, set[str]] = {}
        self._lock = threading.Lock()

    def note_form(self, key: str, requested_schema: object) -> list[str]:
        """Note the secret fields of the form asked under input `key` (its `requestedSchema`);
        their names, in the schema's order ([] when none)."""
        names = secret_properties(requested_schema)
        if names:
            with self._lock:
                self.forms.setdefault(key, set()).update(names)
        return names

    def note_tool(self, name: str, names: Iterable[str]) -> None:
        """Note the secret arguments of tool `name`: the members of a call's `arguments` that
        are or hold a secret by its `inputSchema` (`secret_members`) and the properties that
        could (`secret_properties`), which the caller finds with the bounded matcher of
        `patternProperties` (schema/secrecy.py). They add up over the run's calls of the
        tool (calls of a batch may run at once): a name once secret stays masked."""
        with self._lock:
            self.tools.setdefault(name, set()).update(names)

    def learn(self, msg: Mapping[str, object]) -> None:
        """Note what a received message tells: a server's `elicitation/create` request (its
        id, for the response that answers it)."""
        if msg.get("method") != "elicitation/create" or "id" not in msg:
            return
        params = msg.get("params")
        names = secret_properties(params.get("requestedSchema") if isinstance(params, dict) else None)
        if names:
            with self._lock:
                self._requests[_id(msg.get("id"))] = set(names)

    def masked(self, msg: Mapping[str, Any]) -> Mapping[str, Any]:
        """`msg` (a JSON-RPC message mrtr sends) with the value at each secret place replaced
        by `REDACTED`; `msg` itself when it holds none (never changed in place)."""
        params = msg.get("params")
        if isinstance(params, dict):
            new = self._masked_params(msg.get("method"), params)
            return msg if new is params else {**msg, "params": new}
        result = msg.get("result")
        if isinstance(result, dict) and "id" in msg:
            with self._lock:
                names = self._requests.get(_id(msg.get("id")))
            new_result = _masked_response(result, names or set())
            return msg if new_result is result else {**msg, "result": new_result}
        return msg

    def _masked_params(self, method: object, params: dict[str, Any]) -> dict[str, Any]:
        out = params
        responses = params.get("inputResponses")
        if isinstance(responses, dict):
            with self._lock:
                forms = {key: set(names) for key, names in self.forms.items()}
            new = {key: _masked_response(value, forms.get(str(key), set())) for key, value in responses.items()}
            if any(new[key] is not responses[key] for key in responses):
                out = {**out, "inputResponses": new}
        arguments = params.get("arguments")
        if method == "tools/call" and isinstance(arguments, dict):
            with self._lock:
                known = self.tools.get(str(params.get("name")))
            new_args = _masked_fields(arguments, known)
            if new_args is not arguments:
                out = {**out, "arguments": new_args}
        return out


def _id(value: object) -> str:
    """A JSON-RPC id as a key (1 and "1" stay apart)."""
    return repr(value)


def _masked_response(response: object, names: set[str]) -> object:
    """An InputResponse (or a list of them, one per round) with the values of its accepted
    `content`'s secret fields (`names`, or a secret name) replaced by `REDACTED`."""
    if isinstance(response, list):
        new = [_masked_response(one, names) for one in response]
        return response if all(a is b for a, b in zip(new, response, strict=True)) else new
    content = response.get("content") if isinstance(response, dict) else None
    if not isinstance(response, dict) or not isinstance(content, dict):
        return response
    new_content = _masked_fields(content, names)
    return response if new_content is content else {**response, "content": new_content}


def _masked_fields(values: dict[str, Any], names: set[str] | None) -> dict[str, Any]:
    """`values` with each secret member replaced by `REDACTED`: those in `names`, and, whatever
    `names` says, those whose name is a secret's (`is_secret_field` without a schema)."""
    secret = [k for k, v in values.items()
              if v is not None and ((names is not None and k in names) or is_secret_field(str(k), None))]
    if not secret:
        return values
    return {k: REDACTED if k in secret else v for k, v in values.items()}


def public_url(url: str) -> str:
    """`url` with `url_secrets` replaced by `REDACTED` (for pending documents, task records, messages)."""
    from urllib.parse import unquote_plus  # noqa: PLC0415 - lazy for start-up time

    def userinfo(m: re.Match[str]) -> str:
        user, colon, _ = m.group(2).partition(":")
        return f"{m.group(1)}{user}:{REDACTED}@" if colon else f"{m.group(1)}{REDACTED}@"

    def param(m: re.Match[str]) -> str:
        name, value = m.group(1), m.group(2)
        return f"{name}={REDACTED}" if value and is_secret_name(unquote_plus(name)) else m.group(0)

    path, query = _split_query(url)
    return (re.sub(_PATH_PARAM, param, re.sub(_SHOWN_USERINFO, userinfo, path, count=1))
            + re.sub(_QUERY_PARAM, param, query))


#: A URL in free text: a scheme, `://`, then up to white space, a quote or an angle bracket,
#: without the punctuation that ends a sentence or a clause ("cannot connect to URL: ...").
_URL_IN_TEXT = r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s\"'<>]*[^\s\"'<>.,:;!?)\]}]"


def url_in_command(url: str) -> tuple[list[str], str]:
    """How a printed command names the server at `url` (the real URL, or one already made
    public): (`["--url", url]`, "") when nothing in it is hidden; when it holds a credential
    (`url_secrets`; `public_url` shows `u:***@host`, `?api_key=***`), the URL as shown cannot work, so no `--url`
    words (mrtr reads `MRTR_URL` when no target is given) and a lead-in saying how to supply
    it: "set MRTR_URL to the server's URL with its credentials (shown here as ...), then: "."""
    shown = public_url(url)
    if REDACTED not in shown and not url_secrets(url):
        return ["--url", url], ""
    return [], f"set MRTR_URL to the server's URL with its credentials (shown here as {shown}), then: "


def redact_urls(text: str) -> str:
    """`text` with every URL in it shown by `public_url` (for diagnostics and traces:
    `Environment.redact`)."""
    if "://" not in text:
        return text
    return re.sub(_URL_IN_TEXT, lambda m: public_url(m.group(0)), text)
