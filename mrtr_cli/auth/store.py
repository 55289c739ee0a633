"""The token store: one 0600 JSON file per MCP server under `<state dir>/auth/` (0700; on
Windows, where modes mean nothing, the state directory is in the user's profile:
`platform.filemodes`), written atomically, with a lock file across processes
(`platform.filelock`) so that concurrent runs refresh a token once (2026-07-28
basic/authorization/security-considerations "Token Theft"; OAuth 2.1 section 7.1).

A file (`transport.http.authhook.token_path`) holds, for the server's canonical URI, one entry
per authorization server (issuer): the client registered there, the tokens it issued and
the endpoints needed to refresh or revoke them. Clients and tokens are never used with
another issuer (basic/authorization/client-registration "Authorization Server Binding").

    {"version": 1, "resource": URL, "issuer": ISSUER,
     "issuers": {ISSUER: {"client": {...}, "tokens": {...}, "endpoints": {...}}}}

With `MRTR_TOKEN_STORE=keyring` (the `keyring` extra) the secret values (access and
refresh tokens, the private DPoP key of DPoP-bound tokens, client secret) live in the OS
keychain and the file keeps the rest.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from typing import Any

from mrtr_cli.errors import AuthError, UsageError
from mrtr_cli.limits import describe_seconds
from mrtr_cli.platform import filelock
from mrtr_cli.platform.filemodes import owner_only_file, owner_only_folder
from mrtr_cli.render.invocation import signin_command
from mrtr_cli.transport.http.authhook import canonical_resource, read_record, store_dir, token_path
from mrtr_cli.transport.http.tokenfile import DamagedTokenStore, issuers_named

SECRET_FIELDS = (("tokens", "access_token"), ("tokens", "refresh_token"), ("tokens", "dpop_key"),
                 ("client", "client_secret"))
KEYRING_SERVICE = "mrtr"


def _ensure_dir() -> str:
    path = store_dir()
    os.makedirs(path, mode=0o700, exist_ok=True)
    owner_only_folder(path)
    return path


class TokenStore:
    """The sign-ins of one MCP server.

    Args:
        url: the MCP endpoint (its canonical URI names the file).
        backend: "file" or "keyring" (default: `MRTR_TOKEN_STORE`, else "file").
        note: called with a one-line note (e.g. keychain unavailable), or None.
        logout_hint: the command that removes this server's file, named when it is
            damaged (default: `mrtr --url URL auth logout`).
        path: the file (default: the one `url` names; `auth logout --all` passes each file).
        holds_secret: `(text, also) -> bool`, whether `text` shows one of the run's secrets
            or of `also` (`Environment.holds_secret`); with it, `update` refuses what an
            authorization server handed back when it holds one (`screen`).

    Reading a damaged file raises `DamagedTokenStore` (exit 8; transport/http/tokenfile.py);
    `remove` deletes it all the same.
    """

    def __init__(self, url: str, backend: str | None = None, note: Any = None, *,
                 logout_hint: str | None = None, path: str | None = None, holds_secret: Any = None):
        self.url = url
        self._holds_secret = holds_secret
        self.resource_key = canonical_resource(url)
        self.path = path or token_path(url)
        if logout_hint is None:
            from mrtr_cli.credentials import url_in_command  # noqa: PLC0415 - lazy for start-up time
            from mrtr_cli.render.invocation import command_line  # noqa: PLC0415 - lazy for start-up time

            words, lead = url_in_command(url)
            logout_hint = lead + (command_line(["auth", "logout"], target=words, at_command_line=True)
                                  or "mrtr auth logout (with the same --url)")
        self.logout_hint = logout_hint
        if not backend:
            from mrtr_cli.settings import current  # noqa: PLC0415 - lazy for start-up time

            backend = current().token_store
        self.backend = backend
        self._note = note
        if self.backend not in ("file", "keyring"):
            raise UsageError(f"MRTR_TOKEN_STORE={self.backend}: expected file or keyring")
        if self.backend == "keyring" and _keyring() is None:
            if note:
                note("mrtr: note: no OS keychain is available (MRTR_TOKEN_STORE=keyring); "
                     "tokens are kept in the file store")
            self.backend = "file"

    # ------------------------------------------------------------------ reading
    def load(self) -> dict[str, Any]:
        """The whole record (an empty one when nothing is stored).

        Raises:
            DamagedTokenStore: the file cannot be used (exit 8).
        """
        doc = read_record(self.path, signin_command(self.logout_hint, "logout")) or {
            "version": 1, "resource": self.resource_key, "issuers": {}}
        if doc.get("keyring"):
            _fill_from_keyring(doc, self.path)
        return doc

    def entry(self, issuer: str | None = None) -> dict[str, Any] | None:
        """The entry of `issuer` (default: the current one), or None."""
        doc = self.load()
        issuer = issuer or doc.get("issuer")
        entry = (doc.get("issuers") or {}).get(issuer or "")
        return entry if isinstance(entry, dict) else None

    # ------------------------------------------------------------------ writing
    def save(self, doc: dict[str, Any]) -> None:
        """Write `doc` atomically (a 0600 temporary file renamed over the old one)."""
        folder = _ensure_dir()
        doc = json.loads(json.dumps(doc))
        doc["version"] = 1
        doc["resource"] = self.resource_key
        if self.backend == "keyring":
            try:
                _move_to_keyring(doc, self.path)
            except Exception as exc:  # noqa: BLE001 - a locked or broken keychain: keep the file store
                if self._note:
                    self._note(f"mrtr: note: the OS keychain refused the tokens ({type(exc).__name__}); "
                               "they are kept in the file store")
                self.backend = "file"
                _fill_from_keyring(doc, self.path)
                doc.pop("keyring", None)
        else:
            doc.pop("keyring", None)
        fd, tmp = tempfile.mkstemp(prefix=".tok-", dir=folder)
        try:
            owner_only_file(fd)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(doc, fh, indent=1, sort_keys=True)
                fh.write("\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def update(self, issuer: str, *, client: dict[str, Any] | None = None, tokens: dict[str, Any] | None = None,
               endpoints: dict[str, Any] | None = None, current: bool = True) -> dict[str, Any]:
        """Set parts of `issuer`'s entry (and make it the current one); returns the entry.

        Raises:
            AuthError: a value to be stored holds a secret (`screen`); nothing is stored.
        """
        if self._holds_secret is not None:
            screen(issuer, {"client": client, "tokens": tokens, "endpoints": endpoints}, self._holds_secret,
                   own=self.resource_key)
        doc = self.load()
        entries = doc.setdefault("issuers", {})
        entry: dict[str, Any] = entries.setdefault(issuer, {})
        if client is not None:
            entry["client"] = client
        if tokens is not None:
            entry["tokens"] = tokens
        if endpoints is not None:
            entry["endpoints"] = endpoints
        if current:
            doc["issuer"] = issuer
        self.save(doc)
        return entry

    def drop_tokens(self, issuer: str) -> None:
        """Forget `issuer`'s tokens (keep its client)."""
        doc = self.load()
        entry = (doc.get("issuers") or {}).get(issuer)
        if isinstance(entry, dict) and entry.pop("tokens", None) is not None:
            self.save(doc)

    def forget_client(self, issuer: str) -> None:
        """Forget `issuer`'s client registration and the tokens issued to it (the server no
        longer knows the client: the next sign-in registers again)."""
        doc = self.load()
        entry = (doc.get("issuers") or {}).get(issuer)
        if isinstance(entry, dict) and (entry.pop("client", None), entry.pop("tokens", None)) != (None, None):
            self.save(doc)

    def remove(self) -> None:
        """Delete every sign-in of this server: the file, damaged or not, and the keychain
        items of every issuer it still names (a damaged file may have had some)."""
        try:
            doc = read_record(self.path)
            keyring = bool(doc and doc.get("keyring"))
        except DamagedTokenStore:
            keyring = True
        if keyring:
            _delete_keyring(self.path)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        with contextlib.suppress(OSError):  # Windows: held open by another run (it goes with the folder later)
            os.unlink(self.path[:-5] + ".lock")

    @contextlib.contextmanager
    def locked(self, timeout: float = 120.0) -> Iterator[None]:
        """Hold the server's lock across processes (`platform.filelock` on `<file>.lock`) while
        the block runs: one refresh or sign-in at a time; the others then read its result.

        Raises:
            AuthError: the lock was not free within `timeout` seconds.
        """
        _ensure_dir()
        lock_path = self.path[:-5] + ".lock"
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            start = time.monotonic()
            while not filelock.try_lock(fd):
                if time.monotonic() - start > timeout:
                    raise AuthError(f"the token store {lock_path} stayed locked for {describe_seconds(timeout)} "
                                    "(another mrtr is signing in)")
                time.sleep(0.05)
            try:
                yield
            finally:
                filelock.unlock(fd)
        finally:
            os.close(fd)


