"""Tests of mrtr_cli/auth/flows/ (tests/README.md "Layout")."""
