"""Tests of mrtr_cli/batch/ (tests/README.md "Layout")."""
