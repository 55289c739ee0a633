"""`shellwords` on Windows, as pure functions (tested on every platform):

- `split`: how a program's C runtime splits its command line (Microsoft's "Parsing C
  command-line arguments", the rules `CommandLineToArgvW` and Python's own `sys.argv`
  follow): words are separated by spaces and tabs; double quotes group; a backslash is
  literal unless it comes before a double quote (2n backslashes and `"`: n backslashes and
  a quote that groups; 2n+1: n backslashes and a literal `"`); `""` inside quotes is a
  literal `"`; the first word (the program) takes no backslash escapes. An open quote
  runs to the end: nothing is refused.
- `join`: `subprocess.list2cmdline`, its inverse.
- `quote`: a word for PowerShell (the shell of Windows Terminal and VS Code): bare when it
  holds only letters, digits and `_-+./:\\=`; else in single quotes, each quote character
  PowerShell knows (`'` and the typographic ones) doubled.
- `batch_command_line`: running a `.cmd`/`.bat` file (`npx.cmd`, `uvx.cmd`) through
  `cmd.exe /d /v:OFF /c`, which parses its own command line: every argument that is not
  plainly safe is double-quoted, and one holding `"`, `%`, a line break or NUL is refused
  (`UnsafeArgument`), as cmd.exe would expand or split it whatever the quoting
  (CVE-2024-24576).
"""

from __future__ import annotations

SHELL = "PowerShell"

#: Characters a PowerShell word may hold without quotes.
_POWERSHELL_BARE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+./:\\=")
#: What PowerShell reads as a single quote (doubled inside single quotes).
_POWERSHELL_QUOTES = "'\u2018\u2019\u201a\u201b"
#: Characters an argument of a batch file may hold without quotes.
_BATCH_BARE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+./:\\@")
#: Characters no argument of a batch file may hold, with how messages name them.
_BATCH_REFUSED = {'"': "a double quote", "%": "a percent sign", "\r": "a line break", "\n": "a line break",
                  "\0": "a NUL character"}


class UnsafeArgument(ValueError):
    """An argument of a batch file that cmd.exe would expand or split whatever the quoting.

    Attributes:
        index: the argument's position (0: the batch file itself).
        what: what it holds ("a percent sign", ...).
    """

    def __init__(self, index: int, what: str):
        super().__init__(f"argument {index} holds {what}, which cmd.exe would expand or split "
                         "(batch files parse their own arguments)" if index else
                         f"path holds {what}, which cmd.exe would expand or split")
        self.index = index
        self.what = what


def _blanks_end(text: str, i: int) -> int:
    """The index of the first character at or after `i` that is not a space or a tab."""
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def split(text: str) -> list[str]:
    """`text` split into words by the C runtime's rules (module docstring). Never raises."""
    words: list[str] = []
    n = len(text)
    i = _blanks_end(text, 0)
    if i >= n:
        return words
    # The program: quotes group, nothing is escaped.
    program: list[str] = []
    quoted = False
    while i < n and (quoted or text[i] not in " \t"):
        if text[i] == '"':
            quoted = not quoted
        else:
            program.append(text[i])
        i += 1
    words.append("".join(program))
    # The arguments.
    while (i := _blanks_end(text, i)) < n:
        word: list[str] = []
        quoted = False
        while True:
            slashes = 0
            while i < n and text[i] == "\\":
                slashes += 1
                i += 1
            literal = True
            if i < n and text[i] == '"':
                if slashes % 2 == 0:
                    if quoted and i + 1 < n and text[i + 1] == '"':
                        i += 1  # "" inside quotes: a literal quote
                    else:
                        literal = False
                        quoted = not quoted
                slashes //= 2
            word.append("\\" * slashes)
            if i >= n or (not quoted and text[i] in " \t"):
                break
            if literal:
                word.append(text[i])
            i += 1
        words.append("".join(word))
    return words


def join(words: list[str]) -> str:
    """The command line `split` turns back into `words` (`subprocess.list2cmdline`)."""
    from subprocess import list2cmdline  # noqa: PLC0415 - lazy for start-up time

    return list2cmdline(words)


def quote(word: str) -> str:
    """`word` as one PowerShell word (module docstring)."""
    if word and all(c in _POWERSHELL_BARE for c in word):
        return word
    return "'" + "".join(c + c if c in _POWERSHELL_QUOTES else c for c in word) + "'"


def _batch_word(word: str, index: int) -> str:
    for char, what in _BATCH_REFUSED.items():
        if char in word:
            raise UnsafeArgument(index, what)
    if index and word and all(c in _BATCH_BARE for c in word):
        return word
    trailing = len(word) - len(word.rstrip("\\"))
    return '"' + word + "\\" * trailing + '"'  # a backslash before the closing quote is doubled


def batch_command_line(script: str, args: list[str]) -> str:
    """The command line that runs the batch file `script` with `args` through cmd.exe
    (`cmd.exe /e:ON /v:OFF /d /c ""SCRIPT" ARGS"`: no AutoRun, no delayed expansion of `!`;
    cmd.exe strips the outer quotes), every argument quoted unless plainly safe.

    Raises:
        UnsafeArgument: an argument (or the path) holds `"`, `%`, a line break or NUL.
    """
    words = [_batch_word(script, 0), *(_batch_word(arg, i) for i, arg in enumerate(args, 1))]
    return f'cmd.exe /e:ON /v:OFF /d /c "{" ".join(words)}"'
