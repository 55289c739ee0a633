"""Schemas: elicitation forms (requestedSchema) and tool arguments (inputSchema)."""
