"""Checking what a server sends before anything uses it: results against the spec's
schema (`validate`), every message under `--strict` (`strict`), and the identifiers a
server mints that mrtr writes down or prints (`identifiers`).
"""
