"""Tests of mrtr_cli/config/hosts/ (tests/README.md "Layout")."""
