"""Tests of mrtr_cli/transport/stdio/ (tests/README.md "Layout")."""
