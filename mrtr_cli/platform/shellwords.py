"""Command lines as words, the way the user's platform reads them (docs/platforms.md).

- `split(text)`: a `--stdio`, `--sampling-command` or assertion command as words. POSIX:
  as a POSIX shell splits them (`shlex`; quotes and backslashes, no expansion). Windows:
  as a program's C runtime splits its command line (the `CommandLineToArgvW` rules), so
  `python C:\\srv\\server.py` keeps its backslashes.
- `join(words)`: the inverse of `split` (`split(join(w)) == w`): how a stdio command is kept
  in a pending document or a task record and shown as `--stdio` takes it.
- `quote(word)`, `shell_line(words)`: a word, a command, for the user to paste into the
  shell: a POSIX shell on POSIX (`shlex.quote`), PowerShell on Windows (single quotes).

No shell ever runs a command `mrtr` starts: these only read and print command lines.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    from mrtr_cli.platform._windows import shellwords as _impl
else:
    from mrtr_cli.platform._posix import shellwords as _impl

#: The shell `quote` and `shell_line` quote for, as docs and hints name it.
SHELL = _impl.SHELL
#: `split(text) -> list[str]`; raises ValueError for unbalanced quotes (POSIX only).
split = _impl.split
#: `join(words) -> str`: the command line that `split` turns back into `words`.
join = _impl.join
#: `quote(word) -> str`: `word` as one word of the user's shell.
quote = _impl.quote


def shell_line(words: list[str]) -> str:
    """`words` as one command line of the user's shell, each word quoted as needed
    (`mrtr --stdio 'python server.py' resume PENDING.json`)."""
    return " ".join(quote(str(word)) for word in words)
