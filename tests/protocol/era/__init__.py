"""Tests of mrtr_cli/protocol/era/ (tests/README.md "Layout")."""
