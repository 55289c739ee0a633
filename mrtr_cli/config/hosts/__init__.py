"""The config files of the MCP hosts people already use, one module per host format
(Claude Code, Codex, Gemini CLI, VS Code, Windsurf, OpenCode, Zed, goose; `mcpjson` for
mrtr's own, Claude Desktop's and Cursor's shape), each mapping its host's entries to
mrtr's target and naming what it cannot use; `paths` says where each file is on Linux,
macOS and Windows, `sources` is the one table of the order they are searched in, `files`
reads them within bounds (docs/configuration.md, "Named servers"). The host formats are
the modules of `formats/`; the rest is what they share.
"""
