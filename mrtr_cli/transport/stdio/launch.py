"""Starting a stdio server process: its pipes, its own process tree
(`platform.proctree.start`), and the run's mark in its environment. Used by
`StdioTransport.spawn` and, before the CLI is loaded, by `transport.stdio.early.prelaunch`: only
the standard library and `platform.proctree` are imported, so that the server starts as
early as it can.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping

from mrtr_cli.platform import proctree


def launch(argv: list[str], env: Mapping[str, str], cwd: str | None, mark: str) -> subprocess.Popen[bytes]:
    """Start `argv` with stdin, stdout and stderr piped, in a process tree of its own (a
    Ctrl-C at the terminal reaches `mrtr` only, which then cancels the request and shuts the
    server down cleanly), with `env` over `mrtr`'s own environment and
    `proctree.MARK=mark`.

    Raises:
        OSError: the command cannot be started (FileNotFoundError, PermissionError, ...;
            on Windows, a batch file with an argument cmd.exe would expand).
    """
    return proctree.start(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **env, proctree.MARK: mark},
        cwd=cwd,
        bufsize=0,
    )