#: What each part of an entry came from, for a refusal's message.
_SOURCES = {"client": "the client registration", "tokens": "the token response",
            "endpoints": "the authorization server metadata"}

#: The shortest secret of the run that a stored value must not hold (characters): shorter
#: ones (a 4-character `-H` value such as `read`) are common words in scopes and URLs.
SCREENED_SECRET_CHARS = 8


def screen(issuer: str, parts: dict[str, dict[str, Any] | None], holds_secret: Any, *, own: str = "") -> None:
    """Refuse to store what an authorization server handed back when it holds a secret of
    the run (one of `SCREENED_SECRET_CHARS` or more: a credential mrtr sent, a header value,
    a token it was issued, in any form `Environment.redact` finds) or a secret stored beside
    it (the new access or refresh token in the `scope`): the issuer, every string of the
    client, the tokens and the endpoints except the secrets themselves (`SECRET_FIELDS`)
    and a `resource` that is `own`, the server's URL the user gave (its credentials are the
    user's own; `auth status` hides them by their place in the URL). Such a value would be
    printed by `auth status` in later runs, which know none of this run's secrets.

    Raises:
        AuthError: (exit 8) naming the member, never the value.
    """
    fresh = [value for part, name in SECRET_FIELDS
             if isinstance(value := (parts.get(part) or {}).get(name), str) and value]
    if holds_secret(issuer, fresh):
        raise AuthError("the authorization server's issuer holds a secret of this run; refused, nothing was stored")
    for part, values in parts.items():
        for member, value in (values or {}).items():
            if (part, member) in SECRET_FIELDS or (part, member, value) == ("endpoints", "resource", own):
                continue
            texts = value if isinstance(value, list) else [value]
            if any(isinstance(text, str) and holds_secret(text, fresh) for text in texts):
                raise AuthError(f"{_SOURCES[part]}'s {member} holds a secret of this run (a credential mrtr sent "
                                "or was issued, or a header value); refused, nothing was stored")


