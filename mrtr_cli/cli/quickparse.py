"""Parsing a command line with click in less time, with click's own grammar and results.

A shell line (`mrtr shell`) is parsed by the very command a command line is, so what click
does per parse is paid on every line. Two costs are taken off, each without a second
grammar: click's option parser is built once per command (click builds it anew for each
parse, adding every option), and an option the line does not give takes the value click
gave it the last time it was not given (click works out each one again: its parameter
source, environment variable, default map, default, type and checks, about 6 us for each
of a command's forty options). Only options whose default cannot differ between two
parses are taken so: no callback, environment variable, prompt, `required`, deprecation
or callable default, and a context without a default map or an automatic environment
variable prefix; the value kept is the "nothing given" value (None, False, 0 or ()).
The `--help` option, when a line does not give it, is not processed either: its callback
(`help_callback`) does nothing for a flag that is not set, and it gives the command no value;
its parameter source is the one click records (`DEFAULT`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import click
from click.core import ParameterSource

from mrtr_cli.cli.help.format import help_callback

#: `ctx.meta` key of the option values the parser found on the line being parsed.
_FOUND = "mrtr.quickparse.found"


def _quiet_value(value: object) -> bool:
    """Whether `value` is a "nothing given" value (kept between parses: it is immutable)."""
    return value is None or value is False or value == () or (type(value) is int and value == 0)


@contextmanager
def _every_param(ctx: click.Context) -> Iterator[None]:
    """Within it, `ReusedParser.get_params` gives every parameter even while a line is
    being parsed (the options found on the line are set aside, then put back)."""
    found = ctx.meta.pop(_FOUND, None)
    try:
        yield
    finally:
        if found is not None:
            ctx.meta[_FOUND] = found


@dataclass(frozen=True)
class _Plan:
    """What a parse does for a line that gives a certain set of options (`ReusedParser._plan`).

    Attributes:
        params: the parameters click processes: those the line gives and those with no
            kept value, in the command's order.
        fill: name -> kept value, of each steady option the line does not give.
        sources: name -> `ParameterSource.DEFAULT`, for the names of `fill` and click's help
            option when the line does not give it (`ReusedParser._quiet_help`).
        learn: the steady options the line does not give that have no kept value yet.
    """

    params: tuple[click.Parameter, ...]
    fill: dict[str, Any]
    sources: dict[str, ParameterSource]
    learn: tuple[str, ...]


class _RecordingParser:
    """Click's option parser of one command, which leaves the option values it found in
    `ctx.meta` for `ReusedParser.get_params` (every other attribute is the parser's)."""

    def __init__(self, parser: Any):
        self._parser = parser

    def __getattr__(self, name: str) -> Any:
        return getattr(self._parser, name)

    def __setattr__(self, name: str, value: object) -> None:
        if name == "_parser":
            object.__setattr__(self, name, value)
        else:
            setattr(self._parser, name, value)

    def parse_args(self, args: list[str]) -> Any:
        """The parser's (opts, args, order); `opts` is also left in the context's meta."""
        opts, rest, order = self._parser.parse_args(args=args)
        self._parser.ctx.meta[_FOUND] = opts
        return opts, rest, order


class ReusedParser(click.Command):
    """A command whose option parser is built once (click builds it anew for each parse,
    adding every option: a shell line paid for its command's forty options each time),
    whose parameter list is checked once (click looks for duplicate names on every
    parse), and whose options a line does not give take the value they took the last time
    (see the module's docstring). The parser keeps no state between parses (each has its
    own parsing state) but the context it names, which is set to the current one; it is
    built again when the context settings it was built for change."""

    def make_parser(self, ctx: click.Context) -> Any:
        key = (ctx.allow_interspersed_args, ctx.ignore_unknown_options, ctx.token_normalize_func,
               tuple(ctx.help_option_names), ctx.resilient_parsing)
        cached = self.__dict__.get("_mrtr_parser")
        if cached is not None and cached[0] == key:
            parser = cached[1]
            parser.ctx = ctx
            return parser
        parser = _RecordingParser(super().make_parser(ctx))
        self._mrtr_parser = (key, parser)
        return parser

    def _steady(self) -> dict[str, click.Option]:
        """Name -> option, for the options whose "not given" value cannot change between
        parses (made once: a command's options do not change)."""
        steady = self.__dict__.get("_mrtr_steady")
        if steady is None:
            names = [p.name for p in self.params]
            steady = {p.name: p for p in self.params
                      if isinstance(p, click.Option) and p.name is not None and names.count(p.name) == 1
                      and p.expose_value and not p.is_eager and p.callback is None and p.envvar is None
                      and p.prompt is None and not p.required and not getattr(p, "deprecated", False)
                      and not callable(p.default)}
            self._mrtr_steady = steady
        return steady

    def _quiet_help(self) -> str | None:
        """The name of click's own help option (made by click once per command, click 8.1.8
        and later), which a line that does not give it need not process: an eager flag that
        gives no value, and whose callback (cli/help/format.py `help_callback`) shows the
        help only when it is set. None when click has not made it, or it is not such a flag."""
        option = self.__dict__.get("_help_option")
        if (isinstance(option, click.Option) and option.name is not None and option.is_flag
                and option.callback is help_callback
                and option.is_eager and not option.expose_value and option.envvar is None
                and option.prompt is None and not option.required):
            return option.name
        return None

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        """The parameters click processes: while a line is parsed, those it gave and those
        with no kept value; else all of them."""
        key = (tuple(ctx.help_option_names), self.add_help_option, len(self.params))
        cached = self.__dict__.get("_mrtr_params")
        if cached is None or cached[0] != key:
            cached = self._mrtr_params = (key, super().get_params(ctx))  # click's checks of them, once
            self.__dict__.pop("_mrtr_plans", None)
        params: list[click.Parameter] = cached[1]
        found = ctx.meta.get(_FOUND)
        kept: dict[str, Any] | None = self.__dict__.get("_mrtr_kept")
        if found is None or not kept or ctx.command is not self:
            return list(params)
        return list(self._plan(found, kept).params)

    def _plan(self, found: dict[str, Any], kept: dict[str, Any]) -> _Plan:
        """The `_Plan` of a line that gives the options named in `found`, made once for each
        set of names while `kept` and the parameter list stay the same."""
        plans: dict[frozenset[str], _Plan] = self.__dict__.setdefault("_mrtr_plans", {})
        given = frozenset(found)
        plan = plans.get(given)
        if plan is None:
            cached = self.__dict__.get("_mrtr_params")
            params = cached[1] if cached is not None else self.params
            steady = self._steady()
            fill = {name: kept[name] for name in steady if name not in given and name in kept}
            help_name = self._quiet_help()
            skipped = set(fill) | ({help_name} if help_name is not None and help_name not in given else set())
            plan = plans[given] = _Plan(
                params=tuple(p for p in params if p.name in given or p.name not in skipped),
                fill=fill, sources=dict.fromkeys([*fill, *(skipped - set(fill))], ParameterSource.DEFAULT),
                learn=tuple(name for name in steady if name not in given and name not in kept))
        return plan

    def get_help(self, ctx: click.Context) -> str:
        """The command's help, with every option (`--help` prints it while a line is parsed)."""
        with _every_param(ctx):
            return super().get_help(ctx)

    def get_usage(self, ctx: click.Context) -> str:
        """The command's usage line, with every option (an error met while a line is parsed
        shows it)."""
        with _every_param(ctx):
            return super().get_usage(ctx)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return self._parse(ctx, args)
        finally:
            ctx.meta.pop(_FOUND, None)  # get_params gives every parameter again

    def _parse(self, ctx: click.Context, args: list[str]) -> list[str]:
        """click's `parse_args`, with the kept values of the options the line did not give."""
        steady = self._steady()
        if (ctx.default_map is not None or ctx.auto_envvar_prefix is not None or ctx.resilient_parsing
                or not steady):
            ctx.meta.pop(_FOUND, None)
            self.__dict__.pop("_mrtr_kept", None)  # nothing is taken from it on this parse
            self.__dict__.pop("_mrtr_plans", None)
            return super().parse_args(ctx, args)
        kept: dict[str, Any] = self.__dict__.setdefault("_mrtr_kept", {})
        rest = super().parse_args(ctx, args)
        plan = self._plan(ctx.meta.get(_FOUND) or {}, kept)
        params = ctx.params
        if params.keys().isdisjoint(plan.fill):  # as a rule: click processed none of them
            params.update(plan.fill)
            # `set_parameter_source` for each of them, as one update (forty calls a line)
            ctx._parameter_source.update(plan.sources)  # noqa: SLF001 - click's own record of sources
        else:
            for name, value in plan.fill.items():
                if name not in params:
                    params[name] = value
                    ctx.set_parameter_source(name, ParameterSource.DEFAULT)
            for name in plan.sources.keys() - plan.fill.keys():  # click's help option, not given
                ctx.set_parameter_source(name, ParameterSource.DEFAULT)
        for name in plan.learn:
            if ctx.get_parameter_source(name) is ParameterSource.DEFAULT:
                value = params.get(name)
                if _quiet_value(value):
                    kept[name] = value
                    self.__dict__.pop("_mrtr_plans", None)  # made with the values kept before
        return rest
