"""Tests of mrtr_cli/tasks/ (tests/README.md "Layout")."""
