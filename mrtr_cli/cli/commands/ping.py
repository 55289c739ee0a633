"""`mrtr ping`: time round trips to the server, like ping(8).

One line per reply on stdout (`--json`: one JSON object per reply), a summary on stderr.
Exit 0 when every ping was answered, 3 when the server cannot be reached, 4 when a reply is
not what a ping gets (a task, a non-empty `ping` result), 7 when a reply does not come within
--timeout (which bounds each reply once the session is open; default `DEFAULT_PING_TIMEOUT`,
like ping(8)'s -W) or the session does not open within `PING_OPEN_TIMEOUT`, 130 on Ctrl-C.
"""

from __future__ import annotations

import click

from mrtr_cli.cli.help.format import adjust_options
from mrtr_cli.cli.main import cli
from mrtr_cli.cli.options import global_options, make_app
from mrtr_cli.cli.params import MAX_SECONDS

#: Seconds `ping` waits for each reply without --timeout.
DEFAULT_PING_TIMEOUT = 10.0
#: Seconds `ping` waits for a stdio server to start and the session to open, whatever
#: --timeout says: a slow start is not a slow reply. (Over HTTP, --timeout bounds it.)
PING_OPEN_TIMEOUT = 60.0


def _finite(value: float) -> float:
    import math  # noqa: PLC0415 - lazy for start-up time

    if not math.isfinite(value):
        raise click.BadParameter(f"{value!r} is not a finite number of seconds")
    return value


@cli.command("ping")
@click.option("-c", "--count", type=click.IntRange(min=0), default=1, show_default=True,
              help="Pings to send; 0: until Ctrl-C.")
@click.option("-i", "--interval", type=click.FloatRange(min=0, max=MAX_SECONDS), default=1.0, show_default=True,
              metavar="SECONDS", callback=lambda ctx, param, value: _finite(value),
              help="Wait between pings (0: none).")
@global_options
@click.pass_context
def ping_cmd(ctx: click.Context, /, count: int, interval: float, **kw: object) -> int:
    """Check the server answers and print each round-trip time.

    Sends `ping` to a 2025-11-25 (or older) server, and `server/discover` to a 2026-07-28
    one (that revision has no ping). A reply that does not come within --timeout
    (default 10 s, counted once the session is open; opening it may take 60 s) exits 7;
    a reply that is not an empty result (or discover result) exits 4.
    """
    import itertools  # noqa: PLC0415 - lazy for start-up time
    import time  # noqa: PLC0415 - lazy for start-up time

    from mrtr_cli.protocol.deadline import Deadline  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.protocol.features.ping import ping_once  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.output import print_json  # noqa: PLC0415 - lazy for start-up time
    from mrtr_cli.render.sanitize import sanitize  # noqa: PLC0415 - lazy for start-up time

    app = make_app(ctx, kw)
    per_reply = app.opts.timeout if app.opts.timeout is not None else DEFAULT_PING_TIMEOUT
    if app.target().command:  # a stdio server's start-up is not the ping's time: it has its own bound
        app.opts.timeout = None
        app.opts.open_timeout = max(PING_OPEN_TIMEOUT, per_reply)
    else:  # over HTTP nothing starts: --timeout bounds opening the session too
        app.opts.timeout = per_reply
    times: list[float] = []
    with app.session() as session:
        try:
            for seq in itertools.count(1) if count == 0 else range(1, count + 1):
                if seq > 1 and interval > 0:
                    time.sleep(interval)
                echo = ping_once(session, Deadline(per_reply))
                times.append(echo.seconds)
                ms = round(echo.seconds * 1000, 3)
                if app.opts.json_mode:
                    print_json(app.env, {"seq": seq, "method": echo.method, "timeMs": ms, "result": echo.result})
                else:
                    name = sanitize(session.server_name, single_line=True)  # known after a reply
                    app.env.out(f"reply from {name}: {echo.method} seq={seq} time={ms:.3f} ms")
        finally:
            if times and not app.env.quiet and (count != 1):
                replies = "1 reply" if len(times) == 1 else f"{len(times)} replies"
                app.env.err(f"mrtr: {replies}, round trip min/avg/max = {min(times) * 1000:.3f}/"
                            f"{sum(times) / len(times) * 1000:.3f}/{max(times) * 1000:.3f} ms")
    return 0


adjust_options(ping_cmd, help={"timeout": f"Seconds to wait for each reply once the session is open "
                                          f"(default {DEFAULT_PING_TIMEOUT:g}; opening it may take "
                                          f"{PING_OPEN_TIMEOUT:g}; exit 7)."},
               hide=("max_timeout",))
