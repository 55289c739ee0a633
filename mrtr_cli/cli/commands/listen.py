"""`mrtr listen`: print the server's change notifications as they arrive.

2026-07-28: one `subscriptions/listen` stream; 2025-11-25: `resources/subscribe` and the
list-changed notifications. Ends on Ctrl-C (130), --timeout (7) or --count N (0), each
after closing the subscription, or when the server ends it (0).
"""

from __future__ import annotations

from typing import Any

import click

from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import global_options, make_app
from mrtr_cli.errors import UsageError


def describe_event(msg: dict[str, Any]) -> str:
    """One readable, sanitized line for a change notification (without the time)."""
    from mrtr_cli.protocol.features.listen import LISTS, UPDATED  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.sanitize import SERVER_TEXT_CHARS, one_line  # noqa: PLC0415 - lazy for start-up time

    method = msg.get("method")
    raw_params = msg.get("params")
    params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
    if method == UPDATED:
        line = f"resource updated: {one_line(params.get('uri'), SERVER_TEXT_CHARS)}"
        if isinstance(params.get("title"), str):
            line += f" ({one_line(params['title'], SERVER_TEXT_CHARS)})"
        return line
    kind = next((k for k, (_, m) in LISTS.items() if m == method), None)
    return f"{kind} list changed" if kind else one_line(method)


@cli.command("listen", short_help="Print change notifications (lists, resources) as they arrive.")
@click.option("--tools", "kinds", flag_value="tools", multiple=True, help="Tool list changes.")
@click.option("--prompts", "kinds", flag_value="prompts", multiple=True, help="Prompt list changes.")
@click.option("--resources", "kinds", flag_value="resources", multiple=True, help="Resource list changes.")
@click.option("--resource", "uris", multiple=True, metavar="URI", help="Updates of resource URI (repeatable).")
@click.option("--count", type=click.IntRange(min=1), metavar="N", help="Stop after N notifications (exit 0).")
@global_options
@click.pass_context
def listen_cmd(ctx: click.Context, /, kinds: tuple[str, ...], uris: tuple[str, ...], count: int | None,
               **kw: Any) -> int:
    """Print each change notification as it arrives: list changes (--tools, --prompts,
    --resources) and updates of the resources named with --resource URI.

    \b
    One line per notification (--json: the notification as sent, one JSON line each).
    Ends on Ctrl-C (exit 130), --timeout (exit 7) or --count N (exit 0), closing the
    subscription first; or when the server ends it (exit 0).
    """
    import time  # noqa: PLC0415 - lazy for start-up time

    from mrtr_cli.protocol.features.listen import Want, listen  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.output import print_json  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw)
    want = Want(kinds=list(dict.fromkeys(kinds)), uris=list(dict.fromkeys(uris)))
    if not want.kinds and not want.uris:
        raise UsageError("name what to listen for", hint="--tools, --prompts, --resources, --resource URI")
    env = app.env

    def on_event(msg: dict[str, Any]) -> None:
        if app.opts.json_mode:
            print_json(env, msg, one_line=True)
        else:
            env.out(f"{time.strftime('%H:%M:%S')} {describe_event(msg)}")

    def warn(line: str) -> None:
        env.err(f"mrtr: warning: {sanitize(line, single_line=True)}")

    def on_ack(msg: dict[str, Any]) -> None:
        if not env.quiet:
            env.err("mrtr: listening (Ctrl-C to stop)")

    timeout = app.opts.timeout
    with app.session() as session:
        ended = listen(session, want, on_event=on_event, count=count or 0, timeout=timeout,
                       on_ack=on_ack, warn=warn)
    if ended.reason == "closed" and not env.quiet:
        env.err(f"mrtr: the server ended the subscription after {ended.delivered} notification(s)")
    return 0
