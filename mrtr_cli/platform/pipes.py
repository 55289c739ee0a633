"""Waiting on pipes and descriptors.

| | POSIX | Windows |
|---|---|---|
| `wait_readable(fd, timeout)` | `select` | cannot wait on a pipe or console: True at once (the read that follows blocks) |
| `unread_bytes(fd)` | `FIONREAD` (Linux answers it for either end of a pipe) | None (cannot tell) |
| `takes_at_once(fd, size)` | Linux: the pipe is empty and `size` is at most a page; macOS: False | False |
| `watch_exit(proc)` | a watch on the child's exit beside its stdout (`poll` on a pidfd, or a pipe a waiting thread closes) | None: the reader sees stdout's end only |
"""  # noqa: E501 - a Markdown table: a row is one line

from __future__ import annotations

import sys

if sys.platform == "win32":
    from mrtr_cli.platform._windows import pipes as _impl
else:
    from mrtr_cli.platform._posix import pipes as _impl

#: `wait_readable(fd, timeout) -> bool`: False when nothing came within `timeout` seconds;
#: True when `fd` can be read (or cannot be waited on: the read then blocks).
wait_readable = _impl.wait_readable
#: `unread_bytes(fd) -> int | None`: bytes written to the pipe `fd` and not yet read.
unread_bytes = _impl.unread_bytes
#: `takes_at_once(fd, size) -> bool`: a write of `size` bytes to the pipe `fd` cannot block.
takes_at_once = _impl.takes_at_once
#: `watch_exit(proc) -> ExitWatch | None`: see `_pipes_posix.ExitWatch`.
watch_exit = _impl.watch_exit
