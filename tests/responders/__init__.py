"""Tests of mrtr_cli/responders/ (tests/README.md "Layout")."""
