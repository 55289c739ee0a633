"""Reading one token store file (`<state dir>/auth/<key>.json`, auth/store.py), bounded and
checked, so that a damaged file is one clear error (`DamagedTokenStore`, exit 8) naming
the file and the command that removes it, never a crash.

Rules (docs/oauth.md "A damaged token store", docs/limits.md):
- a regular file of at most `MAX_TOKEN_FILE_BYTES` bytes (userfiles.read_user_bytes: a FIFO
  or a device is refused without blocking), UTF-8 JSON without NaN or Infinity, nested at
  most `MAX_TOKEN_FILE_DEPTH` levels;
- the shape auth/store.py writes: an object whose `issuers` is an object of entries, each
  an object whose `client`, `tokens` and `endpoints` are objects; every member mrtr reads
  has its type (tokens and ids are strings, `redirect_uris` a list of strings, `expires_at`
  and `obtained_at` Unix times between 0 and the year 9999). Members mrtr does not read
  may hold any JSON value.

Cheap to import (the HTTP transport's hook reads the file before every run's first request).
"""

from __future__ import annotations

import math
import re
from typing import Any

from mrtr_cli.errors import AuthError, UsageError

#: The largest token store file read (a real one is a few KiB).
MAX_TOKEN_FILE_BYTES = 1024 * 1024
#: The deepest nesting of arrays and objects read in a token store file (a real one has 6).
MAX_TOKEN_FILE_DEPTH = 32
#: The latest Unix time accepted as `expires_at` / `obtained_at` (9999-12-31T23:59:59Z);
#: a later expiry from a token endpoint is "unknown" (auth/values.py).
MAX_UNIX_TIME = 253402300799
#: The rules of a token, for one a token endpoint issues (auth/values.py) and one read back
#: from the store alike: at most this many characters (far above real JWTs, a few KiB; far
#: below what an HTTP server takes in one header line) ...
MAX_TOKEN_CHARS = 16 * 1024
#: ... in RFC 6750 `b64token` characters for a token sent as `Bearer` ...
B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
#: ... printable ASCII (RFC 6749 appendix A, VSCHAR) for the others.
VSCHAR = re.compile(r"[\x20-\x7e]+")

_TOP = {"version": "int", "resource": "str", "issuer": "str?", "keyring": "bool", "issuers": "object"}
_PARTS = {
    "client": {"client_id": "str", "client_secret": "secret", "source": "str", "token_endpoint_auth_method": "str",
               "redirect_uris": "strings", "grant_types": "strings"},
    "tokens": {"access_token": "bearer", "refresh_token": "printable", "token_type": "str", "scope": "str",
               "expires_at": "time", "obtained_at": "time"},
    "endpoints": {"issuer": "str", "resource": "str", "token_endpoint": "str", "revocation_endpoint": "str",
                  "authorization_endpoint": "str"},
}


class DamagedTokenStore(AuthError):
    """A token store file that cannot be used as it is (exit 8).

    Attributes:
        path: the file.
        why: what is wrong with it, in a few words ("not valid JSON", "\\"issuers\\" is a list").
        fix: the command that removes it (`mrtr ... auth logout`; default `rm PATH`).
    """

    def __init__(self, path: str, why: str, fix: str | None = None):
        from mrtr_cli.platform import shellwords  # noqa: PLC0415 - lazy for start-up time

        self.path = path
        self.why = why
        self.fix = fix or f"rm {shellwords.quote(path)}"
        super().__init__(f"the token store file {path} is damaged ({why}); `{self.fix}` removes it "
                         "(then sign in again)")

    def fixed_by(self, fix: str) -> DamagedTokenStore:
        """The same error naming `fix` as the command that removes the file."""
        return DamagedTokenStore(self.path, self.why, fix)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _fits(value: object, rule: str, keyring: bool) -> bool:
    if rule == "str":
        return isinstance(value, str)
    if rule == "str?":
        return value is None or isinstance(value, str)
    if rule == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if rule == "bool":
        return isinstance(value, bool)
    if rule == "object":
        return isinstance(value, dict)
    if rule == "strings":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if rule == "secret":  # the value, or (MRTR_TOKEN_STORE=keyring) a marker of the keychain item
        return isinstance(value, str) or (keyring and value == {"keyring": True})
    if rule in ("bearer", "printable"):  # a token as auth/values.py accepts it from a token endpoint
        if keyring and value == {"keyring": True}:
            return True
        pattern = B64TOKEN if rule == "bearer" else VSCHAR
        return isinstance(value, str) and len(value) <= MAX_TOKEN_CHARS and pattern.fullmatch(value) is not None
    if rule == "time":
        return (isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
                and 0 <= value <= MAX_UNIX_TIME)
    raise AssertionError(rule)


