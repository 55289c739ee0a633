"""Tests of mrtr_cli/shell/ (tests/README.md "Layout")."""
