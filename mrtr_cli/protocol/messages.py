"""The JSON shapes of the 2026-07-28 protocol that mrtr builds and sends (schema.json of
2026-07-28, `basic/index` and `client/*`; tasks: the `io.modelcontextprotocol/tasks`
extension's schema).

Types only, for the signatures that build these values: modules import them under
`TYPE_CHECKING`, so this module costs nothing at start-up. Values that come *from* a
server are not described here: nobody has checked them, so the code that reads them
takes `Mapping[str, object]` and narrows each value where it reads it.

Keys with a `/` in them (the `io.modelcontextprotocol/` `_meta` keys) can only be
spelled in `TypedDict`'s functional form. Required and optional keys are split into two
classes (required base, `total=False` child) because `typing.Required` is 3.11+.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypedDict

#: A JSON object whose members this module does not fix (`JSONObject` in the schema).
JSONObject = dict[str, object]

#: A JSON-RPC request id: the schema's `RequestId` (mrtr itself only sends integers).
RequestId = int | str


class Implementation(TypedDict):
    """`Implementation`: who mrtr is (`_meta["io.modelcontextprotocol/clientInfo"]`)."""

    name: str
    version: str


_RequestMetaRequired = TypedDict("_RequestMetaRequired", {
    "io.modelcontextprotocol/protocolVersion": str,
    "io.modelcontextprotocol/clientCapabilities": JSONObject,
})


_RequestMetaOptional = TypedDict("_RequestMetaOptional", {
    "io.modelcontextprotocol/clientInfo": Implementation,
    "io.modelcontextprotocol/logLevel": str,
    "progressToken": RequestId,
}, total=False)


class RequestMeta(_RequestMetaRequired, _RequestMetaOptional, total=False):
    """`params._meta` of every 2026-07-28 request (section "Per-request `_meta`"): the
    protocol version and client capabilities are required; `clientInfo`, `logLevel` and
    `progressToken` are optional (what `Session.envelope` builds)."""


class _RequestBase(TypedDict):
    jsonrpc: Literal["2.0"]
    id: RequestId
    method: str


class JSONRPCRequest(_RequestBase, total=False):
    """`JSONRPCRequest`: `{jsonrpc: "2.0", id, method, params?}`."""

    params: Mapping[str, object]


class _NotificationBase(TypedDict):
    jsonrpc: Literal["2.0"]
    method: str


class JSONRPCNotification(_NotificationBase, total=False):
    """`JSONRPCNotification`: `{jsonrpc: "2.0", method, params?}`, no id."""

    params: Mapping[str, object]


class JSONRPCResultResponse(TypedDict):
    """A result response mrtr sends back (to a legacy server's request): `{jsonrpc, id, result}`.
    `id` is echoed as the server sent it, unchecked (hence `object`)."""

    jsonrpc: Literal["2.0"]
    id: object
    result: Mapping[str, object]


class ErrorObject(TypedDict):
    """The `error` member of a JSON-RPC error response (`data` left out: mrtr sends none)."""

    code: int
    message: str


class JSONRPCErrorResponse(TypedDict):
    """An error response mrtr sends back (to a legacy server's request); `id` as received."""

    jsonrpc: Literal["2.0"]
    id: object
    error: ErrorObject


#: A response mrtr sends back to a server's request.
JSONRPCResponse = JSONRPCResultResponse | JSONRPCErrorResponse


#: `ElicitResult.action`.
ElicitAction = Literal["accept", "decline", "cancel"]

#: A value of `ElicitResult.content`.
ElicitValue = str | int | float | bool | list[str]


class _ElicitResultBase(TypedDict):
    action: ElicitAction


class ElicitResult(_ElicitResultBase, total=False):
    """`ElicitResult`, the answer to an `elicitation/create` input request (client/elicitation):
    `content` only for `accept` in form mode. No `resultType` and no `_meta` in 2026-07-28."""

    content: dict[str, ElicitValue]


class _CreateMessageResultBase(TypedDict):
    role: Literal["user", "assistant"]
    content: JSONObject | list[JSONObject]
    model: str


class CreateMessageResult(_CreateMessageResultBase, total=False):
    """`CreateMessageResult`, the answer to a `sampling/createMessage` input request
    (client/sampling): one content block or a list of them."""

    stopReason: str


class _RootBase(TypedDict):
    uri: str


class Root(_RootBase, total=False):
    """`Root`: a `file://` URI and an optional display name (client/roots)."""

    name: str


class ListRootsResult(TypedDict):
    """`ListRootsResult`, the answer to a `roots/list` input request (client/roots)."""

    roots: list[Root]


#: `InputResponse`: what goes into `inputResponses[key]`.
InputResponse = ElicitResult | CreateMessageResult | ListRootsResult

#: `InputResponses`: the keys are the server's `inputRequests` keys. mrtr also passes on
#: values the user gave in an answer file, checked against the request's shape
#: (responders/shapes.py) rather than built as an `InputResponse`, so a value is any JSON
#: object (a read-only `Mapping`, which every `InputResponse` is).
InputResponses = Mapping[str, Mapping[str, object]]


class InputResponseRequestParams(TypedDict, total=False):
    """The MRTR retry's additions to the original request's params (basic/mrtr,
    `InputResponseRequestParams`): `inputResponses` for the keys asked, `requestState`
    echoed exactly when the server sent one and absent otherwise."""

    inputResponses: InputResponses
    requestState: str


class TaskParams(TypedDict):
    """Params of `tasks/get` and `tasks/cancel` (tasks extension): the task's id (the
    session adds `_meta`)."""

    taskId: str


class UpdateTaskParams(TaskParams):
    """Params of `tasks/update` (tasks extension): answers to the task's outstanding
    `inputRequests`, keyed as the task asked."""

    inputResponses: InputResponses
