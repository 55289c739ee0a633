"""Help that teaches: examples first, a command's own options, then the shared
options grouped under headings, all driven by tables.

Every command's help is: usage, what it does (its docstring), two or three real
examples (`EXAMPLES`), for `call` and `prompt` the argument syntax (`ARGUMENT_SYNTAX`),
the command's own options, then the shared options (`global_options`, `answer_options`,
`task_options` in cli/options.py) under the headings of `OPTION_GROUPS`. A shared option
that the table does not name falls into "Other options", so an option added later only
needs a row here. `mrtr help TOPIC` (cli/commands/help.py) has the longer reference pages.

Only click is imported: this module is loaded with the command line itself.
"""

from __future__ import annotations

from typing import Any

import click

#: Shared option (its click `name`) -> the help heading it is listed under.
OPTION_GROUPS: dict[str, str] = {
    # Target: which server, and how to reach it.
    "url": "Target", "stdio": "Target", "server": "Target", "config": "Target", "expand_env": "Target",
    "headers": "Target", "bearer_token_env": "Target",
    # Answers: where the answers to the server's questions come from.
    "answers": "Answers", "answer_flags": "Answers", "no_input": "Answers", "save_answers": "Answers",
    "max_rounds": "Answers", "open_urls": "Answers", "roots": "Answers", "sampling_command": "Answers",
    "sampling_tools": "Answers", "sampling_timeout": "Answers",
    # Tasks: a call that becomes a task.
    "detach": "Tasks", "cancel_on_interrupt": "Tasks", "task": "Tasks", "task_ttl": "Tasks",
    # Output: what is printed, and how.
    "json_mode": "Output", "color": "Output", "quiet": "Output", "no_pager": "Output",
    # Time and protocol.
    "timeout": "Time and protocol", "max_timeout": "Time and protocol", "protocol": "Time and protocol",
    "probe_timeout": "Time and protocol",
    # Diagnostics.
    "verbosity": "Diagnostics", "trace": "Diagnostics", "log_level": "Diagnostics",
}

#: The order of the headings; "Other options" (shared options not in the table) comes last.
GROUP_ORDER = ("Target", "Answers", "Tasks", "Output", "Time and protocol", "Diagnostics", "Other options")