def all_records() -> tuple[list[tuple[str, dict[str, Any]]], list[DamagedTokenStore]]:
    """Every token file in the store: the readable ones as (path, record) sorted by resource,
    and the damaged ones (each error names its file and `mrtr auth logout --all`)."""
    folder = store_dir()
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json") and not n.startswith("."))
    except OSError:
        return [], []
    out, damaged = [], []
    for name in names:
        path = os.path.join(folder, name)
        try:
            doc = read_record(path)
        except DamagedTokenStore as exc:
            damaged.append(exc)
            continue
        if doc:
            out.append((path, doc))
    return sorted(out, key=lambda item: str(item[1].get("resource"))), damaged


def expires_at(expires_in: object) -> float | None:
    """Unix time a token with `expires_in` seconds (RFC 6749 section 5.1) expires, or None."""
    if isinstance(expires_in, int | float) and not isinstance(expires_in, bool) and expires_in > 0:
        return time.time() + float(expires_in)
    if isinstance(expires_in, str) and expires_in.isdigit():
        return time.time() + float(expires_in)
    return None


# ---------------------------------------------------------------------- keyring backend
def _keyring() -> Any:
    """The `keyring` module when it is installed and has a usable backend, else None."""
    try:
        import keyring  # noqa: PLC0415 - lazy for start-up time
        from keyring.backends import fail  # noqa: PLC0415 - lazy for start-up time
    except ImportError:
        return None
    try:
        if isinstance(keyring.get_keyring(), fail.Keyring):
            return None
    except Exception:  # noqa: BLE001
        return None
    return keyring


def _item(path: str, issuer: str, part: str, name: str) -> str:
    return f"{os.path.basename(path)[:-5]}:{issuer}:{part}.{name}"


def _move_to_keyring(doc: dict[str, Any], path: str) -> None:
    kr = _keyring()
    for issuer, entry in (doc.get("issuers") or {}).items():
        for part, name in SECRET_FIELDS:
            value = (entry.get(part) or {}).get(name)
            if isinstance(value, str):
                kr.set_password(KEYRING_SERVICE, _item(path, issuer, part, name), value)
                entry[part][name] = {"keyring": True}
    doc["keyring"] = True


def _fill_from_keyring(doc: dict[str, Any], path: str) -> None:
    kr = _keyring()
    for issuer, entry in (doc.get("issuers") or {}).items():
        for part, name in SECRET_FIELDS:
            holder = entry.get(part) or {}
            if isinstance(holder.get(name), dict):
                value = kr.get_password(KEYRING_SERVICE, _item(path, issuer, part, name)) if kr else None
                if value is None:
                    holder.pop(name, None)
                else:
                    holder[name] = value


def _delete_keyring(path: str) -> None:
    """Delete the keychain items of every issuer the file at `path` names (also a damaged
    file: `tokenfile.issuers_named`); nothing when no keychain is available."""
    kr = _keyring()
    if kr is None:
        return
    for issuer in issuers_named(path):
        for part, name in SECRET_FIELDS:
            with contextlib.suppress(Exception):
                kr.delete_password(KEYRING_SERVICE, _item(path, issuer, part, name))
