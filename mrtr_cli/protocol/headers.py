"""Streamable HTTP request headers for 2026-07-28 (`basic/transports/streamable-http`).

`MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name` (the tool/prompt name, the
resource URI, or a task id). Values that are not safe as plain header values are
sent as `=?base64?{base64(utf8(value))}?=`, and so is a plain value that already
looks like that encoding.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Mapping
from typing import Any

from mrtr_cli.errors import ProtocolError
from mrtr_cli.jsonfile import a_json_type
from mrtr_cli.render.sanitize import quote_value

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


def encode_header_value(value: object) -> str:
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
    return "=?base64?" + binascii.b2a_base64(text.encode("utf-8"), newline=False).decode("ascii") + "?="


def request_headers(method: str, params: Mapping[str, object] | None, protocol_version: str) -> dict[str, str]:
    """The MCP headers for one POSTed request (no Accept/Content-Type: the transport adds those).

    Raises:
        ProtocolError: the value `Mcp-Name` carries has no UTF-8 form (a server-minted
            value with a lone surrogate; what the user types is refused before).
    """
    headers = {"MCP-Protocol-Version": protocol_version, "Mcp-Method": method}
    name_param = NAME_PARAM.get(method)
    if name_param and params is not None and params.get(name_param) is not None:
        try:
            headers["Mcp-Name"] = encode_header_value(params[name_param])
        except UnicodeEncodeError:  # what the user types is refused before: a server's value
            raise ProtocolError(f"the {name_param} {quote_value(params[name_param])} of this {method} has no "
                                "UTF-8 form (a lone surrogate), so it cannot be sent in the Mcp-Name header") from None
    return headers


# ---------------------------------------------------------------------- x-mcp-header
# 2026-07-28 basic/transports/streamable-http, "Custom Headers" / server/tools#x-mcp-header.

X_MCP_HEADER = "x-mcp-header"
PARAM_HEADER_PREFIX = "Mcp-Param-"
#: (Pattern texts, compiled at their first use and kept by `re`'s own cache: a run that
#: does not use them does not compile them, docs/performance.md.)
_TOKEN = r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$"  # RFC 9110 section 5.6.2 token
_HEADER_TYPES = ("string", "integer", "boolean")
# Applicators whose subschemas are off the pure `properties` chain (JSON Schema 2020-12).
_SINGLE = ("items", "contains", "unevaluatedItems", "additionalProperties", "propertyNames",
           "unevaluatedProperties", "not", "if", "then", "else", "contentSchema")
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAPS = ("patternProperties", "dependentSchemas", "$defs", "definitions")


def _schema_positions(root: object) -> list[tuple[tuple[str, ...] | None, dict[str, Any]]]:
    """Every subschema of `root` with its chain of `properties` keys (None once the chain
    passes through any other applicator). `$ref` is never followed."""
    out: list[tuple[tuple[str, ...] | None, dict[str, Any]]] = []
    stack: list[tuple[tuple[str, ...] | None, Any]] = [((), root)]
    while stack:
        path, node = stack.pop()
        if not isinstance(node, dict):
            continue
        out.append((path, node))
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                stack.extend(((*path, name) if path is not None else None, sub) for name, sub in value.items())
            elif key in _SINGLE:
                stack.append((None, value))
            elif key in _LISTS and isinstance(value, list):
                stack.extend((None, sub) for sub in value)
            elif key in _MAPS and isinstance(value, dict):
                stack.extend((None, sub) for sub in value.values())
    return out


def invalid_x_mcp_header(input_schema: object) -> str | None:
    """Why a tool's `x-mcp-header` annotations are invalid, or None when they are all valid.

    A valid annotation is a non-empty RFC 9110 token (so no CR/LF), unique
    case-insensitively within the schema, on a property of type `string`,
    `integer` or `boolean` that is reachable from the root through `properties`
    keys only (not through `items`, `anyOf`/`oneOf`/`allOf`/`not`, `if`/`then`/`else`
    or `$ref`). Clients on HTTP MUST leave out tools with an invalid annotation.
    """
    seen: dict[str, str] = {}
    for path, schema in _schema_positions(input_schema):
        if X_MCP_HEADER not in schema:
            continue
        if not path:
            return f"{X_MCP_HEADER} is on a schema position not reachable through `properties` alone"
        where = ".".join(path)
        token = schema[X_MCP_HEADER]
        if not isinstance(token, str) or not re.match(_TOKEN, token):
            shown = quote_value(token) if isinstance(token, str) else a_json_type(token)
            return f"property {quote_value(where)}: {X_MCP_HEADER} {shown} is not an HTTP header-name token"
        kind = schema.get("type")
        if kind not in _HEADER_TYPES:
            shown = quote_value(kind) if kind is not None else "no type"
            return (f"property {quote_value(where)}: {X_MCP_HEADER} is only allowed on string, integer or boolean "
                    f"properties (this one is {shown})")
        if token.lower() in seen:
            return (f"{X_MCP_HEADER} {quote_value(token)} on {quote_value(where)} repeats the one on "
                    f"{quote_value(seen[token.lower()])}")
        seen[token.lower()] = where
    return None


def x_mcp_header_map(input_schema: object) -> dict[tuple[str, ...], str]:
    """`{property path: header token}` for each annotated property of a valid schema."""
    return {path: str(schema[X_MCP_HEADER]) for path, schema in _schema_positions(input_schema)
            if path and X_MCP_HEADER in schema}


def param_headers(header_map: dict[tuple[str, ...], str], arguments: object) -> dict[str, str]:
    """The `Mcp-Param-{Name}` headers for one `tools/call`'s `arguments`.

    The value at each annotated property path is encoded with `encode_header_value`;
    a missing or `null` value (or an object/array, which no valid schema allows)
    sends no header.
    """
    headers: dict[str, str] = {}
    for path, token in header_map.items():
        node: Any = arguments
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        if node is None or isinstance(node, dict | list):
            continue
        if isinstance(node, float):
            node = int(node) if node.is_integer() else repr(node)
        headers[PARAM_HEADER_PREFIX + token] = encode_header_value(node)
    return headers
