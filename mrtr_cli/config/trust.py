"""Which server a saved target may reach without asking (pending documents, task records).

A pending document is a file: it may come from a CI artifact or a colleague. `mrtr resume`
would start the stdio command it names (in the current directory), or send the call, and
any `-H` / `--bearer-token-env` credentials given again, to the URL it names. So:

- a stdio command (also one a `{"server": NAME}` target resolves to) runs without asking
  only when `mrtr` has started that command, in that working directory, on this machine
  before (by `--stdio` or `-s`);
- a URL gets credentials without asking only when `mrtr` has reached it here before;

remembered as SHA-256 digests in `<state dir>/known-targets`. Otherwise a person at the
terminal is shown the command (or URL) and asked; with no terminal it is refused (exit 2),
and giving `--stdio` / `--url` yourself runs it. A URL whose credentials were removed when it
was saved (`***`, see `Target.public`) must be given again with `--url`. Task records are
written by `mrtr` itself and are trusted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from mrtr_cli.credentials import REDACTED, public_url
from mrtr_cli.env import Environment
from mrtr_cli.errors import UsageError
from mrtr_cli.platform import shellwords
from mrtr_cli.render.sanitize import sanitize


def _known_file() -> str:
    from mrtr_cli.state import state_dir  # noqa: PLC0415 - lazy for start-up time

    return os.path.join(state_dir(), "known-targets")


def _digest(kind: str, value: Any) -> str:
    text = json.dumps([kind, value], ensure_ascii=True)
    from mrtr_cli.digest import sha256_hex  # noqa: PLC0415 - lazy for start-up time

    return sha256_hex(text.encode("ascii"))


def command_identity(argv: list[str], cwd: str | None) -> list[Any]:
    """What makes a stdio command the same program: its argv and the directory it runs in
    (`python server.py` is another program in another directory)."""
    return [list(argv), os.path.realpath(cwd or os.getcwd())]


def _known() -> set[str]:
    from mrtr_cli.userfiles import read_state_bytes  # noqa: PLC0415 - lazy for start-up time

    data = read_state_bytes(_known_file())  # a FIFO or a device there knows nothing, never a hang
    try:
        return {line.strip() for line in (data or b"").decode("ascii").splitlines() if line.strip()}
    except UnicodeDecodeError:
        return set()


def knows(kind: str, value: Any) -> bool:
    """True when `mrtr` has reached this target here before (`kind`: "stdio" with a
    `command_identity`, or "url" with the URL)."""
    return _digest(kind, value) in _known()


def remember(kind: str, value: Any) -> None:
    """Note a target the user reached (best effort: a state directory that cannot be
    written only means being asked again)."""
    digest = _digest(kind, value)
    if digest in _known():
        return
    path = _known_file()
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        from mrtr_cli.platform.fileopen import BINARY, NO_WAIT  # noqa: PLC0415 - lazy for start-up time

        # NO_WAIT: a FIFO nobody reads is an error at once, not a hang (a file is written as usual)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | BINARY | NO_WAIT, 0o600)
        with os.fdopen(fd, "a", encoding="ascii") as fh:
            fh.write(digest + "\n")
    except OSError:
        pass


def apply_saved_target(opts: Any, saved: Any, *, source: str, trusted: bool = False) -> None:
    """Point the run at a saved target (`{"url"}`, `{"stdio"}` or `{"server"}`) unless the
    command line named one (`--url`, `--stdio`, `-s`). An untrusted target (a pending
    document) is marked in `opts.saved_target_source`, for `check_saved_target` once it
    is resolved.

    Args:
        opts: the run's options (`url`, `stdio`, `server` are set here).
        saved: the saved `Target.public()` form.
        source: what holds it, for messages (e.g. "pending document p.json").
        trusted: written by `mrtr` itself on this machine (a task record): no questions.

    Raises:
        UsageError: not a target description, or a saved URL that lost its credentials.
    """
    if opts.url or opts.stdio or opts.server:
        return
    if not isinstance(saved, dict) or not all(isinstance(saved.get(k), (str, type(None)))
                                              for k in ("url", "stdio", "server")):
        raise UsageError(f"{source}: its target is not {{\"url\"|\"stdio\"|\"server\": text}}")
    url, stdio = saved.get("url"), saved.get("stdio")
    if url and REDACTED in url:
        from mrtr_cli.settings import current  # noqa: PLC0415 - lazy for start-up time

        given = current().url or ""
        if not given or public_url(given) != url:  # MRTR_URL: the same URL, with the credentials
            raise UsageError(f"{source}: its URL was saved without its credentials ({sanitize(url, single_line=True)})",
                             hint="give the URL again, with its credentials: set MRTR_URL to it, or add --url "
                                  "and the URL")
        url = given
    opts.url, opts.stdio = url or None, stdio or None
    opts.server = saved.get("server") if not (url or stdio) else None
    if not trusted:
        opts.saved_target_source = source


def check_saved_target(command: list[str] | None, cwd: str | None, url: str | None, *,
                       credentials: bool, env: Environment, source: str, confirm: Callable[[str], bool]) -> bool:
    """Before a target from `source` (a pending document) is reached: a stdio command must be
    known here (or approved), and a URL too when credentials would be sent to it.

    Returns:
        True when the target was checked (known, or approved now); False for a URL reached
        without credentials, which was not checked and must not become known by it.

    Raises:
        UsageError: not known, and refused by the person or with nobody to ask.
        KeyboardInterrupt: Ctrl-C at the question.

    `confirm` asks the person a yes/no question at the terminal (the application layer
    hands it over: responders/terminal.py sits above this package).
    """
    if command:
        if not knows("stdio", command_identity(command, cwd)):
            from mrtr_cli.render.invocation import quote_word  # noqa: PLC0415 - only for a command not known here

            line = shellwords.join(command)
            shown = sanitize(line, single_line=True)
            given = (f"--stdio {quote_word(line)}" if line.isprintable()
                     else "--stdio with that command (it cannot be shown as typed)")
            where = sanitize(os.path.realpath(cwd or os.getcwd()), single_line=True)
            _consent(env, confirm, f"{source} starts a server with a command mrtr has not run in {where}", shown,
                     refusal=f"{source} names a server command mrtr has not run in {where}: {shown}",
                     hint=f"run it only if you trust it, by giving it yourself: {given}")
        return True
    if not (url and credentials):
        return False
    if not knows("url", url):
        from mrtr_cli.credentials import public_url  # noqa: PLC0415 - lazy for start-up time

        shown = sanitize(public_url(url), single_line=True)
        _consent(env, confirm, f"{source} sends your credentials (-H, --bearer-token-env) to a URL mrtr has not "
                      "reached before", shown,
                 refusal=f"{source} names a URL mrtr has not reached before, and credentials were given: {shown}",
                 hint=f"send them only if you trust it, by giving it yourself: --url {shellwords.quote(shown)}")
    return True


def _consent(env: Environment, confirm: Callable[[str], bool], intro: str, shown: str, *,
             refusal: str, hint: str) -> None:
    if env.can_prompt():
        env.err(f"mrtr: {intro}:\n  {shown}")
        if confirm("Go ahead?"):
            return
        raise UsageError("not resumed: not approved")
    raise UsageError(refusal, hint=hint)


def trust_target(target: Any, opts: Any, env: Environment, confirm: Callable[[str], bool]) -> None:
    """Decide whether the run may reach `target` (a `config.target.Target`): one from a
    pending document (`opts.saved_target_source`) must be known here or approved by a person
    (`check_saved_target`); a target the user gave, or approved, is remembered, so that a
    document naming it can reach it again. `confirm`: as for `check_saved_target`.

    Raises:
        UsageError: a saved target that is neither known nor approved (exit 2).
    """
    if opts.saved_target_source and not check_saved_target(
            target.command, target.cwd, target.url, credentials=bool(opts.headers or opts.bearer_token_env),
            env=env, source=opts.saved_target_source, confirm=confirm):
        return  # reached on a document's word alone: not known by that
    if target.command:
        remember("stdio", command_identity(target.command, target.cwd))
    elif target.url:
        remember("url", target.url)
