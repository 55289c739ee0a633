"""Starting a stdio server process: its pipes, its own process group, and the run's mark
in its environment (`transport.reaper`). Used by `StdioTransport.spawn` and, before the
CLI is loaded, by `transport.early.prelaunch`: only the standard library,
`transport.procgroup` and `transport.reaper` are imported, so that the server starts as
early as it can.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping

from mrtr_cli.transport.procgroup import NEW_GROUP
from mrtr_cli.transport.reaper import MARK, become_subreaper


def launch(argv: list[str], env: Mapping[str, str], cwd: str | None, mark: str) -> subprocess.Popen[bytes]:
    """Start `argv` with stdin, stdout and stderr piped, in its own process group (a Ctrl-C
    at the terminal reaches `mrtr` only, which then cancels the request and shuts the
    server down cleanly), with `env` over `mrtr`'s own environment and `MARK=mark`; `mrtr`
    becomes the subreaper of what it starts first (Linux).

    Raises:
        OSError: the command cannot be started (FileNotFoundError, PermissionError, ...).
    """
    become_subreaper()  # what escapes the server's group comes back to mrtr (Linux)
    return subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **env, MARK: mark},
        cwd=cwd,
        bufsize=0,
        **NEW_GROUP,
    )
