"""Which server a saved target may reach without asking (pending documents, task records).

A pending document is a file: it may come from a CI artifact or a colleague, and its
`target.stdio` is a command line that `mrtr resume` would run. A stdio command runs
without asking only when `mrtr` has started it on this machine before (by `--stdio`,
remembered as a SHA-256 digest in `<state dir>/commands`); otherwise a person at the
terminal is shown the command and asked, and with no terminal it is refused (give
`--stdio` yourself to run it). A URL whose credentials were removed when it was saved
(`***`, see `Target.public`) must be given again with `--url`.
"""

from __future__ import annotations

import hashlib
import os
import shlex
from typing import Any

from mrtr_cli.env import Environment
from mrtr_cli.errors import UsageError
from mrtr_cli.render.sanitize import sanitize

REDACTED = "***"


def _commands_file() -> str:
    from mrtr_cli.state import state_dir  # noqa: PLC0415

    return os.path.join(state_dir(), "commands")


def _digest(argv: list[str]) -> str:
    return hashlib.sha256(shlex.join(argv).encode("utf-8", "surrogatepass")).hexdigest()


def _known() -> set[str]:
    try:
        with open(_commands_file(), encoding="ascii") as fh:
            return {line.strip() for line in fh if line.strip()}
    except (OSError, UnicodeDecodeError):
        return set()


def knows_command(argv: list[str]) -> bool:
    """True when `mrtr` has started this exact stdio command (argv) here before."""
    return _digest(argv) in _known()


def remember_command(argv: list[str]) -> None:
    """Note that the user started this stdio command (argv) (best effort: a state directory
    that cannot be written only means being asked again)."""
    digest = _digest(argv)
    if digest in _known():
        return
    path = _commands_file()
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="ascii") as fh:
            fh.write(digest + "\n")
    except OSError:
        pass


def apply_saved_target(opts: Any, env: Environment, saved: dict[str, Any], *, source: str,
                       trusted: bool = False) -> None:
    """Point the run at a saved target (`{"url"}`, `{"stdio"}` or `{"server"}`) unless the
    command line named one (`--url`, `--stdio`, `-s`).

    Args:
        opts: the run's options (`url`, `stdio`, `server` are set here).
        env: the run's environment (can a person be asked?).
        saved: the saved `Target.public()` form.
        source: what holds it, for messages (e.g. "pending document p.json").
        trusted: written by `mrtr` itself on this machine (a task record): no questions.

    Raises:
        UsageError: the saved URL lost its credentials; or a stdio command `mrtr` has not
            started here, refused by the person or with nobody to ask.
        KeyboardInterrupt: Ctrl-C at the question.
    """
    if opts.url or opts.stdio or opts.server:
        return
    url, stdio = saved.get("url"), saved.get("stdio")
    if isinstance(url, str) and REDACTED in url:
        raise UsageError(f"{source}: its URL was saved without its credentials ({sanitize(url, single_line=True)})",
                         hint="give the URL again: --url URL")
    if isinstance(stdio, str) and stdio and not trusted:
        from mrtr_cli.config.target import parse_stdio  # noqa: PLC0415

        if not knows_command(parse_stdio(stdio)):
            _consent_to_command(stdio, env, source)
    opts.url, opts.stdio = url, stdio
    opts.server = saved.get("server") if not (url or stdio) else None


def _consent_to_command(command: str, env: Environment, source: str) -> None:
    shown = sanitize(command, single_line=True)
    if env.can_prompt():
        from mrtr_cli.responders.terminal import TerminalResponder  # noqa: PLC0415

        env.err(f"mrtr: {sanitize(source, single_line=True)} starts a server with a command mrtr has not run "
                f"on this machine:\n  {shown}")
        if TerminalResponder(env).confirm("Run this command?"):
            return
        raise UsageError("not resumed: the server command was not approved")
    raise UsageError(f"{source} names a server command mrtr has not run on this machine: {shown}",
                     hint=f"run it only if you trust it, by giving it yourself: --stdio {shlex.quote(shown)}")
