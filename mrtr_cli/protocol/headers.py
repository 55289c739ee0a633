"""Streamable HTTP request headers for 2026-07-28 (`basic/transports/streamable-http`).

`MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name` (the tool/prompt name, the
resource URI, or a task id). Values that are not safe as plain header values are
sent as `=?base64?{base64(utf8(value))}?=`, and so is a plain value that already
looks like that encoding.
"""

from __future__ import annotations

import base64
import re
from typing import Any

_SAFE = re.compile(r"^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$")
_ENCODED = re.compile(r"^=\?base64\?.*\?=$", re.DOTALL)

#: Methods whose `Mcp-Name` header carries a param, and which param it is.
NAME_PARAM = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}


def encode_header_value(value: Any) -> str:
    """Encode a string, integer or boolean as an MCP header value.

    Strings are sent as-is when they are visible ASCII (inner spaces and tabs allowed,
    no leading/trailing whitespace) and do not already look like `=?base64?...?=`;
    anything else is base64-wrapped. Integers are decimal; booleans `true`/`false`.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if text and _SAFE.match(text) and not _ENCODED.match(text):
        return text
    return "=?base64?" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "?="


def request_headers(method: str, params: dict[str, Any] | None, protocol_version: str) -> dict[str, str]:
    """The MCP headers for one POSTed request (no Accept/Content-Type: the transport adds those)."""
    headers = {"MCP-Protocol-Version": protocol_version, "Mcp-Method": method}
    name_param = NAME_PARAM.get(method)
    if name_param and params is not None and params.get(name_param) is not None:
        headers["Mcp-Name"] = encode_header_value(params[name_param])
    return headers
