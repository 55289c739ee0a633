"""Long help through a pager at a terminal, as git and gh do (docs/commands.md, "Help").

The pager is `MRTR_PAGER`, else `PAGER`, else `platform.pager.DEFAULT_PAGER` (`less -FRX`;
Windows: `more`), its command line split as the platform splits one (`platform.shellwords`);
no shell runs it. No pager at all when stdout is not a terminal, with `--no-pager`, or when
`MRTR_PAGER` (or, without it, `PAGER`) is empty or `cat`. `LESS=FRX` is set for the pager
when `LESS` is not (as git does), so a bare `less` shows styles and quits on a short page.
A pager that cannot be started, or that fails (ends with a non-zero status of its own, as
`PAGER=false` does), means the text is printed as it is (by the caller): nothing is lost.
"""

from __future__ import annotations

import os

from mrtr_cli.env import Environment

#: Pager commands that mean "no pager".
_OFF = ("", "cat")


def pager_command(env: Environment) -> list[str] | None:
    """The pager to run for stdout in this run, as words, or None for no pager: stdout
    is not a terminal, `env.no_pager` (`--no-pager`), a line of `mrtr shell` (the shell
    owns the screen), or the variables turn it off."""
    if env.no_pager or env.line_host is not None or not env.stdout_isatty:
        return None
    for value in (env.settings.pager, os.environ.get("PAGER")):
        if value is not None:
            if value.strip() in _OFF:
                return None
            from mrtr_cli.platform.shellwords import split  # noqa: PLC0415 - lazy for start-up time

            try:
                words = split(value)
            except ValueError:
                return None
            return words or None
    from mrtr_cli.platform.pager import DEFAULT_PAGER  # noqa: PLC0415 - lazy for start-up time

    return list(DEFAULT_PAGER)


def page(env: Environment, text: str) -> bool:
    """Show `text` through the pager (`pager_command`) when there is one; return whether it
    did. False: no pager for this run, it could not be started, or it failed (a non-zero
    exit status of its own, not a signal); the caller prints `text` itself.

    Quitting `less` early is normal (status 0; what it did not read is dropped). Ctrl-C
    while the pager runs is the pager's to handle: mrtr waits for it to end.
    """
    command = pager_command(env)
    if command is None:
        return False
    import subprocess  # noqa: PLC0415 - lazy for start-up time

    child_env = dict(os.environ)
    child_env.setdefault("LESS", "FRX")
    env.stdout.flush()
    try:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, env=child_env, text=True,
                                encoding="utf-8", errors="replace")
    except OSError:
        return False
    assert proc.stdin is not None
    try:
        proc.stdin.write(text if text.endswith("\n") else text + "\n")
        proc.stdin.close()
    except OSError:  # the pager quit before reading it all
        pass
    while True:
        try:
            status = proc.wait()
        except KeyboardInterrupt:
            continue
        return status <= 0  # > 0: the pager failed (PAGER=false); < 0: ended by a signal
