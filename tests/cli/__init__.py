"""Tests of mrtr_cli/cli/ (tests/README.md "Layout")."""
