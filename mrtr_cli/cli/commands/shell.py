"""`mrtr shell`: one session for many commands, typed at a terminal or read from a script
(docs/shell.md; the loop, the session and the terminal are in mrtr_cli/shell/).

This module is the shell's door to the command line: it hands the shell the commands'
grammar (each command's options and subcommands, read from these click definitions:
`commands`) and `run_line`, which runs one line's words through the very same command
group as `mrtr WORDS` would (cli/main.py `run`: the same parsing, help, errors and exit
codes), with an environment whose `line_host` makes every command build its run over the
shell's session (cli/build.py `make_app`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any, cast

import click

from mrtr_cli.cli.main import COMMAND_MODULES, CONTEXT_SETTINGS, cli
from mrtr_cli.cli.options import declare_options, global_options, make_app
from mrtr_cli.cli.params import Seconds
from mrtr_cli.cli.placement import PlacementGroup, is_option
from mrtr_cli.env import Environment

#: A value metavar naming a file or directory: completion offers paths for it.
_PATH_METAVARS = ("FILE", "PATH", "DIR")


@cli.command("shell", short_help="Run many commands over one session, typed or from a script.")
@click.option("--fail-fast", is_flag=True, help="From a script: run no more lines after the first one that fails.")
@global_options
@declare_options
@click.pass_context
def shell_cmd(ctx: click.Context, /, fail_fast: bool, **kw: object) -> int:
    """Run many commands over one session: the server is started (or reached) once, and
    each line is a command as on the command line, without naming the server.

    \b
    At a terminal: line editing, history (kept without secrets), Tab completion of
    commands, options, tools, arguments and answers from the live server; forms are
    answered in place; Ctrl-C cancels the running command; exit or Ctrl-D leaves.
    From a script (stdin not a terminal): one command per line (# comments and blank
    lines skipped), in order; results on stdout; nothing is asked (exit 5 leaves a
    pending document); exit code of the first failing line (--fail-fast stops there).

    \b
    Options given here apply to every line (--json, --timeout, --root ...); those that
    name the server or set up the session (--url, --stdio, -s, -H, --protocol, --trace
    ...) are given here only. Inside: help, help COMMAND, resume (the last pending call).
    """
    from mrtr_cli.shell.host import SessionApp, ShellHost  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.shell.loop import ShellLoop  # noqa: PLC0415 - lazy for start-up time

    env: Environment = ctx.find_root().obj
    interactive = env.stdin_isatty and env.stderr_isatty
    terminal_stderr = env.stderr
    relay = None
    if interactive:
        from mrtr_cli.responders.above import Relay  # noqa: PLC0415 - lazy for start-up time

        relay = Relay(terminal_stderr)
        env.stderr = cast(IO[str], relay)  # above the prompt while a person types
    # a script redirected from a file (`mrtr shell < script.txt`) is one of the run's inputs
    plain = make_app(ctx, kw, [] if interactive else [("standard input", "-", "input")])
    app = SessionApp(plain.opts, plain.env)
    app.spawn_early(app.target())  # a stdio server boots (or the prelaunched one is adopted) while the shell loads
    host = ShellHost(app, spellings=_spellings(), interactive=interactive)
    host.grammar = commands  # which word of a line names its tool (masking its arguments)
    session = host.start()
    if interactive and not app.opts.quiet:
        info = session.server_info or {}
        from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time

        name = sanitize(str(info.get("title") or info.get("name") or host.target.label), single_line=True)
        env.err(f"mrtr: shell: {name} (MCP {session.protocol_version}); help lists the commands, "
                "Tab completes, Ctrl-D leaves")
    if relay is not None:
        from mrtr_cli.render.color import styled  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.shell.completion import Completer  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.shell.history import history_path  # noqa: PLC0415 - at a terminal only
        from mrtr_cli.shell.terminal import TerminalReader  # noqa: PLC0415 - lazy for start-up time

        completer = Completer(commands, host, help_words=_help_words)
        reader: Any = TerminalReader(
            env.stdin, terminal_stderr, relay, completer, history_path(),
            host.history_line,
            styled=styled(env, terminal_stderr))
    else:
        from mrtr_cli.shell.script import ScriptReader  # noqa: PLC0415 - lazy for start-up time

        reader = ScriptReader(env.stdin)
    return ShellLoop(host, reader, run_line, commands, _summaries, fail_fast=fail_fast).run()


class LineGroup(PlacementGroup):
    """The command group a shell line runs in: every command of `cli`, the very same
    objects (their options, help, checks and messages), without the group's own copy of
    the shared options. Those are every command's too, so an option written before the
    command name is moved after it and parsed there (cli/placement.py), as on the command
    line; the group-only `--version` means nothing in a shell. Leaving them out spares each
    line click's processing of the group's two dozen options: a third of its parsing time."""

    def command_names(self, ctx: click.Context) -> list[str]:
        return cli.command_names(ctx)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return cli.list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return cli.get_command(ctx, cmd_name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """A line that starts with its command word (`call echo ...`) gives the group
        nothing to parse: the group has no option but `--help`, and click stops at the
        first word that is not an option, so what click would leave is the command word and
        the rest, for the command's own parse. Any other line is parsed by click."""
        if (self.params or not args or is_option(args[0]) or args[0] == "--" or ctx.resilient_parsing
                or not hasattr(ctx, "_protected_args")):  # click before 8.2 keeps them elsewhere: its own parse
            return super().parse_args(ctx, args)
        ctx._protected_args, ctx.args = args[:1], args[1:]  # noqa: SLF001 - as click's Group.parse_args leaves them
        ctx._opt_prefixes.update(("-", "--"))  # noqa: SLF001 - what click's parser adds (completion reads it)
        return ctx.args


