"""Tests of mrtr_cli/protocol/lists/ (tests/README.md "Layout")."""
