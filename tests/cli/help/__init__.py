"""Tests of mrtr_cli/cli/help/ (tests/README.md "Layout")."""
