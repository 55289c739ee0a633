"""Tests of mrtr_cli/protocol/ (tests/README.md "Layout")."""
