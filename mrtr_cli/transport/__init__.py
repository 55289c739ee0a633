"""Transports move JSON-RPC messages (dicts) to and from a server; they know no MCP methods."""