#: Command path ("call", "task wait") -> examples shown under its description.
EXAMPLES: dict[str, list[str]] = {
    "": [
        'mrtr --stdio "python examples/servers/work_items.py" call update_work_item workItemId=4522 state=Resolved',
        "mrtr --config examples/mcp.json -s work tools",
        "mrtr help exit-codes",
    ],
    "call": [
        "mrtr --config examples/mcp.json -s work call update_work_item workItemId=4522 state=Resolved",
        "mrtr --config examples/mcp.json -s work call update_work_item workItemId=4522 state=Resolved --answers "
        "answers.json --json",
        "mrtr --url http://127.0.0.1:8000/mcp call build target=release --detach",
    ],
    "prompt": [
        "mrtr --config examples/mcp.json -s work prompt triage workItemId=4522 -a audience=eng",
        "mrtr --config examples/mcp.json -s work prompt triage --args '{\"workItemId\": \"4522\"}' --no-input",
    ],
    "read": [
        "mrtr --config examples/mcp.json -s work read workitems://4301/export -a includeHistory=true",
        "mrtr --config examples/mcp.json -s work read workitems://4301/export --json > export.json",
    ],
    "resume": [
        "mrtr --config examples/mcp.json -s work --no-input call update_work_item workItemId=4522 state=Resolved "
        "> pending.json",
        "mrtr --config examples/mcp.json resume pending.json --answers answers.json",
        "mrtr --config examples/mcp.json resume pending.json   # at a terminal: asks the questions left",
    ],
    "shell": [
        "mrtr --config examples/mcp.json -s work shell",
        "mrtr --config examples/mcp.json -s work shell --json < commands.txt > results.jsonl",
        "printf 'call list_work_items\\ntools\\n' | mrtr --config examples/mcp.json -s work shell --fail-fast",
    ],
    "batch": [
        "mrtr --config examples/mcp.json -s work batch examples/batch/work.jsonl",
        "mrtr --config examples/mcp.json -s work batch examples/batch/work.jsonl -j 4 -o out.jsonl",
        "mrtr --config examples/mcp.json -s work batch examples/batch/work.jsonl --resume out.jsonl --retry-failed",
    ],
    "tools": ["mrtr --config examples/mcp.json -s work tools",
              "mrtr --config examples/mcp.json -s work tools update_work_item",
              "mrtr --config examples/mcp.json -s work tools --json"],
    "prompts": ["mrtr --config examples/mcp.json -s work prompts",
                "mrtr --config examples/mcp.json -s work prompts --json"],
    "resources": ["mrtr --config examples/mcp.json -s work resources",
                  "mrtr --config examples/mcp.json -s work resources --json"],
    "templates": ["mrtr --config examples/mcp.json -s work templates",
                  "mrtr --config examples/mcp.json -s work templates --json"],
    "discover": ["mrtr --config examples/mcp.json -s work discover",
                 "mrtr --url http://127.0.0.1:8000/mcp discover --json"],
    "servers": ["mrtr servers", "mrtr --config examples/mcp.json servers --json"],
    "task": ["mrtr --url http://127.0.0.1:8001/mcp call build target=nightly --detach   # prints the task id",
             "mrtr task wait 7f3a       # a unique prefix of the id is enough",
             "mrtr task list"],
    "task get": ["mrtr task get 7f3a", "mrtr --url http://127.0.0.1:8000/mcp task get 7f3a"],
    "task wait": ["mrtr task wait 7f3a", "mrtr task wait 7f3a --answers answers.json --timeout 600"],
    "task update": ["mrtr task update 7f3a --answers answers.json", "mrtr task update 7f3a -a approver=Ann"],
    "task cancel": ["mrtr task cancel 7f3a", "mrtr task cancel 7f3a && mrtr task get 7f3a   # the outcome"],
    "task list": ["mrtr task list", "mrtr task list --json", "mrtr --url http://127.0.0.1:8000/mcp task list --remote"],
    "help": ["mrtr help", "mrtr help exit-codes", "mrtr help call"],
    "skills": ['mrtr --stdio "python tests/servers/skills_server.py" skills', 'mrtr -s NAME skills --json'],
    "skill": ['mrtr --stdio "python tests/servers/skills_server.py" skill pdf-processing',
              'mrtr -s NAME skill pdf-processing --files ./pdf-processing   # every listed file, verified'],
    "listen": ["mrtr -s NAME listen --tools --prompts",
               "mrtr -s NAME listen --resource file:///project/config.json --count 1",
               "mrtr -s NAME listen --resources --json --timeout 60"],
    "auth": ["mrtr --url https://mcp.example.com/mcp auth login", "mrtr auth status", "mrtr auth logout --all"],
    "auth login": ["mrtr --url https://mcp.example.com/mcp auth login",
                   "mrtr --url https://mcp.example.com/mcp auth login --no-browser"
                   "   # over ssh: paste the address back",
                   "mrtr -s NAME auth login --client-credentials --client-id bot --client-secret-env BOT_SECRET",
                   "mrtr -s NAME auth login --assertion-file /var/run/secrets/tokens/mcp   # a workload's JWT",
                   "mrtr -s NAME auth login --id-token-file id.jwt --idp-token-endpoint https://idp.example.com/token"],
    "auth status": ["mrtr auth status", "mrtr auth status --json"],
    "auth logout": ["mrtr --url https://mcp.example.com/mcp auth logout", "mrtr auth logout --all"],
    "auth token": ['TOKEN="$(mrtr --url https://mcp.example.com/mcp auth token)"'],
    "ping": ["mrtr --config examples/mcp.json -s work ping",
             "mrtr --config examples/mcp.json -s work ping -c 3 -i 0.2"],
}

