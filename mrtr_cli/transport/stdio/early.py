"""Launching a stdio server before the session opens, so that it boots while `mrtr`
finishes loading (docs/performance.md); the session adopts the transport
(protocol/opening.py). Nothing happens for an HTTP target.

Two moments: `prelaunch`, from the command line's words alone before the CLI (click) is
even imported, for the plain shape `mrtr --stdio CMD call|prompt|read|shell ...`; and
`spawn_early`, once the run's target is resolved, which adopts the prelaunched server when
the target is that very command and launches it otherwise. A prelaunched server that the
run does not adopt (a usage error, another target) is stopped (`discard_prelaunched`).
Before the launch only the standard library's `subprocess` and `transport/stdio/launch.py`
load (not even `typing`): the earlier the server starts, the sooner it answers.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import subprocess
    from collections.abc import Callable, Mapping
    from typing import Protocol

    from mrtr_cli.env import Environment
    from mrtr_cli.render.trace import Tracer
    from mrtr_cli.transport.base import Transport
    from mrtr_cli.transport.stdio.transport import StdioTransport

    class EarlyTarget(Protocol):
        """What `spawn_early` reads of a run's target (`config.target.Target`, a layer above
        transport/): where the server is, and how to build its transport."""

        @property
        def command(self) -> list[str] | None:
            """The stdio command line (argv), or None for an HTTP target."""

        @property
        def env(self) -> Mapping[str, str]:
            """Extra environment for the stdio server."""

        @property
        def cwd(self) -> str | None:
            """The stdio server's working directory, or None for mrtr's own."""

        def make_transport(self, env: Environment, tracer: Tracer) -> Transport:
            """Build (not start) the target's transport."""

#: The commands whose stdio server may be launched before the CLI is loaded (`shell` opens
#: its session before it reads a line).
PRELAUNCH_COMMANDS = ("call", "prompt", "read", "shell")
#: Words after which no server is needed (help and version are printed; a launch would be waste).
_NO_SERVER_WORDS = ("-h", "--help", "-V", "--version")

#: The server `prelaunch` started, as (argv, process, run mark), until the run adopts or
#: discards it.
_prelaunched: tuple[list[str], subprocess.Popen[bytes], str] | None = None


def prelaunch_command(words: list[str]) -> list[str] | None:
    """The stdio command (argv) to launch at once for the command line `words` (without the
    program name), or None.

    Only `--stdio CMD` (or `--stdio=CMD`) as the very first option, followed directly by
    `call`, `prompt`, `read` or `shell`, and no help or version word anywhere: the shape where the
    server is sure to be needed. CMD is split like `config.target.parse_stdio` does; a
    command it would refuse (unbalanced quotes, empty) is left to the CLI to report.
    """
    from mrtr_cli.platform import shellwords  # noqa: PLC0415 - lazy for start-up time

    if any(word in _NO_SERVER_WORDS for word in words):
        return None
    if len(words) >= 3 and words[0] == "--stdio":
        text, rest = words[1], words[2:]
    elif len(words) >= 2 and words[0].startswith("--stdio="):
        text, rest = words[0][len("--stdio="):], words[1:]
    else:
        return None
    if rest[0] not in PRELAUNCH_COMMANDS:
        return None
    try:
        argv = shellwords.split(text)
    except ValueError:
        return None
    return argv or None


def prelaunch(words: list[str]) -> None:
    """Start the stdio server named by the command line `words` now (`prelaunch_command`),
    before the CLI is imported, as `StdioTransport.spawn` would; `spawn_early` adopts it. A
    command that cannot be started is left to the run, which reports it as for any launch."""
    global _prelaunched  # noqa: PLW0603 - the process's one server launched before the CLI loads
    argv = prelaunch_command(words)
    if argv is None or _prelaunched is not None:
        return
    from mrtr_cli.platform.proctree import run_mark  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.transport.stdio.launch import launch  # noqa: PLC0415 - lazy for start-up time

    mark = run_mark()
    try:
        _prelaunched = (argv, launch(argv, {}, None, mark), mark)
    except OSError:
        return


def adopt_prelaunched(command: list[str] | None, env: Mapping[str, str],
                      cwd: str | None) -> tuple[subprocess.Popen[bytes], str] | None:
    """The prelaunched (process, mark) when it runs exactly `command` (with no extra
    environment, in mrtr's own directory), else None; one that does not match is stopped.
    Either way the slot is emptied."""
    global _prelaunched
    launched, _prelaunched = _prelaunched, None
    if launched is None:
        return None
    argv, proc, mark = launched
    if command is not None and list(command) == argv and not env and cwd is None:
        return proc, mark
    _stop(argv, proc, mark)
    return None


def discard_prelaunched() -> None:
    """Stop a prelaunched server the run did not adopt (at the end of the run)."""
    global _prelaunched
    launched, _prelaunched = _prelaunched, None
    if launched is not None:
        _stop(*launched)


def _stop(argv: list[str], proc: subprocess.Popen[bytes], mark: str) -> None:
    """End a prelaunched server as `StdioTransport.kill` ends any: its group, then what escaped."""
    from mrtr_cli.transport.stdio.transport import StdioTransport  # noqa: PLC0415 - lazy for start-up time

    transport = StdioTransport(argv)
    transport.adopt(proc, mark)
    transport.kill()


def spawn_early(target: EarlyTarget, env: Environment, tracer: Tracer,
                check: Callable[[], object]) -> StdioTransport | None:
    """Start `target`'s stdio server now (or adopt the one `prelaunch` started for it) and
    return its transport (None for HTTP).

    Args:
        target: a `config.target.Target` (`EarlyTarget`: what is read of it).
        env, tracer: the run's environment and tracer (the transport's stderr and `-v`).
        check: checks the options the session will need (`protocol.opening.check_session_options`);
            if it raises, the server is stopped again and the error raised.

    A server that cannot be launched is reported when the session opens.
    """
    if not target.command:
        discard_prelaunched()
        return None
    from mrtr_cli.transport.stdio.transport import StdioTransport  # noqa: PLC0415 - lazy for start-up time

    transport = target.make_transport(env, tracer)
    if not isinstance(transport, StdioTransport):  # a URL beside the command: nothing to launch
        discard_prelaunched()
        return None
    launched = adopt_prelaunched(target.command, target.env, target.cwd)
    if launched is not None:
        transport.adopt(*launched)
    transport.spawn()
    try:
        check()
    except BaseException:
        transport.kill()
        raise
    return transport
