"""A paste into a one-line field (responders/paste.py): the first line with text is kept,
the later lines with text are counted, line ends are read as terminals send them."""

from __future__ import annotations

import pytest

from mrtr_cli.responders.paste import left_out_notice, newlines, one_line


@pytest.mark.parametrize(("data", "kept", "left_out"), [
    ("abc", "abc", 0),
    ("abc\n", "abc", 0),  # a copied line's own end is no second line
    ("abc\r\ncall echo a=1\r\n", "abc", 1),
    ("abc\rnext\rthird", "abc", 2),
    ("\n\n  \nabc\n\nnext\n", "abc", 1),  # blank lines around are not counted
    ("", "", 0),
    ("  ", "  ", 0),
])
def test_a_paste_keeps_its_first_line_with_text(data, kept, left_out):
    assert one_line(data) == (kept, left_out)
    assert "\n" not in one_line(data)[0]


def test_line_ends_and_the_notice():
    assert newlines("a\r\nb\rc\n") == "a\nb\nc\n"
    assert left_out_notice(1).endswith("1 more line was left out")
    assert left_out_notice(3).endswith("3 more lines were left out")