#: How `key=value` items are typed, for `call` and `prompt` (more: `mrtr help arguments`).
ARGUMENT_SYNTAX: dict[str, list[tuple[str, str]]] = {
    "call": [
        ("count=3", "typed by the tool's inputSchema: 3 is an integer if it says integer"),
        ("zip=02134", "and stays the string \"02134\" if it says string"),
        ("note:=null", "literal JSON: tags:='[\"a\",\"b\"]'  limits:='{\"cpu\": 2}'"),
        ("body=@notes.txt", "a file's text (body=@- reads stdin)"),
        ("address.city=Paris", "dotted keys build nested objects"),
        ("tags=a tags=b", "a repeated key builds an array: [\"a\", \"b\"]"),
    ],
    "prompt": [
        ("workItemId=4522", "prompt arguments are strings (4522 stays \"4522\")"),
        ("text=@notes.txt", "a file's text (text=@- reads stdin)"),
    ],
}

#: Usage lines where click's own would name an internal parameter.
USAGE: dict[str, str] = {
    "call": "[OPTIONS] TOOL [ARG]...",
    "prompt": "[OPTIONS] NAME [ARG]...",
}


def mark_shared(params: list[Any]) -> None:
    """Mark click parameters as shared options (listed under `OPTION_GROUPS` headings)."""
    for param in params:
        param.mrtr_shared = True


def adjust_options(command: click.Command, *, help: dict[str, str] | None = None,
                   hide: tuple[str, ...] = ()) -> click.Command:
    """Fit shared options to one command: `help` maps parameter names to the text true for
    that command, `hide` names shared options it does not use (still accepted, so a
    global option placed anywhere parses, but not listed in its help). Returns `command`."""
    for param in command.params:
        if param.name in (help or {}) and isinstance(param, click.Option):
            param.help = (help or {})[param.name]
        if param.name in hide and isinstance(param, click.Option):
            param.hidden = True
    return command


def _path(ctx: click.Context) -> str:
    """"call", "task wait", or "" for `mrtr` itself."""
    names = []
    while ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(reversed(names))


def _write_examples(ctx: click.Context, formatter: click.HelpFormatter) -> None:
    path = _path(ctx)
    examples = EXAMPLES.get(path)
    if examples:
        with formatter.section("Examples"):
            for line in examples:
                formatter.write(" " * formatter.current_indent + line + "\n")  # as typed: never re-wrapped
    syntax = ARGUMENT_SYNTAX.get(path)
    if syntax:
        with formatter.section("Arguments (more: mrtr help arguments)"):
            formatter.write_dl(syntax, col_max=22, col_spacing=2)


def _write_options(command: click.Command, ctx: click.Context, formatter: click.HelpFormatter) -> None:
    own: list[tuple[str, str]] = []
    groups: dict[str, list[tuple[str, str]]] = {}
    for param in command.get_params(ctx):
        if not isinstance(param, click.Option):
            continue  # arguments are in the usage line and the description
        record = param.get_help_record(ctx)
        if record is None:
            continue
        if getattr(param, "mrtr_shared", False):
            groups.setdefault(OPTION_GROUPS.get(param.name or "", "Other options"), []).append(record)
        else:
            own.append(record)
    if own:
        with formatter.section("Options"):
            formatter.write_dl(own)
    for heading in GROUP_ORDER:
        if groups.get(heading):
            with formatter.section(heading if heading == "Other options" else f"{heading} options"):
                formatter.write_dl(groups[heading])


def summary(command: click.Command) -> str:
    """A command's line in a command list: its `short_help`, else the first sentence of its
    help (up to ". " before a capital, or the end of the first paragraph), never cut short."""
    if command.short_help:
        return " ".join(command.short_help.split())
    text = (command.help or "").split("\x0c")[0]
    first = " ".join(text.strip().split("\n\n")[0].replace("\b", "").split())
    import re  # noqa: PLC0415 - lazy for start-up time

    end = re.search(r"\.\s+(?=[A-Z])", first)
    return first[:end.start() + 1] if end else first


