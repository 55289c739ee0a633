"""`shellwords` on Linux and macOS: `shlex`, as a POSIX shell splits and quotes."""

from __future__ import annotations

import shlex

SHELL = "a POSIX shell"


def split(text: str) -> list[str]:
    """`text` split as a POSIX shell would (quotes, backslashes; no expansion, no comments).

    Raises:
        ValueError: unbalanced quotes, or a backslash at the very end.
    """
    return shlex.split(text)


def join(words: list[str]) -> str:
    """The command line `split` turns back into `words`."""
    return shlex.join(words)


def quote(word: str) -> str:
    """`word` as one word of a POSIX shell."""
    return shlex.quote(word)
