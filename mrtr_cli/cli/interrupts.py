"""Ctrl-C through click: a command stopped by Ctrl-C (or by a stop signal raised as
KeyboardInterrupt, platform/signals.py) leaves click's `main` as `CommandInterrupted`, not
as click's `Abort`, for which click first writes a blank line to `sys.stderr` (to close a
terminal's `^C` echo): a stray line under mrtr's own `mrtr: cancelling ...` message, on
the real stderr even inside `mrtr shell`, and a line that is no JSON with `--json`.
cli/main.py reports it as every Ctrl-C is (exit 130).
"""

from __future__ import annotations

from typing import Any

import click


class CommandInterrupted(Exception):
    """A command stopped by Ctrl-C or a stop signal; `args` are the KeyboardInterrupt's."""


class InterruptGroup(click.Group):
    """A command group whose commands' KeyboardInterrupt leaves it as `CommandInterrupted`."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command `ctx` names (click's `Group.invoke`).

        Raises:
            CommandInterrupted: the command was stopped by Ctrl-C or a stop signal.
        """
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as stop:
            raise CommandInterrupted(*stop.args) from stop
