"""Option sets shared by commands (building the `App` from them: cli/build.py).

Global options (target, output, verbosity, protocol) are accepted both before
and after the command; command-level values win, repeatable options add up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from mrtr_cli.cli.build import make_app
from mrtr_cli.cli.params import ANSWER_ITEM, SECONDS
from mrtr_cli.render.color import COLOR_MODES

__all__ = ["answer_options", "complete", "declare_options", "global_options", "make_app", "task_options"]


def complete(kind: str) -> Callable[[click.Context, click.Parameter, str], list[Any]]:
    """A click `shell_complete` callback listing `kind` ("servers", "tools", "prompts",
    "resources") from config files or the list cache (cli/names.py; imported lazily)."""

    def callback(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
        from mrtr_cli.cli.names import complete_names  # noqa: PLC0415 - lazy for start-up time

        return complete_names(kind, ctx, incomplete)

    return callback


def _options(*decorators: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """One decorator applying a set of shared options; they are marked shared, so that the
    help lists them under the headings of cli/help/format.py's OPTION_GROUPS."""
    def apply(f: object) -> Any:
        before = len(getattr(f, "__click_params__", []))
        for decorator in reversed(decorators):
            f = decorator(f)
        from mrtr_cli.cli.help.format import mark_shared  # noqa: PLC0415 - lazy for start-up time

        mark_shared(getattr(f, "__click_params__", [])[before:])
        return f

    return apply


global_options = _options(
    click.option("--url", metavar="URL",
                 help="Streamable HTTP endpoint, e.g. http://127.0.0.1:8000/mcp (or MRTR_URL)."),
    click.option("--stdio", metavar="'CMD ARGS'",
                 help="Launch a server subprocess (split like a shell; no shell runs it) (or MRTR_STDIO)."),
    click.option("-s", "--server", metavar="NAME", shell_complete=complete("servers"),
                 help="A server from mrtr's or an MCP host's config (Claude Code, Codex, VS Code...); HOST:NAME picks "
                      "a shadowed one (or MRTR_SERVER); see: mrtr servers."),
    click.option("--config", metavar="FILE", help="Config file for -s/--server (searched before the usual places)."),
    click.option("--expand-env", is_flag=True, default=None,
                 help="Expand ${VAR}, env:/file: values (each host's own form) in project-directory config files."),
    click.option("-H", "--header", "headers", multiple=True, metavar="'Name: value'",
                 help="HTTP header (repeatable); a value of env:VAR or file:PATH (also 'Bearer env:VAR') is read "
                      "from there."),
    click.option("--public-header", "public_headers", multiple=True, metavar="NAME",
                 help="Show this -H header's value in -vv and --trace (repeatable); every other -H value is a secret."),
    click.option("--bearer-token-env", metavar="VAR", help="Send 'Authorization: Bearer $VAR'."),
    click.option("--color", type=click.Choice(COLOR_MODES), default=None,
                 help="Style output: auto (on a terminal only; NO_COLOR turns it off, FORCE_COLOR on), always, never."),
    # OAuth: a client registered with the server's authorization server beforehand.
    click.option("--client-id", metavar="ID", help="OAuth: sign in as this pre-registered client (or MRTR_CLIENT_ID)."),
    click.option("--client-secret-env", metavar="VAR",
                 help="OAuth: that client's secret is in environment variable VAR."),
    click.option("--client-secret-file", metavar="PATH", help="OAuth: that client's secret is in PATH."),
    click.option("--json", "json_mode", is_flag=True, default=None,
                 help="Print results (and errors) as JSON, exactly as the server sent them."),
    click.option("--no-pager", is_flag=True, default=None,
                 help="Print help straight to the terminal, not through $PAGER (or MRTR_PAGER=cat)."),
    click.option("-v", "--verbose", "verbosity", count=True,
                 help="Trace JSON-RPC messages to stderr (-vv: HTTP headers too)."),
    click.option("-q", "--quiet", is_flag=True, default=None, help="Hide the server's stderr and notes."),
    click.option("--trace", metavar="FILE", help="Write every message as a JSON line to FILE."),
    click.option("--no-input", is_flag=True, default=None,
                 help="Never prompt; unanswerable input exits 5 with a pending document."),
    click.option("--timeout", type=SECONDS, metavar="SECONDS", help="Overall time bound (exit 7)."),
    click.option("--max-timeout", type=SECONDS, metavar="SECONDS",
                 help="Let progress notifications extend --timeout up to this."),
    click.option("--protocol", metavar="auto|2026-07-28|2025-11-25|...",
                 help="Protocol era and version: auto (probe, default), 2026-07-28 (modern), or a handshake version "
                      "such as 2025-11-25 or 2025-06-18."),
    click.option("--probe-timeout", type=SECONDS, metavar="SECONDS",
                 help="With --protocol auto: how long to wait for the server/discover probe before treating the server "
                      "as legacy (default 2; over stdio counted from when the server has read it)."),
    click.option("--log-level", metavar="LEVEL", help="Ask the server for log notifications at LEVEL and above."),
    click.option("--max-message-size", metavar="SIZE",
                 help="Largest message a server may send, in bytes or with K, M, G (default 64M; or "
                      "MRTR_MAX_MESSAGE_SIZE); a larger one exits 4."),
    click.option("--strict", is_flag=True, default=None,
                 help="Check every server message against the official JSON schema and the protocol rules; each "
                      "violation is a line on stderr, and any exits 4."),
)

