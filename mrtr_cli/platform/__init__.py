"""What differs between Linux, macOS and Windows, in one place (docs/platforms.md).

One small module per concern, each of which picks its implementation once, at import:
`_posix/NAME.py` (Linux and macOS) or `_windows/NAME.py` beside it (the two smallest,
`signals` and `fileuris`, choose between two names in a few lines). The rest of
`mrtr_cli` calls these modules and makes no platform test of its own.

| module | concern |
|---|---|
| `proctree` | starting a child in a tree of its own (on Windows: the program found on PATH, a `.cmd`/`.bat` run through cmd.exe); asking the tree to end, ending it, whether any of it is left; what escaped it |
| `signals` | the signals that end a run as Ctrl-C does (SIGTERM; and Ctrl-Break on Windows) |
| `filelock` | a lock across processes on an open file (`flock`; `msvcrt.locking`) |
| `fileopen` | opening without waiting for a FIFO's other end; binary descriptors (Windows) |
| `filemodes` | files and folders only their owner may use (0600/0700; nothing on Windows) |
| `pipes` | waiting on a descriptor with a time bound; a child's exit watched beside its stdout; unread bytes in a pipe |
| `console` | the terminal a person types in when stdin is redirected (`/dev/tty`; `CONIN$`) |
| `shellwords` | splitting a command line into words, and quoting words for the user's shell (a POSIX shell; PowerShell) |
| `userdirs` | where mrtr keeps its state (XDG on Linux; the platform's folder on macOS and Windows) |
| `fileuris` | the local path a `file://` URI names |

This package sits at the bottom of the layers (pyproject.toml, `[tool.importlinter]`):
it imports nothing of `mrtr_cli`. Some of its modules are imported before a stdio server is
launched, before `typing` loads: they keep their imports to the standard library's cheapest.
"""  # noqa: E501 - a Markdown table: a row is one line
