"""Tests of mrtr_cli/schema/ (tests/README.md "Layout")."""
