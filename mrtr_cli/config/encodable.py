"""Strings that cannot be encoded: a lone surrogate read from a JSON config file
(`"\\ud800"`), or a byte that is not UTF-8 in the command line or the environment
(decoded with surrogateescape). No process can be given one and no request can carry
one, so each is refused as bad input (exit 2) before anything starts
(docs/configuration.md, "Named servers").
"""

from __future__ import annotations

from mrtr_cli.errors import UsageError

#: What a value goes to, for `check_text`'s message: a process (argv, environment, working
#: directory) or a request (URL, headers).
PROCESS = "no process can be given"
REQUEST = "no request can carry"


def check_text(text: str, where: str, *, carrier: str = PROCESS, from_bytes: bool = False) -> None:
    """Refuse a string that cannot be encoded: a lone surrogate (U+D800 to U+DFFF), as a
    JSON file may hold (`"\\ud800"`), or, for `from_bytes` text (the command line and
    environment, decoded with surrogateescape), a byte that is not UTF-8. Such a string
    cannot become an argument, an environment entry, a path or a URL.

    Args:
        where: what holds it ("cfg.json: server 's': args[0]", "--stdio"), named in the message.
        carrier: `PROCESS` or `REQUEST`, where the value is going.

    Raises:
        UsageError: naming `where` and the character as an escape, never the value (it may
            be a credential).
    """
    try:
        text.encode("utf-8")
        return
    except UnicodeEncodeError as exc:
        c = text[exc.start]
    if from_bytes and 0xDC80 <= ord(c) <= 0xDCFF:
        what = f"a byte that is not UTF-8 (\\x{ord(c) - 0xDC00:02x})"
    else:
        what = f"a lone surrogate (\\u{ord(c):04x})"
    raise UsageError(f"{where} holds {what}, which {carrier}")
