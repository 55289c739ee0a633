"""Tests of mrtr_cli/protocol/features/ (tests/README.md "Layout")."""
