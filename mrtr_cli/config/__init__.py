"""Targets (which server to talk to), headers and secrets."""
