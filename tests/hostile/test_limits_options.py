"""`--max-message-size` and `MRTR_MAX_MESSAGE_SIZE` (docs/limits.md), and the pieces
behind the limits: sizes, Retry-After, the depth check."""

from __future__ import annotations

import shlex

import pytest

from mrtr_cli.transport.base import MessageTooDeep, decode_message
from mrtr_cli.transport.http.retry import retry_after_seconds
from mrtr_cli.transport.limits import DEFAULT_MAX_MESSAGE_SIZE, MAX_DEPTH, parse_size
from tests.conftest import PY

HUGE = ["--stdio", shlex.join([PY, "-m", "tests.hostile.server", "huge_line", "modern"]), "--protocol", "2026-07-28"]


def test_the_environment_variable_sets_the_limit(mrtr):
    r = mrtr(*HUGE, "call", "t", env={"MRTR_MAX_MESSAGE_SIZE": "2M"})
    assert r.code == 4, r.stderr
    assert "over the limit of 2097152 bytes (2 MiB)" in r.stderr
    assert "--max-message-size" in r.stderr  # the hint says how to raise it


def test_the_option_wins_over_the_environment_and_can_raise_the_limit(mrtr):
    r = mrtr(*HUGE, "--max-message-size", "8M", "call", "t", env={"MRTR_MAX_MESSAGE_SIZE": "1K"})
    assert r.code == 0, r.stderr
    assert "x" * 1000 in r.stdout


@pytest.mark.parametrize("option,env,named", [
    (["--max-message-size", "lots"], {}, "--max-message-size"),
    (["--max-message-size", "0"], {}, "--max-message-size"),
    ([], {"MRTR_MAX_MESSAGE_SIZE": "-5"}, "MRTR_MAX_MESSAGE_SIZE"),
])
def test_a_size_that_is_no_size_is_a_usage_error(mrtr, option, env, named):
    r = mrtr(*HUGE, *option, "call", "t", env=env)
    assert r.code == 2, r.stderr
    assert named in r.stderr and "Traceback" not in r.stderr


def test_sizes():
    assert parse_size("64M") == DEFAULT_MAX_MESSAGE_SIZE
    assert parse_size("512k") == 512 * 1024
    assert parse_size("1GiB") == 1 << 30
    assert parse_size("100") == 100
    for bad in ("", "1.5M", "M", "1T", "-1", "0"):
        with pytest.raises(ValueError):
            parse_size(bad)


def test_retry_after_takes_seconds_and_http_dates():
    assert retry_after_seconds("7") == 7
    assert retry_after_seconds("999999999999") == 999999999999
    assert retry_after_seconds("1" + "0" * 23) == float("inf")  # not cut to its first 12 digits
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10  # 07:28:00 + 10 s
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412490.0) == 0  # in the past: now
    for bad in (None, "", "soon", "-3", "Wed, 99 Foo 2015"):
        assert retry_after_seconds(bad) is None


def test_the_depth_limit_is_exact():
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert decode_message(ok) is not None
    with pytest.raises(MessageTooDeep):
        decode_message("[" + ok + "]")
    with pytest.raises(MessageTooDeep):
        decode_message('{"id": 3, "a": ' + "[" * 100000 + "]" * 100000 + "}")
