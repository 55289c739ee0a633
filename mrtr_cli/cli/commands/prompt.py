"""`prompt`: get a prompt, answering the server's questions as `call` does. Spec: prompts/get,
Multi Round-Trip Requests."""

from __future__ import annotations

import click

from mrtr_cli.cli.commands.calls import run_named
from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import answer_options, complete, global_options


@cli.command("prompt", short_help="Get prompt NAME with key=value arguments and print its messages.")
@click.argument("name", shell_complete=complete("prompts"))
@click.argument("items", nargs=-1, shell_complete=complete("prompt-arguments"))
@click.option("--args", "args_json", metavar="JSON|@FILE|-", help="All arguments as one JSON object.")
@click.option("--no-validate", is_flag=True, default=None,
              help="Send the request even if the prompt is not listed or its arguments do not match "
                   "prompts/list (to test the server's own checks).")
@global_options
@answer_options
@click.pass_context
def prompt_cmd(ctx: click.Context, /, name: str, items: tuple[str, ...], args_json: str | None, **kw: object) -> int:
    """Get prompt NAME (prompts/get) with key=value arguments (prompt arguments are strings),
    answering the server's questions as `call` does, and print its messages; arguments are
    checked against prompts/list first (unknown names, missing required ones)."""
    return run_named(ctx, kw, "prompt", name, items, args_json)
