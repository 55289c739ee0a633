"""MCP protocol layer: JSON-RPC envelope, 2026-07-28 `_meta` and headers, sessions and eras."""
