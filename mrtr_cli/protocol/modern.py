"""What the 2026-07-28 (modern) protocol names, and what its errors mean to the client.

Its versions, the `_meta` key prefix of the per-request envelope (`io.modelcontextprotocol/`),
`clientInfo`, and the error codes only a modern server sends: `-32022`
UnsupportedProtocolVersion (basic/versioning: a version to retry with), `-32021`
MissingRequiredClientCapability (server/tools: the capability this run did not declare,
and the options that declare it), `-32020` HeaderMismatch (streamable-http).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrtr_cli import __version__
from mrtr_cli.errors import JsonRpcError, ProtocolError, explained
from mrtr_cli.protocol.capabilities.declared import capability_hints
from mrtr_cli.schema.messages import quoted_list

MODERN_VERSIONS: tuple[str, ...] = ("2026-07-28",)
LATEST_MODERN = MODERN_VERSIONS[-1]
META = "io.modelcontextprotocol/"

UNSUPPORTED_PROTOCOL_VERSION = -32022
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
HEADER_MISMATCH = -32020

if TYPE_CHECKING:
    from mrtr_cli.protocol.messages import Implementation


def client_info() -> Implementation:
    """`Implementation` for `io.modelcontextprotocol/clientInfo`: name `mrtr`, the package version."""
    return {"name": "mrtr", "version": __version__}


class MissingCapability(JsonRpcError):
    """`-32021`: the server needs a client capability this run did not declare (the
    server's message kept; mrtr's explanation and the options that declare it: `hint`)."""


def describe_capabilities(required: object) -> list[str]:
    """Flatten a `ClientCapabilities` object into dotted names, e.g. `elicitation.url`."""
    names: list[str] = []
    if not isinstance(required, dict):
        return names
    for key, value in required.items():
        if key == "extensions" and isinstance(value, dict):
            names.extend(f"extensions.{ext}" for ext in value)
        elif isinstance(value, dict) and value:
            names.extend(f"{key}.{sub}" for sub in value)
        else:
            names.append(key)
    return names


def pick_version(err: JsonRpcError, current: str) -> str:
    """The modern version to retry with after `-32022` refused `current`: the newest this
    client speaks among the error's `data.supported`.

    Raises:
        ProtocolError: the error lists no versions, or none this client speaks.
    """
    data = err.data if isinstance(err.data, dict) else {}
    supported = data.get("supported")
    if not isinstance(supported, list):
        raise explained(err, ProtocolError,
                        f"the server does not support protocol version {current} and did not "
                        "say which versions it supports")
    common = [v for v in MODERN_VERSIONS if v in supported]
    if not common:
        shown = quoted_list(supported) or "(none)"
        raise explained(err, ProtocolError,
                        f"the server does not support protocol version {current}; it supports: {shown}",
                        hint="this server speaks an older protocol era (initialize handshake)")
    return common[-1]


def missing_capability(err: JsonRpcError) -> MissingCapability:
    """`-32021` as a `MissingCapability`: the server's message kept, the capabilities it
    requires named, and the options that declare them in the hint."""
    data = err.data if isinstance(err.data, dict) else {}
    names = describe_capabilities(data.get("requiredCapabilities"))
    hints = capability_hints(names)
    what = quoted_list(names) if names else "a client capability"
    explanation = f"the server requires the client capability {what}, which this run does not declare"
    return MissingCapability(err.code or MISSING_REQUIRED_CLIENT_CAPABILITY, err.message, err.data,
                             hint="\n".join([explanation, *(["; ".join(hints)] if hints else [])]))
