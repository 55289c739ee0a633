"""Durations in messages (mrtr_cli/limits.py `describe_seconds`): one formatter, truthful at a sensible
precision. In-process."""

from __future__ import annotations

import math

import pytest

from mrtr_cli.limits import describe_seconds


@pytest.mark.parametrize(("seconds", "said"), [
    (0.01, "10 ms"), (0.25, "250 ms"), (0.0015, "1.5 ms"), (0.001, "1 ms"), (0.1234, "123 ms"),
    (0.99996, "1 s"), (1, "1 s"), (2.5, "2.5 s"), (1.234, "1.23 s"), (30, "30 s"), (12.34, "12.3 s"),
    (3600, "3600 s"), (86400.4, "86400 s"), (0, "0 s"), (-1, "0 s"),
    (math.inf, "for ever"), (None, "for ever"), (math.nan, "for ever"), (1e13, "for ever"),
])
def test_a_duration_is_said_truthfully_at_three_figures(seconds: float | None, said: str) -> None:
    assert describe_seconds(seconds) == said
