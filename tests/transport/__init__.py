"""Tests of mrtr_cli/transport/ (tests/README.md "Layout")."""