_ANSWERS = click.option("--answers", multiple=True, metavar="FILE", help="Answer file (repeatable; later files win).")
# Sampling and roots sources; with --answers, what decides the declared capabilities.
_ROOT = click.option("--root", "roots", multiple=True, metavar="PATH[=NAME]",
                     help="Expose PATH (a file or directory) to the server as a root (repeatable).")
_SAMPLING_COMMAND = click.option("--sampling-command", metavar="CMD",
                                 help="Answer sampling requests with CMD: request params as JSON on its stdin, a "
                                      "CreateMessageResult as JSON on its stdout.")
_SAMPLING_TOOLS = click.option("--sampling-tools", is_flag=True, default=None,
                               help="The sampling source can use tools (declares sampling.tools).")

answer_options = _options(
    _ANSWERS,
    click.option("-a", "--answer", "answer_flags", multiple=True, metavar="KEY=VALUE", type=ANSWER_ITEM,
                 help="One answer: FIELD=VALUE or INPUTKEY.FIELD=VALUE (repeatable)."),
    click.option("--save-answers", metavar="FILE", help="Write every answer sent as an answer file."),
    click.option("--max-rounds", type=click.IntRange(min=1), metavar="N",
                 help="Cap on input_required rounds (default 10)."),
    click.option("--open-urls", is_flag=True, default=None,
                 help="Consent up front to opening URL-elicitation links in a browser."),
    _ROOT,
    _SAMPLING_COMMAND,
    _SAMPLING_TOOLS,
    click.option("--sampling-timeout", type=SECONDS, metavar="SECONDS",
                 help="Time limit for one run of --sampling-command (default 120; exit 7)."),
)

#: The options that decide which client capabilities a run declares, for the commands that
#: only list or discover (a listing sees what a call with the same options sees).
declare_options = _options(_ANSWERS, _ROOT, _SAMPLING_COMMAND, _SAMPLING_TOOLS)

# Tasks: what to do when a tools/call becomes a task.
task_options = _options(
    click.option("--detach", is_flag=True, default=None,
                 help="If the server creates a task, print it (its id; the task with --json) and exit 0."),
    click.option("--cancel-on-interrupt", is_flag=True, default=None,
                 help="Ctrl-C while waiting on a task cancels it (tasks/cancel) instead of leaving it running."),
    # 2025-11-25 servers: tasks are asked for per call.
    click.option("--task", is_flag=True, default=None,
                 help="MCP 2025-11-25 servers: run a tool whose taskSupport is optional as a task (required ones "
                      "always are)."),
    click.option("--task-ttl", type=SECONDS, metavar="SECONDS",
                 help="MCP 2025-11-25 servers: how long the server should keep the task and its result "
                      "(default 3600)."),
)
