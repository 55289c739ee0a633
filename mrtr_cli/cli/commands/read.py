"""`read`: read a resource (or a filled URI template), answering the server's questions as
`call` does. Spec: resources/read, Multi Round-Trip Requests."""

from __future__ import annotations

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import answer_options, complete, global_options, make_app


@cli.command("read", short_help="Read resource URI (or a filled URI template) and print it.")
@click.argument("uri", shell_complete=complete("resources"))
@click.argument("items", nargs=-1, shell_complete=complete("template-variables"))
@global_options
@answer_options
@click.pass_context
def read_cmd(ctx: click.Context, /, uri: str, items: tuple[str, ...], **kw: object) -> int:
    """Read resource URI (resources/read), answering the server's questions as `call` does, and
    print its contents (a single binary resource to a pipe or file: its bytes). A URI template
    with NAME=VALUE items is filled first, e.g. mrtr read 'repo://{owner}/{name}' owner=alice name=wonderland."""
    from mrtr_cli.schema.arguments import parse_item  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw)
    parsed = [parse_item(text, app.read_file) for text in items]
    store = app.answer_store()
    target = app.target()
    app.spawn_early(target)
    with app.session(target) as session:
        from mrtr_cli.engine.run import run_request  # noqa: PLC0415 - loaded while the server boots
        from mrtr_cli.protocol.requests import request_params  # noqa: PLC0415 - lazy for start-up time

        method, params = request_params(app, session, "read", uri, parsed)
        return run_request(app, method, params, session=session, chain=app.chain(store), target=target)
