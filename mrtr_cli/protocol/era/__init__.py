"""Choosing the protocol era of a server (2026-07-28 or 2025-11-25) and opening the
matching session: the `server/discover` probe (`probe`), what an answer, a late answer or
a failed `initialize` says (`verdict`), the era found per server (`cache`), and
`open_session` (`opener`), which returns a `Session` or a `LegacySession`.
"""

from mrtr_cli.protocol.era.opener import SessionSettings, open_session

__all__ = ["SessionSettings", "open_session"]
