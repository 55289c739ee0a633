"""Click parameter types: numbers of seconds, answer items.

Every option that takes a duration (`--timeout`, `--max-timeout`, `--probe-timeout`,
`--sampling-timeout`, `--task-ttl`) uses `SECONDS`: a finite number greater than 0 and
at most `MAX_SECONDS`, so `nan`, `inf`, `1e400`, `0` and `-5` are usage errors (exit 2)
instead of a crash or a wait that ends at once.
"""

from __future__ import annotations

import math

import click

#: The longest duration an option takes: about three years (a thread wait, or a `ttl` in
#: milliseconds on the wire, stays far from any overflow).
MAX_SECONDS = 100_000_000.0


# click 8.5 makes ParamType generic; subscripting it fails at run time on the older click allowed.
class Seconds(click.ParamType):  # type: ignore[type-arg]  # generic only in click 8.5+ (above)
    """A finite, positive number of seconds, at most `MAX_SECONDS` (click converts it; a
    bad value is `click.BadParameter`, exit 2)."""

    name = "seconds"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float):
            number = value
        else:
            try:
                number = float(str(value).strip())
            except ValueError:
                self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(number) or number <= 0:
            self.fail(f"{value!r}: expected a finite number of seconds greater than 0", param, ctx)
        if number > MAX_SECONDS:
            self.fail(f"{value!r}: at most {MAX_SECONDS:.0f} seconds", param, ctx)
        return number


SECONDS = Seconds()


# click 8.5 makes ParamType generic; subscripting it fails at run time on the older click allowed.
class AnswerItem(click.ParamType):  # type: ignore[type-arg]  # generic only in click 8.5+ (above)
    """One `-a` answer: `FIELD=VALUE`, `INPUTKEY.FIELD=VALUE` or `FIELD:=JSON`, checked as
    `responders.answers.parse_flag` reads it and kept as typed (a bad one is exit 2)."""

    name = "answer"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from mrtr_cli.responders.answers import parse_flag  # noqa: PLC0415 - lazy for start-up time

        parse_flag(str(value))  # UsageError: "-a VALUE: what is wrong", one line (exit 2)
        return str(value)


ANSWER_ITEM = AnswerItem()

