"""JSON-RPC 2.0 message helpers (2026-07-28 `basic/index` "Message envelope").

Request ids are integers from one process-wide counter, so no two requests in
flight ever share an id (and every MRTR retry gets a new one).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NoReturn

from mrtr_cli.errors import JsonRpcError, ProtocolError
from mrtr_cli.jsonfile import a_json_type
from mrtr_cli.render.sanitize import quote_value

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import JSONRPCNotification, JSONRPCRequest, RequestId

_counter = itertools.count(1)


def next_id() -> int:
    """A fresh request id, unique within this process (safe from any thread: advancing an
    `itertools.count` is one indivisible step for the interpreter)."""
    return next(_counter)


def make_request(method: str, params: Mapping[str, object] | None,
                 request_id: RequestId | None = None) -> JSONRPCRequest:
    """A JSON-RPC request message `{jsonrpc, id, method, params?}` with a new id unless given."""
    msg: JSONRPCRequest = {"jsonrpc": "2.0", "id": next_id() if request_id is None else request_id, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def make_notification(method: str, params: Mapping[str, object] | None = None) -> JSONRPCNotification:
    """A JSON-RPC notification message (no id)."""
    msg: JSONRPCNotification = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def unwrap_response(response: dict[str, Any]) -> dict[str, Any]:
    """Return the `result` object of a response message.

    Raises:
        JsonRpcError: the response carries an `error` object (code, message, data kept).
        ProtocolError: the message is neither a result nor an error, or `result` is not an object.
    """
    if "error" in response:
        err = response["error"]
        if not isinstance(err, dict):
            raise ProtocolError("the server sent a malformed JSON-RPC error")
        code = err.get("code")
        message = err.get("message")
        if not isinstance(code, int):
            raise ProtocolError(f"the server sent a JSON-RPC error without an integer code: {quote_value(err)}")
        return _raise(JsonRpcError(code, str(message) if message is not None else "", err.get("data")))
    if "result" not in response:
        raise ProtocolError("the server sent a response with neither result nor error")
    result = response["result"]
    if not isinstance(result, dict):
        raise ProtocolError(f"the server's result is {a_json_type(result)}, not an object")
    return result


def _raise(exc: Exception) -> NoReturn:
    raise exc
