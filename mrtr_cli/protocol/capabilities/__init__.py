"""What the client declares (`declared.py`: `io.modelcontextprotocol/clientCapabilities`
per request) and the input-request kinds behind most of it (`kinds.py`: `INPUT_KINDS`,
each kind's method, mode, capability and request schema, and `input_kind`, their one
route). 2026-07-28 basic/index, client/elicitation, client/sampling, client/roots.
"""
