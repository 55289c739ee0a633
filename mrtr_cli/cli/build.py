"""Building the `App` of a command from its parsed options (the group's and its own).

Below every command module and cli/options.py, so that the option sets, name completion
(cli/names.py) and the commands all reach it without importing one another.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from mrtr_cli.env import Environment

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.app import App


def _merge(group: dict[str, Any], sub: dict[str, Any]) -> dict[str, Any]:
    """Combine group-level and command-level values of the same options."""
    out = dict(group)
    for key, value in sub.items():
        if value is None:  # most of a command's options, not given
            continue
        before = out.get(key)
        if isinstance(value, tuple):
            out[key] = tuple(before or ()) + value
        elif isinstance(value, int) and not isinstance(value, bool) and key == "verbosity":
            out[key] = (before or 0) + value
        else:
            out[key] = value
    return out


def make_app(ctx: click.Context, kw: dict[str, Any]) -> App:
    """Build the App for a command from its options and the group's.

    A line of `mrtr shell` (`env.line_host` set) gets the shell's: its options checked and
    completed with the shell line's (`line_options`: a target option is refused there, exit
    2), and an App over the shell's one session (`line_app`)."""
    from mrtr_cli.app import App, RunOptions  # noqa: PLC0415 - lazy for start-up time

    root = ctx.find_root()
    values = _merge(root.params, kw)
    env: Environment = root.obj
    host = env.line_host
    if host is not None:
        opts = host.line_options(values)
    else:
        opts = RunOptions()
        for key, value in values.items():
            if value is None or not hasattr(opts, key):
                continue
            if isinstance(value, tuple):
                value = list(value)
            setattr(opts, key, value)
    env.json_mode = opts.json_mode
    env.color = values.get("color") or env.color  # "auto" unless a shell line inherits the shell's
    env.verbosity = opts.verbosity
    env.quiet = opts.quiet
    env.no_input = opts.no_input
    env.config_words = opts.config_words()  # for the hints printed after exit 5 (cli/main.py)
    for option, path in (("--trace", opts.trace), ("--save-answers", opts.save_answers)):
        if path:
            from mrtr_cli.userfiles import claim_output  # noqa: PLC0415 - lazy for start-up time

            claim_output(path, option)  # before anything is sent or typed
    return App(opts, env) if host is None else host.line_app(opts, env)