LINE_GROUP = LineGroup(name="mrtr", context_settings=CONTEXT_SETTINGS)


def run_line(words: list[str], env: Environment) -> int:
    """Run one shell line's words as `mrtr WORDS` (cli/main.py `run`, in `LINE_GROUP`) in
    `env` (a line's environment, `ShellHost.line_env`); its exit code."""
    from mrtr_cli.cli.main import run  # noqa: PLC0415 - the module is loaded: no cost
    from mrtr_cli.render.invocation import in_shell  # noqa: PLC0415 - lazy for start-up time

    with in_shell():  # a hint names a command as typed at the shell's prompt
        return run(words, env, group=LINE_GROUP)


# ---------------------------------------------------------------------- the grammar
_COMMANDS: dict[str, Any] = {}


def commands() -> dict[str, Any]:
    """Every command that runs inside the shell as `shell.grammar.CommandSpec`s, read from
    the click definitions once (loading every command module)."""
    if not _COMMANDS:
        from mrtr_cli.cli.main import _load_commands  # noqa: PLC0415 - lazy for start-up time
        from mrtr_cli.shell.words import REFUSED_COMMANDS  # noqa: PLC0415 - lazy for start-up time

        _load_commands()
        ctx = click.Context(cli, info_name="mrtr")
        specs = {name: _spec(ctx, name, cli.get_command(ctx, name)) for name in COMMAND_MODULES
                 if name not in REFUSED_COMMANDS}
        _COMMANDS.update({name: spec for name, spec in specs.items() if spec is not None})
    return _COMMANDS


def _spec(ctx: click.Context, name: str, command: click.Command | None) -> Any:
    from mrtr_cli.shell.grammar import CommandSpec, OptionSpec  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.shell.host import SESSION_OPTIONS, TARGET_OPTIONS  # noqa: PLC0415 - lazy for start-up time

    if command is None:
        return None
    options: dict[str, OptionSpec] = {"-h": OptionSpec(("-h", "--help"), False, help="show the command's help")}
    options["--help"] = options["-h"]
    for param in command.params:
        if not isinstance(param, click.Option) or param.hidden or param.name in (*TARGET_OPTIONS, *SESSION_OPTIONS):
            continue
        metavar = param.metavar or ""
        spec = OptionSpec(tuple(param.opts + param.secondary_opts), not (param.is_flag or param.count),
                          tuple(param.type.choices) if isinstance(param.type, click.Choice) else (),
                          any(w in metavar for w in _PATH_METAVARS) and "@" not in metavar,
                          (param.help or "").split(" (")[0].rstrip("."), _accepts(param, ctx))
        for spelling in spec.spellings:
            options[spelling] = spec
    subcommands: dict[str, Any] = {}
    if isinstance(command, click.Group):
        sub_ctx = click.Context(command, info_name=name, parent=ctx)
        for sub in command.list_commands(sub_ctx):
            spec = _spec(sub_ctx, sub, command.get_command(sub_ctx, sub))
            if spec is not None:
                subcommands[sub] = spec
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    takes = None if any(p.nargs < 0 for p in arguments) else sum(p.nargs for p in arguments)
    items_from = next((i for i, p in enumerate(arguments) if p.nargs < 0 and p.name == "items"), None)
    return CommandSpec(name, command.get_short_help_str(limit=70), options, subcommands, takes, items_from)


#: The parameter types whose conversion has no side effect (no file opened or looked at):
#: the shell may try a value on them (`_accepts`).
_PURE_TYPES = (click.Choice, click.types.IntParamType, click.types.FloatParamType, Seconds)


def _accepts(param: click.Option, ctx: click.Context) -> Callable[[str], bool] | None:
    """value -> whether `param` takes it, by its type's own conversion (the one click runs
    on the line: `Invalid value for ...`), for a type in `_PURE_TYPES`; None for any other."""
    if not isinstance(param.type, _PURE_TYPES) or param.is_flag or param.count:
        return None

    def accepts(value: str) -> bool:
        try:
            param.type.convert(value, param, ctx)
        except click.BadParameter:
            return False
        return True

    return accepts


def _spellings() -> dict[str, str]:
    """RunOptions field -> how the option is written (`-H/--header`)."""
    return {p.name: "/".join(p.opts) for p in cli.params if isinstance(p, click.Option) and p.name}


def _summaries() -> list[tuple[str, str]]:
    """(command, its one-line help) for the shell's `help`, from cli/help/summaries.py (no imports)."""
    from mrtr_cli.cli.help.summaries import SUMMARIES  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.shell.words import REFUSED_COMMANDS  # noqa: PLC0415 - lazy for start-up time

    return [(name, click.Command(name, help=text, short_help=short).get_short_help_str(limit=76))
            for name, (text, short) in SUMMARIES.items() if name not in REFUSED_COMMANDS]


def _help_words() -> list[str]:
    """What `help WORD` takes inside the shell: the topics, then the commands."""
    from mrtr_cli.cli.help.topics import TOPICS  # noqa: PLC0415 - lazy for start-up time

    return [*TOPICS, *commands()]
