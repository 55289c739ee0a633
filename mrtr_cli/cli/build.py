"""Building the `App` of a command from its parsed options (the group's and its own).

Below every command module and cli/options.py, so that the option sets, name completion
(cli/names.py) and the commands all reach it without importing one another.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from mrtr_cli.env import Environment

if TYPE_CHECKING:  # pragma: no cover
    from mrtr_cli.app import App
    from mrtr_cli.userfiles import FileRole


def public_target_words(opts: Any) -> tuple[list[str], str]:
    """The words after `mrtr` that name the run's server as its options gave it, in their
    public form: `[--config FILE] [--expand-env] -s NAME`, `--url URL` or `--stdio CMD` (none
    when the environment names it), and what to say before a printed command: for a URL
    whose credentials are hidden, no `--url` and how to give it (`credentials.url_in_command`)."""
    if opts.server:  # with the --config that names it: a printed command must work as it is
        return [*opts.config_words(), "-s", opts.server], ""
    if opts.url:
        from mrtr_cli.credentials import url_in_command  # noqa: PLC0415 - lazy for start-up time

        return url_in_command(opts.url)
    return (["--stdio", opts.stdio] if opts.stdio else []), ""


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


def make_app(ctx: click.Context, kw: dict[str, Any], files: Sequence[tuple[str, str | None, FileRole]] = ()) -> App:
    """Build the App for a command from its options and the group's. `files`: the
    command's own files, (option, path, role), added with the files the run's options name
    (`RunOptions.input_files`), `--trace` and `--save-answers` to the run's registry
    (`userfiles.check_run_files`: none is written over another) before anything is sent.

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
    if host is None:  # a shell's lines name no target
        from mrtr_cli.render.invocation import set_run_target  # noqa: PLC0415 - lazy for start-up time

        words, lead = public_target_words(opts)
        set_run_target(None if lead or opts.headers else
                       [*words, *(["--bearer-token-env", opts.bearer_token_env] if opts.bearer_token_env else [])])
    from mrtr_cli.userfiles import check_run_files, claim_output  # noqa: PLC0415 - lazy for start-up time

    outputs: list[tuple[str, str | None, FileRole]] = [("--trace", opts.trace, "output"),
                                                       ("--save-answers", opts.save_answers, "output")]
    # Before anything is sent or typed: no output is another of the run's files (the run's
    # registry: a shell line's holds the shell's --trace and files too; every file read
    # later is checked against it as it is read)...
    inputs = [*opts.input_files(), *env.settings.oauth_files()]
    check_run_files([*((option, path, "input") for option, path in inputs), *files, *outputs])
    for option, path, _ in outputs:
        if path:
            claim_output(path, option)  # ...and each can be written
    return App(opts, env) if host is None else host.line_app(opts, env)


