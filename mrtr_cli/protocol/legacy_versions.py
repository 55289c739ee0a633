"""The handshake (2025-11-25 and earlier) protocol versions this client speaks.

Apart from the legacy session (protocol/legacy.py) so that the era probe's verdict and
`--protocol` can name them without loading that session: a call to a modern server never
needs it (docs/performance.md).
"""

from __future__ import annotations

#: Handshake versions this client speaks, newest first.
LEGACY_VERSIONS: tuple[str, ...] = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST_LEGACY = LEGACY_VERSIONS[0]
