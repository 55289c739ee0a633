"""Identifiers a server mints that `mrtr` writes down or prints (a task id): they must be
text a file and a terminal can hold as sent.

JSON can carry a string with no UTF-8 form (a lone surrogate, `"\\ud800"`). An opaque value
the server only gets back (`requestState`, an input key, a cursor) is kept exactly and
written as its JSON escape; an identifier that names something outside the message (a
task, in record files, in the command printed to resume it, in an HTTP header) must have
a UTF-8 form, and a bounded length. See docs/limits.md ("Strings").
"""

from __future__ import annotations

from mrtr_cli.errors import ProtocolError
from mrtr_cli.render.sanitize import quote_value

#: The longest identifier accepted (characters).
MAX_IDENTIFIER_CHARS = 4096


def check_identifier(value: str, *, what: str) -> str:
    """Return `value`, a server-minted identifier, when it can be written as UTF-8 and is at
    most `MAX_IDENTIFIER_CHARS` long.

    Args:
        value: the identifier (a string).
        what: how to name it, e.g. "tasks/get result's taskId".

    Raises:
        ProtocolError: no UTF-8 form (a lone surrogate), or too long; the message quotes it
            escaped and cut (exit 4). Nothing should be recorded under it.
    """
    if len(value) > MAX_IDENTIFIER_CHARS:
        raise ProtocolError(f"the server's {what} is {len(value)} characters long, more than the limit of "
                            f"{MAX_IDENTIFIER_CHARS}: {quote_value(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ProtocolError(f"the server's {what} {quote_value(value)} has no UTF-8 form (it holds a lone "
                            "surrogate), so it cannot be recorded, printed or sent in a header; "
                            "nothing is recorded under it") from None
    return value
