"""SHA-256 for the cache and state keys mrtr computes on every call (the era cache, the
list cache, known targets), without importing `hashlib`: `hashlib` loads OpenSSL, which
costs more start-up time than the rest of a call's hashing (docs/performance.md).

CPython's own SHA-256 module (`_sha2` from 3.12, `_sha256` before) gives the same digest;
`hashlib` is used where neither exists.
"""

from __future__ import annotations

import sys
from typing import Any


def _sha256() -> Any:
    # The module of this version first: a failed import searches every entry of sys.path.
    try:
        if sys.version_info >= (3, 12):
            from _sha2 import sha256  # type: ignore[import-not-found]  # noqa: PLC0415 - CPython 3.12+
        else:
            from _sha256 import sha256  # type: ignore[import-not-found]  # noqa: PLC0415 - CPython 3.10, 3.11
    except ImportError:
        from hashlib import sha256  # noqa: PLC0415 - other interpreters
    return sha256


_SHA256 = _sha256()


def sha256_digest(data: bytes) -> bytes:
    """The SHA-256 digest of `data`: 32 bytes (FIPS 180-4)."""
    return bytes(_SHA256(data).digest())


def sha256_hex(data: bytes) -> str:
    """The SHA-256 digest of `data` as 64 lowercase hex digits (FIPS 180-4)."""
    return str(_SHA256(data).hexdigest())
