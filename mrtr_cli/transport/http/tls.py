"""The CA certificates every HTTPS connection of mrtr is verified against, from the
environment, under the rules of every file the user names (docs/limits.md, "What the
user gives mrtr"; docs/configuration.md, "Proxies and TLS").

- `SSL_CERT_FILE` (a PEM bundle; when set, `SSL_CERT_DIR` is not read): checked as a
  user file (a regular file of at most 64 MiB; a FIFO, a device, a directory refused at
  once, never opened for reading) and loaded when the client is made, so that a bad
  one is exit 2 at once, even for a plain `http://` URL.
- `SSL_CERT_DIR` (OpenSSL's hashed names, read by OpenSSL during a handshake): a
  directory, every entry OpenSSL could read (`<8 hex digits>.<n>`, `.r<n>` for CRLs)
  checked as a user file when the client is made, at most `MAX_CA_DIR_ENTRIES` entries.
- `SSLKEYLOGFILE`, which Python's `ssl.create_default_context` writes TLS keys to when
  a CA variable is set: checked as an output file first (a FIFO nobody reads is refused
  at once instead of blocking the open).
- With neither CA variable, the system's certificates (as httpx2 loads them,
  `httpcore2.default_ssl_context`) are loaded at the first TLS handshake: a run that
  never uses HTTPS reads none.

Every refusal is a `UsageError` (exit 2) naming the variable.
"""

from __future__ import annotations

import os
import re
import ssl
import threading
from typing import Any

from mrtr_cli.errors import UsageError
from mrtr_cli.userfiles import check_variable_file, shown_path

#: The CA variables, in the order httpx2 (httpcore2 `default_ssl_context`) reads them.
TLS_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR")
#: The most entries of an `SSL_CERT_DIR` checked (a real one has a few hundred).
MAX_CA_DIR_ENTRIES = 100_000
#: The names OpenSSL looks up in a CA directory: a subject hash, `.`, a number (`r` for CRLs).
_HASHED = re.compile(r"[0-9a-f]{8}\.r?[0-9]+")


def tls_variable() -> tuple[str, str] | None:
    """The CA setting httpx2 uses, as (variable, value): `SSL_CERT_FILE` when set (not
    empty), else `SSL_CERT_DIR`, else None (the system's CA certificates)."""
    for name in TLS_VARIABLES:
        if os.environ.get(name):
            return name, os.environ[name]
    return None


def verifying_context() -> ssl.SSLContext:
    """The context an HTTP client verifies HTTPS servers with (httpx2's `verify=`), under
    the rules of the module docstring.

    Raises:
        UsageError: a CA variable (or `SSLKEYLOGFILE`) names something that breaks them,
            or a CA bundle OpenSSL cannot load; the message names the variable (exit 2).
    """
    setting = tls_variable()
    if setting is None:
        return _SystemCertificates()
    name, value = setting
    if name == "SSL_CERT_DIR":
        _check_cert_dir(value)
    else:
        _check_file(name, value, value, "a CA bundle for HTTPS")
    _check_key_log()
    try:
        if name == "SSL_CERT_DIR":
            return ssl.create_default_context(capath=value)
        return ssl.create_default_context(cafile=value)
    except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
        what = ("holds no PEM certificate" if "NO_CERTIFICATE" in str(exc)
                else f"cannot be loaded ({shown_path(str(exc))})")
        raise UsageError(f"{name}={shown_path(value)}: {what} (a CA bundle for HTTPS)",
                         hint=f"point {name} at a PEM file of CA certificates, or unset it") from None


def _check_file(name: str, value: str, path: str, purpose: str) -> None:
    """`path` (the file `name=value` names, or one in its directory) passes the rules of
    every user file; else UsageError naming the variable."""
    wanted = "a PEM file of CA certificates" if path == value else "a directory of CA certificates"
    check_variable_file(name, value, purpose, hint=f"point {name} at {wanted}, or unset it", path=path)


