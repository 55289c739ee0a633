"""`mrtr complete`: one `completion/complete` request for scripts (2026-07-28
server/utilities/completion). Shell completion asks the same way (cli/commands/completion.py)."""

from __future__ import annotations

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import complete, declare_options, global_options, make_app
from mrtr_cli.errors import JsonRpcError, UsageError


def split_items(items: tuple[str, ...]) -> list[tuple[str, str]]:
    """`NAME=VALUE` words as (name, value) pairs, in order.

    Raises:
        UsageError: a word without `=` or with an empty name.
    """
    pairs = []
    for word in items:
        name, eq, value = word.partition("=")
        if not eq or not name:
            raise UsageError(f"{word!r}: expected NAME=VALUE (NAME= for nothing typed yet)")
        pairs.append((name, value))
    return pairs


@cli.command("complete", short_help="Ask the server to complete a prompt argument or template variable.")
@click.argument("kind", type=click.Choice(["prompt", "resource"]))
@click.argument("ref", metavar="NAME|TEMPLATE", shell_complete=complete("prompts"))
@click.argument("items", nargs=-1, required=True, metavar="ARG=VALUE [NAME=VALUE...]")
@global_options
@declare_options
@click.pass_context
def complete_cmd(ctx: click.Context, /, kind: str, ref: str, items: tuple[str, ...], **kw: object) -> int:
    """Ask the server for the values of a prompt argument or a resource template variable
    (completion/complete). The first ARG=VALUE is the one completed (VALUE: what is typed
    so far, empty for nothing); further NAME=VALUE items are the values already chosen
    (context.arguments). Prints one value per line; --json the result as sent.

    \b
    Examples:
      mrtr -s work complete prompt review language=py
      mrtr -s work complete resource 'repo://{owner}/{name}' name= owner=alice
    """
    from mrtr_cli.protocol.features.completions import complete_params, request_completion  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw)
    pairs = split_items(items)
    (argument, value), context = pairs[0], dict(pairs[1:])
    if kind == "resource":
        from mrtr_cli.protocol.lists.templates import expand, is_template  # noqa: PLC0415 - lazy for start-up time

        if not is_template(ref):
            raise UsageError(f"{ref} is not a URI template (completion asks for a template's {{variables}})")
        expand(ref, {name: "" for name in [argument, *context]})  # unknown variable names exit 2 here
    params = complete_params(kind, ref, argument, value, context)
    with app.session() as session:
        if kind == "prompt":
            from mrtr_cli.protocol.lists.catalog import check_prompt_request  # noqa: PLC0415 - lazy for start-up time

            check_prompt_request(session, app.list_cache(), ref, {argument: value, **context},
                                 deadline=app.deadline(), partial=True)
        try:
            result = request_completion(session, params, deadline=app.deadline())
        except JsonRpcError as err:
            from mrtr_cli.protocol.features.completions import offers_completions  # noqa: PLC0415 - lazy for start-up time

            if err.code == -32601 and not err.hint and offers_completions(session) is not True:
                err.hint = "the server does not offer completions (no completions capability)"
            raise
    from mrtr_cli.render.output import print_json  # noqa: PLC0415 - lazy for start-up time

    if app.opts.json_mode:
        print_json(app.env, result)
        return 0
    from mrtr_cli.render.completion import completion_lines  # noqa: PLC0415 - lazy for start-up time

    lines, note = completion_lines(result)
    for line in lines:
        app.env.out(line)
    if note:
        app.env.err(note)
    return 0
