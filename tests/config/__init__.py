"""Tests of mrtr_cli/config/ (tests/README.md "Layout")."""
