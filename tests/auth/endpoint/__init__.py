"""Tests of mrtr_cli/auth/endpoint/ (tests/README.md "Layout")."""
