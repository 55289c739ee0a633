"""`mrtr discover` for people: era, protocol version, server info, capabilities.

Works on what both session kinds describe (`Session.describe()`): `{era,
protocolVersion, result}`, where `result` is the `server/discover` result of a
modern server or the `InitializeResult` of a legacy one, exactly as sent.
"""

from __future__ import annotations

from typing import Any

from mrtr_cli.render.sanitize import sanitize

SERVER_INFO = "io.modelcontextprotocol/serverInfo"


def capability_names(value: Any, prefix: str = "") -> list[str]:
    """Flatten a capability object into names: `{"tasks": {"requests": {"tools": {"call": {}}}}}`
    -> `["tasks.requests.tools.call"]`; `true` flags are named, `false` ones left out."""
    if not isinstance(value, dict) or not value:
        return [prefix] if prefix else []
    names: list[str] = []
    for key, sub in value.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if sub is True or (isinstance(sub, dict) and not sub) or sub is None:
            names.append(path)
        elif isinstance(sub, dict):
            names.extend(capability_names(sub, path))
    return names


def _capabilities_line(capabilities: Any) -> str:
    if not isinstance(capabilities, dict) or not capabilities:
        return "(none)"
    parts = []
    for name, value in capabilities.items():
        details = [n for n in capability_names(value)]
        parts.append(f"{name} ({', '.join(details)})" if details else str(name))
    return sanitize(", ".join(parts), single_line=True)


def discover_text(description: dict[str, Any]) -> str:
    """The text rendering of a session description (see the module docstring)."""
    era = description.get("era")
    version = description.get("protocolVersion")
    result = description.get("result") if isinstance(description.get("result"), dict) else {}
    if era == "legacy":
        info = result.get("serverInfo")
        lines = [f"era: legacy (initialize handshake, MCP {sanitize(str(version), single_line=True)})"]
    else:
        meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else {}
        info = meta.get(SERVER_INFO)
        lines = [f"era: modern (per-request metadata, MCP {sanitize(str(version), single_line=True)})"]
        versions = result.get("supportedVersions")
        if isinstance(versions, list):
            lines.append("supported versions: " + sanitize(", ".join(map(str, versions)), single_line=True))
    if isinstance(info, dict):
        name = str(info.get("name", "?"))
        title = info.get("title")
        ident = f"{name} {info.get('version', '')}".strip()
        shown = f"{title} ({ident})" if title and title != name else ident
        lines.append("server: " + sanitize(shown, single_line=True))
    lines.append("capabilities: " + _capabilities_line(result.get("capabilities")))
    instructions = result.get("instructions")
    if instructions:
        lines.append("instructions:")
        lines.extend("  " + line for line in sanitize(str(instructions)).splitlines())
    return "\n".join(lines)
