"""Reading an HTTP reply of the MCP endpoint within bounds.

A body (or the text of an error body) is read in blocks up to the message size limit
(transport/limits.py; beyond it `MessageTooLarge`, exit 4, see docs/limits.md); a
JSON-RPC error inside an HTTP error body is taken as the response. Also the reader of
authorization servers' replies (auth/replies.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrtr_cli.render.sanitize import sanitize
from mrtr_cli.transport.base import InvalidMessage, Message, MessageTooLarge, decode_or_none
from mrtr_cli.transport.limits import max_message_size

if TYPE_CHECKING:  # pragma: no cover
    import httpx2

SESSION_HEADER = "Mcp-Session-Id"
#: The statuses of a redirect (followed by the rules of transport/http/redirects.py).
REDIRECT_STATUSES = (301, 302, 303, 307, 308)


def read_json_body(resp: httpx2.Response, *, allow_overflow: bool = False) -> Any:
    """The JSON value of a response body (opened with `stream=True`), or None when it is
    not JSON. Also the reader of authorization replies (auth/replies.py).

    Read in blocks up to the message size limit, with one copy of the body alive at a time
    beside the parsed value (the bytes are dropped once decoded).

    Raises:
        MessageTooLarge: the body (or its announced `Content-Length`) is over the limit.
        InvalidMessage: JSON that is nested too deeply or holds a non-finite number.
    """
    import json  # noqa: PLC0415 - already loaded by the JSON reader

    body = read_body(resp, max_message_size(strict=False))
    try:
        text = body.decode(json.detect_encoding(body), "surrogatepass")
    except (UnicodeDecodeError, LookupError):
        return None
    del body
    return decode_or_none(text, allow_overflow=allow_overflow)


def read_body(resp: httpx2.Response, limit: int) -> bytearray:
    """The body of `resp`, read in blocks.

    Raises:
        MessageTooLarge: it is (or announces, with `Content-Length`) more than `limit` bytes.
    """
    announced = resp.headers.get("content-length", "")
    if announced.isdigit() and int(announced) > limit:
        raise MessageTooLarge(int(announced), limit, exact=True)
    body = bytearray()
    for chunk in resp.iter_bytes():
        body += chunk
        if len(body) > limit:
            raise MessageTooLarge(len(body), limit)
    return body


def read_capped(resp: httpx2.Response, cap: int) -> bytes:
    """At most the first `cap` bytes of the body (the rest is not read)."""
    body = bytearray()
    for chunk in resp.iter_bytes():
        body += chunk[:cap - len(body)]
        if len(body) >= cap:
            break
    return bytes(body)


def error_body(resp: httpx2.Response) -> str:
    """The text of an HTTP error body (which may hold a JSON-RPC error), within the limit."""
    return bytes(read_body(resp, max_message_size(strict=False))).decode("utf-8", "replace")


def jsonrpc_error(text: str, rid: object) -> Message | None:
    """The JSON-RPC error response in an HTTP error body, if there is one."""
    try:
        msg = decode_or_none(text)
    except InvalidMessage:
        return None
    if isinstance(msg, dict) and isinstance(msg.get("error"), dict):
        msg.setdefault("id", rid)
        return msg
    return None


def body_hint(text: str) -> str | None:
    """"response body: ..." (sanitized, one line, 300 characters at most) for a hint, or None."""
    text = text.strip()
    if not text:
        return None
    return "response body: " + sanitize(text[:300], single_line=True)

