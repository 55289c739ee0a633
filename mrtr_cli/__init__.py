"""mrtr: a command-line client for MCP servers, built around Multi Round-Trip Requests."""

__version__ = "0.1.0"