_WANTED = {"str": "a string", "str?": "a string", "int": "an integer", "bool": "a boolean", "object": "an object",
           "strings": "a list of strings", "secret": "a string", "time": "a Unix time",
           "bearer": "a token in the characters of a bearer token", "printable": "a token of printable ASCII"}


def _short(name: str) -> str:
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time

    text = sanitize(name, single_line=True)
    return text if len(text) <= 60 else text[:57] + "..."


def shape_problem(doc: object) -> str | None:
    """What makes `doc` (a parsed token store file) unusable, in a few words, or None when
    it has the shape auth/store.py writes (module docstring)."""
    if not isinstance(doc, dict):
        return f"it holds {_kind(doc)}, not an object"
    for key, rule in _TOP.items():
        if key in doc and not _fits(doc[key], rule, False):
            return f"\"{key}\" is {_kind(doc[key])}, not {_WANTED[rule]}"
    keyring = doc.get("keyring") is True
    for issuer, entry in (doc.get("issuers") or {}).items():
        where = f"issuers[\"{_short(issuer)}\"]"
        if not isinstance(entry, dict):
            return f"{where} is {_kind(entry)}, not an object"
        for part, rules in _PARTS.items():
            if part not in entry:
                continue
            holder = entry[part]
            if not isinstance(holder, dict):
                return f"{where}.{part} is {_kind(holder)}, not an object"
            for key, rule in rules.items():
                if key in holder and not _fits(holder[key], rule, keyring):
                    return f"{where}.{part}.{key} is {_kind(holder[key])}, not {_WANTED[rule]}"
    return None


def parse_token_file(data: bytes) -> Any:
    """The JSON value of a token store file's bytes (not yet checked for shape).

    Raises:
        ValueError: a few words saying why it cannot be read (not UTF-8, not JSON, a number
            JSON has no such thing as, nested deeper than `MAX_TOKEN_FILE_DEPTH`).
    """
    from mrtr_cli.jsonfile import UnreadableNumber, json_depth, parse_strict  # noqa: PLC0415 - lazy for start-up time

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not valid UTF-8 at byte {exc.start}") from None
    too_deep = f"nested more than {MAX_TOKEN_FILE_DEPTH} levels deep"
    try:
        doc = parse_strict(text)
    except UnreadableNumber as exc:
        raise ValueError(str(exc)) from None
    except RecursionError:
        raise ValueError(too_deep) from None
    except ValueError as exc:
        raise ValueError(f"not valid JSON: {getattr(exc, 'msg', 'unreadable')}") from None
    if isinstance(doc, dict | list) and json_depth(doc) > MAX_TOKEN_FILE_DEPTH:
        raise ValueError(too_deep)
    return doc


def read_token_file(path: str, fix: str | None = None) -> dict[str, Any] | None:
    """The token store file at `path`, checked (module docstring), or None when there is none.

    Args:
        fix: the command that removes this file, for the error (default: `rm PATH`).

    Raises:
        DamagedTokenStore: it cannot be read, is too large or too deep, is not JSON, or does
            not have the token store's shape.
    """
    from mrtr_cli.userfiles import read_user_bytes  # noqa: PLC0415 - lazy for start-up time

    try:
        # (mrtr's own state, as userfiles.read_state_bytes: no file of the run's registry)
        data = read_user_bytes(path, what="token store file", limit=MAX_TOKEN_FILE_BYTES, role=None)
    except FileNotFoundError:
        return None
    except UsageError as exc:  # not a regular file, too large, unreadable
        from mrtr_cli.limits import describe_bytes  # noqa: PLC0415 - lazy for start-up time

        head, sep, tail = exc.message.partition(f"{path}: ")
        why = tail if sep else f"larger than {describe_bytes(MAX_TOKEN_FILE_BYTES)}"
        raise DamagedTokenStore(path, why, fix) from None
    try:
        doc: dict[str, Any] = parse_token_file(data)  # its shape is checked next
    except ValueError as exc:
        raise DamagedTokenStore(path, str(exc), fix) from None
    problem = shape_problem(doc)
    if problem is not None:
        raise DamagedTokenStore(path, problem, fix)
    return doc


def issuers_named(path: str) -> list[str]:
    """The issuer names a (possibly damaged) token store file still shows, for removing the
    keychain items it refers to; [] when none can be read. Never raises."""
    try:
        from mrtr_cli.userfiles import read_user_bytes  # noqa: PLC0415 - lazy for start-up time

        doc = parse_token_file(read_user_bytes(path, what="token store file", limit=MAX_TOKEN_FILE_BYTES, role=None))
    except Exception:  # noqa: BLE001 - whatever is unreadable names nothing
        return []
    issuers = doc.get("issuers") if isinstance(doc, dict) else None
    return [name for name in issuers if isinstance(name, str)] if isinstance(issuers, dict) else []
