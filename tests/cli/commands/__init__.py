"""Tests of mrtr_cli/cli/commands/ (tests/README.md "Layout")."""