def write_commands(formatter: click.HelpFormatter, commands: list[click.Command]) -> None:
    """The "Commands" section of a group's help: each command with its whole `summary`."""
    rows = [(command.name or "", summary(command)) for command in commands if not command.hidden]
    if rows:
        with formatter.section("Commands"):
            formatter.write_dl(rows)


class HelpCommand(click.Command):
    """A click command whose help has examples, argument syntax and grouped options."""

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """`Usage: mrtr call ...`; `Usage: call ...` inside `mrtr shell` (invocation.py)."""
        from mrtr_cli.render.invocation import command_path  # noqa: PLC0415 - lazy for start-up time

        usage = USAGE.get(_path(ctx))
        formatter.write_usage(command_path(ctx.command_path),
                              " ".join(self.collect_usage_pieces(ctx)) if usage is None else usage)

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        _write_examples(ctx, formatter)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _write_options(self, ctx, formatter)

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        return _paged_help_option(self, ctx)


class HelpGroup(click.Group):
    """A click group with the same help layout; its commands and subgroups get it too."""

    command_class = HelpCommand

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """`Usage: mrtr task ...`; `Usage: task ...` inside `mrtr shell` (invocation.py)."""
        from mrtr_cli.render.invocation import command_path  # noqa: PLC0415 - lazy for start-up time

        formatter.write_usage(command_path(ctx.command_path), " ".join(self.collect_usage_pieces(ctx)))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        listed = [self.get_command(ctx, name) for name in self.list_commands(ctx)]
        write_commands(formatter, [command for command in listed if command is not None])

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        return _paged_help_option(self, ctx)

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        _write_examples(ctx, formatter)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.format_commands(ctx, formatter)
        _write_options(self, ctx, formatter)
        if ctx.parent is None:
            from mrtr_cli.cli.help.topics import TOPICS  # noqa: PLC0415 - lazy for start-up time

            with formatter.section("Help topics (mrtr help TOPIC)"):
                formatter.write_dl([(name, summary) for name, (summary, _) in TOPICS.items()])


HelpGroup.group_class = HelpGroup  # `task` and any later subgroup


def show_help(env: Any, text: str) -> None:
    """Print a help text (a command's help) on stdout, through the pager at a terminal
    (render/pager.py); `env` is the run's `Environment` (None outside a run: no pager)."""
    if env is not None:
        from mrtr_cli.render.pager import page  # noqa: PLC0415 - lazy for start-up time

        if page(env, text):
            return
    click.echo(text.rstrip("\n"))


def show_topic(env: Any, markdown: str) -> None:
    """Print a help page (Markdown): at a terminal rendered by rich to the terminal's width
    and paged; otherwise plain text, 80 columns, no Markdown syntax (render/markdown.py)."""
    if env is not None and env.stdout_isatty:
        import shutil  # noqa: PLC0415 - lazy for start-up time

        from mrtr_cli.render.markdown import rendered  # noqa: PLC0415 - lazy for start-up time

        show_help(env, rendered(env, markdown, shutil.get_terminal_size().columns))
        return
    from mrtr_cli.render.markdown import plain_text  # noqa: PLC0415 - lazy for start-up time

    click.echo(plain_text(markdown).rstrip("\n"))


def help_callback(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """`--help`: the command's help, paged at a terminal as `mrtr help COMMAND` is; nothing
    when the flag is not set (cli/quickparse.py leaves it unprocessed then)."""
    if not value or ctx.resilient_parsing:
        return
    show_help(ctx.find_root().obj, ctx.get_help())
    ctx.exit()


def _paged_help_option(command: click.Command, ctx: click.Context) -> click.Option | None:
    option = click.Command.get_help_option(command, ctx)
    if option is not None:
        option.callback = help_callback
    return option
