""""Did you mean" suggestions: only names close to what was typed, as git does.

A name that resembles none of the choices gets no list of every choice (a server with
200 tools would print them all); the caller points to the command that lists them.
"""

from __future__ import annotations

from collections.abc import Iterable

#: difflib similarity (0..1) a choice needs to be suggested; git's own threshold is of
#: the same order (an edit or two in a short word, a few more in a long one).
CUTOFF = 0.7


def close_matches(word: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """Up to `n` choices close to `word`, best first (case-insensitive; `difflib`)."""
    import difflib  # noqa: PLC0415 - only on an error path

    choices = [str(c) for c in choices]
    by_lower: dict[str, str] = {}
    for choice in choices:
        by_lower.setdefault(choice.lower(), choice)
    found = difflib.get_close_matches(word.lower(), list(by_lower), n=n, cutoff=CUTOFF)
    return [by_lower[f] for f in found]
