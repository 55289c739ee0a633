"""Tests of mrtr_cli/protocol/checks/ (tests/README.md "Layout")."""