def _check_cert_dir(value: str) -> None:
    """`SSL_CERT_DIR` names a directory (OpenSSL would ignore anything else, and every
    HTTPS certificate would then fail to verify) whose entries OpenSSL may read are user
    files (a FIFO there would hang the handshake that looks it up)."""
    if not os.path.isdir(value):
        what = "not a directory" if os.path.exists(value) else "no such directory"
        raise UsageError(f"SSL_CERT_DIR={shown_path(value)}: {what} (a directory of CA certificates for HTTPS)",
                         hint="point it at a directory of CA certificates, or unset it")
    try:
        with os.scandir(value) as entries:
            for count, entry in enumerate(entries, 1):
                if count > MAX_CA_DIR_ENTRIES:
                    raise UsageError(f"SSL_CERT_DIR={shown_path(value)}: more than {MAX_CA_DIR_ENTRIES} entries "
                                     "(a directory of CA certificates for HTTPS)",
                                     hint="point it at a directory of CA certificates, or unset it")
                # (a broken link is skipped, as OpenSSL skips it)
                if _HASHED.fullmatch(entry.name) and os.path.exists(entry.path):
                    _check_file("SSL_CERT_DIR", value, entry.path, "a directory of CA certificates for HTTPS")
    except OSError as exc:
        raise UsageError(f"SSL_CERT_DIR={shown_path(value)}: cannot be read ({exc.strerror or exc})",
                         hint="point it at a directory of CA certificates, or unset it") from None


def _check_key_log() -> None:
    """`SSLKEYLOGFILE`, which `ssl.create_default_context` opens to append TLS keys to, can
    be opened without blocking (a FIFO must have a reader); else UsageError naming it."""
    import errno  # noqa: PLC0415 - lazy for start-up time
    import sys  # noqa: PLC0415 - lazy for start-up time

    path = os.environ.get("SSLKEYLOGFILE")
    if not path or sys.flags.ignore_environment:
        return
    from mrtr_cli.platform.fileopen import NO_WAIT  # noqa: PLC0415 - lazy for start-up time

    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | NO_WAIT
    try:
        os.close(os.open(path, flags, 0o600))
    except OSError as exc:
        why = "a FIFO no process reads" if exc.errno == errno.ENXIO else str(exc.strerror or exc)
        raise UsageError(f"SSLKEYLOGFILE={shown_path(path)}: {why} (where TLS keys would be logged)",
                         hint="unset SSLKEYLOGFILE, or point it at a file mrtr may write") from None
    except ValueError:
        raise UsageError(f"SSLKEYLOGFILE={shown_path(path)}: not a usable file name",
                         hint="unset SSLKEYLOGFILE, or point it at a file mrtr may write") from None


class _SystemCertificates(ssl.SSLContext):
    """Verifies against the system's CA certificates, loaded as httpx2 would load them
    (`httpcore2.default_ssl_context`: on macOS and Windows the platform's own verifier)
    at the first TLS handshake: making the client costs nothing, and a run that never
    uses HTTPS reads no CA file. Stands in for that context in what httpcore2 asks of
    one (`set_alpn_protocols`, `wrap_socket`, `wrap_bio`)."""

    def __new__(cls) -> _SystemCertificates:
        return super().__new__(cls, ssl.PROTOCOL_TLS_CLIENT)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded: ssl.SSLContext | None = None
        self._alpn: list[str] | None = None

    def _context(self) -> ssl.SSLContext:
        with self._lock:
            if self._loaded is None:
                import httpcore2  # noqa: PLC0415 - lazy for start-up time

                loaded = httpcore2.default_ssl_context()
                if self._alpn is not None:
                    loaded.set_alpn_protocols(self._alpn)
                self._loaded = loaded
            return self._loaded

    def set_alpn_protocols(self, alpn_protocols: Any) -> None:
        with self._lock:
            self._alpn = list(alpn_protocols)
            if self._loaded is not None:
                self._loaded.set_alpn_protocols(self._alpn)

    def wrap_socket(self, *args: Any, **kwargs: Any) -> Any:
        return self._context().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> Any:
        return self._context().wrap_bio(*args, **kwargs)
