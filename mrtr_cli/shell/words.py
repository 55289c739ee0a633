"""A shell line as words, and the words the shell answers itself.

A line is split as a POSIX shell splits words (`shlex`: quotes, backslashes; no
variables, globs or pipes), so that `call echo text='two words'` means what it means to
`sh`. A `#` starts a comment only as the first thing on a line (`text=a#b` is one
value). A leading `mrtr` is left out, so that a command line copied from a hint or the
docs runs as it is.
"""

from __future__ import annotations

import shlex

from mrtr_cli.errors import UsageError

#: Words the shell answers without running a command.
EXIT_WORDS = ("exit", "quit")

#: What makes `shlex` split a line other than at its whitespace: quotes and the backslash,
#: and the ASCII characters `str.split` takes for whitespace and `shlex` does not.
_NOT_PLAIN = frozenset("'\"\\\x0b\x0c\x1c\x1d\x1e\x1f")

#: Commands that make no sense inside the shell, and why (docs/shell.md, "What runs inside").
REFUSED_COMMANDS = {
    "shell": "this is the shell already",
    "batch": "a batch opens a session of its own; feed the lines to `mrtr shell` from a script instead, "
             "or run `mrtr ... batch FILE` outside the shell",
    "completion": "completion scripts are for your login shell (outside, run `mrtr completion bash|zsh|fish`); "
                  "inside the shell press Tab",
}


def skipped(text: str) -> bool:
    """True for a line with nothing to run: blank, or a `#` comment."""
    stripped = text.strip()
    return not stripped or stripped.startswith("#")


def split_line(text: str) -> list[str]:
    """The words of `text` as a POSIX shell splits them, without a leading `mrtr`.

    Raises:
        UsageError: an unclosed quote, or a backslash with nothing after it (exit 2).
    """
    # a line without quotes or backslashes splits at its whitespace, as shlex would split it
    words = text.split() if text.isascii() and _NOT_PLAIN.isdisjoint(text) else _shell_split(text)
    if words and words[0] == "mrtr":
        words = words[1:]
    return words


def _shell_split(text: str) -> list[str]:
    """`shlex`'s POSIX split of `text`.

    Raises:
        UsageError: an unclosed quote, or a backslash with nothing after it (exit 2).
    """
    try:
        return shlex.split(text, posix=True)
    except ValueError:
        raise _split_error(text) from None


def _split_error(text: str) -> UsageError:
    """Why `shlex` cannot split `text`: read as `shlex` reads it (outside quotes a backslash
    takes the next character as it is; inside '...' nothing is special; inside "..." a
    backslash takes the next character), the quote left open (named with its place), or
    the backslash that ends the line with nothing to escape."""
    quote, opened, at = "", 0, 0
    while at < len(text):
        char = text[at]
        if char == "\\" and quote != "'":
            at += 2
            continue
        if quote and char == quote:
            quote = ""
        elif not quote and char in "'\"":
            quote, opened = char, at + 1
        at += 1
    if quote:
        written = "\\\" (also inside \"...\")" if quote == '"' else "\\' outside quotes"
        other = "'" if quote == '"' else '"'
        return UsageError(f"cannot split the line into words: the {quote} at character {opened} is never closed",
                          hint=f"close it with another {quote}; a {quote} inside a value is written {written}, "
                               f"or inside {other}...{other}")
    return UsageError("cannot split the line into words: it ends in a backslash, which escapes nothing "
                      "(a command does not continue on the next line)",
                      hint="write the whole command on one line; a backslash itself is written \\\\ or inside '...'")


def refusal(words: list[str]) -> UsageError | None:
    """The error for a command that does not run inside the shell, or None."""
    if not words or words[0] not in REFUSED_COMMANDS:
        return None
    return UsageError(f"{words[0]} does not run inside the shell: {REFUSED_COMMANDS[words[0]]}")
