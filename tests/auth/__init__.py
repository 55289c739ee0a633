"""Tests of mrtr_cli/auth/ (tests/README.md "Layout")."""
