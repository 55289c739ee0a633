"""One module per MCP host's config format (Claude Code, Codex, Gemini CLI, goose,
OpenCode, VS Code, Windsurf, Zed, and `mcpjson`: mrtr's own shape), each reading its
entries into the shared model (config/hosts/model.py) with the shared checks
(config/hosts/shapes.py). config/hosts/sources.py puts them in the search order.
"""
