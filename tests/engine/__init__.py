"""Tests of mrtr_cli/engine/ (tests/README.md "Layout")."""
