"""The `mrtr` command line (DESIGN.md section 1).

Parses options with click, builds an `App`, runs one command, and maps every
error to its exit code (DESIGN.md section 2) with a one-line message and never
a traceback. Every option works before or after the command (cli/placement.py).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from mrtr_cli import __version__
from mrtr_cli.cli.placement import PlacementGroup
from mrtr_cli.cli.options import global_options
from mrtr_cli.env import Environment
from mrtr_cli.errors import EraChanged, ExitStatus, InputRequired, MrtrError, UsageError

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


# ---------------------------------------------------------------------- commands
#: The module (under mrtr_cli.cli) that registers each command, in the help's order; a
#: command's module is imported when it is used (startup time), all of them for --help.
COMMAND_MODULES = {
    "call": "calls", "prompt": "calls", "read": "calls", "resume": "calls",
    "discover": "info", "tools": "info", "prompts": "info", "resources": "info", "templates": "info",
    "servers": "info", "skills": "skills", "skill": "skills", "listen": "listen", "ping": "ping",
    "task": "tasks", "batch": "batch", "completion": "completion", "complete": "complete", "help": "topics",
    "auth": "auth",
}


class _Group(PlacementGroup):
    def command_names(self, ctx: click.Context) -> list[str]:
        return list(COMMAND_MODULES)

    def list_commands(self, ctx: click.Context) -> list[str]:
        _load_commands()
        return list(self.commands)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            _load_commands(COMMAND_MODULES.get(cmd_name))
        return super().get_command(ctx, cmd_name)


def _load_commands(module: str | None = None) -> None:
    """Import the command module `module` (every one when None or unknown), which registers its commands."""
    import importlib  # noqa: PLC0415

    for name in [module] if module else dict.fromkeys(COMMAND_MODULES.values()):
        importlib.import_module(f"mrtr_cli.cli.{name}")


@click.group(cls=_Group, context_settings=CONTEXT_SETTINGS)
@global_options
@click.version_option(__version__, "-V", "--version", prog_name="mrtr", message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx: click.Context, **kw: Any) -> None:
    """mrtr: call tools, get prompts and read resources on any MCP server, answering
    the server's questions (Multi Round-Trip Requests) from a terminal or answer files.
    Options work before or after the command."""



# ---------------------------------------------------------------------- entry point
def main(argv: list[str] | None = None) -> None:
    """Run the CLI and exit with the documented code (never a traceback)."""
    import signal  # noqa: PLC0415

    # SIGTERM (a CI job cancelled, `kill`) is handled like Ctrl-C: a running task's id and the
    # command to resume are printed, a pending call is saved, the server is shut down.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    from mrtr_cli.limits import ensure_recursion_headroom  # noqa: PLC0415

    ensure_recursion_headroom()
    from mrtr_cli.env import standard_streams  # noqa: PLC0415

    env = Environment(**standard_streams())
    code = run(argv, env)
    sys.exit(code)


def run(argv: list[str] | None, env: Environment, *, again: bool = False) -> int:
    """Run the CLI in `env` and return the exit code (`again`: this is the one re-run
    after `EraChanged`).

    Output that cannot be written (stdout, `--trace`) ends the run with exit 2 whatever its
    outcome would have been (what was asked for is not delivered), except an interrupt (130).
    """
    from mrtr_cli.errors import WriteFailed  # noqa: PLC0415
    from mrtr_cli.render.errors import print_error  # noqa: PLC0415

    try:
        code = _run(argv, env, again=again)
    except WriteFailed as exc:  # the pending document of an exit 5 could not be printed
        print_error(env, exc, json_mode=env.json_mode)
        code = int(exc.exit_status)
    failure = env.write_failure
    if failure is not None and code not in (int(ExitStatus.INTERRUPTED), int(ExitStatus.USAGE)):
        print_error(env, failure, json_mode=env.json_mode)
        code = int(failure.exit_status)
    return code


def _run(argv: list[str] | None, env: Environment, *, again: bool = False) -> int:
    """`run` before write failures are accounted for."""
    from mrtr_cli.render.errors import print_error  # noqa: PLC0415

    words = list(sys.argv[1:] if argv is None else argv)
    if "--json" in words[:words.index("--")] if "--" in words else "--json" in words:
        env.json_mode = True  # also for errors click finds before any command runs
    try:
        rv = cli.main(args=argv, prog_name="mrtr", standalone_mode=False, obj=env)
        return strict_status(env, int(rv or 0) if not isinstance(rv, bool) else 0)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:  # click turns Ctrl-C into Abort
        return _interrupted(env)
    except click.ClickException as exc:
        no_args = getattr(click.exceptions, "NoArgsIsHelpError", ())
        ctx = getattr(exc, "ctx", None)
        if isinstance(exc, no_args) and ctx is not None and not env.json_mode:
            # `mrtr`, `mrtr task`, `mrtr auth` with no command: the help as help (on stderr:
            # it is not a result), then the usage status, as git does.
            env.err(ctx.get_help())
        elif isinstance(exc, no_args) and ctx is not None:
            print_error(env, UsageError(f"{ctx.command_path}: missing command",
                                        hint=f"see: {ctx.command_path} --help"), json_mode=True)
        else:
            print_error(env, _usage_error(exc), json_mode=env.json_mode)
        return int(ExitStatus.USAGE)
    except InputRequired as exc:
        from mrtr_cli.render.output import print_json  # noqa: PLC0415

        print_json(env, exc.pending)
        print_error(env, exc, json_mode=env.json_mode)
        if not env.json_mode:
            from mrtr_cli.engine.pending import pending_notes  # noqa: PLC0415

            for line in pending_notes(exc.pending, env.config_words):
                env.err(line)
        return int(exc.exit_status)
    except EraChanged as exc:
        if again or env.stdin_consumed:
            print_error(env, exc, json_mode=env.json_mode)
            return int(exc.exit_status)
        env.err(f"mrtr: note: {exc.message}; the era cache entry is dropped, trying again")
        return run(argv, env, again=True)
    except MrtrError as exc:
        print_error(env, exc, json_mode=env.json_mode)
        return strict_status(env, int(exc.exit_status))
    except KeyboardInterrupt:
        return _interrupted(env)
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        except OSError:
            pass
        return 0
    except Exception as exc:  # noqa: BLE001 - the last resort: a bug in mrtr, never a traceback
        return _internal_error(env, exc)


def _usage_error(exc: click.ClickException) -> UsageError:
    """click's usage error as mrtr's: one line (click's message, its line breaks folded)
    and a hint naming the command's help, instead of click's usage block."""
    message = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)
    hint = f"see: {ctx.command_path} --help" if ctx is not None and ctx.command_path else None
    if (isinstance(exc, click.NoSuchOption) and hint is not None
            and any(isinstance(p, click.Argument) for p in ctx.command.params)):
        # Server-chosen names (task ids, tool names) may start with `-`.
        hint += (f"; a value that starts with '-' (a task id, a name) goes after '--': "
                 f"{ctx.command_path} [OPTIONS] -- VALUE")
    return UsageError(message, hint=hint)


def strict_status(env: Environment, code: int) -> int:
    """The exit code after `--strict` (protocol/strict.py): a run that saw a violation exits 4
    where it would have exited 0, 1 (isError) or 6 (declined); other codes stand."""
    if env.strict is None:
        return code
    from mrtr_cli.protocol.strict import strict_exit  # noqa: PLC0415

    return strict_exit(code, env.strict.violations)


def _internal_error(env: Environment, exc: Exception) -> int:
    """Report an unexpected exception (a bug in mrtr) in one line and return 70.

    `MRTR_DEBUG=1` prints the traceback too.
    """
    from mrtr_cli.render.errors import print_error  # noqa: PLC0415

    if os.environ.get("MRTR_DEBUG", "") not in ("", "0"):
        import traceback  # noqa: PLC0415

        env.err("".join(traceback.format_exception(exc)).rstrip())
    err = MrtrError(f"internal error (a bug in mrtr): {type(exc).__name__}: {exc}",
                    hint="please report it; MRTR_DEBUG=1 shows the traceback")
    err.exit_status = ExitStatus.INTERNAL
    print_error(env, err, json_mode=env.json_mode)
    return int(ExitStatus.INTERNAL)


def _interrupted(env: Environment) -> int:
    """Report a Ctrl-C (one JSON line with --json) and return 130."""
    if env.json_mode:
        from mrtr_cli.errors import Interrupted  # noqa: PLC0415
        from mrtr_cli.render.errors import print_error  # noqa: PLC0415

        print_error(env, Interrupted("interrupted"), json_mode=True)
    else:
        env.err("mrtr: interrupted")
    return int(ExitStatus.INTERRUPTED)

