"""Tests of mrtr_cli/render/ (tests/README.md "Layout")."""
